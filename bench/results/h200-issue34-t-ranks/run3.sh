#!/usr/bin/env bash
# What ships (final: T's places kept by the u side where T fits the L2, else slots by atomics
# as before; thread rows of at most 4 entries in a kernel of their own) against main 57d614e's
# kernels (base, f5cc8d2's cuda_bench): cuda_bench per-vertex (plain and per-vertex medians of
# 5) on the seven graphs, alternating, two rounds; one profiled count of Kronecker 18 each.
set -u
mkdir -p /tmp/fin /tmp/base /tmp/w
tar xJf build-pack/fin.txz -C /tmp/fin && tar xJf build-pack/base.txz -C /tmp/base
export LD_LIBRARY_PATH=/tmp/fin:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run3_host.txt
W=/tmp/w P=/tmp/fin/bin/tricount-partition
s=$(date +%s)
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [g128]=grid3d:128
                 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456)
for g in "${!spec[@]}"; do [ -e $W/$g.h5 ] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 4 & done; wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run3_host.txt
bench() {  # binary graph
  TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 $1 per-vertex 2>&1 | tail -1
}
for r in 1 2; do for g in k18 g128 u20 k20 u24 k23 k24; do
  echo "base r$r $g $(bench /tmp/base/cuda_bench $g)"
  echo "fin r$r $g $(bench /tmp/fin/tests/cuda_bench $g)"
done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run3_ab.txt
for b in /tmp/base/cuda_bench /tmp/fin/tests/cuda_bench; do
  echo "$b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 60 $b count 2>&1 | grep 'cuda profile' | tail -1)"
done > $OUT/run3_profile.txt 2>&1
