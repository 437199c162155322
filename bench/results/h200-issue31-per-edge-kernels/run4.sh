#!/usr/bin/env bash
# Per-vertex on/off, this tree (the tally's per-edge branches resolved at compile time) against
# main 4ffeaaa, alternating; per-edge on Kronecker 24; the per-edge and per-vertex GPU tests.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/base.tgz -C /tmp/base
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w P=/tmp/new/bin/tricount-partition
[[ -s $W/k24.h5 ]] || $P --input kronecker:24 --output $W/k24.h5 --parts 1 -q &
[[ -s $W/k23.h5 ]] || $P --input kronecker:23 --output $W/k23.h5 --parts 1 -q
[[ -s $W/k20.h5 ]] || $P --input kronecker:20 --output $W/k20.h5 --parts 1 -q
[[ -s $W/k18.h5 ]] || $P --input kronecker:18 --output $W/k18.h5 --parts 1 -q
wait
for r in 1 2; do for g in k18 k20 k23 k24; do for b in base new; do
  echo "$b $g r$r $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | tee $OUT/pv_ab.txt
echo "k24 $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/k24.h5 timeout 100 /tmp/new/tests/cuda_bench per-edge 2>&1 | tail -1)" | tee $OUT/pe.txt
( cd /tmp/new/tests && for t in test_cuda_per_edge test_cuda_per_vertex; do
    echo "== $t"; timeout 150 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
