#!/usr/bin/env bash
# --per-edge beside --per-vertex: the counting kernels twice per task (per vertex, then per
# edge) against the sorted-list kernel (edge-lists=1), Kronecker 24 --parts 1, alternating;
# the per-edge GPU tests (per-vertex counts beside per-edge checked vertex by vertex).
set -u
mkdir -p /tmp/new /tmp/w /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
count() {  # label args...
  local l=$1; shift
  /tmp/new/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  python3 -c "
import json; d=json.load(open('$W/j.json')); s=d['seconds']
print('%-16s total %.3f count %.4f per_vertex %.3f per_edge %.3f' % ('$l', s['total'], d['timers']['count']['max'], s.get('per_vertex') or 0, s.get('per_edge') or 0))"
}
for r in 1 2; do
  count "plain r$r"
  rm -f $W/pv.h5 $W/pe.h5; count "pv+pe r$r" --per-vertex $W/pv.h5 --per-edge $W/pe.h5
  cp $W/pv.h5 $W/pv_kernels.h5
  rm -f $W/pv.h5 $W/pe.h5; count "pv+pe lists r$r" --per-vertex $W/pv.h5 --per-edge $W/pe.h5 --cuda-tuning edge-lists=1
done 2>&1 | tee $OUT/k24_pv_pe.txt
# (the device host has no h5diff: the per-vertex table beside per-edge is checked by the GPU tests)
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_edge test_per_edge_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran|vertex [0-9]" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/k24_pv_pe.txt $OUT/gputests.log
