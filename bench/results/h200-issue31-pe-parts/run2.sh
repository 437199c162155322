#!/usr/bin/env bash
# --per-vertex's step at one GPU, Kronecker 24: an instrumented build of main 62cd2d6 (prof:
# the time of each part of the rows and the summary, summed over pieces; the counters' copy
# off the GPU timed as the step "counters") against the same with class 0's host array
# pinned (cudaHostRegister) while the GPU counts (pin), plain runs beside them, four repeats
# alternating; one prof run under perf with DWARF call graphs.
set -u
mkdir -p /tmp/x /tmp/w /tmp/perf $OUT/r && tar xJf build-pack/tx2.txz -C /tmp/x && tar xJf build-pack/perf.txz -C /tmp/perf
export LD_LIBRARY_PATH=/tmp/x:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/x/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label binary args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/x/$b $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/r/fail_${l// /_}.log"; return; }
  cp $W/j.json "$OUT/r/${l// /_}.json"
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-12s wall %s setup %.3f total %.3f count %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.4f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
  grep TXPROF $W/c.log
}
for r in 1 2 3 4; do
  run "plain r$r" count_prof
  rm -f $W/pv.h5; run "prof r$r" count_prof --per-vertex $W/pv.h5
  rm -f $W/pv.h5; run "pin r$r" count_pin --per-vertex $W/pv.h5
done 2>&1 | tee $OUT/run2_k24.txt
export LD_LIBRARY_PATH=/tmp/perf:$LD_LIBRARY_PATH
rm -f $W/pv.h5
/tmp/perf/perf record -F 4000 --call-graph dwarf,16384 -o $W/pv.data -- /tmp/x/count_prof $W/k24.h5 -q --json $W/j.json --per-vertex $W/pv.h5 > $OUT/r/perf_record.log 2>&1
cp $W/j.json $OUT/r/perf_run.json
P=/tmp/perf/perf
$P report -i $W/pv.data --stdio --children --sort sym --percent-limit 1.5 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | cut -c1-220 | head -80 > $OUT/r/perf_children.txt
$P report -i $W/pv.data --stdio --no-children --sort sym --percent-limit 0.4 -g caller,0.5,callee,function,percent --symbol-filter=exc_page_fault 2>/dev/null | grep -v "^$" | cut -c1-200 | head -150 > $OUT/r/perf_faults.txt
$P report -i $W/pv.data --stdio --no-children --sort pid --percent-limit 0.3 -g none 2>/dev/null | grep -v "^$" | head -60 > $OUT/r/perf_pid.txt
cd $OUT && tar czf run2.tgz r && rm -rf r
