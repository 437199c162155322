#!/usr/bin/env bash
# Places' own kernel variant (kDefer == kDeferPlaces, commit 42aabaa; the patch lay in ../h200-issue34-t-ranks/ before it,
# plus sum_t_rows): cuda_bench per-vertex against base (main 57d614e's kernels, before T's places)
# on the five graphs that defer edges, alternating, two rounds; profiled Kronecker 18 counts
# (plain and per-vertex); then every GPU test binary, in four groups.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [g128]=grid3d:128)
for g in "${!spec[@]}"; do [ -e $W/$g.h5 ] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
bench() {  # binary graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 $1 per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 g128 k20 k23 k24; do
  echo "base r$r $g $(bench /tmp/base/cuda_bench $g)"
  echo "new r$r $g $(bench /tmp/new/tests/cuda_bench $g)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_ab.txt
for g in k18 k20; do
  TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/new/tests/cuda_bench per-vertex 2>&1 | grep 'cuda profile' | tail -2 | sed "s/^/$g /"
done > $OUT/run1_profile.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_prefetch test_per_edge_snap_cuda > $OUT/run1_tests1.log 2>&1 &
group test_cuda_backend test_static_schedule_cuda test_cuda_per_vertex > $OUT/run1_tests2.log 2>&1 &
group test_count_parts_cuda > $OUT/run1_tests3.log 2>&1 &
group test_cuda_per_edge test_per_vertex_cuda test_per_edge_cuda > $OUT/run1_tests4.log 2>&1 &
wait
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
