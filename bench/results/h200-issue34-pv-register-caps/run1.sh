#!/usr/bin/env bash
# Register caps of the per-vertex (and per-edge) kernels: main 8f04eb7 caps every 32-lane warp
# kernel for 5 CTAs per SM and every CTA kernel for 6, where the per-vertex forms spill (32-72
# bytes of stack). Builds A (warp 4, CTA 6), B (warp 5, CTA 5), C (warp 4, CTA 5) change only
# the per-vertex / per-edge instances. cuda_bench per-vertex on the seven graphs and per-edge on
# Kronecker 20 and 24, the builds alternating (median of 5). Then the classification of uniform
# files by size: cuda_bench count, main, default against direct-warp-rows=0, uniform 2^20,
# 2^22, 2^24 at n = 1, 2, 4 (8).
set -u
mkdir -p /tmp/main /tmp/w && tar xJf build-pack/main.txz -C /tmp/main
for b in A B C; do mkdir -p /tmp/$b && tar xJf build-pack/$b.txz -C /tmp/$b; done
export LD_LIBRARY_PATH=/tmp/main:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run1_host.txt 2>&1
W=/tmp/w P=/tmp/main/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u22]=uniform:vertices=4194304,edges=67108864 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20 [k18]=kronecker:18 [k23]=kronecker:23 [g128]=grid3d:128)
s=$(date +%s)
for wave in "k18n1 k20n1 u20n1 g128n1 u20n2 u20n4 u20n8 u22n1 u22n2 u22n4" "u24n1 u24n2 u24n4 k24n1 k23n1"; do for f in $wave; do
  [[ -s $W/$f.h5 ]] || $P --input ${spec[${f%n*}]} --output $W/$f.h5 --parts ${f##*n} -q --threads 4 &
done; wait; done
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
B=(main A B C)
for f in k18n1 g128n1 u20n1 k20n1 u24n1 k23n1 k24n1; do for b in "${B[@]}"; do
  echo "$b $f $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 60 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1 | grep -o '"off_ms_median.*ratio": [0-9.]*')"
done; done 2>&1 | tee $OUT/run1_pv.txt
for f in k20n1 k24n1; do for b in "${B[@]}"; do
  echo "$b $f $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 100 /tmp/$b/tests/cuda_bench per-edge 2>&1 | tail -1 | grep -o '"off_ms_median.*lists_ratio": [0-9.]*')"
done; done 2>&1 | tee $OUT/run1_pe.txt
for f in u20n1 u20n2 u20n4 u20n8 u22n1 u22n2 u22n4 u24n1 u24n2 u24n4; do for v in "" "direct-warp-rows=0"; do
  echo "$f [$v] $(TRICOUNT_BENCH_TUNING=$v TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 60 /tmp/main/tests/cuda_bench count 2>&1 | tail -1 | grep -o '"triangles": [0-9]*, "count_ms_median": [0-9.]*')"
done; done 2>&1 | tee $OUT/run1_uniform.txt
for b in "${B[@]}"; do echo "== $b"; (cuobjdump --dump-resource-usage /tmp/$b/tests/cuda_bench 2>&1 || /usr/local/cuda/bin/cuobjdump --dump-resource-usage /tmp/$b/tests/cuda_bench 2>&1) | grep -A1 -E "count_(tile|cta)_rows" | grep -E "Function|REG" | paste - - | sed -E 's/.*Function ([^ ]*).*REG:([0-9]+) STACK:([0-9]+).*/\1 REG:\2 STACK:\3/' | c++filt | grep -E "true|count_cta" ; done > $OUT/run1_resources.txt 2>&1
