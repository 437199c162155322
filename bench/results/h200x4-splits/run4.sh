#!/usr/bin/env bash
# Device call 4 (4xH200 host): own GPU (new) against all four visible (old, e7892cd) again,
# in ABBA order (the builds' order swapped each repeat), four repeats, Kronecker 24 and 26 at
# --parts 1 on 2 and 4 GPUs; per run the process wall, the report's total and setup, and
# each rank's start (process start to the report's clock) and teardown.
set -u
for b in old new; do mkdir -p /tmp/$b && tar xzf build-pack/$b.tgz -C /tmp/$b; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
W=/tmp/w; mkdir -p $W
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
count() {  # build file label ranks
  local b=$1 f=$2 l=$3 np=$4
  local s=$(now)
  LD_LIBRARY_PATH=/tmp/$b mpirun -np $np /tmp/$b/bin/tricount-count $f -q --json $W/j.json > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[3])); s=d['seconds']; wall=float(sys.argv[2])
st=[r['process_start_seconds'] for r in d['per_rank']]; td=[r['teardown_seconds'] for r in d['per_rank']]
print('%-18s wall %.3f total %.3f setup %.3f start %.3f-%.3f teardown %.3f-%.3f wall-start-total %.3f'%(
  sys.argv[1], wall, s['total'], s['setup'], min(st), max(st), min(td), max(td), wall-max(st)-s['total']))
PY
}
{
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:26 --parts 1 -o $W/k26p1.h5 2>&1 | grep ^partitioned
for r in 1 2 3 4; do
  order="old new"; [ $((r % 2)) -eq 0 ] && order="new old"
  for np in 5 3; do for g in k24 k26; do for b in $order; do count $b $W/${g}p1.h5 "$g g$((np-1)) $b r$r" $np; done; done; done
  s=$(now); mpirun -np 5 true; echo "mpirun -np 5 true: $(since $s)"
done
} 2>&1 | tee $OUT/run4.txt
