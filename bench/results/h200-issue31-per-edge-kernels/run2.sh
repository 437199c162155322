#!/usr/bin/env bash
# Where the per-edge count's time goes (Kronecker 24 --parts 1, --cuda-tuning profile=1: every
# step in sequence) against per-vertex and plain; the per-edge step's parts end to end.
set -u
mkdir -p /tmp/new /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
W=/tmp/w C=/tmp/new/bin/tricount-count
[[ -s $W/k24.h5 ]] || /tmp/new/bin/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
for r in 1 2; do
  for m in plain pv pe pe-lists; do
    case $m in plain) a=();; pv) a=(--per-vertex $W/o.h5);; pe) a=(--per-edge $W/o.h5);; pe-lists) a=(--per-edge $W/o.h5 --cuda-tuning profile=1,edge-lists=1);; esac
    rm -f $W/o.h5
    [[ $m == pe-lists ]] || a+=(--cuda-tuning profile=1)
    echo "== $m r$r"; $C $W/k24.h5 -q "${a[@]}" 2>&1 | grep "cuda profile" | tr '|' '\n' | grep -v "^ *$" | head -30
  done
done > $OUT/profile.txt 2>&1
for f in h5 tsv; do for r in 1 2; do
  rm -f $W/o.$f; /usr/bin/time -f "wall %e" $C $W/k24.h5 -q --json $W/j_$f.json --per-edge $W/o.$f 2>&1 | tail -1
  python3 -c "
import json; d=json.load(open('$W/j_$f.json')); s=d['seconds']
print('$f r$r total %.3f count %.4f per_edge %.3f write %.3f bytes %d steps %s' % (s['total'], d['timers']['count']['max'], s['per_edge'], s['per_edge_write'], d['per_edge_bytes'], s['per_edge_steps']))"
done; done > $OUT/e2e.txt 2>&1
cp $W/j_h5.json $OUT/pe_h5.json
cat $OUT/profile.txt $OUT/e2e.txt
