#!/usr/bin/env bash
# Issues 31.2 and 34 (one H200): where a --per-vertex run's extra time goes on Kronecker 24 at
# --parts 1 (the report's per-vertex steps, the table on the disk and on tmpfs, the disk's own
# rate), and the per-vertex kernels' on/off ratio on the seven bench_cuda.sh graphs.
set -u
mkdir -p /tmp/new /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; df -hT /tmp /dev/shm; } > $OUT/host.txt 2>&1
( for g in 18 20 23 24; do $N/tricount-partition --input kronecker:$g --output $W/k$g.h5 --parts 1 -q; done
  $N/tricount-generate --kind uniform --vertices 1048576 --edges 16777216 -o $W/u20.bin64 && $N/tricount-partition -i $W/u20.bin64 -o $W/u20.h5 --parts 1 -q
  $N/tricount-generate --kind uniform --vertices 16777216 --edges 268435456 -o $W/u24.bin64 && $N/tricount-partition -i $W/u24.bin64 -o $W/u24.h5 --parts 1 -q
  $N/tricount-generate --kind grid3d --grid-side 128 -o $W/g128.bin64 && $N/tricount-partition -i $W/g128.bin64 -o $W/g128.h5 --parts 1 -q
  rm -f $W/*.bin64 ) > $OUT/prep.log 2>&1
cat $OUT/prep.log
# The disk's own write rate (512 MiB, fsync), twice.
for r in 1 2; do dd if=/dev/zero of=$W/dd bs=16M count=32 conv=fsync 2>&1 | tail -1; rm -f $W/dd; done | tee -a $OUT/host.txt
count() {  # label args...
  local l=$1; shift
  /usr/bin/time -f "%e" -o $W/wall $N/tricount-count $W/k24.h5 -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  cp $W/j.json "$OUT/${l// /_}.json"
  python3 - "$l" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']
pv=s.get('per_vertex_steps') or {}
print('%-18s wall %s total %.3f setup %.3f transfer %.3f count %.4f pv %.3f pv_write %.3f bytes %s steps %s' % (
  sys.argv[1], sys.argv[3], s['total'], s.get('setup',0), s['transfer'], d['timers']['count']['max'], s.get('per_vertex') or 0,
  s.get('per_vertex_write') or 0, d.get('per_vertex_bytes'), ' '.join('%s=%.3f'%(k,v) for k,v in pv.items() if isinstance(v,float))))
PY
}
for r in 1 2 3; do
  count "plain r$r"
  rm -f $W/pv.h5; count "pv h5 r$r" --per-vertex $W/pv.h5
  rm -f /dev/shm/pv.h5; count "pv shm r$r" --per-vertex /dev/shm/pv.h5
  rm -f $W/pv.tsv; count "pv tsv r$r" --per-vertex $W/pv.tsv
done 2>&1 | tee $OUT/k24.txt
ls -la $W/pv.h5 $W/pv.tsv /dev/shm/pv.h5 | tee -a $OUT/k24.txt
# Per-vertex kernels on/off, seven graphs.
for g in k18 k20 k23 k24 u20 u24 g128; do
  line=$(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 120 /tmp/new/tests/cuda_bench per-vertex 2>&1 | tee -a $OUT/bench.log | grep '^BENCHPV ')
  echo "$g ${line#BENCHPV }" | python3 -c "
import json,sys; l=sys.stdin.read(); g,r=l.split(' ',1)
try: d=json.loads(r); print(g, 'off %.3f on %.3f ratio %.3f' % (d['off_ms_median'], d['on_ms_median'], d['ratio']))
except Exception: print(g, 'failed')" | tee -a $OUT/pv.txt
done
