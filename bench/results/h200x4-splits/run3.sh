#!/usr/bin/env bash
# Device call 3 (4xH200 host): each worker's CUDA shown only its own GPU (new: CUDA_VISIBLE_DEVICES
# set before the driver starts) against all four (old: e7892cd, the new --workload-splits auto),
# Kronecker 24 and 26 at --parts 1 with no options, 1/2/4 GPUs, three repeats alternating, with
# the process wall beside the report's total and the launcher's floor of the same repeat.
set -u
for b in old new; do mkdir -p /tmp/$b && tar xzf build-pack/$b.tgz -C /tmp/$b; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
count() {  # build file label ranks floor
  local b=$1 f=$2 l=$3 np=$4 floor=$5
  local s=$(now)
  LD_LIBRARY_PATH=/tmp/$b mpirun -np $np /tmp/$b/bin/tricount-count $f -q --json $W/j.json > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" "$floor" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[4])); s=d['seconds']; t=d['timers']; wall=float(sys.argv[2]); floor=float(sys.argv[3])
dev=[r['backend_steps_seconds']['device'] for r in d['per_rank'] if r['role']!='scheduler']
print('%-20s m %d wall %.3f floor %.3f beyond %.3f tri %d total %.3f setup %.3f device %.3f-%.3f transfer %.3f count %.4f count_phase %.3f'%(
  sys.argv[1], d['workload_splits'], wall, floor, wall-floor-s['total'], d['triangles'], s['total'], s['setup'], min(dev), max(dev),
  s['transfer'], t['count']['max'], s['count_phase']))
PY
}
{
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input kronecker:26 --parts 1 -o $W/k26p1.h5 2>&1 | grep ^partitioned
for r in 1 2 3; do
  for np in 2 3 5; do
    s=$(now); mpirun -np $np true; floor=$(since $s)
    for g in k24 k26; do for b in old new; do count $b $W/${g}p1.h5 "$g g$((np-1)) $b r$r" $np $floor; done; done
  done
done
} 2>&1 | tee $OUT/run3.txt
