#!/usr/bin/env bash
# Main 4f08551 on one H200: every GPU test binary; Kronecker 24 at --parts 1 plain against
# --per-vertex .h5 (four repeats alternating); and what the disk and the page cache take for the
# table's last two columns (142 MB) and the whole table (284 MB), to bound the per-vertex step.
set -u
mkdir -p /tmp/new /tmp/w /tmp/d && tar xJf build-pack/main.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 420 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_backend > $OUT/run1_tests1.log 2>&1 &
group test_per_edge_snap_cuda test_static_schedule_cuda test_cuda_prefetch > $OUT/run1_tests2.log 2>&1 &
group test_count_parts_cuda test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex test_cuda_per_edge > $OUT/run1_tests3.log 2>&1 &
wait
W=/tmp/w
{ nproc; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; df -h /tmp | tail -1; } > $OUT/run1_host.txt
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
run() {  # label args...
  local l=$1; shift
  /usr/bin/time -f "%e" -o $W/wall /tmp/new/bin/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; cat $W/c.log; return; }
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']; r=d['per_rank'][0]
print('%-10s wall %s setup %.3f total %.3f load %.3f transfer %.3f count %.4f teardown %.4f pv %.3f pv_write %.3f' % (
  sys.argv[1], sys.argv[3], s['setup'], s['total'], s['load'], s['transfer'], t['count']['max'], r['teardown_seconds'],
  s.get('per_vertex') or 0, s.get('per_vertex_write') or 0),
  ' '.join('%s=%.4f' % (k, v) for k, v in (s.get('per_vertex_steps') or {}).items() if isinstance(v, (int, float)) and v))
PY
}
for r in 1 2 3 4; do
  run "plain r$r"
  rm -f $W/pv.h5; run "pv r$r" --per-vertex $W/pv.h5
done 2>&1 | tee $OUT/run1_k24.txt
# The disk's floor: 142 MB and 284 MB written and fsynced (dd), through the page cache without fsync, and on tmpfs.
for mb in 142 284; do for r in 1 2; do
  rm -f $W/dd.bin; sync
  echo "dd ${mb} MB conv=fsync: $( { /usr/bin/time -f %e dd if=/dev/zero of=$W/dd.bin bs=1M count=$mb conv=fsync status=none; } 2>&1 )"
  rm -f $W/dd.bin; sync
  echo "dd ${mb} MB page cache only: $( { /usr/bin/time -f %e dd if=/dev/zero of=$W/dd.bin bs=1M count=$mb status=none; } 2>&1 )"
  rm -f /dev/shm/dd.bin
  echo "dd ${mb} MB tmpfs: $( { /usr/bin/time -f %e dd if=/dev/zero of=/dev/shm/dd.bin bs=1M count=$mb status=none; } 2>&1 )"
done; done 2>&1 | tee $OUT/run1_disk.txt
rm -f /dev/shm/dd.bin $W/dd.bin
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
