#!/usr/bin/env bash
# Issue 21 resident mode, one device call (nvidia-h200): the new GPU tests at 3 ranks, then
# Kronecker 24 at --parts 4 on one H200 with 1 and 3 workers, dynamic vs static schedule,
# twice each (the first pass warms the page cache). Run from the repository root with the
# binaries in build-resident/ (CUDA sm_90, Release).
B=$PWD/build-resident
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH TRICOUNT_BIN_DIR=$B/bin TRICOUNT_GRAPHS_DIR=$B/graphs TRICOUNT_MPIEXEC=mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
W=/tmp/rs; L=$OUT/logs; mkdir -p $W $L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
{
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
( $B/bin/tricount-generate --kind kronecker --scale 24 --output $W/k24.bin64 && \
  $B/bin/tricount-partition -i $W/k24.bin64 -o $W/k24n4.h5 --parts 4 -q ) > $L/prep.log 2>&1 & P=$!
el "== test_cuda_backend (resident and device-cache cases)"
timeout 60 $B/bin/test_cuda_backend --gtest_filter='*Resident*:*BlocksOnTheDevice*:*Evicts*:*TripleThatDoesNotFit*' > $L/test_cuda_backend.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" $L/test_cuda_backend.log | head -20
el "== test_static_schedule_cuda at 3 ranks"
timeout 150 $B/bin/test_static_schedule_cuda --gtest_filter='*/np3' > $L/test_static_schedule_cuda.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" $L/test_static_schedule_cuda.log | head -20
wait $P; el "graph ready"; cat $L/prep.log
for pass in 1 2; do
  for np in 2 4; do
    for s in dynamic static; do
      j=$L/k24n4_np${np}_${s}_p$pass.json
      timeout 60 mpirun -np $np $B/bin/tricount-count -i $W/k24n4.h5 --backend cuda --schedule $s --json $j --progress-interval 0 2>&1 | tail -1
      echo "rc $? pass $pass np $np $s"
    done
  done
done
el done
} 2>&1 | tee $L/log.txt
tar -czf $OUT/resident-device.tgz -C $OUT logs && rm -rf $L
