#!/usr/bin/env bash
# Where the per-vertex warp rows' extra time goes: builds of main 297b463's cuda_bench whose
# per-vertex kernels skip their global atomics (global_atomics.diff: W, the w flushes of
# tallies and key ranks; MID, the 1-hop entries' sums; BOTH) against main, Kronecker 18 and
# 20: the per-step profile (profile=1, per-vertex on, last of 3) and the per-vertex ms
# (median of 5; the builds' counts are wrong by design, their checks skipped).
set -u
mkdir -p /tmp/new /tmp/exp /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/exp.txz -C /tmp/exp
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20)
for g in k18 k20; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 8 & done; wait
for r in 1 2; do for g in k18 k20; do for b in main W MID BOTH; do
  bin=/tmp/exp/cuda_bench_$b; [ $b = main ] && bin=/tmp/new/tests/cuda_bench
  prof=$(TRICOUNT_BENCH_NOCHECK=1 TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 $bin per-vertex 2>&1 | grep 'cuda profile' | tail -1 | grep -o 'u: CTA rows [0-9.]* ms | u: warp rows [0-9.]* ms.*v: warp rows [0-9.]* ms')
  pv=$(TRICOUNT_BENCH_NOCHECK=1 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 $bin per-vertex 2>&1 | tail -1 | grep -o '"off_ms_median.*')
  echo "r$r $g $b | $pv | $prof"
done; done; done 2>&1 | tee $OUT/run1_ab.txt
