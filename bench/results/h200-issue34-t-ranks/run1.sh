#!/usr/bin/env bash
# T placed without atomics (the u side keeps each deferred edge's place among v's; the
# scatter adds it to v's row start) and thread rows walking their 2-hop lists in rounds
# (new, branch t-ranks) against main 57d614e's kernels (base: f5cc8d2's cuda_bench, the same
# GPU code): cuda_bench per-vertex (plain and per-vertex medians of 5), alternating, two
# rounds; late: new with each place stored after the chunk's probes (more spills); w4: new
# with a thread-row kernel for rows of at most 4 entries (40 registers, not 64); one
# profiled count of Kronecker 18 each; then every GPU test binary of the w4 tree.
set -u
mkdir -p /tmp/new /tmp/base /tmp/late /tmp/w /tmp/d && tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base
mkdir -p /tmp/w4 && tar xJf build-pack/late.txz -C /tmp/late && tar xJf build-pack/w4.txz -C /tmp/w4
tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
s=$(date +%s)
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [g128]=grid3d:128)
for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
bench() {  # binary graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 $1 per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 g128 k20 k23 k24; do
  echo "base r$r $g $(bench /tmp/base/cuda_bench $g)"
  echo "new r$r $g $(bench /tmp/new/tests/cuda_bench $g)"
  case $g in k*) echo "late r$r $g $(bench /tmp/late/cuda_bench $g)";; *) echo "w4 r$r $g $(bench /tmp/w4/cuda_bench $g)";; esac
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_ab.txt
for b in /tmp/base/cuda_bench /tmp/new/tests/cuda_bench /tmp/late/cuda_bench; do
  echo "$b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 60 $b count 2>&1 | grep 'cuda profile' | tail -1)"
done > $OUT/run1_profile.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 330 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_backend test_cuda_prefetch > $OUT/run1_tests1.log 2>&1 &
group test_per_edge_snap_cuda test_static_schedule_cuda test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex > $OUT/run1_tests2.log 2>&1 &
group test_count_parts_cuda test_cuda_per_edge > $OUT/run1_tests3.log 2>&1 &
wait
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
