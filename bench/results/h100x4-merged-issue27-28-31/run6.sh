#!/usr/bin/env bash
# Device call 6: the merged tree (tiny rows, non-empty-row lanes, GPU driver and context beside
# MPI_Init, per-vertex/per-edge step overhaul, generated partition input). GPU tests; one node
# at 1/2/4 GPUs base (main b8fc9ec) vs new; Kronecker 24 n = 8 count; per-vertex and per-edge
# outputs; tricount-partition --input kronecker:24 against generate-then-partition.
set -u
R=$PWD
mkdir -p /tmp/base/bin /tmp/new /tmp/d && tar xzf build-pack/main.tgz -C /tmp/base/bin && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
cp /tmp/new/*.so* /tmp/new/bin/ 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi -L
N=/tmp/new/bin
( $N/tricount-generate --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
  for n in 1 8; do $N/tricount-partition --input /tmp/k24.bin64 --output /tmp/k24-n$n.h5 --parts $n --quiet; done ) > $OUT/prep.log 2>&1 &
PP=$!
GD=$(find /tmp/d -maxdepth 3 -type d -name graphs | head -1)
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=$GD
  for t in test_cuda_backend test_cuda_per_vertex test_per_vertex_cuda test_cuda_per_edge test_per_edge_cuda test_cuda_prefetch test_static_schedule_cuda test_snap_graphs_cuda test_per_edge_snap_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -20; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PP; cat $OUT/prep.log
# 1. One node, 1/2/4 GPUs, base vs new.
BUILDS="base:/tmp/base new:/tmp/new" REPEATS=2 OUT=/tmp/ng24 timeout 150 bash $R/bench/bench_node_gpus.sh /tmp/k24-n1.h5 1 2 4 > $OUT/node_gpus_k24.md 2>&1
cat $OUT/node_gpus_k24.md
python3 -c "
import json; d=json.load(open('/tmp/ng24/new-g4-r2.json'))
for r in d['per_rank']:
  if r.get('role')=='scheduler': continue
  print('new g4 rank', r['rank'], 'setup %.3f'%r['setup_seconds'], 'start', {k:round(v,3) for k,v in r['start_steps_seconds'].items()}, 'steps', {k:round(v,3) for k,v in r['setup_steps_seconds'].items() if v>0.01}, 'backend %.3f'%r['backend_seconds'], {k:round(v,3) for k,v in r['backend_steps_seconds'].items()})
" | tee $OUT/setup_ranks.txt
# 2. Kronecker 24 at n = 8, one GPU.
for r in 1 2; do for b in base:/tmp/base/bin new:$N; do
  mpirun -np 2 ${b#*:}/tricount-count /tmp/k24-n8.h5 -q --json /tmp/j.json > /dev/null 2>&1 && python3 -c "
import json; d=json.load(open('/tmp/j.json')); s=d['seconds']; print('k24 n8 ${b%%:*} count %.4f total %.3f'%(s['count'], s['total']), d.get('triangles'))"
done; done | tee $OUT/k24n8.txt
# 3. Per-vertex and per-edge outputs (Kronecker 24, --parts 1).
mkdir -p /tmp/pv && ln -sf /tmp/k24-n1.h5 /tmp/pv/kron24.p1.h5 && touch /tmp/pv/kron24.bin64
mkdir -p /tmp/nb && ln -sfn /tmp/new/bin /tmp/nb/bin
BUILD=/tmp/nb WORK=/tmp/pv PARTS=1 REPS=1 timeout 120 bash $R/bench/bench_per_vertex.sh 24 2 5 > $OUT/per_vertex.txt 2>&1; tail -12 $OUT/per_vertex.txt
BUILD=/tmp/nb WORK=/tmp/pv PARTS=1 REPS=1 OUTPUT=per-edge timeout 100 bash $R/bench/bench_per_vertex.sh 24 2 > $OUT/per_edge.txt 2>&1; tail -8 $OUT/per_edge.txt
# 4. Generated input against generate-then-partition (16 cores, --parts 1).
rm -f /tmp/k24-n8.h5
s=$(date +%s.%N); $N/tricount-partition --input kronecker:24 --output /tmp/g.h5 --parts 1 > /tmp/g.log 2>&1; e=$(date +%s.%N)
echo "direct kronecker:24: $(echo "$e - $s" | bc) s; $(tail -1 /tmp/g.log)" | tee $OUT/generated.txt
s=$(date +%s.%N); $N/tricount-partition --input /tmp/k24.bin64 --output /tmp/f.h5 --parts 1 > /tmp/f.log 2>&1; e=$(date +%s.%N)
echo "partition of the generator's file (generation itself not timed here): $(echo "$e - $s" | bc) s; $(tail -1 /tmp/f.log)" | tee -a $OUT/generated.txt
s=$(date +%s.%N); $N/tricount-generate --kind kronecker --scale 24 --output /tmp/k24b.bin64 > /dev/null; e=$(date +%s.%N)
echo "tricount-generate kronecker 24: $(echo "$e - $s" | bc) s" | tee -a $OUT/generated.txt
