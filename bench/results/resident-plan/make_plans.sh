#!/usr/bin/env bash
# How the plan outputs here were made (issue 21, resident mode; on the 2-core development
# machine, 2026-11-24; re-made 2026-12-01 with packed blocks and the plan by load + count phase). PREDICTIONS, from the H200 cost model validated in ../cost-model-h200-v2/ (first made with ../cost-model-h200/).
# BUILD: a build folder with tricount-generate, tricount-partition, tricount-simulate.
set -e
BUILD=${BUILD:-build}; W=${W:-/tmp/res-kron}; M=${M:-bench/results/cost-model-h200-v2/model_all.json}
B=$BUILD/bin; D=bench/results/resident-plan
mkdir -p $W
# 1. Kronecker 20, 21, 22 (Graph500 R-MAT, edge factor 16, seed 1), partitioned at every n the
#    plans consider (the shapes --like takes: /task_work and block sizes at that n).
for s in 20 21 22; do
  [ -s $W/k$s.n48.h5 ] || [ $s != 22 -a -s $W/k$s.n32.h5 ] && continue  # made before
  $B/tricount-generate --scale $s --output $W/k$s.bin --format bin64
  for n in 2 3 4 6 8 12 16 24 32 48; do
    [ $s = 22 ] || [ $n = 2 ] || [ $n = 4 ] || [ $n = 8 ] || [ $n = 16 ] || [ $n = 32 ] || continue
    $B/tricount-partition --input $W/k$s.bin --output $W/k$s.n$n.h5 --parts $n -q --memory-budget 4G
  done
done
like() { for n in "$@"; do echo --like $W/k22.n$n.h5; done; }
# 2. The plans: Summit-like node (6 GPUs, 25 GB/s network, 2.5 TB/s file system), H200 memory.
$B/tricount-simulate --plan --model $M --kronecker-scale 30 --gpus 1024 --gpu-memory 141G --gpus-per-node 6 \
  --schedule static $(like 2 4 8 16 32) --json $D/plan_k30_static.json > $D/plan_k30_static.txt
$B/tricount-simulate --plan --model $M --kronecker-scale 31 --gpus 1024 --gpu-memory 141G --gpus-per-node 6 \
  --schedule static $(like 2 3 4 6 8 12 16 24 32 48) --json $D/plan_k31_static.json > $D/plan_k31_static.txt
# 3. The shape's dependence on the sample's scale: scale 30 at the plan's n and m from Kronecker 20 and 21.
for s in 20 21; do
  $B/tricount-simulate --model $M --kronecker-scale 30 --parts 16 --workload-splits 2 --gpus 64,128,256,512,1024 \
    --gpu-memory 141G --gpus-per-node 6 --schedule static --like $W/k$s.n16.h5 > $D/k30_n16_m2_like_k$s.txt
done
