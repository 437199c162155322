#!/usr/bin/env bash
# Every GPU test binary of this commit's build, four groups at once.
set -u
mkdir -p /tmp/fin /tmp/d
[ -x /tmp/fin/tests/cuda_bench ] || tar xJf build-pack/fin.txz -C /tmp/fin
tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/fin/bin:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
export TRICOUNT_BIN_DIR=/tmp/fin/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/fin/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 400 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_cuda_backend test_cuda_per_vertex test_cuda_per_edge test_cuda_prefetch > $OUT/run4_tests1.log 2>&1 &
group test_snap_graphs_cuda > $OUT/run4_tests2.log 2>&1 &
group test_count_parts_cuda test_per_edge_cuda > $OUT/run4_tests3.log 2>&1 &
group test_static_schedule_cuda test_per_vertex_cuda test_per_edge_snap_cuda > $OUT/run4_tests4.log 2>&1 &
wait
cat $OUT/run4_tests*.log | grep -E "==|PASSED|FAILED|\("
