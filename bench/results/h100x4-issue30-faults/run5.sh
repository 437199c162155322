#!/usr/bin/env bash
# Device call 5 (64 cores): main 155ec3f (base) against part-faults bf95d7a (new: merge buffers
# in populated arenas, shared descriptor lookup, writeback on its own thread, a write-stage
# thread per 64 Ki edges), alternating; Kronecker 24 at --parts 1 and 4 (runs in memory), two
# repeats, and Kronecker 26 at --parts 4 (runs on disk), one.
set -u
P=build-pack/prof; export LD_LIBRARY_PATH=$PWD/$P
W=/tmp/pw; mkdir -p $W/runs
for s in 24 26; do [ -f $W/k$s.bin64 ] || $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
one() { # binary label scale parts repeat
  f=$OUT/$2-k$3-n$4-r$5.txt
  STACK=0 NTOP=3 python3 bench/thread_profile.py $1 -i $W/k$3.bin64 -o $W/o.h5 --parts $4 --memory-budget 16G --tmpdir $W/runs > $f 2>&1
  python3 - "$f" "$2 k$3 n$4 r$5" <<'PY'
import re, sys
out = [sys.argv[2]]
for l in open(sys.argv[1]):
    if l.startswith("rc "): out.append("wall " + l.split()[3])
    m = re.search(r"\[partition\] (read|clean|blocks|write|commit)\s+\S+ (?:[kMG] )?\S+\s+([\d.]+) s", l)
    if m: out.append(f"{m.group(1)} {m.group(2)}")
    m = re.search(r"writer thread busy.*writeback calls [\d.]+ s", l)
    if m: out.append("| " + m.group(0))
print(" ".join(out))
PY
  rm -f $W/o.h5; sync
}
for r in 1 2; do for n in 1 4; do
  one $P/tricount-partition base 24 $n $r; one $P/new/tricount-partition new 24 $n $r
done; done
one $P/tricount-partition base 26 4 1; one $P/new/tricount-partition new 26 4 1
