#!/usr/bin/env bash
# What ships (final.txz): as run3's fin, but T's scatter a kernel per mode (run3's one kernel
# for both modes took 64 registers where the atomics' kernel had 56, and Kronecker 23 and 24,
# whose T does not fit the L2, counted 1.2% and 0.7% slower). cuda_bench per-vertex against
# base (main 57d614e's kernels) on the five graphs whose kernels changed, alternating, two
# rounds; one profiled Kronecker 18 count; then every GPU test binary, in four groups.
set -u
mkdir -p /tmp/final /tmp/base /tmp/w /tmp/d
tar xJf build-pack/final.txz -C /tmp/final && tar xJf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/final:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run5_host.txt
W=/tmp/w P=/tmp/final/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [g128]=grid3d:128)
for g in "${!spec[@]}"; do [ -e $W/$g.h5 ] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
bench() {  # binary graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 $1 per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 g128 k20 k23 k24; do
  echo "base r$r $g $(bench /tmp/base/cuda_bench $g)"
  echo "final r$r $g $(bench /tmp/final/tests/cuda_bench $g)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run5_ab.txt
echo "$(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 60 /tmp/final/tests/cuda_bench count 2>&1 | grep 'cuda profile' | tail -1)" > $OUT/run5_profile.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/final/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/final/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_prefetch test_per_edge_snap_cuda > $OUT/run5_tests1.log 2>&1 &
group test_cuda_backend test_static_schedule_cuda test_cuda_per_vertex > $OUT/run5_tests2.log 2>&1 &
group test_count_parts_cuda > $OUT/run5_tests3.log 2>&1 &
group test_cuda_per_edge test_per_vertex_cuda test_per_edge_cuda > $OUT/run5_tests4.log 2>&1 &
wait
cat $OUT/run5_tests*.log | grep -E "==|PASSED|FAILED|\("
