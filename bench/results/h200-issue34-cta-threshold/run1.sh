#!/usr/bin/env bash
# The CTA threshold by the task (cta_threshold_for: 128 for blocks of at least 2^19 rows, else
# 100) against main b80e331 (base, 100 everywhere), each with its own default: the seven
# graphs and Kronecker 19, 21, 22, per-vertex mode (off = the plain count), median of 5, two
# rounds alternating. Then every GPU test binary of the new build.
set -u
mkdir -p /tmp/base /tmp/new /tmp/w /tmp/d
tar xJf build-pack/v1.txz -C /tmp/base && tar xJf build-pack/new.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
declare -A spec=([k18]=kronecker:18 [k19]=kronecker:19 [k20]=kronecker:20 [k21]=kronecker:21 [k22]=kronecker:22 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 3 & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
for r in 1 2; do for g in k18 k19 k20 k21 k22 k23 k24 u20 u24 g128; do for b in base new; do
  echo "r$r $g $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 100 /tmp/$b/tests/cuda_bench per-vertex 2>&1 | tail -1)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//; s/"edges": [0-9]*, //; s/BENCHPV {"parts": 1, //' | tee $OUT/run1_ab.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/new/bin/
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 400 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_cuda_backend test_cuda_per_vertex test_cuda_per_edge test_cuda_prefetch > $OUT/run1_tests1.log 2>&1 &
group test_snap_graphs_cuda > $OUT/run1_tests2.log 2>&1 &
group test_count_parts_cuda test_per_edge_cuda > $OUT/run1_tests3.log 2>&1 &
group test_static_schedule_cuda test_per_vertex_cuda test_per_edge_snap_cuda > $OUT/run1_tests4.log 2>&1 &
wait
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
