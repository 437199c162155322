#!/usr/bin/env bash
# A warp row's per-vertex hits counted in its table's bucket heads (new: main 1119d97 with
# head_counts.diff, not kept) against main 1119d97
# (base: every hit hashed into the row's tally): cuda_bench per-vertex on the seven graphs,
# two rounds alternating; Kronecker 24 end to end, plain and --per-vertex .h5 (new), three
# repeats alternating; then the GPU tests of the per-vertex and plain paths.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/run1_host.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
bench() {  # build graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 100 /tmp/$1/tests/cuda_bench per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 u20 k20 g128 u24 k23 k24; do for v in base new; do
  echo "$v r$r $g $(bench $v $g)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_pv_ab.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
run() {  # label args...
  local l=$1; shift
  /usr/bin/time -f "%e" -o $W/wall /tmp/new/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cp $W/c.log "$OUT/fail_${l// /_}.log"; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-10s wall %s setup %.3f total %.3f count %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0))
PY
}
for r in 1 2 3; do run "plain r$r"; rm -f $W/pv.h5; run "pv r$r" --per-vertex $W/pv.h5; done 2>&1 | tee $OUT/run1_k24.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_vertex test_cuda_backend; do
    s=$(date +%s); echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run1_gputests.log
