#!/usr/bin/env bash
# Builds: cuda_bench of main b80e331 and the same with -DTRICOUNT_ALIGNED_SLOTS=4 / =8 (aligned_slots.diff).
# The warp kernel's short-list slots as aligned 16-byte loads (a4: 4 elements, one uint4;
# a8: 8 elements, two) instead of 4 scalar loads of consecutive elements, against main
# b80e331's cuda_bench (base), the seven graphs at --parts 1: per-vertex mode (off = the
# plain count, on = per-vertex), median of 5 each, two rounds alternating builds.
set -u
mkdir -p /tmp/new /tmp/w
tar xJf build-pack/v1.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
for r in 1 2; do for g in u24 u20 k18 g128 k20 k23 k24; do for b in base a4 a8; do
  bin=/tmp/new/tests/cuda_bench; [ $b != base ] && bin=/tmp/new/tests/cuda_bench_$b
  echo "r$r $g $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $bin per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_ab.txt
for b in base a4 a8; do bin=/tmp/new/tests/cuda_bench; [ $b != base ] && bin=/tmp/new/tests/cuda_bench_$b
  echo "$b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/u24.h5 $bin count 2>&1 | grep -i 'cuda profile' | tail -1 | cut -c1-300)"; done | tee $OUT/run1_u24_profile.txt
