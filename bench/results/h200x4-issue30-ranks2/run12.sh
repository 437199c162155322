#!/usr/bin/env bash
# Device call 12 (64 cores): one add per row and block in blocks.rows, threaded zero fill of the
# offsets, and a wait lap per step (new) against the build before the estimate change (old),
# alternating, Kronecker 26 and 24 at --parts 4 on 4 x 16 and 8 x 8.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
S=$OUT/summary.txt
{ nproc; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; } > $S 2>&1
for s in 24 26; do $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
one() { # label build input ranks threads
  local label=$1 b=$2 in=$3 r=$4 t=$5; shift 5
  local cmd=($b/tricount-partition -i $in -o $W/$label.h5 --parts 4 --threads $t "$@")
  [ $r -gt 1 ] && cmd=(mpirun --bind-to none -np $r "${cmd[@]}")
  local t0=$(date +%s%N); "${cmd[@]}" > $W/$label.txt 2>&1; local rc=$?; local t1=$(date +%s%N)
  echo "$label rc $rc wall_ms $(( (t1 - t0) / 1000000 ))" >> $S
  [ $rc -ne 0 ] && tail -3 $W/$label.txt >> $S
  grep "steps\|partitioned\|estimate\|webgraph" $W/$label.txt | sed "s/^/$label: /" | cut -c1-900 >> $OUT/stages.txt
}
same() { cmp -s $W/$1.h5 $W/$2.h5 && echo "$2 same as $1" >> $S || echo "$2 DIFFERENT from $1" >> $S; }
for rep in 1 2; do
  one k26-4x16-old-$rep $P/old $W/k26.bin64 4 16; one k26-4x16-new-$rep $P $W/k26.bin64 4 16; same k26-4x16-old-$rep k26-4x16-new-$rep; rm -f $W/k26-*.h5
  one k26-8x8-old-$rep $P/old $W/k26.bin64 8 8; one k26-8x8-new-$rep $P $W/k26.bin64 8 8; same k26-8x8-old-$rep k26-8x8-new-$rep; rm -f $W/k26-*.h5
  one k24-4x16-old-$rep $P/old $W/k24.bin64 4 16; one k24-4x16-new-$rep $P $W/k24.bin64 4 16; same k24-4x16-old-$rep k24-4x16-new-$rep; rm -f $W/k24-*.h5
done
cat $S
