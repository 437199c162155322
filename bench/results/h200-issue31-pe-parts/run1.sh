#!/usr/bin/env bash
# Where per-edge counting's time goes beyond the plain count: main 62cd2d6's cuda_bench
# (base) against builds that each leave out one kind of per-edge counter write (experiment
# builds, not kept: nocol = the 2-hop element's atomic per hit, nomid = the 1-hop entry's
# per-entry sum, nokey = the key tally's flush to u's (v's) list, notpos = T's P(i,j)
# positions, none = all four). TX_TIMING_ONLY skips the support checks and the sorted-list
# kernel (the variants' supports are wrong by design). cuda_bench per-edge, median of 5,
# two rounds alternating, Kronecker 20 and 24; per-step profiles of Kronecker 24.
# Then where --per-vertex's step goes at one GPU: Kronecker 24 plain and --per-vertex .h5,
# three repeats alternating, whole JSON reports; one --per-vertex run under perf.
set -u
mkdir -p /tmp/x /tmp/w /tmp/perf && tar xJf build-pack/tx.txz -C /tmp/x
export LD_LIBRARY_PATH=/tmp/x:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; free -g | head -2; echo "perf: $(command -v perf)"; cat /proc/sys/kernel/perf_event_paranoid; df -h /tmp | tail -1; } > $OUT/run1_host.txt 2>&1
W=/tmp/w P=/tmp/x/tricount-partition
s=$(date +%s)
$P --input kronecker:20 --output $W/k20.h5 --parts 1 -q --threads 4 &
$P --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 12 &
wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
export TX_TIMING_ONLY=1
for r in 1 2; do for g in k20 k24; do for v in base nocol nomid nokey notpos none; do
  echo "$r $g $v $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/x/cuda_bench_$v per-edge 2>&1 | tail -1 | grep -o '"off_ms_median[^,]*, "on_ms_median[^,]*')"
done; done; done 2>&1 | tee $OUT/run1_pe.txt
for v in base nocol notpos none; do
  echo "== $v"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/k24.h5 timeout 60 /tmp/x/cuda_bench_$v per-edge 2>&1 | grep "cuda profile" | head -2 | cut -c1-420
done > $OUT/run1_profile.txt 2>&1
unset TX_TIMING_ONLY
run() {  # label args...
  local l=$1; shift
  /usr/bin/time -f "%e" -o $W/wall /tmp/x/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  cp $W/j.json "$OUT/run1_${l// /_}.json"
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-10s wall %s setup %.3f total %.3f count %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.3f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float))))
PY
}
for r in 1 2 3; do run "plain r$r"; rm -f $W/pv.h5; run "pv r$r" --per-vertex $W/pv.h5; done 2>&1 | tee $OUT/run1_k24.txt
PERF=$(command -v perf)
if [[ -z $PERF ]]; then tar xJf build-pack/perf.txz -C /tmp/perf; PERF=/tmp/perf/perf; export LD_LIBRARY_PATH=/tmp/perf:$LD_LIBRARY_PATH; fi
rm -f $W/pv.h5
$PERF record -F 15000 -o $W/pv.data -- /tmp/x/tricount-count $W/k24.h5 -q --json $W/j.json --per-vertex $W/pv.h5 > $OUT/run1_perf_record.log 2>&1
cp $W/j.json $OUT/run1_perf_run.json
$PERF report -i $W/pv.data --stdio --no-children --sort sym --percent-limit 0.3 2>&1 | head -90 > $OUT/run1_perf_sym.txt
$PERF report -i $W/pv.data --stdio --no-children --sort tid --percent-limit 0.5 2>&1 | head -60 > $OUT/run1_perf_tid.txt
$PERF report -i $W/pv.data --stdio --no-children --sort tid,sym --percent-limit 0.2 2>&1 | head -200 > $OUT/run1_perf_tid_sym.txt
ls -la $OUT
