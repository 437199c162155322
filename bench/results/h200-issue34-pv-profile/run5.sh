#!/usr/bin/env bash
# The warp rows' per-vertex path converged after each row's flush and a long list's hits
# summed over the tile (new) against 133cac0 (mid) and a3d374c (base): cuda_bench per-vertex
# on the seven graphs in that order, two rounds, five timed counts each; per-step times of k18
# (profile=1); then the per-vertex and per-edge GPU tests of new.
set -u
mkdir -p /tmp/new /tmp/mid /tmp/base /tmp/w /tmp/d
tar xf build-pack/new.txz -C /tmp/new && tar xf build-pack/mid.txz -C /tmp/mid && tar xf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w P=/tmp/base/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
for g in "${!spec[@]}"; do [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done; wait
for r in 1 2; do for g in k18 k20 u20 g128 k23 u24 k24; do for b in base mid new; do
  echo "$b r$r $g $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H200"//' | tee $OUT/run5_pv_ab.txt
for b in mid new; do echo "$b"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/k18.h5 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | grep profile | tail -3 | cut -c1-260; done > $OUT/run5_k18_profile.txt 2>&1
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_per_vertex test_per_vertex_cuda test_per_edge_cuda test_per_edge_snap_cuda test_cuda_per_edge; do
    s=$(date +%s); echo "== $t"; timeout 170 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run5_gputests.log
