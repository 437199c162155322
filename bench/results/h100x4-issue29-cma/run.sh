#!/usr/bin/env bash
# Device call 11 (4 GPUs): forward between two virtual nodes with Open MPI's shared-memory
# single copy (CMA, Open MPI's default where ptrace allows it) against without it (what
# scripts/mpi-env sets for containers); main c93f005 + 0f9ad3a binaries.
set -u
R=$PWD
mkdir -p /tmp/p /tmp/g && tar xzf build-pack/new11.tgz -C /tmp/p
export LD_LIBRARY_PATH=/tmp/p:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $OUT/device.txt; cat /proc/sys/kernel/yama/ptrace_scope >> $OUT/device.txt 2>&1
sed -i 's|^export OMPI_MCA_btl_vader_single_copy_mechanism=none|export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}|' scripts/mpi-env
/tmp/p/bin/tricount-partition --input kronecker:24 --output /tmp/g/k24n4.h5 --parts 4 -q
for m in none cma; do
  OMPI_MCA_btl_vader_single_copy_mechanism=$m BUILDS="$m:/tmp/p" REPEATS=3 OUT=/tmp/ng-$m VARIANTS="file1x4:--schedule static --load-path file|fwd2x2:--schedule static --ranks-per-node 3 --load-path forward" \
    timeout 200 bash $R/bench/bench_node_gpus.sh /tmp/g/k24n4.h5 4 > $OUT/node_$m.md 2>&1
  cat $OUT/node_$m.md
done
