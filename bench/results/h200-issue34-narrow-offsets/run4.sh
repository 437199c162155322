#!/usr/bin/env bash
# The GPU tests of what ships (part 2): the per-vertex and per-edge binaries.
set -u
mkdir -p /tmp/new /tmp/d
tar xf build-pack/new.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_per_vertex_cuda test_per_edge_cuda test_per_edge_snap_cuda test_cuda_per_edge; do
    s=$(date +%s); echo "== $t"; timeout 250 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run4_gputests.log
