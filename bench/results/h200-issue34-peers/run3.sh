#!/usr/bin/env bash
# Why run2's whole run (the report's total) rose by about 40 ms on the small graphs against
# run1 (1119d97): tricount-count at 57d614e (before T's places and the 4-entry thread kernel)
# and at 89fde81 (kDefer's three modes) alternating, 4 processes each, on the grid and
# Kronecker 18 and 24; the report's seconds (setup steps per rank) from each.
set -u
mkdir -p /tmp/new /tmp/b57 /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/b57count.txz -C /tmp/b57
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/new/bin/; cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/b57/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
declare -A spec=([k18]=kronecker:18 [g128]=grid3d:128 [k24]=kronecker:24)
for g in k18 g128 k24; do [ -e /tmp/w/${g}n1.h5 ] || LD_LIBRARY_PATH=/tmp/new /tmp/new/bin/tricount-partition --input ${spec[$g]} --output /tmp/w/${g}n1.h5 --parts 1 -q --threads 8; done
one() {  # label bindir graph
  LD_LIBRARY_PATH=$2:/tmp/new timeout 60 $2/tricount-count --backend cuda --input /tmp/w/$3n1.h5 --json /tmp/r.json > /dev/null 2>&1
  echo "$1 $3 $(python3 -c 'import json; d=json.load(open("/tmp/r.json")); s=d["seconds"]; r=d["per_rank"][-1]
print(json.dumps({"total": s["total"], "setup": s["setup"], "count_phase": s["count_phase"], "backend": r["backend_seconds"], "backend_steps": r["backend_steps_seconds"], "setup_steps": r["setup_steps_seconds"]}))' 2>&1)"
}
for r in 1 2 3 4; do for g in g128 k18 k24; do one base /tmp/b57 $g; one new /tmp/new/bin $g; done; done > $OUT/run3_totals.txt 2>&1
CUDA_MODULE_LOADING=EAGER one new-eager /tmp/new/bin g128 >> $OUT/run3_totals.txt 2>&1
cp /tmp/r.json $OUT/run3_last.json
sed 's/"//g' $OUT/run3_totals.txt | cut -c1-400
