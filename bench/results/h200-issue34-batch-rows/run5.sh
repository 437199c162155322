#!/usr/bin/env bash
# Nsight Compute on uniform 2^24: the batch kernel (plain and per-vertex instances) and the warp
# kernel (batch-rows=0), first count after cuda_bench's warm-up, kernels replayed. The warp
# kernel's line caught another launch (a 6 us one): its output is not kept; its u24 profile is
# issue 20's (bench/notes/gpu-roofline-and-peers.md).
set -u
mkdir -p /tmp/fin /tmp/w
[ -x /tmp/fin/tests/cuda_bench ] || tar xJf build-pack/fin.txz -C /tmp/fin
export LD_LIBRARY_PATH=/tmp/fin/bin:${LD_LIBRARY_PATH:-}
[ -f /tmp/w/u24.h5 ] || /tmp/fin/bin/tricount-partition --input uniform:vertices=16777216,edges=268435456 --output /tmp/w/u24.h5 --parts 1 -q --threads 12
prof() { # NAME TUNING MODE KERNEL-REGEX
  TRICOUNT_BENCH_TUNING=$2 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=/tmp/w/u24.h5 timeout 200 ncu --clock-control none --kernel-name-base mangled \
    --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
    -k "regex:$4" --launch-skip 1 --launch-count 1 /tmp/fin/tests/cuda_bench $3 > $OUT/run5_$1.txt 2>&1
  grep -E "Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|inst_executed|dram__bytes|sector_hit" $OUT/run5_$1.txt | sed "s/^/$1 /"
}
prof batch "" count count_batch_rowsILb0
prof batch_pv "" per-vertex count_batch_rowsILb1
prof warp batch-rows=0 count count_tile_rows
