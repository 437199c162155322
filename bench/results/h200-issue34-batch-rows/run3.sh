#!/usr/bin/env bash
# Issue 34's table on one H200 with the batch kernel (this commit's build): ../shared/peers/
# run_single.sh (tricount, GroupTC x3, WeTriC, every count checked), then cuda_bench per-vertex
# on the seven graphs' files (per-vertex on / off, median of 5).
# peers.tgz: run_single.sh and bin/{grouptc,wetric,tc2peers}, built on the dev VM for sm_90 with
# cudart static: GroupTC (Nanqipro/GroupTC-HS-BS @ 2c0273c) its src/main.cu driver with only the
# GroupTC, GroupTC-OPT and GroupTC-Cuckoo approaches and each reorder only where its approach runs
# (nvcc -O3 -std=c++17 --extended-lambda); WeTriC (jeffreyspaan/wedge-parallel-triangle-counting
# @ 92083d7) tc.cu as its Makefile builds it plus a -b reader of uint32 pairs filling the edge
# array its -e reader fills; tc2peers from ../shared/peers. fin.txz: this commit's build.
set -u
mkdir -p /tmp/fin /tmp/peers /tmp/w
tar xJf build-pack/fin.txz -C /tmp/fin && tar xzf build-pack/peers.tgz -C /tmp/peers
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run3_host.txt
cd /tmp && PEERS1_BIN=/tmp/peers/bin PEERS1_DEVBIN=/tmp/fin/bin PEERS1_WORK=/tmp/w PEERS1_BUDGET_S=${BUDGET:-400} \
  bash /tmp/peers/run_single.sh > $OUT/run3_console.txt 2>&1
cp $OUT/peers1/table.txt $OUT/run3_table.txt 2>/dev/null
export LD_LIBRARY_PATH=/tmp/fin/bin:${LD_LIBRARY_PATH:-}
for g in k18 g128 u20 k20 k23 k24 u24; do
  f=$(ls /tmp/w/${g}n1.h5 2>/dev/null || ls /tmp/w/$g*.h5 | head -1)
  echo "$g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$f timeout 100 /tmp/fin/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"edges": [0-9]*, //; s/BENCHPV {"parts": 1, //' | tee $OUT/run3_pv.txt
