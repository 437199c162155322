#!/usr/bin/env bash
# Device call 6 (64 cores): every rank writing its own rows (bce5824); 1 rank against 4 and 8,
# Kronecker 24 and 26 at --parts 4, bin64 input in the page cache; files compared byte for byte.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
for s in 24 26; do $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
S=$OUT/summary.txt
one() { # label scale ranks threads
  local label=$1 s=$2 r=$3 t=$4; shift 4
  local cmd=($P/tricount-partition -i $W/k$s.bin64 -o $W/$label.h5 --parts 4 --threads $t "$@")
  [ $r -gt 1 ] && cmd=(mpirun --bind-to none -np $r "${cmd[@]}")
  local t0=$(date +%s%N); "${cmd[@]}" > $W/$label.txt 2>&1; local rc=$?; local t1=$(date +%s%N)
  echo "$label rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $S
  grep "steps\|partitioned" $W/$label.txt | sed "s/^/$label: /" | cut -c1-900 >> $OUT/stages.txt
}
same() { cmp -s $W/$1.h5 $W/$2.h5 && echo "$2 same as $1" >> $S || echo "$2 DIFFERENT from $1" >> $S; }
one k24-1x64 24 1 64; one k24-4x16 24 4 16; one k24-8x8 24 8 8; one k24-1x16 24 1 16
for f in k24-4x16 k24-8x8 k24-1x16; do same k24-1x64 $f; done; rm -f $W/k24-*.h5
one k26-1x16 26 1 16; one k26-4x16 26 4 16; same k26-1x16 k26-4x16; rm -f $W/k26-4x16.h5
one k26-8x8 26 8 8; same k26-1x16 k26-8x8; rm -f $W/k26-8x8.h5
one k26-1x64 26 1 64; rm -f $W/k26-*.h5
cat $S
