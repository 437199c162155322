#!/usr/bin/env bash
# Device call (issue 28): the seven bench_cuda.sh graphs at --parts 1 partitioned csr and
# packed (the new default), count driver and end-to-end tricount-count, same call.
set -u
mkdir -p /tmp/new && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
for e in csr packed; do
  mkdir -p $OUT/$e
  REPS=5 WORK=/tmp/bench-$e OUT=$OUT/$e PARTITION_ARGS="--memory-budget 100G --block-encoding $e" \
    timeout 280 bash bench/bench_cuda.sh /tmp/new > $OUT/$e/stdout.txt 2>&1; echo "$e rc $?"
  tail -12 $OUT/$e/stdout.txt
  rm -f /tmp/bench-$e/*.h5
done
