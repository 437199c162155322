#!/usr/bin/env bash
# Device call 1 (issue 28, where a task's count time goes at more --parts): Kronecker 24 at
# --parts 1, 4 and 8 (packed), one GPU, the count with --cuda-tuning profile=1 (every step in
# sequence, each one's time per task to stderr) and without, then the steps summed over tasks.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin
{ nvidia-smi -L; nproc; free -g | head -2; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
for n in 1 4 8; do
  $N/tricount-partition --input kronecker:24 --parts $n --block-encoding packed -o /tmp/k24-n$n.h5 2>&1 | grep -E "^partitioned|error"
  for r in 1 2; do
    mpirun -np 2 $N/tricount-count /tmp/k24-n$n.h5 -q --json /tmp/j.json > /dev/null 2>&1
    python3 -c "import json;d=json.load(open('/tmp/j.json'));print('n=$n r$r tri',d['triangles'],'count',d['seconds']['count'],'total',d['seconds']['total'])"
  done
  mpirun -np 2 $N/tricount-count /tmp/k24-n$n.h5 -q --cuda-tuning profile=1 > /dev/null 2> $OUT/profile-n$n.log
  python3 - $OUT/profile-n$n.log <<'PY'
import re,sys,collections
tot=collections.Counter(); tasks=0
for line in open(sys.argv[1]):
    if not line.startswith('[cuda profile]'): continue
    tasks+=1
    for what,ms in re.findall(r'\| ([^|]+?) ([0-9.]+) ms', line): tot[what]+=float(ms)
print('  profile: %d tasks, steps summed (ms):'%tasks, ', '.join('%s %.1f'%(k,v) for k,v in tot.most_common()))
PY
done 2>&1 | tee $OUT/counts.txt
