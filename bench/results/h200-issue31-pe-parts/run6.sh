#!/usr/bin/env bash
# --per-vertex at one GPU, Kronecker 24 at --parts 1: main 62cd2d6 (base) against a7b8372
# (new: the summary's threads summing in locals, class 0's counters pinned), plain and
# --per-vertex .h5 with each build, five repeats alternating; then every GPU test binary of new.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d && tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label build args...
  local l=$1 b=$2; shift 2
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cat $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-14s wall %s setup %.3f total %.3f count %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], t['count']['max'], s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.4f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
}
for r in 1 2 3 4 5; do for b in base new; do
  run "$b plain r$r" $b
  rm -f $W/pv.h5; run "$b pv r$r" $b --per-vertex $W/pv.h5
done; done 2>&1 | tee $OUT/run6_k24.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 280 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_backend > $OUT/run6_tests1.log 2>&1 &
group test_per_edge_snap_cuda test_static_schedule_cuda test_cuda_prefetch > $OUT/run6_tests2.log 2>&1 &
group test_count_parts_cuda test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex test_cuda_per_edge > $OUT/run6_tests3.log 2>&1 &
wait
cat $OUT/run6_tests*.log | grep -E "==|PASSED|FAILED|\("
