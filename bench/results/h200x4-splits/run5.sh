#!/usr/bin/env bash
# Device call 5 (4xH200 host): where MPI_Init's 0.3-0.35 s goes. Kronecker 24 at --parts 1 on
# 1 and 4 GPUs (e7892cd, no options) with Open MPI's default transports against
# pml ob1 + btl self,vader (no UCX), in ABBA order, three repeats; each run's mpi_init per rank,
# the report's total and the process wall; and the Open MPI build's components.
set -u
mkdir -p /tmp/old && tar xzf build-pack/old.tgz -C /tmp/old
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/old
W=/tmp/w; mkdir -p $W; N=/tmp/old/bin
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
{ ompi_info | grep -E "Open MPI:|MCA (pml|btl|mtl|osc):" ; } > $OUT/ompi.txt 2>&1
count() {  # label ranks mca...
  local l=$1 np=$2; shift 2
  local s=$(now)
  mpirun "$@" -np $np $N/tricount-count $W/k24p1.h5 -q --json $W/j.json > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[3])); s=d['seconds']
mi=[r['start_steps_seconds']['mpi_init'] for r in d['per_rank']]; st=[r['process_start_seconds'] for r in d['per_rank']]
print('%-16s wall %s total %.3f setup %.3f mpi_init %.3f-%.3f start %.3f-%.3f tri %d'%(sys.argv[1], sys.argv[2], s['total'], s['setup'], min(mi), max(mi), min(st), max(st), d['triangles']))
PY
}
{
$N/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
for r in 1 2 3; do
  order="default ob1"; [ $((r % 2)) -eq 0 ] && order="ob1 default"
  for np in 2 5; do for v in $order; do
    if [ $v = ob1 ]; then count "g$((np-1)) ob1 r$r" $np --mca pml ob1 --mca btl self,vader --mca osc ^ucx
    else count "g$((np-1)) default r$r" $np; fi
  done; done
done
for v in default ob1; do
  s=$(now)
  if [ $v = ob1 ]; then mpirun --mca pml ob1 --mca btl self,vader -np 5 true; else mpirun -np 5 true; fi
  echo "mpirun -np 5 true ($v): $(since $s)"
done
} 2>&1 | tee $OUT/run5.txt
