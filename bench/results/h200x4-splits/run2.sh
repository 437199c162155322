#!/usr/bin/env bash
# Device call 2 (4xH200 host): the new --workload-splits auto (e7892cd) with no options on
# Kronecker 24 and 26 at --parts 1, 1/2/4 GPUs, and where each rank's setup and count phase
# go (per_rank of the report); 4 GPUs again with each rank shown only its own GPU
# (CUDA_VISIBLE_DEVICES from the launcher's local rank).
set -u
mkdir -p /tmp/new && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nvidia-smi -q | grep -i "persistence" | head -4; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
cat > $W/own_gpu.sh <<'SH'
#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=$(( OMPI_COMM_WORLD_LOCAL_RANK % 4 ))
exec "$@"
SH
chmod +x $W/own_gpu.sh
count() {  # file label ranks [wrapper] -- args...
  local f=$1 l=$2 np=$3 wrap=$4; shift 4
  local s=$(now)
  mpirun -np $np $wrap $N/tricount-count $f -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[3])); s=d['seconds']; t=d['timers']
print('%-20s m %-3d tasks %-3d wall %s tri %d total %.3f setup %.3f transfer %.3f count max %.4f min %.4f count_phase %.3f'%(
  sys.argv[1], d['workload_splits'], d['tasks'], sys.argv[2], d['triangles'], s['total'], s['setup'], s['transfer'],
  t['count']['max'], t['count']['min'], s['count_phase']))
f=lambda x: ' '.join('%s %.3f'%(k,v) for k,v in x.items() if isinstance(v,(int,float)))
for r in d['per_rank']:
  print('   rank %d %-16s start %.3f [%s] setup %.3f [%s] backend %.3f [%s]'%(r['rank'], r['role'], r.get('process_start_seconds',0),
    f(r.get('start_steps_seconds',{})), r.get('setup_seconds',0), f(r.get('setup_steps_seconds',{})), r.get('backend_seconds',0), f(r.get('backend_steps_seconds',{}))))
  if r['role']!='scheduler':
    print('      load %.3f [%s] transfer %.3f count %.4f idle %.3f first_task %.3f count_phase %.3f teardown %.3f'%(r['load_seconds'],
      f(r.get('load_steps_seconds',{})), r['transfer_seconds'], r['count_seconds'], r['idle_seconds'], r.get('first_task_seconds',0), r.get('count_phase_seconds',0), r.get('teardown_seconds',0)))
PY
}
{
for np in 2 5; do s=$(now); mpirun -np $np true; echo "mpirun -np $np true: $(since $s) s"; done
$N/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
$N/tricount-partition --input kronecker:26 --parts 1 -o $W/k26p1.h5 2>&1 | grep ^partitioned
for g in k24 k26; do
  for r in 1 2; do
    count $W/${g}p1.h5 "$g g1 r$r" 2 ""
    count $W/${g}p1.h5 "$g g2 r$r" 3 ""
    count $W/${g}p1.h5 "$g g4 r$r" 5 ""
    count $W/${g}p1.h5 "$g g4 own-gpu r$r" 5 $W/own_gpu.sh
  done
done
} 2>&1 | tee $OUT/run2.txt
