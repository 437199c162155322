#!/usr/bin/env bash
# run1's "pv tsv r3" crashed: the per-vertex runs on Kronecker 24 repeated (TSV and HDF5) to
# catch it with its whole log; one per-vertex report kept whole for its setup steps.
set -u
mkdir -p /tmp/new /tmp/w && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; W=/tmp/w
$N/tricount-partition --input kronecker:24 --output $W/k24.h5 --parts 1 -q
$N/tricount-count $W/k24.h5 -q --json $OUT/pv_h5.json --per-vertex $W/pv0.h5 > /dev/null 2>&1
$N/tricount-count $W/k24.h5 -q --json $OUT/plain.json > /dev/null 2>&1
fails=0
for r in $(seq 1 16); do for f in pv.tsv pv.h5; do
  rm -f $W/$f
  if ! $N/tricount-count $W/k24.h5 -q --per-vertex $W/$f > $W/c.log 2>&1; then
    fails=$((fails+1)); echo "== $f r$r FAILED"; cp $W/c.log $OUT/fail_${f}_$r.log; head -c 6000 $W/c.log
  fi
done; done
echo "failures: $fails of 32"
