#!/usr/bin/env bash
# Device call 9 (4 GPUs): merged main (issue 29's nodes and load paths, issue 34's counting
# prober). GPU tests; Kronecker 24 at --parts 4 on 4 GPUs: one node with the file path against
# two virtual nodes of two GPUs with forward (and the dynamic default), the simulator's figure
# for each; per-vertex on/off, base (ab02552) against the counting prober.
set -u
R=$PWD
mkdir -p /tmp/new /tmp/base /tmp/g && tar xzf build-pack/new9.tgz -C /tmp/new && tar xzf build-pack/base9.tgz -C /tmp/base
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/base/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi -L | tee $OUT/device.txt; nproc | tee -a $OUT/device.txt
N=/tmp/new/bin
( $N/tricount-partition --input kronecker:24 --output /tmp/g/k24n4.h5 --parts 4 -q
  for g in 18 20 23 24; do $N/tricount-partition --input kronecker:$g --output /tmp/g/k$g.h5 --parts 1 -q; done ) > $OUT/prep.log 2>&1 &
PP=$!
mkdir -p /tmp/d && tar xzf build-pack/data.tgz -C /tmp/d; GD=/tmp/d/graphs
echo "graphs: $GD" >> $OUT/device.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=$GD
  for t in $(ls); do [ $t = cuda_bench ] && continue
    echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -20; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PP; cat $OUT/prep.log
# 1. Issue 29: one node (file) against two virtual nodes of two GPUs (forward), static; dynamic default.
mkdir -p /tmp/nb && ln -sfn /tmp/new/bin /tmp/nb/bin
BUILDS="new:/tmp/nb" REPEATS=3 OUT=/tmp/ng VARIANTS="file1x4:--schedule static --load-path file|fwd2x2:--schedule static --ranks-per-node 3 --load-path forward|file2x2:--schedule static --ranks-per-node 3 --load-path file|dyn:" \
  timeout 240 bash $R/bench/bench_node_gpus.sh /tmp/g/k24n4.h5 4 > $OUT/node_k24n4.md 2>&1
cat $OUT/node_k24n4.md
cp /tmp/ng/*-r1.json $OUT/ 2>/dev/null
for lp in file forward; do for net in 10G 25G 50G; do
  echo "simulate --gpus-per-node 2 --load-path $lp --network $net: $($N/tricount-simulate --model $R/bench/results/cost-model-h200-v2/model_all.json --input /tmp/g/k24n4.h5 --parts 4 --gpus 4 --gpus-per-node 2 --schedule static --load-path $lp --network $net 2>&1 | tail -3 | tr '\n' ' ')"
done; done > $OUT/simulate.txt 2>&1
$N/tricount-simulate --model $R/bench/results/cost-model-h200-v2/model_all.json --input /tmp/g/k24n4.h5 --parts 4 --gpus 4 --schedule static > $OUT/simulate_1node.txt 2>&1
cat $OUT/simulate.txt; tail -5 $OUT/simulate_1node.txt
# 2. Per-vertex on/off: base (ab02552) against the counting prober, one GPU.
for g in k18 k20 k23 k24; do for v in base new; do
  d=/tmp/new; [ $v = base ] && d=/tmp/base
  line=$(CUDA_VISIBLE_DEVICES=0 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/g/$g.h5 LD_LIBRARY_PATH=/tmp/new timeout 120 $d/tests/cuda_bench per-vertex 2>&1 | tee -a $OUT/bench.log | grep '^BENCHPV ')
  echo "$g $v ${line#BENCHPV }" | python3 -c "
import json,sys; l=sys.stdin.read(); g,v,r=l.split(' ',2)
try: d=json.loads(r); print(g, v, 'off %.3f on %.3f ratio %.3f' % (d['off_ms_median'], d['on_ms_median'], d['ratio']))
except Exception: print(g, v, 'failed')" | tee -a $OUT/pv.txt
done; done
