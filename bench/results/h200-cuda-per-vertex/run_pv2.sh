#!/bin/bash
# Second, lean device run for branch pv-cuda: the per-vertex GPU tests with batched tally
# inserts, per-vertex off/on on k18 and k20, and a per-step profile of both.
set -uo pipefail
D=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
WORK=/tmp/tb
mkdir -p $WORK $OUT/bench
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
(
  for g in k18 k20; do
    $D/bin/tricount-generate --kind kronecker --scale ${g#k} --output $WORK/$g.bin64 >> $OUT/prep.log 2>&1
    $D/bin/tricount-partition -i $WORK/$g.bin64 -o $WORK/$g.h5 --parts 1 --order degree --memory-budget 100G -q >> $OUT/prep.log 2>&1
  done
) &
prep=$!
timeout 100 $D/bin/test_cuda_per_vertex --gtest_color=no > $OUT/test_cuda_per_vertex.log 2>&1; echo "test_cuda_per_vertex rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[       OK|Failure' $OUT/test_cuda_per_vertex.log | head -20
wait $prep
NO_CLI=1 PER_VERTEX=only REPS=5 WORK=$WORK OUT=$OUT/bench GRAPHS="k18 k20" bash $D/bench_cuda.sh $D 2>&1 | tee $OUT/bench_summary.txt
for g in k18 k20; do
  TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$WORK/$g.h5 TRICOUNT_BENCH_TUNING=profile=1 timeout 60 $D/bin/test_cuda_per_vertex \
    --gtest_also_run_disabled_tests --gtest_filter='CudaPerVertex.DISABLED_Benchmark' 2>&1 | grep -E 'cuda profile|BENCHPV' | sed "s/^/$g /" | tee -a $OUT/profile.txt
done
echo "all done at $(( $(date +%s) - t0 )) s"
