#!/usr/bin/env bash
# Device call 4 (issue 28): tiny rows + 32 lanes for classified sides. GPU tests; Kronecker 24
# and 26 at n = 1, 4, 8 (main vs new, one GPU); bench_cuda's seven graphs (new default vs
# tiny-rows=0, which plans as main does).
set -u
R=$PWD
mkdir -p /tmp/m /tmp/n /tmp/d && tar xzf build-pack/main.tgz -C /tmp/m && tar xzf build-pack/new.tgz -C /tmp/n && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/n:${LD_LIBRARY_PATH:-}
nvidia-smi -L
G=/tmp/n/bin/tricount-generate; P=/tmp/n/bin/tricount-partition
( $G --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
  for n in 1 4 8; do $P --input /tmp/k24.bin64 --output /tmp/k24-n$n.h5 --parts $n --quiet; done; rm -f /tmp/k24.bin64
  $G --kind kronecker --scale 26 --output /tmp/k26.bin64 > /dev/null
  for n in 1 4 8; do $P --input /tmp/k26.bin64 --output /tmp/k26-n$n.h5 --parts $n --quiet; done; rm -f /tmp/k26.bin64; ls -la /tmp/*.h5 ) > $OUT/prep.log 2>&1 &
PP=$!
GD=$(find /tmp/d -maxdepth 3 -type d -name graphs | head -1)
( cd /tmp/n/tests && export TRICOUNT_BIN_DIR=/tmp/n/bin TRICOUNT_GRAPHS_DIR=$GD
  for t in test_cuda_backend test_cuda_per_vertex test_static_schedule_cuda test_snap_graphs_cuda; do echo "== $t"; timeout 250 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PP; cat $OUT/prep.log
run() { # label bin file extra...
  local l=$1 b=$2 f=$3; shift 3
  mpirun -np 2 $b/tricount-count $f -q --json /tmp/j.json "$@" > /tmp/l.log 2>&1 || { echo "$l FAILED"; tail -3 /tmp/l.log; return; }
  python3 -c "
import json; d=json.load(open('/tmp/j.json')); s=d['seconds']; print('$l', 'count %.4f total %.3f'%(s['count'], s['total']), d.get('triangles'))"
}
for g in 24 26; do for n in 1 4 8; do for r in 1 2; do
  run "k$g n$n main" /tmp/m /tmp/k$g-n$n.h5
  run "k$g n$n new" /tmp/n/bin /tmp/k$g-n$n.h5
done; done; done 2>&1 | tee $OUT/scaling.txt
mpirun -np 2 /tmp/n/bin/tricount-count /tmp/k24-n8.h5 -q --cuda-tuning profile=1 > /tmp/p.log 2>&1
echo -n "k24 n 8 new profile: "; python3 $R/build-pack/prof.py /tmp/p.log | tee -a $OUT/scaling.txt
rm -f /tmp/k26-*.h5 /tmp/k24-*.h5
mkdir -p /tmp/bcuda/bin /tmp/bcuda/tests; cp /tmp/n/bin/* /tmp/bcuda/bin/; cp /tmp/n/tests/cuda_bench /tmp/bcuda/tests/; cp /tmp/n/*.so* /tmp/bcuda/
REPS=5 NO_CLI=1 VARIANTS="notiny:tiny-rows=0" OUT=/tmp/bc timeout 300 bash $R/bench/bench_cuda.sh /tmp/bcuda > $OUT/bench_cuda.txt 2>&1
tail -16 $OUT/bench_cuda.txt
cp /tmp/bc/results.jsonl $OUT/bench_cuda.jsonl 2>/dev/null
