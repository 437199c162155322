#!/usr/bin/env bash
# Device call 1 (4xH200 host, 64 cores): (a) issue 30, the partitioner on 64 cores with the
# packed default against csr, bin64 input in the page cache; (b) issue 27, --parts 1 files on
# 1, 2 and 4 GPUs with --workload-splits m against auto, two repeats alternating.
set -u
mkdir -p /tmp/new && tar xzf build-pack/new.tgz -C /tmp/new
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
N=/tmp/new/bin; W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1; echo "commit $(git rev-parse --short HEAD)"; } > $OUT/host.txt
now() { date +%s.%N; }
since() { python3 -c "import time;print(round(time.time()-$1,3))"; }
part() {  # label input parts encoding file
  local s=$(now)
  $N/tricount-partition --input $2 --parts $3 --block-encoding $4 -o $5 > $W/p.log 2>&1
  echo "$1 rc $? wall $(since $s) s"
  grep -E "^\[partition\] (read|clean|map|blocks|write|estimate) |^partitioned|rror" $W/p.log | cut -c1-400 | sed "s|^|  |"
}
count() {  # file label ranks args...
  local f=$1 l=$2 np=$3; shift 3
  local s=$(now)
  mpirun -np $np $N/tricount-count $f -q --json $W/j.json "$@" > $W/c.log 2>&1 || { echo "$l FAILED"; tail -3 $W/c.log; return; }
  local wall=$(since $s)
  python3 - "$l" "$wall" $W/j.json <<'PY'
import json,sys
d=json.load(open(sys.argv[3])); s=d['seconds']; t=d['timers']
print('%-18s m %-3d tasks %-4d wall %s tri %d total %.3f setup %.3f transfer %.3f count max %.4f mean %.4f min %.4f count_phase %.3f'%(
  sys.argv[1], d['workload_splits'], d['tasks'], sys.argv[2], d['triangles'], s['total'], s['setup'], s['transfer'],
  t['count']['max'], t['count']['mean'], t['count']['min'], s['count_phase']))
PY
}
{
for np in 2 3 5; do s=$(now); mpirun -np $np true; echo "mpirun -np $np true: $(since $s) s"; done
s=$(now); $N/tricount-generate --kind kronecker --scale 24 -o $W/k24.bin64 > /dev/null 2>&1; echo "generate k24 $(since $s) s"
s=$(now); $N/tricount-generate --kind kronecker --scale 26 -o $W/k26.bin64 > /dev/null 2>&1; echo "generate k26 $(since $s) s"
cat $W/k24.bin64 $W/k26.bin64 > /dev/null
part "k24 n=1 packed" $W/k24.bin64 1 packed $W/k24p1.h5
part "k24 n=1 csr" $W/k24.bin64 1 csr $W/k24c.h5; rm -f $W/k24c.h5
part "k26 n=4 packed" $W/k26.bin64 4 packed $W/k26p4.h5; rm -f $W/k26p4.h5
part "k26 n=4 csr" $W/k26.bin64 4 csr $W/k26c.h5; rm -f $W/k26c.h5
part "k26 n=1 packed" $W/k26.bin64 1 packed $W/k26p1.h5
rm -f $W/*.bin64
for g in k24 k26; do
  for r in 1 2; do
    count $W/${g}p1.h5 "$g g1 r$r" 2
    count $W/${g}p1.h5 "$g g2 m2 r$r" 3 --workload-splits 2
    count $W/${g}p1.h5 "$g g2 auto r$r" 3
    count $W/${g}p1.h5 "$g g4 m4 r$r" 5 --workload-splits 4
    count $W/${g}p1.h5 "$g g4 m8 r$r" 5 --workload-splits 8
    count $W/${g}p1.h5 "$g g4 auto r$r" 5
  done
done
} 2>&1 | tee $OUT/run1.txt
