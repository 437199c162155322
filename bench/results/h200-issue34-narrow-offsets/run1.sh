#!/usr/bin/env bash
# Ran on a build whose plain long-list hit sums were never reset (fixed before run2): its
# Kronecker rows failed cuda_bench's count check; the uniform and grid rows stand.
# The 2-hop block's offsets narrowed to 32 bits for the gathers of v's list bounds, and the
# hit counts summed in 32 bits per list (new; new0 = new with narrow-offsets=0) against main
# c841a0c (base): cuda_bench per-vertex (plain and per-vertex medians of 5) on the seven
# graphs, two rounds alternating; cuda_bench per-edge on k20 and k24; per-step times of u24.
set -u
mkdir -p /tmp/new /tmp/base /tmp/w /tmp/d
tar xf build-pack/new.txz -C /tmp/new && tar xf build-pack/base.txz -C /tmp/base && tar xzf build-pack/data.tgz -C /tmp/d
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/run1_host.txt
W=/tmp/w P=/tmp/base/bin/tricount-partition
declare -A spec=([k18]=kronecker:18 [k20]=kronecker:20 [k23]=kronecker:23 [k24]=kronecker:24 [u20]=uniform:vertices=1048576,edges=16777216 [u24]=uniform:vertices=16777216,edges=268435456 [g128]=grid3d:128)
s=$(date +%s); for g in "${!spec[@]}"; do [[ -s $W/$g.h5 ]] || $P --input ${spec[$g]} --output $W/$g.h5 --parts 1 -q & done; wait; echo "partition $(( $(date +%s) - s )) s" >> $OUT/run1_host.txt
bench() {  # variant graph mode
  local b=$1 t=""; [[ $1 == new0 ]] && b=new t=narrow-offsets=0
  TRICOUNT_BENCH_TUNING=$t TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=$W/$2.h5 timeout 100 /tmp/$b/tests/cuda_bench $3 2>&1 | tail -1
}
for r in 1 2; do for g in u24 u20 k18 k20 g128 k23 k24; do for v in base new new0; do
  echo "$v r$r $g $(bench $v $g per-vertex)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_pv_ab.txt
for r in 1 2; do for g in k20 k24; do for v in base new; do
  echo "$v r$r $g $(bench $v $g per-edge)"
done; done; done 2>&1 | sed 's/"graph": "[^"]*", //; s/, "device": "NVIDIA H[0-9]*"//' | tee $OUT/run1_pe_ab.txt
for v in base new; do echo "$v"; TRICOUNT_BENCH_TUNING=profile=1 TRICOUNT_BENCH_REPS=1 TRICOUNT_BENCH_FILE=$W/u24.h5 /tmp/$v/tests/cuda_bench count 2>&1 | grep -i -E "profile|u: every|narrow" | tail -3 | cut -c1-300; done > $OUT/run1_u24_profile.txt 2>&1
