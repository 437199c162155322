#!/usr/bin/env bash
# Where u24's batch kernel spends its instructions and stalls: Nsight Compute source counters of
# the plain instance per SASS line (line_top.py; the per-CUDA-line page came out without metrics).
set -u
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/fin /tmp/w
[ -x /tmp/fin/tests/cuda_bench ] || tar xJf build-pack/fin.txz -C /tmp/fin
export LD_LIBRARY_PATH=/tmp/fin/bin:${LD_LIBRARY_PATH:-}
[ -f /tmp/w/u24.h5 ] || /tmp/fin/bin/tricount-partition --input uniform:vertices=16777216,edges=268435456 --output /tmp/w/u24.h5 --parts 1 -q --threads 14
TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=/tmp/w/u24.h5 timeout 300 ncu --clock-control none --kernel-name-base mangled \
  -k "regex:count_batch_rowsILb0" --launch-skip 1 --launch-count 1 --import-source yes \
  --section SpeedOfLight --section SourceCounters --section WarpStateStats --section InstructionStats \
  -o /tmp/w/u24-src /tmp/fin/tests/cuda_bench count > $OUT/run6_ncu_log.txt 2>&1
ncu -i /tmp/w/u24-src.ncu-rep --page source --print-source cuda --csv > /tmp/w/cuda.csv 2>&1
ncu -i /tmp/w/u24-src.ncu-rep --page source --print-source sass --csv > /tmp/w/sass.csv 2>&1
head -c 3000 /tmp/w/cuda.csv > $OUT/run6_cuda_head.txt
python3 $D/line_top.py /tmp/w/cuda.csv 30 > $OUT/run6_u24_lines.txt 2>&1
python3 $D/line_top.py /tmp/w/sass.csv 40 > $OUT/run6_u24_sass.txt 2>&1
ncu -i /tmp/w/u24-src.ncu-rep --page details 2>&1 | grep -E "Stall|stall|Warp Cycles|Issued|Executed Ipc|Branch|Divergent|Efficiency" | head -60 > $OUT/run6_u24_details.txt
