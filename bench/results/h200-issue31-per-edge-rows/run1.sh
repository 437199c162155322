#!/usr/bin/env bash
# Device call 1 (issue 31.1, per-edge counting with row tables: a warp's or a CTA's shared
# table that keeps each key's position): the per-edge GPU tests; Kronecker 22 per-edge tables
# of the old and new tricount-count compared byte for byte; Kronecker 24 at --parts 1, the
# plain count and --per-edge, old binary (build-pack/new/old: main 91893aa) against new,
# and the new binary with its row tables off, alternating, two repeats.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin O=/tmp/new/old
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_edge test_per_edge_cuda test_per_edge_snap_cuda; do echo "== $t"
    timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran|edge [0-9]" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
count() {  # binary file label extra...
  local b=$1 f=$2 l=$3; shift 3
  mpirun -np 2 $b $f -q --json /tmp/j.json "$@" > /tmp/c.log 2>&1 || { echo "$l FAILED"; tail -3 /tmp/c.log; return; }
  python3 - "$l" <<'PY'
import json,sys
d=json.load(open('/tmp/j.json')); s=d['seconds']
print('%-28s tri %d count %.4f total %.3f  %s'%(sys.argv[1], d['triangles'], s['count'], s['total'], ' '.join('%s=%.3f'%(k,v) for k,v in s.items() if isinstance(v,(int,float)) and k not in ('count','total'))))
PY
}
{
$N/tricount-partition --input kronecker:22 --parts 1 -o /tmp/k22.h5 2>&1 | grep -E "^partitioned|error"
count $O/tricount-count /tmp/k22.h5 "k22 old per-edge" --per-edge /tmp/k22-old.tsv
count $N/tricount-count /tmp/k22.h5 "k22 new per-edge" --per-edge /tmp/k22-new.tsv
count $N/tricount-count /tmp/k22.h5 "k22 new per-edge+vertex" --per-edge /tmp/k22-new2.tsv --per-vertex /tmp/k22-v.tsv
ls -la /tmp/k22-*.tsv; md5sum /tmp/k22-old.tsv /tmp/k22-new.tsv /tmp/k22-new2.tsv
rm -f /tmp/k22-*.tsv
$N/tricount-partition --input kronecker:24 --parts 1 -o /tmp/k24.h5 2>&1 | grep -E "^partitioned|error"
for r in 1 2; do
  count $O/tricount-count /tmp/k24.h5 "k24 old plain r$r"
  count $N/tricount-count /tmp/k24.h5 "k24 new plain r$r"
  count $O/tricount-count /tmp/k24.h5 "k24 old per-edge r$r" --per-edge /tmp/pe.h5; rm -f /tmp/pe.h5
  count $N/tricount-count /tmp/k24.h5 "k24 new per-edge r$r" --per-edge /tmp/pe.h5; rm -f /tmp/pe.h5
  count $N/tricount-count /tmp/k24.h5 "k24 new per-edge no tables r$r" --per-edge /tmp/pe.h5 --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0; rm -f /tmp/pe.h5
done
count $N/tricount-count /tmp/k24.h5 "k24 new per-edge warp only" --per-edge /tmp/pe.h5 --cuda-tuning per-edge-cta-keys=0; rm -f /tmp/pe.h5
count $N/tricount-count /tmp/k24.h5 "k24 new per-edge no search" --per-edge /tmp/pe.h5 --cuda-tuning search-ratio=0; rm -f /tmp/pe.h5
count $N/tricount-count /tmp/k24.h5 "k24 new per-edge warp 64" --per-edge /tmp/pe.h5 --cuda-tuning per-edge-warp-keys=64; rm -f /tmp/pe.h5
} 2>&1 | tee $OUT/counts.txt
