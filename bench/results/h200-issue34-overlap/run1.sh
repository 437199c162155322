#!/usr/bin/env bash
# T counted by a pass of its own and v's side on its own streams beside the u side
# (--cuda-tuning concurrent-sides=1; 2: v's streams at the higher priority) against the u side
# first (0, what ships): the GPU tests that force the new paths, cuda_bench per-vertex (plain
# and per-vertex medians of 5) alternating in one binary, and a timeline of Kronecker 18.
set -u
mkdir -p /tmp/p /tmp/w && tar xf build-pack/ov.txz -C /tmp/p
export LD_LIBRARY_PATH=/tmp/p:${LD_LIBRARY_PATH:-}
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/*/bin/nsys /usr/local/cuda*/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS" > $OUT/run1_host.txt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv >> $OUT/run1_host.txt
W=/tmp/w P=/tmp/p/bin/tricount-partition
s=$(date +%s)
for g in 18 20 23 24; do $P --input kronecker:$g --output $W/k$g.h5 --parts 1 -q --threads 4 & done; wait
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
cd /tmp/p/tests
for t in test_cuda_backend test_cuda_per_vertex test_cuda_per_edge; do
  (s=$(date +%s); timeout 300 ./$t > $OUT/run1_$t.log 2>&1; echo "$t rc $? $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt) &
done; wait
grep -hE "FAILED|PASSED|tests ran" $OUT/run1_test_*.log
cd - > /dev/null
bench() {  # tuning graph mode
  TRICOUNT_BENCH_TUNING=$1 TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 120 /tmp/p/tests/cuda_bench $3 2>&1 | tail -1
}
for r in 1 2; do for g in k18 k20 k23 k24; do for c in 0 1 2; do
  echo "c$c r$r $g $(bench concurrent-sides=$c $g per-vertex)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_ab.txt
for c in 0 1; do echo "c$c k18"; TRICOUNT_BENCH_TUNING=concurrent-sides=$c,profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 60 /tmp/p/tests/cuda_bench count 2>&1 | grep -E "cuda profile" | tail -1; done > $OUT/run1_profile.txt 2>&1
if [ -n "$NSYS" ]; then for c in 0 1 2; do
  TRICOUNT_BENCH_TUNING=concurrent-sides=$c TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/k18.h5 timeout 120 $NSYS profile -t cuda -o /tmp/w/k18c$c --force-overwrite true /tmp/p/tests/cuda_bench count > /tmp/w/n$c.log 2>&1
  $NSYS stats --report cuda_gpu_trace --format csv --output $OUT/k18c$c /tmp/w/k18c$c.nsys-rep > /dev/null 2>&1
done; fi
ls $OUT
