#!/usr/bin/env bash
# What ships: the 2-hop bounds from 32-bit offsets and the hits summed in 32 bits per list,
# slot and segment (new; new0 = narrow-offsets=0) against main c841a0c (base), cuda_bench
# per-vertex on the seven graphs, two rounds alternating; then the GPU tests (part 1).
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d
tar xf build-pack/new.txz -C /tmp/new && tar xf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run3_host.txt
W=/tmp/w P=/tmp/base/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run3_host.txt
declare -A tune=([base]="" [new]="" [new0]=narrow-offsets=0)
bench() {  # variant graph mode
  local b=new; [[ $1 == base ]] && b=base
  TRICOUNT_BENCH_TUNING=${tune[$1]} TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 100 /tmp/$b/tests/cuda_bench $3 2>&1 | tail -1
}
for r in 1 2; do for g in u24 u20 k18 k20 g128 k23 k24; do for v in base new new0; do
  echo "$v r$r $g $(bench $v $g per-vertex)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run3_pv_ab.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
  for t in test_cuda_backend test_cuda_per_vertex test_snap_graphs_cuda; do
    s=$(date +%s); echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done ) 2>&1 | tee $OUT/run3_gputests.log
