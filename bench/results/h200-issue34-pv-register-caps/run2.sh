#!/usr/bin/env bash
# Rows classified where the average row is at most 1.5 x tiny_max (was 0.5 x) with short
# 2-hop lists (new) against main 8f04eb7, cuda_bench count (blocks resident, median of 5),
# alternating: uniform 2^20, 2^22, 2^24 at n = 1, 2, 4, 8 and the seven graphs at n = 1 (no
# change wanted); then every GPU test binary of new, in three groups at once.
set -u
mkdir -p /tmp/main /tmp/new /tmp/w /tmp/d && tar xJf build-pack/main.txz -C /tmp/main && tar xJf build-pack/new.txz -C /tmp/new
tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run2_host.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u22]=uniform:vertices=4194304,edges=67108864 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20 [k18]=kronecker:18 [k23]=kronecker:23 [g128]=grid3d:128)
s=$(date +%s)
for wave in "k18n1 k20n1 u20n1 g128n1 u20n2 u20n4 u20n8 u22n1 u22n2 u22n4 u22n8" "u24n1 u24n2 u24n4 u24n8 k24n1 k23n1"; do for f in $wave; do
  [[ -s $W/$f.h5 ]] || $P --input ${spec[${f%n*}]} --output $W/$f.h5 --parts ${f##*n} -q --threads 4 &
done; wait; done
echo "partition $(( $(date +%s) - s )) s" >> $OUT/run2_host.txt
for f in u20n1 u20n2 u20n4 u20n8 u22n1 u22n2 u22n4 u22n8 u24n1 u24n2 u24n4 u24n8 k18n1 g128n1 k20n1 k23n1 k24n1; do for b in main new; do
  echo "$b $f $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 60 /tmp/$b/tests/cuda_bench count 2>&1 | tail -1 | grep -o '"triangles": [0-9]*, "count_ms_median": [0-9.]*')"
done; done 2>&1 | tee $OUT/run2_ab.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() {
  cd /tmp/new/tests && for t in "$@"; do
    s=$(date +%s); echo "== $t"; timeout 400 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done
}
group test_cuda_per_edge > $OUT/run2_tests1.log 2>&1 &
group test_snap_graphs_cuda test_cuda_per_vertex test_cuda_prefetch > $OUT/run2_tests2.log 2>&1 &
group test_cuda_backend test_per_vertex_cuda test_per_edge_cuda test_per_edge_snap_cuda test_static_schedule_cuda test_count_parts_cuda > $OUT/run2_tests3.log 2>&1 &
wait
cat $OUT/run2_tests*.log | grep -E "==|PASSED|FAILED|\(" 
