#!/usr/bin/env bash
# Where the per-vertex CTA and warp rows spend their time: ncu on the count kernels of
# cuda_bench per-vertex (REPS=0: one plain and one per-vertex count), Kronecker 20 and 23,
# --parts 1; then the per-vertex on/off timings of main (five repeats) on k18, k20, k23, k24.
set -u
mkdir -p /tmp/new /tmp/w && tar xf build-pack/new.txz -C /tmp/new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w T=/tmp/new/tests P=/tmp/new/bin/tricount-partition
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; which ncu; ncu --version | tail -1; } > $OUT/host.txt 2>&1
for g in 18 20 23 24; do [[ -s $W/k$g.h5 ]] || $P --input kronecker:$g --output $W/k$g.h5 --parts 1 -q & done; wait
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section SchedulerStats --section ComputeWorkloadAnalysis"
for g in k20 k23; do
  TRICOUNT_BENCH_REPS=0 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 240 ncu --clock-control none -k "regex:count_(cta|tile)_rows" $S \
    $T/cuda_bench per-vertex > $OUT/ncu_$g.txt 2>&1
  echo "$g ncu rc $?" >> $OUT/host.txt
done
for g in k18 k20 k23 k24; do
  echo "$g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 $T/cuda_bench per-vertex 2>&1 | tail -1)"
done 2>&1 | tee $OUT/pv.txt
cuobjdump --dump-resource-usage $T/cuda_bench 2>&1 | grep -B1 REG | grep -v '^--' | paste - - | c++filt | grep -E "count_(cta|tile)_rows" | sed 's/^.*Function //' > $OUT/resources.txt
