#!/usr/bin/env bash
# The crash of run1 and run3 (a segfault in getenv inside cuInit, on the thread that starts
# the GPU beside MPI_Init, which calls setenv): the new build has MPI_Init wait for the
# driver's start. 150 launches of the new build on a small graph (any crash kept whole); base
# (5f6528b) against new on Kronecker 24 --parts 1, plain, ABAB, for what the wait costs
# (MPI_Init, setup, total, process wall); GPU tests.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/base.tgz -C /tmp/base
tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt 2>&1
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
/tmp/new/bin/tricount-partition --input kronecker:14 --output $W/k14.h5 --parts 1 -q
fails=0
for r in $(seq 1 150); do
  if ! /tmp/new/bin/tricount-count $W/k14.h5 -q > $W/s.log 2>&1; then fails=$((fails+1)); cp $W/s.log $OUT/stress_fail_$r.log; fi
done
echo "new build, Kronecker 14, 150 launches: $fails failed" | tee $OUT/stress.txt
for r in 1 2 3 4 5; do for b in base new; do
  /usr/bin/time -f "%e" -o $W/wall /tmp/$b/bin/tricount-count $W/k24.h5 -q --json $W/j.json > $W/c.log 2>&1 || { echo "$b r$r FAILED"; cp $W/c.log $OUT/fail_${b}_$r.log; continue; }
  python3 - "$b r$r" $W/j.json $(cat $W/wall) <<'PY'
import json,sys
d=json.load(open(sys.argv[2])); s=d['seconds']; t=d['timers']
print('%-9s wall %s process_start %.3f mpi_init %.3f setup %.3f backend_wait %.3f total %.3f count %.4f' % (
  sys.argv[1], sys.argv[3], s['process_start'], t['start_steps']['mpi_init'], s['setup'], t['setup_steps']['backend_wait'], s['total'], t['count']['max']))
PY
done; done 2>&1 | tee $OUT/k24_start.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_early_gpu test_cuda_backend test_cuda_per_vertex test_per_vertex_cuda test_snap_graphs_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
