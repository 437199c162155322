#!/usr/bin/env bash
# Device call (64 cores): where tricount-partition's stages spend their time (threads busy,
# what the idle ones wait in), Kronecker 24 and 26 at --parts 1 and 4, main 155ec3f.
set -u
P=build-pack/prof; export LD_LIBRARY_PATH=$PWD/$P
{ nproc; free -g | head -2; df -h /tmp | tail -1; which perf; python3 --version; } > $OUT/device.txt 2>&1
W=/tmp/pw; mkdir -p $W/runs
for s in 24 26; do
  /usr/bin/time -f "gen $s %e s" $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > $OUT/gen$s.txt 2>&1
  cat $W/k$s.bin64 > /dev/null
done
for s in 24 26; do for n in 1 4; do
  python3 bench/thread_profile.py $P/tricount-partition -i $W/k$s.bin64 -o $W/k$s-n$n.h5 --parts $n --memory-budget 16G --tmpdir $W/runs > $OUT/prof-k$s-n$n.txt 2>&1
  rm -f $W/k$s-n$n.h5; sync
done; done
grep -h "wall\|\] \[partition\]" $OUT/prof-*.txt | head -80
