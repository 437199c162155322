#!/usr/bin/env bash
# One thread per row with a 128-bit key filter (count_filter_rows) against the warp kernel,
# on the graphs it applies to (no CTA row, no v side): cuda_bench per-vertex (plain and
# per-vertex medians of 5), variants alternating in one binary, two rounds; per-edge check on u20.
#   base: filter-rows=0 (what ships now); f1: where 2-hop lists <= 64; f2: any lists;
#   f3: f2 with the kernel capped for 8 CTAs of 256 per SM (32 registers); that build's
#   filter-rows=3 (a kMinBlocks template argument of count_filter_rows) was not kept.
set -u
mkdir -p /tmp/new /tmp/w /tmp/d
tar xf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done
$P --input ${spec[u24]} --output $W/u24p4.h5 --parts 4 -q --threads 8 & wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
bench() {  # tuning graph mode
  TRICOUNT_BENCH_TUNING=$1 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 /tmp/new/tests/cuda_bench $3 2>&1 | tail -1
}
declare -A tune=([base]=filter-rows=0 [f1]=filter-rows=1 [f2]=filter-rows=2 [f3]=filter-rows=3 [g0]=filter-rows=2,thread-rows=0)
for r in 1 2; do for g in u24 u20 g128 k18 u24p4; do
  vs="base f1 f2 f3"; [[ $g == g128 ]] && vs="base g0"; [[ $g == k18 ]] && vs="base f2"
  for v in $vs; do echo "$v r$r $g $(bench ${tune[$v]} $g per-vertex)"; done
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_ab.txt
for v in base f2; do echo "$v u20 $(bench ${tune[$v]} u20 per-edge)"; done 2>&1 | tee $OUT/run1_pe.txt
for g in u24 u20; do for v in base f2 f3; do echo "$v $g"; TRICOUNT_BENCH_TUNING=${tune[$v]},profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | grep -E "cuda profile|BENCH" | tail -2; done; done 2>&1 | tee $OUT/run1_profile.txt
echo "g128 g0"; TRICOUNT_BENCH_TUNING=filter-rows=2,thread-rows=0,profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/g128.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | grep -E "cuda profile|BENCH" | tail -2 | tee -a $OUT/run1_profile.txt
