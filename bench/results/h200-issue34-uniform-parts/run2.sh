#!/usr/bin/env bash
# Uniform graphs cut into 4 and 8 parts walk every row of a task on 8-lane tiles ("direct": no
# classification, as no row can be a CTA row). Do classified rows with the tiny rows on one
# thread each, or other lane counts, walk them faster? cuda_bench count with tuning variants,
# main 55d94c6 (build-pack/main.txz of run1.sh), blocks resident, median of 5.
set -u
mkdir -p /tmp/m /tmp/w && tar xJf build-pack/main.txz -C /tmp/m
export LD_LIBRARY_PATH=/tmp/m:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run2_host.txt 2>&1
W=/tmp/w P=/tmp/m/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20)
s=$(date +%s)
for f in u24n4 u24n8 u20n4 u20n8 k24n4 k20n8; do
  [[ -s $W/$f.h5 ]] || $P --input ${spec[${f%n*}]} --output $W/$f.h5 --parts ${f##*n} -q --threads 4 &
done; wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run2_host.txt
V=("" "direct-warp-rows=0" "direct-warp-rows=0,tiny-rows=0" "warp-lanes=32" "direct-warp-rows=0,warp-lanes=8")
for f in u20n4 u20n8 k20n8 u24n4 u24n8 k24n4; do for v in "${V[@]}"; do
  echo "$f [$v] $(TRICOUNT_BENCH_TUNING=$v TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 100 /tmp/m/tests/cuda_bench count 2>&1 | tail -1 | grep -o '"triangles": [0-9]*, "count_ms_median": [0-9.]*')"
done; done 2>&1 | tee $OUT/run2_variants.txt
# the steps of one task of u24 at n = 8 with the rows classified
TRICOUNT_BENCH_TUNING=profile=1,direct-warp-rows=0 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/u24n8.h5 timeout 100 /tmp/m/tests/cuda_bench count 2>&1 | grep "cuda profile" | head -2 | cut -c1-700 > $OUT/run2_profile.txt
