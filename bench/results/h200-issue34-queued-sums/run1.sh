#!/usr/bin/env bash
# Builds: cuda_bench of main b80e331 and the same with -DTRICOUNT_QSUM=1 (queued_sums.diff).
# run1_k18_stalls.txt keeps the timed kernels' sections once each (the script printed every
# replayed launch); the warp-state page it also printed was cut short by its head and is left out.
# Per-vertex CTA rows: a queued long list's hits summed per list in the CTA's (then idle)
# edge words and added to the global counter once per list after the segments (qsum,
# TRICOUNT_QSUM=1) instead of once per 128-element segment, against main b80e331 (base),
# Kronecker graphs, per-vertex mode (median of 5, rounds alternating); k18's steps
# (profile=1); then Nsight Compute's stall samples per SASS line of base's per-vertex
# kernels on k18 (stall_top.py).
set -u
mkdir -p /tmp/new /tmp/w
tar xJf build-pack/v1.txz -C /tmp/new && tar xJf build-pack/qsum.txz -C /tmp/new/tests
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
D=bench/results/h200-issue34-queued-sums
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition T=/tmp/new/tests
for g in 18 20 23 24; do $P --input kronecker:$g --output $W/k$g.h5 --parts 1 -q --threads 4 & done; wait
bin() { [ $1 = base ] && echo $T/cuda_bench || echo $T/cuda_bench_$1; }
for r in 1 2; do for g in k18 k20 k23 k24; do for b in base qsum; do
  echo "r$r $g $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $(bin $b) per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"vertices": [0-9]*, "edges": [0-9]*, //' | tee $OUT/run1_ab.txt
for r in 3 4; do for b in base qsum; do
  echo "r$r k18 $b $(TRICOUNT_BENCH_REPS=9 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 100 $(bin $b) per-vertex 2>&1 | tail -1)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"vertices": [0-9]*, "edges": [0-9]*, //' | tee -a $OUT/run1_ab.txt
for b in base qsum; do echo "$b"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/k18.h5 $(bin $b) per-vertex 2>&1 | grep "cuda profile" | tail -2; done > $OUT/run1_k18_profile.txt 2>&1
TRICOUNT_BENCH_REPS=0 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 200 ncu --clock-control none -k "regex:count_(cta|tile)_rows" --section SpeedOfLight --section SourceCounters --section WarpStateStats -o $W/k18-src $T/cuda_bench per-vertex > $OUT/run1_ncu_log.txt 2>&1
ncu -i $W/k18-src.ncu-rep --page source --print-source sass --csv > $W/k18.csv 2>&1
python3 $D/stall_top.py $W/k18.csv 40 > $OUT/run1_k18_stalls.txt
ncu -i $W/k18-src.ncu-rep --print-summary per-kernel 2>&1 | grep -E "count_|Duration|Executed Instructions  " | head -80 > $OUT/run1_k18_summary.txt
ncu -i $W/k18-src.ncu-rep --page details 2>&1 | grep -E "count_|Stall|stall|Warp Cycles|Issued" | head -150 > $OUT/run1_k18_warpstate.txt
ls -la $OUT
