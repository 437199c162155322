#!/usr/bin/env bash
# Device call 3 (issue 31.1): where the per-edge count goes. A build with an experiment switch
# (PE_EXP, not committed: bit 0 skips the hash-side hit atomics, bit 1 the 2-hop side, bit 2 the
# row tables' shared hit counters), Kronecker 24 at --parts 1, count seconds.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin O=/tmp/new/old
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
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
E=/tmp/new/exp/tricount-count
for r in 1 2; do
  count $E /tmp/k24.h5 "k24 plain r$r"
  pe $E /tmp/k24.h5 "k24 per-edge r$r" --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0
  PE_EXP=1 pe $E /tmp/k24.h5 "edge kernel, no hash-side atomics r$r" --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0
  PE_EXP=2 pe $E /tmp/k24.h5 "edge kernel, no 2-hop atomics r$r" --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0
  PE_EXP=3 pe $E /tmp/k24.h5 "edge kernel, no hit atomics r$r" --cuda-tuning per-edge-warp-keys=0,per-edge-cta-keys=0
done
pe $E /tmp/k24.h5 "warp tables" --cuda-tuning per-edge-cta-keys=0
PE_EXP=2 pe $E /tmp/k24.h5 "warp tables, no 2-hop atomics" --cuda-tuning per-edge-cta-keys=0
PE_EXP=6 pe $E /tmp/k24.h5 "warp tables, no hit atomics" --cuda-tuning per-edge-cta-keys=0
pe $E /tmp/k24.h5 "all tables"
PE_EXP=6 pe $E /tmp/k24.h5 "all tables, no hit atomics"
} 2>&1 | tee $OUT/counts.txt
