#!/usr/bin/env bash
# Per-edge: T's P(i,j) positions in 32 bits (new) instead of 64 (base: main 7fad185's build),
# cuda_bench per-edge (off / on / sorted-list kernel, median of 5), base and new alternating,
# two rounds: Kronecker 20, 24 and 22 at n = 4; then the per-edge GPU tests of new.
set -u
mkdir -p /tmp/base /tmp/new /tmp/w /tmp/d && tar xJf build-pack/base.txz -C /tmp/base && tar xJf build-pack/pe32.txz -C /tmp/new
tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv; nproc; } > $OUT/run1_host.txt 2>&1
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([k24]=kronecker:24 [k20]=kronecker:20 [k22]=kronecker:22)
for f in k20n1 k24n1 k22n4; do $P --input ${spec[${f%n*}]} --output $W/$f.h5 --parts ${f##*n} -q --threads 5 & done; wait
for r in 1 2; do for f in k20n1 k24n1 k22n4; do for b in base new; do
  echo "$r $b $f $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$f.h5 timeout 100 /tmp/$b/tests/cuda_bench per-edge 2>&1 | tail -1 | grep -o '"off_ms_median.*lists_ratio": [0-9.]*')"
done; done; done 2>&1 | tee $OUT/run1_pe.txt
TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/k24n1.h5 timeout 100 /tmp/new/tests/cuda_bench per-edge 2>&1 | grep "cuda profile" | head -3 | cut -c1-900 > $OUT/run1_profile.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_cuda_per_edge > $OUT/run1_tests1.log 2>&1 &
group test_per_edge_cuda test_per_edge_snap_cuda > $OUT/run1_tests2.log 2>&1 &
wait
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
