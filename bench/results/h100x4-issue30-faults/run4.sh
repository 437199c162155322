#!/usr/bin/env bash
# Device call 4 (64 cores): the write stage's writer timing. base = main 155ec3f; a = b5be9eb
# (page-fault work + the writer's timing in the write line); b = a + writeback started on a
# thread of its own. Kronecker 24 at --parts 1 and 4 (runs in memory), Kronecker 26 at
# --parts 4 (runs on disk), alternating.
set -u
P=build-pack/prof; export LD_LIBRARY_PATH=$PWD/$P
W=/tmp/pw; mkdir -p $W/runs
for s in 24 26; do [ -f $W/k$s.bin64 ] || $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
one() { # binary label scale parts repeat
  f=$OUT/prof-$2-k$3-n$4-r$5.txt
  STACK=4 NTOP=4 python3 bench/thread_profile.py $1 -i $W/k$3.bin64 -o $W/o.h5 --parts $4 --memory-budget 16G --tmpdir $W/runs > $f 2>&1
  echo "$2 k$3 n$4 $(grep -h '^rc' $f) $(grep -o 'partition\] \(clean\|blocks\|write\|read\|commit\) .*[0-9.]* s ' $f | awk '{print $2, $(NF-1)}' | tr '\n' ' ')"
  grep -o "writer thread busy.*waited [0-9.]* s" $f
  rm -f $W/o.h5; sync
}
for r in 1 2; do for n in 1 4; do
  [ $r = 1 ] && one $P/tricount-partition base 24 $n $r
  one $P/a/tricount-partition a 24 $n $r; one $P/b/tricount-partition b 24 $n $r
done; done
one $P/a/tricount-partition a 26 4 1; one $P/b/tricount-partition b 26 4 1
