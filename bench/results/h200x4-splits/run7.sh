#!/usr/bin/env bash
# Device call 7 (4xH200 host): the upload's pinned staging buffers write-combined (new) against
# cached (old = 7b6e0a9), Kronecker 24 and 26 at --parts 1 with no options on 1 and 4 GPUs, ABBA
# order, two repeats; per run each worker's transfer seconds and GB/s.
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
d=json.load(open(sys.argv[3])); s=d['seconds']
w=[r for r in d['per_rank'] if r['role']!='scheduler']
tr=[r['transfer_seconds'] for r in w]; gb=w[0]['bytes_transferred']/1e9
print('%-16s wall %s tri %d total %.3f setup %.3f transfer %.3f-%.3f (%.2f GB, %.1f-%.1f GB/s) count %.4f count_phase %.3f'%(
  sys.argv[1], sys.argv[2], d['triangles'], s['total'], s['setup'], min(tr), max(tr), gb, gb/max(tr), gb/min(tr), s['count'], s['count_phase']))
PY
}
{
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:26 --parts 1 -o $W/k26p1.h5 2>&1 | grep ^partitioned
for r in 1 2; do
  order="old new"; [ $((r % 2)) -eq 0 ] && order="new old"
  for np in 2 5; do for g in k24 k26; do for b in $order; do count $b $W/${g}p1.h5 "$g g$((np-1)) $b r$r" $np; done; done; done
done
} 2>&1 | tee $OUT/run7.txt
