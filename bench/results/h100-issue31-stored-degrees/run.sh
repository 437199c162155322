#!/usr/bin/env bash
# Device call 14 (one GPU): per-vertex with the degrees stored in the block file against a
# file without them (the base partitioner's), Kronecker 24 at --parts 1, 1 GPU; GPU tests.
set -u
R=$PWD
mkdir -p /tmp/new /tmp/d /tmp/pvA /tmp/pvB && tar xzf build-pack/new14.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $OUT/device.txt; nproc >> $OUT/device.txt
N=/tmp/new/bin
$N/tricount-generate --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
/tmp/new/base/tricount-partition --input /tmp/k24.bin64 --output /tmp/pvA/kron24.p1.h5 --parts 1 -q
$N/tricount-partition --input /tmp/k24.bin64 --output /tmp/pvB/kron24.p1.h5 --parts 1 -q
touch /tmp/pvA/kron24.bin64 /tmp/pvB/kron24.bin64
mkdir -p /tmp/b && ln -sf $N /tmp/b/bin
for w in A B; do
  echo "== $w ($( [ $w = A ] && echo 'degrees from the blocks' || echo 'stored degrees'))"
  BUILD=/tmp/b WORK=/tmp/pv$w PARTS=1 REPS=3 timeout 200 bash $R/bench/bench_per_vertex.sh 24 2
done > $OUT/per_vertex.txt 2>&1
cat $OUT/per_vertex.txt | grep -v '^{'
rm -rf /tmp/pvA /tmp/pvB /tmp/k24.bin64
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in $(ls); do echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -20; done ) > $OUT/gputests.log 2>&1
grep -E "==|PASSED|FAILED" $OUT/gputests.log
