#!/usr/bin/env bash
# Device call 2 (64 cores): tricount-partition on 1 rank against 4 and 8 ranks of one host,
# Kronecker 24 and 26 at --parts 4, bin64 input in the page cache; files compared byte for byte.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nproc; free -g | head -2; df -h /tmp | tail -1; mpirun --version | head -1; } > $OUT/device.txt 2>&1
W=/tmp/dw; mkdir -p $W/runs
for s in 24 26; do
  /usr/bin/time -f "gen $s %e s" $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 >> $OUT/device.txt 2>&1
  cat $W/k$s.bin64 > /dev/null
done
S=$OUT/summary.txt
one() { # label scale ranks threads extra...
  local label=$1 s=$2 r=$3 t=$4; shift 4
  local cmd=($P/tricount-partition -i $W/k$s.bin64 -o $W/$label.h5 --parts 4 --threads $t "$@")
  [ $r -gt 1 ] && cmd=(mpirun --bind-to none -np $r "${cmd[@]}")
  local t0=$(date +%s%N)
  "${cmd[@]}" > $W/$label.txt 2>&1; local rc=$?
  local t1=$(date +%s%N)
  echo "$label scale $s ranks $r threads $t $* rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $S
  sed "s/^/$label: /" $W/$label.txt | cut -c1-220 >> $OUT/stages.txt
}
same() { cmp -s $W/$1.h5 $W/$2.h5 && echo "$2 same as $1" >> $S || echo "$2 DIFFERENT from $1" >> $S; }
one k24-1x64 24 1 64
one k24-1x16 24 1 16
one k24-4x16 24 4 16
one k24-8x8 24 8 8
one k24-2x32 24 2 32
one k24-4x16b 24 4 16
one k24-1x64b 24 1 64
for f in k24-1x16 k24-4x16 k24-8x8 k24-2x32; do same k24-1x64 $f; done
rm -f $W/k24-*.h5
one k26-1x16 26 1 16
one k26-4x16 26 4 16
same k26-1x16 k26-4x16; rm -f $W/k26-4x16.h5
one k26-8x8 26 8 8
same k26-1x16 k26-8x8; rm -f $W/k26-8x8.h5
one k26-1x64 26 1 64
same k26-1x16 k26-1x64; rm -f $W/k26-1x64.h5
one k26-1x64-16G 26 1 64 --memory-budget 16G --tmpdir $W/runs
rm -f $W/k26-*.h5
cat $S
