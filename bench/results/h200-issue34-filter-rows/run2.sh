#!/usr/bin/env bash
# The filter kernel reading v's lists in aligned 16-byte pieces (uint4 loads masked to the
# list; not kept: run3 ships run1's element-by-element loop), and taking rows by default
# where the average 1-hop row has at most 8 entries (filter-rows=1). cuda_bench per-vertex
# (plain and per-vertex medians of 5), variants alternating in one binary, two rounds:
#   warp: filter-rows=0 (the kernels before); dflt: the defaults; f2: filter-rows=2 (forced).
# Uniform 2^24 at 1, 2, 4 and 8 parts, uniform 2^20 at 1 and 4, the grid; per-edge check.
set -u
mkdir -p /tmp/new /tmp/w
tar xf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run2_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
U24=uniform:vertices=16777216,edges=268435456 U20=uniform:vertices=1048576,edges=16777216
s=$(date +%s)
for n in 1 2 4 8; do $P --input $U24 --output $W/u24p$n.h5 --parts $n -q --threads 4 & done
for n in 1 4; do $P --input $U20 --output $W/u20p$n.h5 --parts $n -q --threads 2 & done
$P --input grid3d:128 --output $W/g128.h5 --parts 1 -q --threads 2 & wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run2_host.txt
bench() {  # tuning graph mode
  TRICOUNT_BENCH_TUNING=$1 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 /tmp/new/tests/cuda_bench $3 2>&1 | tail -1
}
declare -A tune=([warp]=filter-rows=0 [dflt]= [f2]=filter-rows=2 [g0]=thread-rows=0)
for r in 1 2; do for g in u24p1 u20p1 u24p2 u24p4 u24p8 u20p4 g128; do
  vs="warp dflt f2"; [[ $g == g128 ]] && vs="dflt g0"
  for v in $vs; do echo "$v r$r $g $(bench "${tune[$v]}" $g per-vertex)"; done
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run2_ab.txt
for v in dflt f2; do echo "$v u20p4 $(bench "${tune[$v]}" u20p4 per-edge)"; done 2>&1 | tee $OUT/run2_pe.txt
for g in u24p1 u24p4; do for v in warp dflt f2; do echo "$v $g"; TRICOUNT_BENCH_TUNING=${tune[$v]:+${tune[$v]},}profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | grep -E "cuda profile|BENCH" | tail -2; done; done 2>&1 | tee $OUT/run2_profile.txt
