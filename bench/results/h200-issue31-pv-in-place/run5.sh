#!/usr/bin/env bash
# The per-vertex and per-edge GPU test binaries of main d7a55f0 (run1 ran them with a
# variant tricount-count), each with a time limit.
set -u
mkdir -p /tmp/new /tmp/d && tar xf build-pack/new.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex test_cuda_per_edge; do
    s=$(date +%s); echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/gputests.log
