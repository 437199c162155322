#!/usr/bin/env bash
# Lead's final device run on merged main: every gpu test, bench_cuda.sh per-vertex off/on on
# the seven graphs, a 2-worker per-vertex run.
B=$PWD/build-dev-final
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH TRICOUNT_BIN_DIR=$B/bin TRICOUNT_GRAPHS_DIR=$B/graphs
export TRICOUNT_MPIEXEC=mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
W=/tmp/tb; mkdir -p $W; tar -xJf $B/graphs.tar.xz -C $B
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
prep() {
  for a in "k18:--kind kronecker --scale 18" "g128:--kind grid3d --grid-side 128" "u20:--kind uniform --vertices 1048576 --edges 16777216" "k20:--kind kronecker --scale 20" "k23:--kind kronecker --scale 23" "u24:--kind uniform --vertices 16777216 --edges 268435456" "k24:--kind kronecker --scale 24"; do
    g=${a%%:*}; s=$(date +%s.%N)
    $B/bin/tricount-generate ${a#*:} --output $W/$g.bin64 >/dev/null 2>&1
    m=$(date +%s.%N)
    $B/bin/tricount-partition -i $W/$g.bin64 -o $W/$g.h5 --parts 1 --order degree -q >/dev/null 2>&1
    e=$(date +%s.%N)
    echo "$g generate $(echo "$m - $s" | bc) s partition $(echo "$e - $m" | bc) s"
    [ $g = k20 ] || rm -f $W/$g.bin64
  done
}
{
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
prep > $OUT/prep.log 2>&1 & P=$!
for t in test_cuda_backend test_cuda_per_vertex; do
  el "== $t"; timeout 150 $B/bin/$t > $OUT/$t.log 2>&1; echo "rc $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" $OUT/$t.log | head -20
done
el "== test_snap_graphs_cuda"; timeout 150 $B/bin/test_snap_graphs_cuda > $OUT/snap.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $OUT/snap.log | head -20
el "== test_per_vertex_cuda"; timeout 120 $B/bin/test_per_vertex_cuda > $OUT/pvcuda.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $OUT/pvcuda.log | head -20
wait $P; el "graphs ready"; cat $OUT/prep.log
el "== bench per-vertex off/on"
NO_CLI=1 PER_VERTEX=1 REPS=5 WORK=$W OUT=/tmp/ob GRAPHS="k18 k20 u20 g128 k23 u24 k24" timeout 200 bash $B/bench_cuda.sh $B 2>&1 | tail -20
cp /tmp/ob/results.jsonl $OUT/ 2>/dev/null
el "== 2 workers, k20 n=2 per-vertex"
$B/bin/tricount-partition -i $W/k20.bin64 -o $W/k20n2.h5 --parts 2 -q >/dev/null 2>&1
for pv in off on; do
  extra=""; [ $pv = on ] && extra="--per-vertex $W/k20pv.h5"
  timeout 60 mpirun -np 3 $B/bin/tricount-count -i $W/k20n2.h5 --backend cuda --json $OUT/k20n2_$pv.json $extra 2>&1 | tail -2
done
el done
} 2>&1 | tee $OUT/log.txt
