#!/usr/bin/env bash
# Builds: cuda_bench of main b80e331 and the same with -DTRICOUNT_PAD=8 / =16 (padded_lists.diff).
# The 2-hop lists copied on the device so that each starts on a 32-byte (pad8) or 64-byte
# (pad16) boundary, the copy made inside the count (after the 32-bit offsets, which carry
# each list's padding in their low bits), against main b80e331 (base): the seven graphs,
# per-vertex mode (off = the plain count), median of 5, two rounds alternating; u24's and
# u20's steps (profile=1).
set -u
mkdir -p /tmp/new /tmp/w
tar xJf build-pack/v1.txz -C /tmp/new && tar xJf build-pack/pad.txz -C /tmp/new/tests
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition T=/tmp/new/tests
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
bin() { [ $1 = base ] && echo $T/cuda_bench || echo $T/cuda_bench_$1; }
for r in 1 2; do for g in u24 u20 k18 g128 k20 k23 k24; do for b in base pad8 pad16; do
  echo "r$r $g $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $(bin $b) per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"vertices": [0-9]*, "edges": [0-9]*, //' | tee $OUT/run1_ab.txt
for g in u24 u20 k24; do for b in base pad8 pad16; do echo "$g $b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/$g.h5 $(bin $b) count 2>&1 | grep 'cuda profile' | tail -1 | cut -c1-400)"; done; done > $OUT/run1_profile.txt 2>&1
cat $OUT/run1_profile.txt
