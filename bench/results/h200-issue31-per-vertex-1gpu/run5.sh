#!/usr/bin/env bash
# run4's timing table again (its parser failed): base (5f6528b) against new (MPI_Init waits for
# the driver's start; the per-vertex vertex and degree columns written while counting), Kronecker
# 24 --parts 1, plain and --per-vertex .h5, ABAB, with the start steps.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/base.tgz -C /tmp/base
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt 2>&1
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
run() {  # label build args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
m=lambda g,k: t[g][k]['max'] if isinstance(t[g][k],dict) else t[g][k]
print('%-16s wall %s process_start %.3f mpi_init %.3f setup %.3f backend_wait %.3f total %.3f count %.4f pv %.3f' % (
  sys.argv[1], sys.argv[3], s['process_start'], m('start_steps','mpi_init'), s['setup'], m('setup_steps','backend_wait'),
  s['total'], t['count']['max'], s.get('per_vertex') or 0))
PY
}
for r in 1 2 3 4; do for b in base new; do
  run "$b plain r$r" $b
  rm -f $W/pv.h5; run "$b pv r$r" $b --per-vertex $W/pv.h5
done; done 2>&1 | tee $OUT/k24.txt
