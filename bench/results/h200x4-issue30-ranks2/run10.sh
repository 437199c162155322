#!/usr/bin/env bash
# Device call 10 (64 cores): main after session 8 (ranks read byte ranges, arrays reused) and the
# WebGraph shares; 1 process against 4 and 8 ranks, Kronecker 24 and 26 at --parts 4, bin64 in the
# page cache, and the generator input; files compared byte for byte; the disk's own rates.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
S=$OUT/summary.txt
{ nproc; free -g | head -2; df -h /tmp | tail -1; lscpu | grep -i "model name\|numa node(s)"; } > $S 2>&1
for s in 24 26; do
  t0=$(date +%s%N); $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; t1=$(date +%s%N)
  echo "generate k$s wall_ms $(( (t1 - t0) / 1000000 )) bytes $(stat -c %s $W/k$s.bin64)" >> $S
  cat $W/k$s.bin64 > /dev/null
done
one() { # label input ranks threads
  local label=$1 in=$2 r=$3 t=$4; shift 4
  local cmd=($P/tricount-partition -i $in -o $W/$label.h5 --parts 4 --threads $t "$@")
  [ $r -gt 1 ] && cmd=(mpirun --bind-to none -np $r "${cmd[@]}")
  local t0=$(date +%s%N); "${cmd[@]}" > $W/$label.txt 2>&1; local rc=$?; local t1=$(date +%s%N)
  echo "$label rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $S
  [ $rc -ne 0 ] && tail -3 $W/$label.txt >> $S
  grep "steps\|partitioned\|read\b" $W/$label.txt | sed "s/^/$label: /" | cut -c1-900 >> $OUT/stages.txt
}
same() { cmp -s $W/$1.h5 $W/$2.h5 && echo "$2 same as $1" >> $S || echo "$2 DIFFERENT from $1" >> $S; }
one k24-1x64 $W/k24.bin64 1 64; one k24-1x16 $W/k24.bin64 1 16; one k24-4x16 $W/k24.bin64 4 16; one k24-8x8 $W/k24.bin64 8 8
for f in k24-1x16 k24-4x16 k24-8x8; do same k24-1x64 $f; done; rm -f $W/k24-*.h5
one k26-1x16 $W/k26.bin64 1 16; one k26-4x16 $W/k26.bin64 4 16; same k26-1x16 k26-4x16; rm -f $W/k26-4x16.h5
one k26-8x8 $W/k26.bin64 8 8; same k26-1x16 k26-8x8; rm -f $W/k26-8x8.h5
one k26-1x64 $W/k26.bin64 1 64; same k26-1x16 k26-1x64; rm -f $W/k26-1x64.h5
one k26gen-4x16 kronecker:26 4 16; one k26gen-1x64 kronecker:26 1 64; same k26gen-1x64 k26gen-4x16; rm -f $W/*.h5
# The disk's own rates (8 GiB, direct I/O).
dd if=/dev/zero of=$W/dd bs=1M count=8192 oflag=direct 2>&1 | tail -1 | sed 's/^/disk write: /' >> $S
dd if=$W/dd of=/dev/null bs=1M iflag=direct 2>&1 | tail -1 | sed 's/^/disk read: /' >> $S
rm -f $W/dd
cat $S
