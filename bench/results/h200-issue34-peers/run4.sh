#!/usr/bin/env bash
# Each kernel's shared-memory limit raised where a side is planned, not for all 45 variants
# at the backend's start (lazy): tricount-count at 57d614e (b57), 89fde81 (new) and the lazy
# build alternating, 4 processes each, on the grid, Kronecker 18 and 24 and uniform 2^20;
# the report's total, setup and the backend's steps; then every GPU test binary on the lazy
# build, in four groups.
set -u
mkdir -p /tmp/new /tmp/lazy /tmp/b57 /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/lazy.txz -C /tmp/lazy && tar xJf build-pack/b57count.txz -C /tmp/b57
tar xzf build-pack/data.tgz -C /tmp/d
for d in /tmp/new /tmp/lazy; do cp $d/libboost_program_options.so.1.74.0 $d/bin/; done
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/b57/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
declare -A spec=([k18]=kronecker:18 [g128]=grid3d:128 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216)
for g in k18 g128 k24 u20; do [ -e /tmp/w/${g}n1.h5 ] || LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input ${spec[$g]} --output /tmp/w/${g}n1.h5 --parts 1 -q --threads 8; done
one() {  # label bindir graph
  LD_LIBRARY_PATH=$2 timeout 60 $2/tricount-count --backend cuda --input /tmp/w/$3n1.h5 --json /tmp/r.json > /dev/null 2>&1
  echo "$1 $3 $(python3 -c 'import json; d=json.load(open("/tmp/r.json")); s=d["seconds"]; r=d["per_rank"][-1]
print(json.dumps({"triangles": d["triangles"], "total": s["total"], "setup": s["setup"], "count": s["count"], "count_phase": s["count_phase"], "backend": r["backend_seconds"], "backend_steps": r["backend_steps_seconds"], "backend_wait": r["setup_steps_seconds"]["backend_wait"]}))' 2>&1)"
}
for r in 1 2 3 4; do for g in g128 k18 u20 k24; do one b57 /tmp/b57 $g; one new /tmp/new/bin $g; one lazy /tmp/lazy/bin $g; done; done > $OUT/run4_totals.txt 2>&1
export TRICOUNT_BIN_DIR=/tmp/lazy/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs LD_LIBRARY_PATH=/tmp/lazy OMPI_MCA_rmaps_base_oversubscribe=1
group() { cd /tmp/lazy/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda test_cuda_prefetch test_per_edge_snap_cuda > $OUT/run4_tests1.log 2>&1 &
group test_cuda_backend test_static_schedule_cuda test_cuda_per_vertex > $OUT/run4_tests2.log 2>&1 &
group test_count_parts_cuda > $OUT/run4_tests3.log 2>&1 &
group test_cuda_per_edge test_per_vertex_cuda test_per_edge_cuda > $OUT/run4_tests4.log 2>&1 &
wait
python3 - $OUT/run4_totals.txt <<'PY'
import json, sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    lab, g, js = line.split(" ", 2)
    try: d = json.loads(js)
    except Exception: print("bad:", line.strip()); continue
    t[(g, lab)].append(d)
for (g, lab), ds in sorted(t.items()):
    med = lambda k: sorted(x[k] for x in ds)[len(ds) // 2]
    print(f"{g:5} {lab:5} n={len(ds)} total {med('total')*1e3:7.1f} ms  setup {med('setup')*1e3:6.1f}  backend {med('backend')*1e3:6.1f}"
          f"  kernels {sorted(x['backend_steps']['kernels'] for x in ds)[len(ds)//2]*1e3:6.1f}  count {med('count')*1e3:8.3f}  tri {ds[0]['triangles']}")
PY
cat $OUT/run4_tests*.log | grep -E "==|PASSED|FAILED|\("
