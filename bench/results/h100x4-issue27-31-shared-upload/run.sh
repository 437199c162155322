#!/usr/bin/env bash
# Device call 16 (4 GPUs, 64 cores), part 1: (a) the node-shared upload at --parts 1, on
# against off (--cuda-tuning share-uploads=0), 1/2/4 GPUs, Kronecker 24 and 26; (b) per-vertex
# with stored degrees against a file without them (main 12cb35b's partitioner), Kronecker 24
# --parts 1 at 1 and 4 GPUs; (c) the upload probe, 4 processes at once.
set -u
R=$PWD
mkdir -p /tmp/new /tmp/g /tmp/pvA /tmp/pvB && tar xzf build-pack/new16.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin
{ nvidia-smi -L; nproc; nvidia-smi topo -m | head -6; } > $OUT/device.txt
$N/tricount-partition --input kronecker:24 --output /tmp/g/k24.h5 --parts 1 -q
$N/tricount-partition --input kronecker:26 --output /tmp/g/k26.h5 --parts 1 --memory-budget 64G -q
cat /tmp/g/*.h5 > /dev/null
for G in k24 k26; do
  BUILDS="new:/tmp/new" REPEATS=2 OUT=/tmp/ng-$G VARIANTS="share:|noshare:--cuda-tuning share-uploads=0" \
    timeout 150 bash $R/bench/bench_node_gpus.sh /tmp/g/$G.h5 1 2 4 > $OUT/node_$G.md 2>&1
  cat $OUT/node_$G.md
done
python3 - > $OUT/peers.txt <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/ng-k2*/new-*-g4-r1.json')):
    d = json.load(open(f))
    print(f, [(r['rank'], r.get('bytes_transferred'), r.get('bytes_from_peers'), round(r.get('transfer_seconds', 0), 3), round(r.get('load_seconds', 0), 3)) for r in d['per_rank']])
PY
cat $OUT/peers.txt
# (b) per-vertex: the blocks file from main 12cb35b's partitioner.
$N/tricount-generate --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
/tmp/new/base/tricount-partition --input /tmp/k24.bin64 --output /tmp/pvA/kron24.p1.h5 --parts 1 -q
cp /tmp/g/k24.h5 /tmp/pvB/kron24.p1.h5; rm -f /tmp/k24.bin64
touch /tmp/pvA/kron24.bin64 /tmp/pvB/kron24.bin64
mkdir -p /tmp/b && ln -sfn $N /tmp/b/bin
for w in A B; do
  echo "== $w ($( [ $w = A ] && echo 'degrees from the blocks' || echo 'stored degrees'))"
  BUILD=/tmp/b WORK=/tmp/pv$w PARTS=1 REPS=2 timeout 150 bash $R/bench/bench_per_vertex.sh 24 2 5
done > $OUT/per_vertex.txt 2>&1
grep -v '^{' $OUT/per_vertex.txt
# (c) the probe: 4 processes, one per GPU, at once.
for d in 0 1 2 3; do ./build-pack/probe/upload_probe /tmp/g/k24.h5 $d 8 > $OUT/probe$d.txt 2>&1 & done; wait
cat $OUT/probe*.txt
