#!/usr/bin/env bash
# Per-edge kernels under tuning variants (v side ratio, rank counters, reverse search) on
# Kronecker 20, 24 and Kronecker 22 at n = 4; per-vertex on/off after the kPerEdge change.
set -u
mkdir -p /tmp/new /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w T=/tmp/new/tests P=/tmp/new/bin/tricount-partition
[[ -s $W/k24.h5 ]] || $P --input kronecker:24 --output $W/k24.h5 --parts 1 -q &
[[ -s $W/k20.h5 ]] || $P --input kronecker:20 --output $W/k20.h5 --parts 1 -q
[[ -s $W/k18.h5 ]] || $P --input kronecker:18 --output $W/k18.h5 --parts 1 -q
[[ -s $W/k22n4.h5 ]] || $P --input kronecker:22 --output $W/k22n4.h5 --parts 4 -q
wait
for g in k20 k22n4 k24; do for t in "" v-side-quarters=8 v-side-quarters=16 v-side-quarters=2 rank-counts=0; do
  echo "$g [$t] $(TRICOUNT_BENCH_TUNING=$t TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $T/cuda_bench per-edge 2>&1 | tail -1)"
done; done 2>&1 | tee $OUT/sweep.txt
for g in k18 k20 k24; do
  echo "$g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $T/cuda_bench per-vertex 2>&1 | tail -1)"
done 2>&1 | tee $OUT/pv.txt
