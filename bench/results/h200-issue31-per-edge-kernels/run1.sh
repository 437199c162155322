#!/usr/bin/env bash
# Issue 31.1 (one H200): per-edge counting through the counting kernels' kPerEdge form against
# the sorted-list kernel (edge-lists=1) and the plain count, cuda_bench per-edge (supports of
# both kernels compared edge by edge); end to end on Kronecker 24 --parts 1; the GPU tests.
set -u
mkdir -p /tmp/new /tmp/w /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w T=/tmp/new/tests
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD) + uncommitted"; } > $OUT/host.txt 2>&1
( cd $T && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_edge test_per_edge_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran|edge [0-9]" | head -40; done ) > $OUT/gputests.log 2>&1
P=/tmp/new/bin/tricount-partition
$P --input kronecker:24 --output $W/k24.h5 --parts 1 -q &
$P --input kronecker:20 --output $W/k20.h5 --parts 1 -q
$P --input kronecker:18 --output $W/k18.h5 --parts 1 -q
$P --input grid3d:128 --output $W/g128.h5 --parts 1 -q
$P --input uniform:vertices=1048576,edges=16777216 --output $W/u20.h5 --parts 1 -q
$P --input kronecker:22 --output $W/k22n4.h5 --parts 4 -q
wait
for g in k18 k20 g128 u20 k22n4 k24; do
  echo "$g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 200 $T/cuda_bench per-edge 2>&1 | tail -2)"
done 2>&1 | tee $OUT/bench.txt
count() {  # label args...
  local l=$1; shift
  /usr/bin/time -f "%e" -o $W/wall /tmp/new/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']
pe=s.get('per_edge_steps') or s.get('per_vertex_steps') or {}
print('%-18s wall %s total %.3f count %.4f per_edge %.3f steps %s' % (sys.argv[1], sys.argv[3], s['total'], d['timers']['count']['max'],
  s.get('per_edge') or 0, ' '.join('%s=%.3f'%(k,v) for k,v in pe.items() if isinstance(v,float))))
PY
}
for r in 1 2; do
  count "plain r$r"
  rm -f $W/pe.h5; count "pe h5 r$r" --per-edge $W/pe.h5
  rm -f $W/pe.h5; count "pe h5 lists r$r" --per-edge $W/pe.h5 --cuda-tuning edge-lists=1
done 2>&1 | tee $OUT/k24.txt
ls -la $W/pe.h5 >> $OUT/k24.txt
( cd $T && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_vertex test_per_edge_snap_cuda; do
    echo "== $t"; timeout 150 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) >> $OUT/gputests.log 2>&1
cat $OUT/gputests.log
