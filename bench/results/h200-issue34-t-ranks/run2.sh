#!/usr/bin/env bash
# Where the places cost on large graphs: one profiled count of Kronecker 24 by base and new
# (run1's binaries); base and new on Kronecker 21 and 22 (cuda_bench count, median of 5,
# alternating, two rounds); the 3D grid's thread rows: base (8 entries a row), w4 (4, lists in
# rounds) and w4nr (4, lists one after another), cuda_bench per-vertex, three rounds.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w4 /tmp/w4nr /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/base.txz -C /tmp/base
tar xJf build-pack/w4.txz -C /tmp/w4 && tar xJf build-pack/w4nr.txz -C /tmp/w4nr
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run2_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k21]=kronecker:21 [k22]=kronecker:22 [k24]=kronecker:24 [g128]=grid3d:128)
for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
for b in /tmp/base/cuda_bench /tmp/new/tests/cuda_bench; do
  echo "$b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=2 TRICOUNT_BENCH_FILE=$W/k24.h5 timeout 90 $b count 2>&1 | grep 'cuda profile' | tail -1)"
done > $OUT/run2_profile.txt 2>&1
cat $OUT/run2_profile.txt
run() {  # label binary mode graph
  echo "$1 $4 $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$4.h5 timeout 120 $2 $3 2>&1 | tail -1)"
}
for r in 1 2; do for g in k21 k22; do
  run "base r$r" /tmp/base/cuda_bench count $g
  run "new r$r" /tmp/new/tests/cuda_bench count $g
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run2_ab.txt
for r in 1 2 3; do
  run "base r$r" /tmp/base/cuda_bench per-vertex g128
  run "w4 r$r" /tmp/w4/cuda_bench per-vertex g128
  run "w4nr r$r" /tmp/w4nr/cuda_bench per-vertex g128
done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run2_g128.txt
