#!/usr/bin/env bash
# Does cutting a uniform graph into more parts make its 2-hop lists cache-resident enough to
# pay for the extra tasks? Uniform 2^24 / 2^28 and 2^20 / 2^24 and Kronecker 24 partitioned at
# n = 1, 2, 4, 8 and counted on one GPU, blocks resident (cuda_bench count: the sum of the
# tasks' CUDA-event times, median of 5), main 55d94c6.
set -u
mkdir -p /tmp/m /tmp/w && tar xJf build-pack/main.txz -C /tmp/m
export LD_LIBRARY_PATH=/tmp/m:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run1_host.txt 2>&1
W=/tmp/w P=/tmp/m/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24)
s=$(date +%s)
for wave in "u24 u20" k24; do for g in $wave; do for n in 1 2 4 8; do
  [[ $g == k24 && $n == 8 ]] && continue
  $P --input ${spec[$g]} --output $W/${g}n$n.h5 --parts $n -q --threads 4 &
done; done; wait; done
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt; ls -la $W >> $OUT/run1_host.txt
for g in u20 u24 k24; do for n in 1 2 4 8; do
  [[ -s $W/${g}n$n.h5 ]] || continue
  echo "$g n=$n $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/${g}n$n.h5 timeout 120 /tmp/m/tests/cuda_bench count 2>&1 | tail -1)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_parts.txt
# where u24's time goes at n = 1 and 8 (every step in sequence; the first task's steps at n = 8)
for n in 1 8; do echo "== u24 n=$n"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/u24n$n.h5 timeout 120 /tmp/m/tests/cuda_bench count 2>&1 | grep "cuda profile" | head -3; done > $OUT/run1_profile.txt 2>&1
