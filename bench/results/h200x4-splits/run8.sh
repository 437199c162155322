#!/usr/bin/env bash
# Device call 8 (one H200): --per-vertex at one GPU with the packed default (issue 31.2's
# <= 1.5x the plain run), Kronecker 24 at --parts 1, plain / .h5 / .tsv alternating, two repeats,
# the report's total and per-vertex step with its writer seconds and bytes.
set -u
mkdir -p /tmp/old && tar xzf build-pack/old.tgz -C /tmp/old
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/old; N=/tmp/old/bin; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; df -h /tmp | tail -1; } > $OUT/host.txt
{
$N/tricount-partition --input kronecker:24 --parts 1 -o $W/k24p1.h5 2>&1 | grep ^partitioned
for r in 1 2; do for v in plain h5 tsv; do
  rm -f $W/pv.*
  args=(); [ $v != plain ] && args=(--per-vertex $W/pv.$v)
  mpirun -np 2 $N/tricount-count $W/k24p1.h5 -q --json $W/j.json "${args[@]}" > $W/c.log 2>&1 || { tail -3 $W/c.log; continue; }
  python3 - "$v r$r" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']
print('%-10s total %.3f count %.4f per_vertex %.3f write %.3f bytes %d steps %s'%(sys.argv[1], s['total'], s['count'], s.get('per_vertex') or 0,
  s.get('per_vertex_write') or 0, d.get('per_vertex_bytes') or 0, s.get('per_vertex_steps','')))
PY
done; done
} 2>&1 | tee $OUT/run8.txt
