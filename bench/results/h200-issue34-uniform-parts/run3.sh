#!/usr/bin/env bash
# The lane and classification choices that follow from run2 (new: 8 lanes only where no 2-hop
# list reaches 64 elements; rows classified where most are tiny with short lists) against
# main 55d94c6 (base), cuda_bench count (blocks resident, median of 5), base and new
# alternating: the seven graphs at n = 1 (no change wanted) and the multi-part files of run2;
# then the GPU tests of the plain and per-vertex paths on new.
set -u
mkdir -p /tmp/base /tmp/new /tmp/w && tar xJf build-pack/main.txz -C /tmp/base && tar xJf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run3_host.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20 [k18]=kronecker:18 [k23]=kronecker:23 [g128]=grid3d:128)
s=$(date +%s)
for wave in "k18n1 k20n1 u20n1 g128n1 u20n4 u20n8 k20n8 u24n8" "u24n1 u24n4 k24n1 k24n4 k23n1"; do for f in $wave; do
  [[ -s $W/$f.h5 ]] || $P --input ${spec[${f%n*}]} --output $W/$f.h5 --parts ${f##*n} -q --threads 4 &
done; wait; done
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run3_host.txt
for f in k18n1 g128n1 u20n1 k20n1 u20n4 u20n8 k20n8 u24n4 u24n8 k24n4 u24n1 k23n1 k24n1; do for b in base new; do
  echo "$b $f $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 60 /tmp/$b/tests/cuda_bench count 2>&1 | tail -1 | grep -o '"triangles": [0-9]*, "count_ms_median": [0-9.]*')"
done; done 2>&1 | tee $OUT/run3_ab.txt
( cd /tmp/new/tests && for t in test_cuda_backend test_cuda_per_vertex; do
    s=$(date +%s); echo "== $t"; timeout 100 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run3_gputests.log
