#!/usr/bin/env bash
# Rank 0's table threads (rows built and formatted): 8 (bin/) against 16 (t16/) on the 16-core
# host, Kronecker 24 --parts 1, plain, --per-vertex .h5 and --per-edge .h5, alternating.
set -u
mkdir -p /tmp/new /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD) + table_build_threads 8 / 16"; } > $OUT/host.txt 2>&1
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
count() {  # label dir args...
  local l=$1 d=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/new/$d/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']
st=s.get('per_vertex_steps') or s.get('per_edge_steps') or {}
step=s.get('per_vertex') or s.get('per_edge') or 0
wr=s.get('per_vertex_write') or s.get('per_edge_write') or 0
print('%-14s wall %s total %.3f count %.4f step %.3f write %.3f %s' % (sys.argv[1], sys.argv[3], s['total'], d['timers']['count']['max'],
  step, wr, ' '.join('%s=%.3f'%(k,v) for k,v in st.items() if isinstance(v,float))))
PY
}
for r in 1 2 3; do for d in bin t16; do
  count "$d plain r$r" $d
  rm -f $W/o.h5; count "$d pv r$r" $d --per-vertex $W/o.h5
  rm -f $W/o.h5; count "$d pe r$r" $d --per-edge $W/o.h5
done; done 2>&1 | tee $OUT/k24.txt
