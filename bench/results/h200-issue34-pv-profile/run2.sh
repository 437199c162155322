#!/usr/bin/env bash
# The CTA kernel's instruction mix, plain against per-vertex (ncu InstructionStats with
# details, SourceCounters printed per SASS instruction), Kronecker 20 --parts 1; the warp
# kernel's mix too.
set -u
mkdir -p /tmp/new /tmp/w && tar xf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w T=/tmp/new/tests P=/tmp/new/bin/tricount-partition
[[ -s $W/k20.h5 ]] || $P --input kronecker:20 --output $W/k20.h5 --parts 1 -q
export TRICOUNT_BENCH_REPS=0 TRICOUNT_BENCH_FILE=$W/k20.h5
ncu --clock-control none -k "regex:count_cta_rows" --launch-skip 2 --launch-count 4 --section InstructionStats --section SourceCounters \
  --print-details all -o $W/cta $T/cuda_bench per-vertex > $OUT/ncu_cta_log.txt 2>&1
ncu -i $W/cta.ncu-rep --print-details all > $OUT/ncu_cta_details.txt 2>&1
ncu -i $W/cta.ncu-rep --page source --print-source sass --csv > $OUT/ncu_cta_sass.csv 2>&1
ncu --clock-control none -k "regex:count_tile_rows<32" --launch-count 4 --section InstructionStats --print-details all \
  $T/cuda_bench per-vertex > $OUT/ncu_tile_details.txt 2>&1
ls -la $W $OUT
