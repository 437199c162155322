#!/usr/bin/env bash
# The per-vertex step with the clustering sum exact and threaded, and the triangles and
# clustering columns written in place on rank 0's threads (new) against 4e25d08 (base: the
# sum on one thread, the columns through the writer thread), Kronecker 24 --parts 1, plain
# and --per-vertex .h5, ABAB, four repeats; the per-vertex and per-edge GPU tests.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/base.tgz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD) (working tree)"; df -h /tmp | tail -1; } > $OUT/host.txt 2>&1
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
run() {  # label build args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
pv=s.get('per_vertex_steps') or {}
print('%-14s wall %s total %.3f count %.4f pv %.3f pv_write %.3f %s' % (
  sys.argv[1], sys.argv[3], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0,
  ' '.join('%s=%.3f'%(k,v) for k,v in pv.items() if isinstance(v,float))))
PY
}
for r in 1 2 3 4; do for b in base new; do
  run "$b plain r$r" $b
  rm -f $W/pv.h5; run "$b pv r$r" $b --per-vertex $W/pv.h5
done; done 2>&1 | tee $OUT/k24.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_per_vertex_cuda test_cuda_per_vertex test_cuda_per_edge test_per_edge_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
