#!/usr/bin/env bash
# Device call 3 (64 cores): main 155ec3f (base) against part-faults (cursor buffers in one
# populated arena per merge thread, no larger than their ranges), alternating;
# Kronecker 24 at --parts 1 and 4 (runs in memory), Kronecker 26 at --parts 4 (runs on disk).
# Run three times: call3/ (buffers populated with 4 KiB pages, a first version), call5/
# (2c03049: huge pages) and call6/ (the FilePool's shared lookup on top). The binaries were
# build-pack/prof/ (base) and build-pack/prof/new/ (new), stripped, with libboost_program_options.
set -u
P=build-pack/prof; export LD_LIBRARY_PATH=$PWD/$P
W=/tmp/pw; mkdir -p $W/runs
for s in 24 26; do [ -f $W/k$s.bin64 ] || $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
one() { # build label scale parts
  STACK=4 NTOP=4 python3 bench/thread_profile.py $1 -i $W/k$3.bin64 -o $W/o.h5 --parts $4 --memory-budget 16G --tmpdir $W/runs > $OUT/prof-$2-k$3-n$4.txt 2>&1
  bytes=$(stat -c %s $W/o.h5)
  echo "$2 k$3 n$4 $(grep -h '^rc' $OUT/prof-$2-k$3-n$4.txt) bytes $bytes $(grep -o 'partition\] \(clean\|blocks\|write\|read\) .*[0-9.]* s ' $OUT/prof-$2-k$3-n$4.txt | awk '{print $2, $(NF-1)}' | tr '\n' ' ')"
  rm -f $W/o.h5; sync
}
for r in 1 2; do
  one $P/tricount-partition base 24 1; one $P/new/tricount-partition new 24 1
  one $P/tricount-partition base 24 4; one $P/new/tricount-partition new 24 4
done
one $P/tricount-partition base 26 4; one $P/new/tricount-partition new 26 4
