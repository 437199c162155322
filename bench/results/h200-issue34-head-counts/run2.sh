#!/usr/bin/env bash
# The per-vertex and per-edge GPU tests of main with the head-count kernels removed again and
# one forced path added (warp rows with colliding tables: keys at and below the bucket heads).
set -u
mkdir -p /tmp/t && tar xJf build-pack/tests.txz -C /tmp/t
export LD_LIBRARY_PATH=/tmp/t:${LD_LIBRARY_PATH:-}
{ nvidia-smi -L; echo "commit $(git rev-parse --short HEAD) + tests/worker/cuda_paths.hpp"; } > $OUT/run2_host.txt 2>&1
( cd /tmp/t/tests && for t in test_cuda_per_vertex test_cuda_per_edge; do
    s=$(date +%s); echo "== $t"; timeout 280 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran|colliding" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run2_gputests.log
