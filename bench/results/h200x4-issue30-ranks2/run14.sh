#!/usr/bin/env bash
# Device call 14 (64 cores): 64-bit keys sorted in 10-bit digits (new) against 8-bit (old, the
# build of call 13's new), alternating, Kronecker 26 at --parts 4 on 4 x 16 ranks and one process.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
S=$OUT/summary.txt
nproc > $S
$P/tricount-generate --kind kronecker --scale 26 -o $W/k26.bin64 > /dev/null 2>&1; cat $W/k26.bin64 > /dev/null
one() { # label build input ranks threads
  local label=$1 b=$2 in=$3 r=$4 t=$5; shift 5
  local cmd=($b/tricount-partition -i $in -o $W/$label.h5 --parts 4 --threads $t "$@")
  [ $r -gt 1 ] && cmd=(mpirun --bind-to none -np $r "${cmd[@]}")
  local t0=$(date +%s%N); "${cmd[@]}" > $W/$label.txt 2>&1; local rc=$?; local t1=$(date +%s%N)
  echo "$label rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $S
  grep "steps\|partitioned\|read \|clean \|blocks " $W/$label.txt | sed "s/^/$label: /" | cut -c1-1200 >> $OUT/stages.txt
}
same() { cmp -s $W/$1.h5 $W/$2.h5 && echo "$2 same as $1" >> $S || echo "$2 DIFFERENT from $1" >> $S; }
for rep in 1 2; do
  one k26-4x16-old-$rep $P/old $W/k26.bin64 4 16; one k26-4x16-new-$rep $P $W/k26.bin64 4 16; same k26-4x16-old-$rep k26-4x16-new-$rep; rm -f $W/k26-*.h5
  one k26-1x64-old-$rep $P/old $W/k26.bin64 1 64; one k26-1x64-new-$rep $P $W/k26.bin64 1 64; same k26-1x64-old-$rep k26-1x64-new-$rep; rm -f $W/k26-*.h5
done
cat $S
