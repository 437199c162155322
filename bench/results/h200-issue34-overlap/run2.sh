#!/usr/bin/env bash
# Per-vertex counting with class 0's host array made and pinned once the first task's
# launches are queued (new) against main ecaf729, where it starts with per-vertex counting
# (base): cuda_bench per-vertex (plain and per-vertex medians of 5), the two binaries
# alternating, two rounds; then every GPU test binary on the session's final tree.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d && tar xJf build-pack/final.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base
tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run2_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
s=$(date +%s)
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [g128]=grid3d:128)
for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run2_host.txt
bench() {  # binary graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 $1 per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 g128 u20 k20 k24; do
  echo "base r$r $g $(bench /tmp/base/cuda_bench $g)"
  echo "new r$r $g $(bench /tmp/new/tests/cuda_bench $g)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run2_ab.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 380 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_backend test_cuda_prefetch > $OUT/run2_tests1.log 2>&1 &
group test_per_edge_snap_cuda test_static_schedule_cuda test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex > $OUT/run2_tests2.log 2>&1 &
group test_count_parts_cuda test_cuda_per_edge > $OUT/run2_tests3.log 2>&1 &
wait
cat $OUT/run2_tests*.log | grep -E "==|PASSED|FAILED|\("
