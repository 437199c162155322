#!/usr/bin/env bash
# Every GPU test binary of main 31365e4 (after the session's output, journal and vertex-map
# checks); then Kronecker 24 at --parts 1, plain and --per-vertex .h5, three repeats.
set -u
mkdir -p /tmp/new /tmp/w /tmp/d && tar xJf build-pack/head.txz -C /tmp/new && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 420 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_backend > $OUT/run3_tests1.log 2>&1 &
group test_per_edge_snap_cuda test_static_schedule_cuda test_cuda_prefetch > $OUT/run3_tests2.log 2>&1 &
group test_count_parts_cuda test_per_vertex_cuda test_per_edge_cuda test_cuda_per_vertex test_cuda_per_edge > $OUT/run3_tests3.log 2>&1 &
wait
W=/tmp/w
/tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q --threads 16
for r in 1 2 3; do
  for args in "" "--per-vertex $W/pv.h5"; do
    rm -f $W/pv.h5
    /usr/bin/time -f "%e" -o $W/wall /tmp/new/bin/tricount-count $W/k24.h5 -q --json $W/j.json $args > /dev/null 2>&1
    echo "r$r ${args:-plain} wall $(cat $W/wall) total $(python3 -c "import json;print(json.load(open('$W/j.json'))['seconds']['total'])")"
  done
done 2>&1 | tee $OUT/run3_k24.txt
cat $OUT/run3_tests*.log | grep -E "==|PASSED|FAILED|\("
