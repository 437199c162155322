#!/usr/bin/env bash
# Device call 1: GPU tests of merged main; a Kronecker product of >= 2^30 edges end to end.
set -u
R=$PWD
mkdir -p build-dev && tar xzf build-pack/dev.tgz -C build-dev && tar xzf build-pack/data.tgz
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=$R/build-dev:${LD_LIBRARY_PATH:-}
export TRICOUNT_BIN_DIR=$R/build-dev/bin TRICOUNT_GRAPHS_DIR=$R/data/graphs
B=$R/build-dev/bin
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; git log --oneline -1; } > $OUT/machine.txt 2>&1
cat $OUT/machine.txt
( cd $R/build-dev/tests
  for t in test_cuda_backend test_cuda_per_vertex test_per_vertex_cuda test_static_schedule_cuda test_snap_graphs_cuda; do
    echo "== $t"; timeout 200 ./$t 2>&1 | tail -30
  done ) > $OUT/gputests.log 2>&1
grep -E "^== |PASSED|FAILED|SKIPPED \]" $OUT/gputests.log | head -40
# Kronecker product of 1,216,000,000 edges (README's command), its known count checked by tricount-count.
cd /tmp
F=random1000000:3000000:1+loops,star7+loops,K4+loops
{ /usr/bin/time -v $B/tricount-generate --kind kronecker-product --factors $F --output /tmp/big.bin32 2>&1 | grep -E "triangles|Elapsed|Maximum resident"
  ls -la /tmp/big.bin32*; cat /tmp/big.bin32.known; echo
  /usr/bin/time -v $B/tricount-partition --input /tmp/big.bin32 --output /tmp/big.h5 --parts 1 --memory-budget 96G 2>&1 | grep -E "partitioned|known|Elapsed|Maximum resident|error"
  ls -la /tmp/big.h5
  for np in 2 $(( $(nvidia-smi -L | wc -l) + 1 )); do
    /usr/bin/time -f "wall %e s" mpirun -np $np $B/tricount-count /tmp/big.h5 --json /tmp/big-np$np.json 2>&1 | tail -3
    cp /tmp/big-np$np.json $OUT/ 2>/dev/null
  done
} > $OUT/kron_product.log 2>&1
cat $OUT/kron_product.log
