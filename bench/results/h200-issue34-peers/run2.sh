#!/usr/bin/env bash
# Issue 34's table on one H200 again, at main 89fde81 (T's places, 4-entry thread rows, places'
# own kernel variant): ../shared/peers/run_single.sh unchanged, peers built as run1.sh says
# (GroupTC-HS-BS @ 2c0273c, WeTriC @ 92083d7, built outside the repository). Then, in the same
# call, per-vertex on / off on the seven graphs' block files (cuda_bench per-vertex, medians
# of 5), and Kronecker 20 with T's places forced (t-places=2) against the L2 rule (1).
set -u
mkdir -p /tmp/new /tmp/peers /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xzf build-pack/peers.tgz -C /tmp/peers
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/new/bin/
cd /tmp && PEERS1_BIN=/tmp/peers/bin PEERS1_DEVBIN=/tmp/new/bin PEERS1_WORK=/tmp/w PEERS1_BUDGET_S=${BUDGET:-400} \
  bash /tmp/peers/run_single.sh > $OUT/run2_console.txt 2>&1
cp $OUT/peers1/table.txt $OUT/run2_table.txt 2>/dev/null
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
for g in k18 g128 u20 k20 k23 k24 u24; do
  echo "$g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/w/${g}n1.h5 timeout 60 /tmp/new/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' > $OUT/run2_pv.txt
for r in 1 2; do for m in 1 2; do
  echo "t-places=$m r$r $(TRICOUNT_BENCH_TUNING=t-places=$m TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/w/k20n1.h5 timeout 60 /tmp/new/tests/cuda_bench count 2>&1 | tail -1)"
done; done > $OUT/run2_k20_places.txt
cat $OUT/run2_pv.txt $OUT/run2_k20_places.txt
