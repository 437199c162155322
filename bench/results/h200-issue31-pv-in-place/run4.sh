#!/usr/bin/env bash
# Every GPU test binary of main d7a55f0 (the per-edge counting kernels of be9c1d9-4e25d08 and
# the review's added paths), each with a time limit.
set -u
mkdir -p /tmp/new /tmp/d && tar xf build-pack/new.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_backend test_cuda_prefetch test_count_parts_cuda test_static_schedule_cuda test_per_edge_snap_cuda test_snap_graphs_cuda; do
    s=$(date +%s); echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/gputests.log
