#!/usr/bin/env bash
# run1's batch kernel (s2: kBatchSteps 2) against variants: the 2-hop loads pinned before the
# probes by an empty asm that uses them (b), steps 1-4, a 6-CTA register cap (m6); the warp
# kernel (batch-rows=0) as the base. cuda_bench per-vertex, median of 5, two rounds.
# Builds (b2.txz): batch_variants.diff with -DTRICOUNT_BATCH_STEPS=N, -DTRICOUNT_BATCH_PIN=1 (b),
# -DTRICOUNT_BATCH_MINB=6 (m6).
set -u
mkdir -p /tmp/new /tmp/b /tmp/b2 /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/b1.txz -C /tmp/b && tar xJf build-pack/b2.txz -C /tmp/b2
(for n in s1b s2b s3b s4b s2m6 s2bm6; do echo "$n $(cuobjdump -res-usage /tmp/b2/$n/cuda_bench 2>&1 | grep -A1 "count_batch_rowsILb0ELb0" | grep -o "REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste -s)"; done) > $OUT/run2_regs.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
declare -A spec=([u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [u22]=uniform:vertices=4194304,edges=67108864)
for g in "${!spec[@]}"; do [ -f $W/$g.h5 ] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 5 & done; wait
for r in 1 2; do for g in u24 u22 u20; do for v in warp s2 s2b s1b s3b s4b s2m6 s2bm6; do
  b=/tmp/b2/$v/cuda_bench; t=; [ $v = warp ] && { b=/tmp/b/tests/cuda_bench; t=batch-rows=0; }; [ $v = s2 ] && b=/tmp/b/tests/cuda_bench
  echo "r$r $g $v $(TRICOUNT_BENCH_TUNING=$t TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $b per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"edges": [0-9]*, //; s/BENCHPV {"parts": 1, //; s/"vertices": [0-9]*, //' | tee $OUT/run2_ab.txt
