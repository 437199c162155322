#!/usr/bin/env bash
# Issue 28 probe (one H200): re-blocking an n-part file into n' = n / g parts on the GPU
# (bench/reblock_probe.cu), checked block for block against the n'-part file, beside the
# count of the n'-part file (cuda_bench count).
set -u
mkdir -p /tmp/new && tar xzf build-pack/new.tgz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; T=/tmp/new/tests; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; free -g | head -2; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
for s in ${SCALES:-24 26}; do
  $N/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1
  for n in ${PARTS:-1 2 4 8}; do
    t=$(now); $N/tricount-partition --input $W/k$s.bin64 --parts $n -o $W/k${s}n$n.h5 > /dev/null 2>&1 || echo "partition k$s n=$n failed"
    echo "partition k$s n=$n $(since $t) s"
  done
  rm -f $W/k$s.bin64
  TRICOUNT_BENCH_FILE=$W/k${s}n1.h5 TRICOUNT_BENCH_REPS=3 $T/cuda_bench count 2>&1 | sed "s/^/k$s n=1 /"
  for pair in ${PAIRS:-4:1 8:1 4:2 8:2}; do
    set -- ${pair/:/ }
    [ -f $W/k${s}n$1.h5 ] && [ -f $W/k${s}n$2.h5 ] || continue
    $T/reblock_probe $W/k${s}n$1.h5 $W/k${s}n$2.h5 3 2>&1 | sed "s/^/k$s $1->$2 /"
  done
  rm -f $W/k${s}n*.h5
done
