#!/usr/bin/env bash
# slot_owner in 8 fixed halvings over a stage padded with ~0u (new: fin2.txz) against the loop
# halving [0, n) (old: fin.txz, eb9b81e's kernel); cuda_bench per-vertex, median of 5, two
# rounds alternating; then the batch kernel's GPU test binaries of the new build.
set -u
mkdir -p /tmp/fin /tmp/fin2 /tmp/w
[ -x /tmp/fin/tests/cuda_bench ] || tar xJf build-pack/fin.txz -C /tmp/fin
tar xJf build-pack/fin2.txz -C /tmp/fin2
export LD_LIBRARY_PATH=/tmp/fin/bin:${LD_LIBRARY_PATH:-}
declare -A spec=([u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [u22]=uniform:vertices=4194304,edges=67108864)
for g in "${!spec[@]}"; do [ -f /tmp/w/$g.h5 ] || /tmp/fin/bin/tricount-partition --input ${spec[$g]} --output /tmp/w/$g.h5 --parts 1 -q --threads 5 & done; wait
for r in 1 2; do for g in u24 u22 u20; do for v in old new; do
  b=/tmp/fin/tests/cuda_bench; [ $v = new ] && b=/tmp/fin2/tests/cuda_bench
  echo "r$r $g $v $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/w/$g.h5 timeout 100 $b per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"edges": [0-9]*, //; s/BENCHPV {"parts": 1, //; s/"vertices": [0-9]*, //' | tee $OUT/run7_ab.txt
cd /tmp/fin2/tests && for t in test_cuda_backend test_cuda_per_vertex test_cuda_per_edge; do
  ( s=$(date +%s); echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)" ) > $OUT/run7_tests_$t.log 2>&1 &
done; wait
cat $OUT/run7_tests_*.log | grep -E "==|PASSED|FAILED|\("
