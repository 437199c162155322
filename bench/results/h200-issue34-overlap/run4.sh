#!/usr/bin/env bash
# CTA degree thresholds 100, 128 and 160 on Kronecker 23 and 24 (cuda_bench count, median of
# 10, alternating, two rounds; the session's tree, f5cc8d2), after run3 found 128 faster on
# Kronecker 20 and slower on 18.
set -u
mkdir -p /tmp/new /tmp/w && [[ -x /tmp/new/tests/cuda_bench ]] || tar xJf build-pack/final.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w P=/tmp/new/bin/tricount-partition
$P --input kronecker:23 --output $W/k23.h5 --parts 1 -q --threads 8 & $P --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 8 & wait
for r in 1 2; do for g in k23 k24; do for t in 100 128 160; do
  echo "t$t r$r $g $(TRICOUNT_BENCH_CTA_THRESHOLD=$t TRICOUNT_BENCH_REPS=10 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/, "transfer_ms.*//' | tee $OUT/run4_thresholds.txt
