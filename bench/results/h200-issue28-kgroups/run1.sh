#!/usr/bin/env bash
# Issue 28 probe (one H200; needs cuda_bench as of 0eccf46, whose KGROUP mode was removed
# after this run): the count of a --parts n file task by task (n^3 tasks) against
# the same blocks counted once per (i, j) and group of g classes k (cuda_bench count with
# TRICOUNT_BENCH_KGROUP=g; the merged rows built on the host, uploaded once, then counted
# REPS times), beside the --parts 1 file. Every count checked against the per-k count.
set -u
mkdir -p /tmp/new && tar xzf build-pack/new.tgz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; B=/tmp/new/tests/cuda_bench; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; free -g | head -2; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
SCALES=${SCALES:-"24 26"}
for s in $SCALES; do
  $N/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1
  for n in 1 4 8; do
    $N/tricount-partition --input $W/k$s.bin64 --parts $n -o $W/k${s}n$n.h5 > /dev/null 2>&1 || echo "partition k$s n=$n failed"
  done
  rm -f $W/k$s.bin64
  TRICOUNT_BENCH_FILE=$W/k${s}n1.h5 TRICOUNT_BENCH_REPS=5 $B count 2>&1 | sed "s/^/k$s n=1 /"
  for n in 4 8; do
    for g in 1 2 $n; do
      [ $g = 2 ] && [ $n = 4 ] && continue
      TRICOUNT_BENCH_FILE=$W/k${s}n$n.h5 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_KGROUP=$g $B count 2>&1 | sed "s/^/k$s n=$n g=$g /"
    done
  done
  rm -f $W/k${s}n*.h5
done
