#!/usr/bin/env bash
# The branch-free rank prober (new) against main a3d374c (base): cuda_bench per-vertex on
# the seven graphs, base and new alternating, two rounds, five timed counts each; per-edge on
# k20 and k24 (the counting kernels' supports checked edge by edge against the sorted-list
# kernel); then the GPU test binaries of new.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d
tar xf build-pack/new.txz -C /tmp/new && tar xf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w P=/tmp/base/bin/tricount-partition
{ nvidia-smi -L; nproc; echo "commit $(git rev-parse --short HEAD) (working tree)"; } > $OUT/host.txt 2>&1
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
for g in "${!spec[@]}"; do [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done; wait
for r in 1 2; do for g in k18 k20 u20 g128 k23 u24 k24; do for b in base new; do
  echo "$b r$r $g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | tee $OUT/pv_ab.txt
for g in k20 k24; do for b in base new; do
  echo "$b $g $(TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 150 /tmp/$b/tests/cuda_bench per-edge 2>&1 | tail -1)"
done; done 2>&1 | tee $OUT/pe_ab.txt
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_vertex test_per_vertex_cuda test_cuda_per_edge test_per_edge_cuda test_cuda_backend test_per_edge_snap_cuda test_snap_graphs_cuda; do
    s=$(date +%s); echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/gputests.log
