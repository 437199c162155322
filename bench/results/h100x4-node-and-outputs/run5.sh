#!/usr/bin/env bash
# Device call 5: per-edge GPU tests after the device fix; Kronecker 24 plain / --per-vertex /
# --per-edge at 1 and 4 GPUs (new build); the one-node table (bench_node_gpus.sh) for Kronecker 24.
set -u
R=$PWD
rm -rf build-dev build-base; mkdir -p build-dev build-base/bin
tar xzf build-pack/dev.tgz -C build-dev && tar xzf build-pack/base.tgz -C build-base/bin
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=$R/build-dev:${LD_LIBRARY_PATH:-}
export TRICOUNT_BIN_DIR=$R/build-dev/bin
B=$R/build-dev/bin
cd /tmp
( $B/tricount-generate --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
  $B/tricount-partition --input /tmp/k24.bin64 --output /tmp/k24.h5 --parts 1 --quiet; rm -f /tmp/k24.bin64 ) > $OUT/prep.log 2>&1 &
PREP=$!
( cd $R/build-dev/tests && for t in test_per_edge_cuda test_cuda_per_edge test_cuda_prefetch; do echo "== $t"; timeout 100 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:" | head -20; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PREP; cat $OUT/prep.log
{
for g in 1 4; do
  for mode in plain pv-h5 pv-tsv pe-h5 pe-tsv; do
    case $mode in plain) extra=();; pv-h5) extra=(--per-vertex /tmp/o.h5);; pv-tsv) extra=(--per-vertex /tmp/o.tsv);; pe-h5) extra=(--per-edge /tmp/o.h5);; pe-tsv) extra=(--per-edge /tmp/o.tsv);; esac
    s=$(date +%s.%N)
    timeout 60 mpirun -np $((g + 1)) $B/tricount-count /tmp/k24.h5 -q --json /tmp/j.json "${extra[@]}" > /tmp/l.log 2>&1 || { echo "new $mode g$g FAILED"; tail -3 /tmp/l.log; continue; }
    e=$(date +%s.%N)
    sz=$(stat -c %s /tmp/o.h5 /tmp/o.tsv 2>/dev/null | head -1); rm -f /tmp/o.h5 /tmp/o.tsv
    cp /tmp/j.json $OUT/k24-$mode-g$g.json
    python3 -c "
import json; d=json.load(open('/tmp/j.json')); s=d['seconds']
print('new $mode g$g wall %.2f'%($e-$s), 'total %.3f count %.4f'%(s['total'],s['count']), 'bytes ${sz:-0}', {k:round(v,3) for k,v in s.items() if v is not None and k not in ('total','count','load_phase')})"
  done
done
} > $OUT/outputs_k24.txt 2>&1
cat $OUT/outputs_k24.txt
BUILDS="base:$R/build-base new:$R/build-dev" REPEATS=1 OUT=/tmp/ng24 timeout 120 bash $R/bench/bench_node_gpus.sh /tmp/k24.h5 1 2 4 > $OUT/node_gpus_k24.md 2>&1
tar czf $OUT/node_gpus_k24.tgz -C /tmp ng24
cat $OUT/node_gpus_k24.md
