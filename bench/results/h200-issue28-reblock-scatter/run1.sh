#!/usr/bin/env bash
# Issue 28 (one H200): the re-blocking scatter with 32 rows per warp against a warp per row
# (reblock_probe's `row-warp`, the kernel before), on Kronecker 24 and 26 files of 4 and 8
# parts re-blocked into 1, checked block for block against the 1-part file; then the whole
# count with no options (auto: counted as 1 part) beside the 1-part file, and the GPU tests of
# --count-parts and the prefetch. Ran at ff26564 (its reblock_probe still has `row-warp`).
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; T=/tmp/new/tests; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
( cd $T && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_count_parts_cuda test_cuda_prefetch test_cuda_backend; do
    echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
count() {  # label file args...
  local l=$1 f=$2; shift 2
  $N/tricount-count $f -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  python3 - "$l" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-22s parts %d as %d tasks %-4d tri %d total %.3f transfer %.3f count %.4f'%(
  sys.argv[1], d['parts'], d['count_parts'], d['tasks'], d['triangles'], s['total'], s['transfer'], t['count']['max']))
PY
}
for s in 24 26; do
  $N/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1
  for n in 1 4 8; do $N/tricount-partition --input $W/k$s.bin64 --parts $n -o $W/k${s}n$n.h5 > /dev/null 2>&1 || echo "partition k$s n=$n failed"; done
  rm -f $W/k$s.bin64
  for r in 1 2; do
    for n in 4 8; do
      $T/reblock_probe $W/k${s}n$n.h5 $W/k${s}n1.h5 3 2>&1 | sed "s/^/k$s $n->1 r$r /"
      $T/reblock_probe $W/k${s}n$n.h5 $W/k${s}n1.h5 3 row-warp 2>&1 | sed "s/^/k$s $n->1 r$r /"
    done
  done
  for r in 1 2; do
    count "k$s n=1 r$r" $W/k${s}n1.h5
    for n in 4 8; do count "k$s n=$n auto r$r" $W/k${s}n$n.h5; done
  done
  rm -f $W/k${s}n*.h5
done 2>&1 | tee $OUT/run1.txt
