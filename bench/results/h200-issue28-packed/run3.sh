#!/usr/bin/env bash
# Device call 3 (issue 28, packed blocks decoded on the GPU: the stored words uploaded, one warp
# per group of 128 rows): GPU tests (the backend's self-test has a packed triangle; SNAP graphs
# from packed files); Kronecker 24 at --parts 1/4/8 and Kronecker 26 at --parts 1/8, csr and
# packed, one-GPU counts, two repeats; the static schedule on packed Kronecker 24 at n = 4.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_backend test_snap_graphs_cuda; do echo "== $t"; f='*'; [ $t = test_snap_graphs_cuda ] && f='*SnapPacked*'
    timeout 150 ./$t --gtest_filter="$f" 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
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
print('%-22s tri %d total %.3f load %.3f count %.4f transfer %.3f (%.2f GB) | read %.3f checksum %.3f decode %.3f validate %.3f | bytes_loaded %.2f GB'%(
  sys.argv[1], d['triangles'], s['total'], s.get('load',0), s['count'], w['transfer_seconds'], w['bytes_transferred']/1e9, ls['read'], ls['checksum'], ls['decode'], ls['validate'], w['bytes_loaded']/1e9))
PY
}
{
for spec in k24:kronecker:24:"1 4 8" k26:kronecker:26:"1 8"; do
  name=${spec%%:*}; rest=${spec#*:}; in=${rest%:*}; ns=${rest##*:}; ns=${ns//\"/}
  for n in $ns; do
    for e in csr packed; do part $in $n $e /tmp/$name-n$n-$e.h5; done
    for r in 1 2; do for e in csr packed; do count /tmp/$name-n$n-$e.h5 "$name n=$n $e r$r"; done; done
    if [ $name = k24 ] && [ $n = 4 ]; then
      for e in csr packed; do mpirun -np 2 $N/tricount-count /tmp/$name-n$n-$e.h5 --schedule static -q --json /tmp/s.json > /tmp/s.log 2>&1 \
        && python3 -c "import json;d=json.load(open('/tmp/s.json'));print('static $e', d['triangles'], d['seconds']['total'])" || tail -3 /tmp/s.log; done
    fi
    rm -f /tmp/$name-n$n-*.h5
  done
done
} 2>&1 | tee $OUT/counts.txt
