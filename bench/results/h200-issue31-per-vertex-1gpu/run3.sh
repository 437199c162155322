#!/usr/bin/env bash
# Issue 31.2 (one H200): base (5f6528b) against new (the vertex and degree columns written
# while the GPU counts; class ids and degrees gathered from a mapping without the HDF5 lock),
# Kronecker 24 --parts 1, plain and --per-vertex .h5, in ABAB order; the per-vertex GPU tests;
# TSV runs repeated with their whole logs kept on failure (run1's crash).
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/base.tgz -C /tmp/base
tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt 2>&1
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24n4.h5 --parts 4 -q
count() {  # label build file args...
  local l=$1 b=$2 f=$3; shift 3
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $f -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']
pv=s.get('per_vertex_steps') or {}
print('%-22s wall %s total %.3f setup %.3f count %.4f pv %.3f pv_write %.3f steps %s' % (
  sys.argv[1], sys.argv[3], s['total'], s.get('setup',0), d['timers']['count']['max'], s.get('per_vertex') or 0,
  s.get('per_vertex_write') or 0, ' '.join('%s=%.3f'%(k,v) for k,v in pv.items() if isinstance(v,float))))
PY
}
for r in 1 2 3; do for b in base new; do
  count "$b plain r$r" $b $W/k24.h5
  rm -f $W/pv.h5; count "$b pv h5 r$r" $b $W/k24.h5 --per-vertex $W/pv.h5
done; done 2>&1 | tee $OUT/k24.txt
for b in base new; do rm -f $W/pv4.h5; count "$b n4 pv h5" $b $W/k24n4.h5 --per-vertex $W/pv4.h5; h5dump -H $W/pv4.h5 > /dev/null 2>&1; done 2>&1 | tee -a $OUT/k24.txt
for r in $(seq 1 8); do rm -f $W/pv.tsv; count "new pv tsv r$r" new $W/k24.h5 --per-vertex $W/pv.tsv; done 2>&1 | tee -a $OUT/k24.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_vertex test_per_vertex_cuda; do
    echo "== $t"; timeout 250 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
