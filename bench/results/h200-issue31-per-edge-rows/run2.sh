#!/usr/bin/env bash
# Device call 2 (issue 31.1): after run1, entry hits kept per lane until the entry changes, and the
# CTA-row kernel beside the warp-row kernel on a second stream; per_edge GPU tests; Kronecker 24
# at --parts 1, per-edge count seconds of the old binary and of the new with its variants.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin O=/tmp/new/old
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_edge; do echo "== $t"
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
$N/tricount-partition --input kronecker:24 --parts 1 -o /tmp/k24.h5 2>&1 | grep -E "^partitioned|error"
pe() { count "$@" --per-edge /tmp/pe.h5; rm -f /tmp/pe.h5; }
for r in 1 2; do
  pe $O/tricount-count /tmp/k24.h5 "k24 old per-edge r$r"
  pe $N/tricount-count /tmp/k24.h5 "k24 new per-edge r$r"
  pe $N/tricount-count /tmp/k24.h5 "k24 new no CTA tables r$r" --cuda-tuning per-edge-cta-keys=0
done
pe $N/tricount-count /tmp/k24.h5 "k24 new no tables" --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0
pe $N/tricount-count /tmp/k24.h5 "k24 new CTA tables only" --cuda-tuning per-edge-warp-keys=0
pe $N/tricount-count /tmp/k24.h5 "k24 new warp 64, no CTA" --cuda-tuning per-edge-warp-keys=64,per-edge-cta-keys=0
pe $N/tricount-count /tmp/k24.h5 "k24 new warp 16, no CTA" --cuda-tuning per-edge-warp-keys=16,per-edge-cta-keys=0
pe $N/tricount-count /tmp/k24.h5 "k24 new search 4" --cuda-tuning search-ratio=4
pe $N/tricount-count /tmp/k24.h5 "k24 new search 64" --cuda-tuning search-ratio=64
} 2>&1 | tee $OUT/counts.txt
