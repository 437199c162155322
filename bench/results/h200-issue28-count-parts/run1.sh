#!/usr/bin/env bash
# Issue 28, --count-parts (one H200): (a) the new GPU test (test_count_parts_cuda) and the
# backend and prefetch tests; (b) Kronecker 24 and 26 partitioned into n = 1, 4 and 8 parts,
# each n-part file counted as it is and with --count-parts 1, beside the n = 1 file, one
# worker, two repeats alternating; the report's count, transfer and total seconds.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; free -g | head -2; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in ${TESTS:-test_count_parts_cuda test_cuda_backend test_cuda_prefetch}; do
    echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
count() {  # label file args...
  local l=$1 f=$2; shift 2
  local s=$(now)
  $N/tricount-count $f -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[3])); s=d['seconds']; t=d['timers']
print('%-22s parts %d as %d tasks %-4d wall %s tri %d total %.3f transfer %.3f count %.4f load %.3f'%(
  sys.argv[1], d['parts'], d['count_parts'], d['tasks'], sys.argv[2], d['triangles'], s['total'], s['transfer'],
  t['count']['max'], s['load']))
PY
}
for s in ${SCALES:-24 26}; do
  $N/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1
  for n in 1 4 8; do $N/tricount-partition --input $W/k$s.bin64 --parts $n -o $W/k${s}n$n.h5 > /dev/null 2>&1 || echo "partition k$s n=$n failed"; done
  rm -f $W/k$s.bin64
  for r in 1 2; do
    count "k$s n=1 r$r" $W/k${s}n1.h5
    for n in 4 8; do
      count "k$s n=$n r$r" $W/k${s}n$n.h5
      count "k$s n=$n as 1 r$r" $W/k${s}n$n.h5 --count-parts 1
    done
  done
  rm -f $W/k${s}n*.h5
done
