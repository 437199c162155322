#!/usr/bin/env bash
# Hub counters with the per-vertex CTA table 512 words smaller (hub2: run4 found the CTA rows
# slower even where the CTA kernel adds nothing to its hub counters: its 2 KiB more shared
# memory cost a CTA per SM beside a 64 KiB table). cuda_bench per-vertex (median of 5) against
# main 297b463's kernels (new), alternating, two rounds on the Kronecker graphs, one on the
# others; the per-step profile of Kronecker 18 and 20; then every GPU test binary of hub2 in
# four groups.
set -u
mkdir -p /tmp/new /tmp/hub2 /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/hub2.txz -C /tmp/hub2 && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/hub2:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run5_host.txt
W=/tmp/w P=/tmp/hub2/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20 [k18]=kronecker:18 [k23]=kronecker:23 [g128]=grid3d:128)
for wave in "k18 k20 u20 g128" "u24 k24 k23"; do for g in $wave; do
  [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 5 &
done; wait; done
ab() { for b in new hub2; do
  echo "r$1 $2 $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 90 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1 | grep -o '"triangles.*"ratio": [0-9.]*')"
done; }
{ for g in k18 k20 k23 k24 g128 u20 u24; do ab 1 $g; done; for g in k18 k20 k23 k24; do ab 2 $g; done; } 2>&1 | tee $OUT/run5_ab.txt
for g in k18 k20; do for b in new hub2; do
  echo "$g $b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | grep 'cuda profile' | tail -1 | grep -o 'u: CTA rows [0-9.]* ms.*v: warp rows [0-9.]* ms')"
done; done 2>&1 | tee $OUT/run5_profile.txt
cp /tmp/hub2/libboost_program_options.so.1.74.0 /tmp/hub2/bin/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/hub2/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs LD_LIBRARY_PATH=/tmp/hub2
group() { cd /tmp/hub2/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 280 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_cuda_per_edge > $OUT/run5_tests1.log 2>&1 &
group test_count_parts_cuda test_per_edge_snap_cuda test_cuda_prefetch > $OUT/run5_tests2.log 2>&1 &
group test_snap_graphs_cuda test_per_vertex_cuda > $OUT/run5_tests3.log 2>&1 &
group test_static_schedule_cuda test_cuda_backend test_cuda_per_vertex test_per_edge_cuda > $OUT/run5_tests4.log 2>&1 &
wait
cat $OUT/run5_tests*.log | grep -E "==|PASSED|FAILED|\("
