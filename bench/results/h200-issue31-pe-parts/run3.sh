#!/usr/bin/env bash
# --per-vertex's step at one GPU, Kronecker 24: the instrumented main (prof) against the same
# with the summary's threads summing in locals and class 0's host array pinned while the GPU
# counts (new, instrumented alike); plain runs beside them, four repeats alternating.
set -u
mkdir -p /tmp/x /tmp/w && tar xJf build-pack/tx3.txz -C /tmp/x
export LD_LIBRARY_PATH=/tmp/x:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/x/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label binary args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/x/$b $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cat $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-12s wall %s setup %.3f total %.3f count %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.4f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
  grep TXPROF $W/c.log | grep -v "calls 0"
}
for r in 1 2 3 4; do
  run "plain r$r" count_prof
  rm -f $W/pv.h5; run "prof r$r" count_prof --per-vertex $W/pv.h5; md5sum $W/pv.h5 | cut -c1-12
  rm -f $W/pv.h5; run "new r$r" count_new --per-vertex $W/pv.h5; md5sum $W/pv.h5 | cut -c1-12
done 2>&1 | tee $OUT/run3_k24.txt
