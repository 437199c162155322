#!/usr/bin/env bash
# mpirun -np R tricount-partition on one host: main a7b8372 (base) against c7bb6fb (new: each
# thread's counters in an array of its own in the sort's cut, the routes and the blocks'
# scatter), Kronecker 24 from the generator at --parts 4, 4 ranks x 4 threads and 8 x 2,
# alternating, two rounds; the files compared byte for byte.
set -u
mkdir -p /tmp/new /tmp/dp /tmp/w && tar xJf build-pack/new.txz -C /tmp/new && tar xJf build-pack/dp.txz -C /tmp/dp
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
W=/tmp/w
for r in 1 2; do for rt in 4x4 8x2; do for b in new dp; do
  R=${rt%x*} T=${rt#*x}
  s=$(date +%s.%N)
  mpirun -np $R /tmp/$b/bin/tricount-partition --input kronecker:24 --output $W/$b.h5 --parts 4 --threads $T > $W/log 2>&1 || { echo "$b FAILED"; tail -5 $W/log; }
  e=$(date +%s.%N)
  echo "r$r $rt $([[ $b == new ]] && echo base || echo new) wall $(awk "BEGIN{printf \"%.2f\", $e - $s}") | $(grep -o 'steps.*' $W/log | head -1)"
done; cmp -s $W/new.h5 $W/dp.h5 && echo "   same bytes" || echo "   FILES DIFFER"; done; done 2>&1 | tee $OUT/run1.txt
