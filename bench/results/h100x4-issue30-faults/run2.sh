#!/usr/bin/env bash
# Device call 2 (64 cores): kernel stacks of the waiting threads in tricount-partition's
# stages, Kronecker 24 at --parts 1 and 4; main 155ec3f, plain and with glibc's malloc kept
# off mmap/munmap for buffers (GLIBC_TUNABLES).
set -u
P=build-pack/prof; export LD_LIBRARY_PATH=$PWD/$P
{ uname -a; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; mount | grep " / "; } > $OUT/device.txt 2>&1
W=/tmp/pw; mkdir -p $W/runs
$P/tricount-generate --kind kronecker --scale 24 -o $W/k24.bin64 > /dev/null 2>&1; cat $W/k24.bin64 > /dev/null
for v in plain tun; do for n in 1 4; do
  if [ $v = tun ]; then export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296; else unset GLIBC_TUNABLES; fi
  STACK=4 NTOP=5 python3 bench/thread_profile.py $P/tricount-partition -i $W/k24.bin64 -o $W/k24-n$n.h5 --parts $n --memory-budget 16G --tmpdir $W/runs > $OUT/prof-$v-n$n.txt 2>&1
  rm -f $W/k24-n$n.h5; sync
done; done
grep -h "wall\|\] \[partition\] \(clean\|blocks\|write\|read\) " $OUT/prof-*.txt
