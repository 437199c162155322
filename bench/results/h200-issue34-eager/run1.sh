#!/usr/bin/env bash
# CUDA modules loaded eagerly (start_gpu_driver sets CUDA_MODULE_LOADING=EAGER unless the user
# did): tricount-count at 57d614e (b57), 89fde81 (new, lazy loading) and new with the change
# (fix), alternating, 4 processes each on the grid, Kronecker 18 and 24 and uniform 2^20, and
# under mpirun -np 2 (rank 1 counts) 3 each on the grid and Kronecker 18; the report's total,
# setup and the backend's steps. Then every GPU test binary that runs tricount-count, with
# fix's tricount-count, in four groups.
set -u
mkdir -p /tmp/new /tmp/fix /tmp/b57 /tmp/w /tmp/d
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/fix.txz -C /tmp/fix && tar xJf build-pack/b57count.txz -C /tmp/b57
tar xzf build-pack/data.tgz -C /tmp/d
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/new/bin/ && cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/b57/
cp /tmp/fix/libboost_program_options.so.1.74.0 /tmp/fix/bin/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run1_host.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
declare -A spec=([k18]=kronecker:18 [g128]=grid3d:128 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216)
for g in k18 g128 k24 u20; do [ -e /tmp/w/${g}n1.h5 ] || LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input ${spec[$g]} --output /tmp/w/${g}n1.h5 --parts 1 -q --threads 4 & done; wait
summary() {
  python3 -c 'import json, sys; d=json.load(open("/tmp/r.json")); s=d["seconds"]; r=d["per_rank"][-1]
print(json.dumps({"triangles": d["triangles"], "total": s["total"], "setup": s["setup"], "count": s["count"], "backend": r["backend_seconds"], "backend_steps": r["backend_steps_seconds"], "backend_wait": r["setup_steps_seconds"]["backend_wait"]}))' 2>&1
}
one() {  # label bindir graph
  rm -f /tmp/r.json; LD_LIBRARY_PATH=$2 timeout 60 $2/tricount-count --backend cuda --input /tmp/w/$3n1.h5 --json /tmp/r.json > /dev/null 2>&1
  echo "$1 $3 $(summary)"
}
two() {  # label bindir graph: mpirun -np 2, wall seconds of the whole mpirun too
  rm -f /tmp/r.json; s=$(date +%s%N)
  LD_LIBRARY_PATH=$2 timeout 60 mpirun -np 2 -x LD_LIBRARY_PATH $2/tricount-count --backend cuda --input /tmp/w/$3n1.h5 --json /tmp/r.json > /dev/null 2>&1
  w=$(( ($(date +%s%N) - s) / 1000000 )); echo "$1-np2 $3 $(summary | sed "s/}\$/, \"wall_ms\": $w}/")"
}
for r in 1 2 3 4; do for g in g128 k18 u20 k24; do one b57 /tmp/b57 $g; one new /tmp/new/bin $g; one fix /tmp/fix/bin $g; done; done > $OUT/run1_totals.txt 2>&1
for r in 1 2 3; do for g in g128 k18; do two new /tmp/new/bin $g; two fix /tmp/fix/bin $g; done; done >> $OUT/run1_totals.txt 2>&1
cp /tmp/fix/bin/tricount-count /tmp/new/bin/tricount-count
export TRICOUNT_BIN_DIR=/tmp/new/bin TRICOUNT_GRAPHS_DIR=/tmp/d/graphs LD_LIBRARY_PATH=/tmp/new OMPI_MCA_rmaps_base_oversubscribe=1
group() { cd /tmp/new/tests && for t in "$@"; do
  s=$(date +%s); echo "== $t"; timeout 300 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|tests ran" | head -30; echo "   ($(( $(date +%s) - s )) s)"; done; }
group test_snap_graphs_cuda > $OUT/run1_tests1.log 2>&1 &
group test_count_parts_cuda > $OUT/run1_tests2.log 2>&1 &
group test_static_schedule_cuda test_per_vertex_cuda > $OUT/run1_tests3.log 2>&1 &
group test_per_edge_snap_cuda test_per_edge_cuda > $OUT/run1_tests4.log 2>&1 &
wait
python3 - $OUT/run1_totals.txt <<'PY'
import json, sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    lab, g, js = line.split(" ", 2)
    try: d = json.loads(js)
    except Exception: print("bad:", line.strip()); continue
    t[(g, lab)].append(d)
for (g, lab), ds in sorted(t.items()):
    med = lambda k: sorted(x[k] for x in ds)[len(ds) // 2]
    wall = f"  wall {med('wall_ms')} ms" if "wall_ms" in ds[0] else ""
    print(f"{g:5} {lab:8} n={len(ds)} total {med('total')*1e3:7.1f} ms  setup {med('setup')*1e3:6.1f}  backend {med('backend')*1e3:6.1f}"
          f"  kernels {sorted(x['backend_steps']['kernels'] for x in ds)[len(ds)//2]*1e3:6.1f}  count {med('count')*1e3:8.3f}  tri {ds[0]['triangles']}{wall}")
PY
cat $OUT/run1_tests*.log | grep -E "==|PASSED|FAILED|\("
