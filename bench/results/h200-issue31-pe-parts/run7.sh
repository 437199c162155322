#!/usr/bin/env bash
# --per-edge .h5 at one GPU, Kronecker 24 at --parts 1: a7b8372 (base) against the per-edge
# summary's threads summing in locals (pe), three repeats alternating.
set -u
mkdir -p /tmp/new /tmp/pe /tmp/w && tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/pe.txz -C /tmp/pe
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label build args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cat $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-12s wall %s total %.3f count %.4f pe %.3f pe_write %.3f' % (
  sys.argv[1], sys.argv[3], s['total'], t['count']['max'], s.get('per_edge') or 0, s.get('per_edge_write') or 0),
  ' '.join('%s=%.3f' % (k, v) for k, v in (s.get('per_edge_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
}
for r in 1 2 3; do for b in new pe; do rm -f $W/e.h5; run "$b r$r" $b --per-edge $W/e.h5; done; done 2>&1 | tee $OUT/run7_k24.txt
