#!/usr/bin/env bash
# Per-vertex counting under other tunings, main b80e331's cuda_bench (no rebuild): the CTA
# threshold (TRICOUNT_BENCH_CTA_THRESHOLD, default 100) and --cuda-tuning keys, on Kronecker 18,
# 20 and 23, per-vertex mode (off and on both under the setting), median of 9 (k23: 5), two
# rounds; the default's row first in each round.
set -u
mkdir -p /tmp/new /tmp/w
tar xJf build-pack/v1.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition T=/tmp/new/tests
for g in 18 20 23; do $P --input kronecker:$g --output $W/k$g.h5 --parts 1 -q --threads 4 & done; wait
settings=("100|" "48|" "64|" "80|" "128|" "160|" "100|tiny-rows=0" "100|tiny-rows=8" "100|t-places=0" "100|warp-lanes=8" "100|v-side-quarters=2" "100|v-side-quarters=8" "100|rank-counts=0" "100|search-ratio=0")
for r in 1 2; do for g in k18 k20 k23; do reps=9; [ $g = k23 ] && reps=5; for st in "${settings[@]}"; do
  th=${st%%|*}; tu=${st#*|}
  echo "r$r $g th=$th tune=$tu $(TRICOUNT_BENCH_CTA_THRESHOLD=$th TRICOUNT_BENCH_TUNING=$tu TRICOUNT_BENCH_REPS=$reps TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $T/cuda_bench per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"vertices": [0-9]*, "edges": [0-9]*, //; s/BENCHPV {"parts": 1, //' | tee $OUT/run1_sweep.txt
