#!/usr/bin/env bash
# CTA degree thresholds below TRUST's 100 (only 200 and 400 were measured on the H200):
# cuda_bench count (median of 10) on Kronecker 18 and 20 at thresholds 48, 64, 80, 100 and
# 128, alternating, two rounds (the session's tree, f5cc8d2). A first call ran per-vertex mode,
# which reads no threshold (run3_same_settings.txt: ten runs of one setting each).
set -u
mkdir -p /tmp/new /tmp/w && tar xJf build-pack/final.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w P=/tmp/new/bin/tricount-partition
$P --input kronecker:18 --output $W/k18.h5 --parts 1 -q & $P --input kronecker:20 --output $W/k20.h5 --parts 1 -q & wait
for r in 1 2; do for g in k18 k20; do for t in 100 48 64 80 128; do
  echo "t$t r$r $g $(TRICOUNT_BENCH_CTA_THRESHOLD=$t TRICOUNT_BENCH_REPS=10 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run3_thresholds.txt
