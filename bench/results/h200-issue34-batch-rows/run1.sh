#!/usr/bin/env bash
# count_batch_rows (a warp per 32 consecutive rows, keys and 1-hop bounds staged in shared
# memory, every 2-hop list of the batch walked as one) against the warp kernel (batch-rows=0),
# in one binary; kBatchSteps 1, 2 (default) and 4 as separate builds. cuda_bench per-vertex
# (off = the plain count), median of 5, two rounds alternating. Then the GPU tests of the build.
# The variant builds: batch_variants.diff over batch_rows.cuh, compiled with
# -DTRICOUNT_BATCH_STEPS=1 (s1) or 4 (s4); b1.txz held them beside the default build.
set -u
mkdir -p /tmp/new /tmp/b /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/b1.txz -C /tmp/b && tar xzf build-pack/data.tgz -C /tmp/d
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
(cuobjdump -res-usage /tmp/b/tests/cuda_bench 2>&1 | grep -A1 "count_batch_rows\|count_tile_rowsILi32ELi5ELb0ELi0ELb0ELb0" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" | paste - - - - - ) > $OUT/run1_regs.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
export LD_LIBRARY_PATH=/tmp/b:/tmp/new:${LD_LIBRARY_PATH:-}
declare -A spec=([k18]=kronecker:18 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128 [u22]=uniform:vertices=4194304,edges=67108864)
s=$(date +%s); for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 3 & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
declare -A bin=([warp]=/tmp/b/tests/cuda_bench [s2]=/tmp/b/tests/cuda_bench [s1]=/tmp/b/s1/cuda_bench [s4]=/tmp/b/s4/cuda_bench)
declare -A tune=([warp]=batch-rows=0 [s2]= [s1]= [s4]=)
for r in 1 2; do for g in u24 u20 u22 k18 g128; do for v in warp s2 s1 s4; do
  [ $g = k18 -o $g = g128 ] && [ $v = s1 -o $v = s4 ] && continue
  echo "r$r $g $v $(TRICOUNT_BENCH_TUNING=${tune[$v]} TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 ${bin[$v]} per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"edges": [0-9]*, //; s/BENCHPV {"parts": 1, //' | tee $OUT/run1_ab.txt
TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/u24.h5 /tmp/b/tests/cuda_bench count 2>&1 | grep "cuda profile" | head -3 > $OUT/run1_profile.txt
[ "${TESTS:-1}" = 1 ] && cd /tmp/b/tests && for t in test_cuda_backend test_cuda_per_vertex test_cuda_per_edge; do
  ( s=$(date +%s); echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)" ) > $OUT/run1_tests_$t.log 2>&1 &
done; wait
cat $OUT/run1_tests_*.log | grep -E "==|PASSED|FAILED|\("
