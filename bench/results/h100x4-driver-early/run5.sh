#!/usr/bin/env bash
# Device call 5 (issue 27): the GPU driver started beside MPI_Init (and tiny rows), base (main
# b8fc9ec) vs new, Kronecker 24 --parts 1 at 1, 2 and 4 GPUs, bench_node_gpus.sh.
set -u
R=$PWD
mkdir -p /tmp/base/bin /tmp/new/bin && tar xzf build-pack/main.tgz -C /tmp/base/bin && tar xzf build-pack/new-count.tgz -C /tmp/new
cp /tmp/base/bin/*.so* /tmp/new/bin/ 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/base/bin:${LD_LIBRARY_PATH:-}
nvidia-smi -L
/tmp/base/bin/tricount-generate --kind kronecker --scale 24 --output /tmp/k24.bin64 > /dev/null
/tmp/base/bin/tricount-partition --input /tmp/k24.bin64 --output /tmp/k24.h5 --parts 1 --quiet; rm -f /tmp/k24.bin64
BUILDS="base:/tmp/base new:/tmp/new" REPEATS=3 OUT=/tmp/ng24 timeout 300 bash $R/bench/bench_node_gpus.sh /tmp/k24.h5 1 2 4 > $OUT/node_gpus_k24.md 2>&1
cat $OUT/node_gpus_k24.md
for b in base new; do for g in 1 4; do python3 -c "
import json,sys; d=json.load(open('/tmp/ng24/$b-g$g-r3.json'))
for r in d['per_rank']:
  if r.get('role')=='scheduler': continue
  print('$b g$g rank', r['rank'], 'setup %.3f'%r['setup_seconds'], 'start', {k:round(v,3) for k,v in r['start_steps_seconds'].items()}, 'steps', {k:round(v,3) for k,v in r['setup_steps_seconds'].items() if v>0.01}, 'backend %.3f'%r['backend_seconds'], {k:round(v,3) for k,v in r['backend_steps_seconds'].items()})
"; done; done | tee $OUT/setup_ranks.txt
tar czf $OUT/ng24.tgz -C /tmp ng24
