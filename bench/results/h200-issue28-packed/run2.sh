#!/usr/bin/env bash
# Device call 2 (issue 28, packed blocks, after balancing the decode by neighbours): Kronecker 24
# at --parts 1 and 8 again, Kronecker 26 at --parts 1/4/8 as csr and packed (partition and one-GPU count,
# two repeats), and Kronecker 24 --parts 4 partitioned by 2 ranks of 8 threads, csr and packed.
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
count() {  # file label
  mpirun -np 2 $N/tricount-count $1 -q --json /tmp/j.json > /tmp/c.log 2>&1 || { tail -3 /tmp/c.log; return; }
  python3 - "$2" <<'PY'
import json,sys
d=json.load(open('/tmp/j.json')); s=d['seconds']; w=[r for r in d['per_rank'] if r['role']!='scheduler'][0]
ls=w['load_steps_seconds']
print('%-22s tri %d total %.3f load %.3f count %.4f transfer %.3f | read %.3f checksum %.3f decode %.3f validate %.3f | bytes_loaded %.2f GB'%(
  sys.argv[1], d['triangles'], s['total'], s.get('load',0), s['count'], w['transfer_seconds'], ls['read'], ls['checksum'], ls['decode'], ls['validate'], w['bytes_loaded']/1e9))
PY
}
{
for spec in k24:kronecker:24:"1 8" k26:kronecker:26:"1 4 8"; do
  name=${spec%%:*}; rest=${spec#*:}; in=${rest%:*}; ns=${rest##*:}; ns=${ns//\"/}
  for n in $ns; do
    for e in csr packed; do part $in $n $e /tmp/$name-n$n-$e.h5; done
    for r in 1 2; do for e in csr packed; do count /tmp/$name-n$n-$e.h5 "$name n=$n $e r$r"; done; done
    ls -la /tmp/$name-n$n-*.h5; rm -f /tmp/$name-n$n-*.h5
  done
done
for e in csr packed; do
  s=$(date +%s.%N)
  mpirun -np 2 $N/tricount-partition --input kronecker:24 --parts 4 --threads 8 --block-encoding $e -o /tmp/r-$e.h5 2>&1 | grep -E "^partitioned|error"
  echo "  2 ranks x 8 threads $e: wall $(python3 -c "import time;print(round(time.time()-$s,2))") s"
  count /tmp/r-$e.h5 "k24 n=4 $e (2 ranks)"
  rm -f /tmp/r-$e.h5
done
} 2>&1 | tee $OUT/k24_k26.txt
