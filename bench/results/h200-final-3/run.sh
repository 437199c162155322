#!/usr/bin/env bash
# Lead's final device run on merged main (third session of 2026-11-24): every gpu test, the
# plain count on three graphs (bench_cuda.sh), and --schedule static vs dynamic on one GPU.
B=$PWD/build-dev-final
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH TRICOUNT_BIN_DIR=$B/bin TRICOUNT_GRAPHS_DIR=$B/graphs
export TRICOUNT_MPIEXEC=mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
W=/tmp/tb; mkdir -p $W $OUT/logs; tar -xJf $B/graphs.tar.xz -C $B
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
{
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for t in test_cuda_backend test_cuda_per_vertex test_per_vertex_cuda test_static_schedule_cuda test_snap_graphs_cuda; do
  el "== $t"; timeout 200 $B/bin/$t > $OUT/logs/$t.log 2>&1; echo "rc $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" $OUT/logs/$t.log | head -20
done
el "== bench plain count"
NO_CLI=1 REPS=5 WORK=$W OUT=/tmp/ob GRAPHS="k18 u24 k24" timeout 200 bash $B/bench_cuda.sh $B 2>&1 | tail -12
cp /tmp/ob/results.jsonl $OUT/logs/ 2>/dev/null
el "== k24 n=4: dynamic vs static, 1 worker"
$B/bin/tricount-generate --kind kronecker --scale 24 --output $W/k24.bin64 >/dev/null 2>&1
$B/bin/tricount-partition -i $W/k24.bin64 -o $W/k24n4.h5 --parts 4 -q
for s in dynamic static dynamic static; do
  timeout 60 mpirun -np 2 $B/bin/tricount-count -i $W/k24n4.h5 --backend cuda --schedule $s --json $OUT/logs/k24n4_$s.json 2>&1 | tail -1
done
el done
} 2>&1 | tee $OUT/logs/log.txt
tar -czf $OUT/final-logs.tgz -C $OUT logs && rm -rf $OUT/logs
