#!/usr/bin/env bash
# Device call 6 (one H200): every GPU test binary (label gpu) at the session's last code change
# (f8b9e8c: the finish rule for --workload-splits auto), then Kronecker 24 counted by 1 and
# 2 workers on the one GPU with no options.
set -u
mkdir -p /tmp/new /tmp/d && tar xzf build-pack/new.tgz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_early_gpu test_cuda_backend test_cuda_per_edge test_cuda_per_vertex test_cuda_prefetch test_per_edge_cuda \
           test_per_vertex_cuda test_static_schedule_cuda test_per_edge_snap_cuda test_snap_graphs_cuda; do
    echo "== $t"; timeout 240 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; done ) > $OUT/gputests.log 2>&1
{
$N/tricount-partition --input kronecker:24 -o /tmp/k24.h5 2>&1 | grep -E "^partitioned|error"
for np in 2 3; do mpirun -np $np $N/tricount-count /tmp/k24.h5 -q --json /tmp/j.json > /tmp/c.log 2>&1 || tail -3 /tmp/c.log
  python3 -c "import json;d=json.load(open('/tmp/j.json'));print('k24 -np $np m',d['workload_splits'],'tasks',d['tasks'],'tri',d['triangles'],'count',d['seconds']['count'],'total',d['seconds']['total'])"; done
} > $OUT/counts.txt 2>&1
