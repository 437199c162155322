#!/usr/bin/env bash
# Device call 4 (64 cores): is the ranks' shared-memory transport what bounds the distributed
# partitioner? Kronecker 24 --parts 4 at 4 x 16 with Open MPI's vader single-copy mechanisms.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
{ cat /proc/sys/kernel/yama/ptrace_scope; ompi_info --param btl vader --level 9 | grep -i "single_copy\|knem\|xpmem"; ompi_info | grep -i "btl\|pml"; } > $OUT/mpi.txt 2>&1
$P/tricount-generate --kind kronecker --scale 24 -o $W/k24.bin64 > /dev/null 2>&1; cat $W/k24.bin64 > /dev/null
for v in default cma none default2 ob1sm; do
  case $v in cma) M="--mca btl_vader_single_copy_mechanism cma";; none) M="--mca btl_vader_single_copy_mechanism none";; ob1sm) M="--mca pml ob1 --mca btl self,vader";; *) M="";; esac
  t0=$(date +%s%N); mpirun --bind-to none -np 4 $M $P/tricount-partition -i $W/k24.bin64 -o $W/$v.h5 --parts 4 --threads 16 > $W/$v.txt 2>&1; rc=$?; t1=$(date +%s%N)
  echo "$v rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $OUT/summary.txt
  sed "s/^/$v: /" $W/$v.txt | cut -c1-150 >> $OUT/stages.txt; rm -f $W/$v.h5
done
t0=$(date +%s%N); $P/tricount-partition -i $W/k24.bin64 -o $W/one.h5 --parts 4 > $W/one.txt 2>&1; t1=$(date +%s%N); echo "1x64 wall_ms $(( (t1 - t0) / 1000000 ))" >> $OUT/summary.txt
cat $OUT/summary.txt; grep -h "clean\|degrees\|blocks" $OUT/stages.txt
