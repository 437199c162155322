#!/usr/bin/env bash
# Device call 4 (issue 28 on several GPUs, 4xH200 host): Kronecker 24 and 26 at --parts 1, csr and
# packed, counted on 1, 2 and 4 GPUs (-np 2, 3, 5; m auto), two repeats alternating, with
# the process wall (mpirun start to exit) beside the report's total and the launcher's floor.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
part() {  # input parts encoding file
  local s=$(date +%s.%N)
  $N/tricount-partition --input $1 --parts $2 --block-encoding $3 -o $4 2>&1 | grep -E "^partitioned|error" | sed "s|^|$3 n=$2: |"
  echo "  wall $(python3 -c "import time;print(round(time.time()-$s,2))") s"
}
count() {  # file label ranks
  local s=$(date +%s.%N)
  mpirun -np $3 $N/tricount-count $1 -q --json /tmp/j.json > /tmp/c.log 2>&1 || { tail -3 /tmp/c.log; return; }
  WALL=$(python3 -c "import time;print(round(time.time()-$s,3))")
  python3 - "$2" "$WALL" <<'PY'
import json,sys
d=json.load(open('/tmp/j.json')); s=d['seconds']; w=[r for r in d['per_rank'] if r['role']!='scheduler'][0]
ls=w['load_steps_seconds']
print('%-22s wall %s tri %d total %.3f load %.3f count %.4f transfer %.3f (%.2f GB) | read %.3f checksum %.3f decode %.3f validate %.3f | bytes_loaded %.2f GB'%(
  sys.argv[1], sys.argv[2], d['triangles'], s['total'], s.get('load',0), s['count'], w['transfer_seconds'], w['bytes_transferred']/1e9, ls['read'], ls['checksum'], ls['decode'], ls['validate'], w['bytes_loaded']/1e9))
PY
}
{
for r in 1 2; do for np in 2 3 5; do s=$(date +%s.%N); mpirun -np $np true; echo "mpirun -np $np true: $(python3 -c "import time;print(round(time.time()-$s,3))") s"; done; done
for g in k24:kronecker:24 k26:kronecker:26; do
  name=${g%%:*}; in=${g#*:}
  for e in csr packed; do part $in 1 $e /tmp/$name-$e.h5; done
  for r in 1 2; do for np in 2 3 5; do for e in csr packed; do count /tmp/$name-$e.h5 "$name $e g$((np-1)) r$r" $np; done; done; done
  rm -f /tmp/$name-*.h5
done
} 2>&1 | tee $OUT/two_gpus.txt
