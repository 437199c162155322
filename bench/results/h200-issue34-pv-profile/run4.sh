#!/usr/bin/env bash
# After 133cac0: where the per-vertex extra is left, per step (--cuda-tuning profile=1, every
# step in sequence) on k18 and k20, and the SASS lines of k18's and k20's per-vertex kernels
# run most often (ncu SourceCounters, condensed by sass_top.py).
set -u
mkdir -p /tmp/new /tmp/w && tar xf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w T=/tmp/new/tests P=/tmp/new/bin/tricount-partition
D=bench/results/h200-issue34-pv-profile
for g in 18 20; do [[ -s $W/k$g.h5 ]] || $P --input kronecker:$g --output $W/k$g.h5 --parts 1 -q & done; wait
for g in k18 k20; do for r in 1 2; do
  echo "$g r$r"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/$g.h5 $T/cuda_bench per-vertex 2>&1 | grep -E "profile|BENCHPV" | tail -4
done; done > $OUT/run4_profile.txt 2>&1
for g in k18 k20; do
  TRICOUNT_BENCH_REPS=0 TRICOUNT_BENCH_FILE=$W/$g.h5 ncu --clock-control none -k "regex:count_(cta|tile)_rows" --section SpeedOfLight --section SourceCounters --section InstructionStats -o $W/$g-src $T/cuda_bench per-vertex > /dev/null 2>&1
  ncu -i $W/$g-src.ncu-rep --page source --print-source sass --csv > $W/$g.csv 2>&1
  python3 $D/sass_top.py $W/$g.csv 60 > $W/$g-top.txt
  grep -v "^  L" $W/$g-top.txt | awk '!seen[$0]++' > $OUT/run4_${g}_top.txt
  ncu -i $W/$g-src.ncu-rep --print-summary per-kernel 2>&1 | grep -E "count_|Duration|Executed Instructions  " | head -80 > $OUT/run4_${g}_summary.txt
done
