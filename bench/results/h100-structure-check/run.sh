#!/usr/bin/env bash
# Device run: GPU tests of the merged tree, then the CUDA count of bench_cuda.sh's seven graphs,
# base (a36e466) and new alternately, on the same machine.
set -u
R=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=$R/build-dev:${LD_LIBRARY_PATH:-}
export TRICOUNT_BIN_DIR=$R/build-dev/bin
nvidia-smi -L > $OUT/gpu.txt; nproc >> $OUT/gpu.txt
( cd $R/build-dev/bin
  for t in test_cuda_backend test_cuda_per_vertex test_per_vertex_cuda test_static_schedule_cuda; do
    echo "== $t"; timeout 240 ./$t 2>&1 | tail -25
  done ) > $OUT/gputests.log 2>&1
grep -E "^== |PASSED|FAILED|SKIPPED" $OUT/gputests.log | head -40
W=/tmp/tb
WORK=$W OUT=/tmp/bo/base1 NO_CLI=1 REPS=10 bash bench/bench_cuda.sh build-base > $OUT/base1.txt 2>&1
WORK=$W OUT=/tmp/bo/new1 REPS=10 bash bench/bench_cuda.sh build-dev > $OUT/new1.txt 2>&1
WORK=$W OUT=/tmp/bo/base2 NO_CLI=1 REPS=10 bash bench/bench_cuda.sh build-base > $OUT/base2.txt 2>&1
WORK=$W OUT=/tmp/bo/new2 NO_CLI=1 REPS=10 bash bench/bench_cuda.sh build-dev > $OUT/new2.txt 2>&1
for f in base1 new1 base2 new2; do echo "== $f"; tail -9 $OUT/$f.txt; done
tar czf $OUT/bench.tgz -C /tmp bo 2>/dev/null
