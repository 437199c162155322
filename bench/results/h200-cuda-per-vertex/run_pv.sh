#!/bin/bash
# Device run for branch pv-cuda: GPU tests of per-vertex counting, the plain CUDA tests, and
# per-vertex on/off timing on bench_cuda.sh's graphs. Everything it needs is in this folder.
set -uo pipefail
D=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GRAPHS=${GRAPHS:-"k18 k20 u20 g128 k23 u24 k24"}
WORK=/tmp/tb
mkdir -p $WORK $OUT/bench
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
# 1. The bench graphs, on the CPU, while the GPU tests run (same files bench_cuda.sh makes).
(
  for g in $GRAPHS; do
    case $g in
      k*) a="--kind kronecker --scale ${g#k}" ;;
      u20) a="--kind uniform --vertices 1048576 --edges 16777216" ;;
      u24) a="--kind uniform --vertices 16777216 --edges 268435456" ;;
      g*) a="--kind grid3d --grid-side ${g#g}" ;;
    esac
    $D/bin/tricount-generate $a --output $WORK/$g.bin64 >> $OUT/prep.log 2>&1
    $D/bin/tricount-partition -i $WORK/$g.bin64 -o $WORK/$g.h5 --parts 1 --order degree --memory-budget 100G -q >> $OUT/prep.log 2>&1
    echo "$g ready at $(( $(date +%s) - t0 )) s" >> $OUT/prep.log
  done
) &
prep=$!
# 2. GPU tests: per-vertex, then the plain backend's own.
timeout 200 $D/bin/test_cuda_per_vertex --gtest_color=no > $OUT/test_cuda_per_vertex.log 2>&1; echo "test_cuda_per_vertex rc $?"
grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|FAILED|Failure' $OUT/test_cuda_per_vertex.log | head -40
timeout 200 $D/bin/test_cuda_backend --gtest_color=no > $OUT/test_cuda_backend.log 2>&1; echo "test_cuda_backend rc $?"
grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure' $OUT/test_cuda_backend.log | head -20
echo "tests done at $(( $(date +%s) - t0 )) s"
wait $prep
cat $OUT/prep.log | grep ready
# 3. Per-vertex off / on.
NO_CLI=1 PER_VERTEX=only REPS=${REPS:-5} WORK=$WORK OUT=$OUT/bench GRAPHS="$GRAPHS" bash $D/bench_cuda.sh $D 2>&1 | tee $OUT/bench_summary.txt
echo "all done at $(( $(date +%s) - t0 )) s"
