#!/usr/bin/env bash
# Device call 8 (issue 34): per-vertex with extra shared words for the key-rank counters
# (--cuda-tuning rank-words=W) on the Kronecker graphs; GPU per-vertex tests.
set -u
R=$PWD
mkdir -p /tmp/new /tmp/g && tar xzf build-pack/new8.tgz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi -L | tee $OUT/device.txt
N=/tmp/new/bin
GRAPHS="k18 k20 k23 k24"
( for g in $GRAPHS; do $N/tricount-partition --input kronecker:${g#k} --output /tmp/g/$g.h5 --parts 1 --memory-budget 100G -q || echo "partition $g failed"; done ) > $OUT/prep.log 2>&1 &
PP=$!
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N
  for t in test_cuda_per_vertex; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -20; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PP; cat $OUT/prep.log
for g in $GRAPHS; do
  for w in 0 4096 8192 2048; do
    line=$(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/g/$g.h5 TRICOUNT_BENCH_TUNING="rank-words=$w" timeout 120 /tmp/new/tests/cuda_bench per-vertex 2>&1 | tee -a $OUT/bench.log | grep '^BENCHPV ')
    echo "$g rank-words=$w ${line#BENCHPV }" | python3 -c "
import json,sys; l=sys.stdin.read(); g,v,r=l.split(' ',2)
try: d=json.loads(r); print(g, v, 'off %.3f on %.3f ratio %.3f' % (d['off_ms_median'], d['on_ms_median'], d['ratio']))
except Exception: print(g, v, 'failed')" | tee -a $OUT/pv.txt
  done
done
