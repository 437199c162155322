#!/usr/bin/env bash
# Hub counters, two more forms (hub_forms.diff: hub.diff with macros): WARPONLY, the warp kernel's only (the
# CTA kernel's adds stay global); NORET, both kernels' without the returned old value (no
# flush at 2^30: exact on these graphs, not in general). cuda_bench per-vertex (median of 5)
# against main 297b463's kernels (new), alternating, two rounds, the seven graphs; then the
# per-step profile of Kronecker 18 and 20 (per-vertex on, last of 3).
set -u
mkdir -p /tmp/new /tmp/exp2 /tmp/w
tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/exp2.txz -C /tmp/exp2
cp /tmp/new/tests/cuda_bench /tmp/exp2/cuda_bench_new
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/run4_host.txt
W=/tmp/w P=/tmp/new/bin/tricount-partition
declare -A spec=([u24]=uniform:vertices=16777216,edges=268435456 [u20]=uniform:vertices=1048576,edges=16777216 [k24]=kronecker:24 [k20]=kronecker:20 [k18]=kronecker:18 [k23]=kronecker:23 [g128]=grid3d:128)
for wave in "k18 k20 u20 g128" "u24 k24 k23"; do for g in $wave; do
  [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q --threads 5 &
done; wait; done
for r in 1 2; do for g in k18 g128 u20 k20 k23 k24 u24; do for b in new WARPONLY NORET; do
  echo "r$r $g $b $(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 90 /tmp/exp2/cuda_bench_$b per-vertex 2>&1 | tail -1 | grep -o '"triangles.*"ratio": [0-9.]*')"
done; done; done 2>&1 | tee $OUT/run4_ab.txt
for g in k18 k20; do for b in new WARPONLY NORET; do
  echo "$g $b $(TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=3 TRICOUNT_BENCH_FILE=$W/$g.h5 timeout 60 /tmp/exp2/cuda_bench_$b per-vertex 2>&1 | grep 'cuda profile' | tail -1 | grep -o 'u: CTA rows [0-9.]* ms.*v: warp rows [0-9.]* ms')"
done; done 2>&1 | tee $OUT/run4_profile.txt
