#!/usr/bin/env bash
# Kronecker 24 at --parts 1, one H200: main 4f08551 (base) against exp (class 0's host counters
# and the early table's columns started once the first count is launched, not during setup,
# load and upload), plain and --per-vertex .h5, five repeats alternating.
set -u
mkdir -p /tmp/new /tmp/exp /tmp/w && tar xJf build-pack/main.txz -C /tmp/new && tar xJf build-pack/exp.txz -C /tmp/exp
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label binary args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall $b $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cat $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']; r=d['per_rank'][0]
print('%-12s wall %s setup %.3f total %.3f load %.3f transfer %.3f count %.4f teardown %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], s['load'], s['transfer'], t['count']['max'], r['teardown_seconds'],
  s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.4f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
}
B=/tmp/new/bin/tricount-count E=/tmp/exp/bin/tricount-count
run "warm" $B > /dev/null
for r in 1 2 3 4 5; do
  run "base plain r$r" $B
  rm -f $W/pv.h5; run "base pv r$r" $B --per-vertex $W/pv.h5; python3 -c "import json;print(json.load(open('$W/j.json'))['top_vertices'],json.load(open('$W/j.json'))['average_clustering'])" > $W/pvb
  run "exp plain r$r" $E
  rm -f $W/pv.h5; run "exp pv r$r" $E --per-vertex $W/pv.h5
  python3 -c "import json;print(json.load(open('$W/j.json'))['top_vertices'],json.load(open('$W/j.json'))['average_clustering'])" | cmp -s - $W/pvb || echo "summaries differ r$r"
done 2>&1 | tee $OUT/run2_k24.txt
