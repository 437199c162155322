#!/usr/bin/env bash
# Call 2: after (tournament-tree merge, 512 KiB cursors) on Kronecker 22/24/26; before rows are call 1's.
set -u
C=build-pipeline2
export LD_LIBRARY_PATH=$PWD/$C/lib:${LD_LIBRARY_PATH:-}
W=/tmp/bp; mkdir -p $W
L=$OUT/logs; mkdir -p $L
T0=$(date +%s)
{ nproc; uptime; } > $L/host.txt 2>&1
run() { local name=$1 limit=$2; shift 2; echo "== $name at $(( $(date +%s) - T0 )) s"; timeout $limit env WORK=$W "$@" bash $C/bench_partition.sh $C/after > $L/$name.txt 2>&1; cat $L/$name.txt; }
run k22 40 SCALES=22 PARTS="1 4" BUDGETS="4G 16G"
run k24 80 SCALES=24 PARTS="1 4" BUDGETS="4G 16G"
rm -f $W/k22.bin64 $W/k24.bin64
run k26 120 SCALES=26 PARTS=4 BUDGETS="16G 4G"
cp $W/*.log $L/ 2>/dev/null
uptime >> $L/host.txt
tar czf $OUT/run2-logs.tgz -C $OUT logs && rm -rf $L
echo "total $(( $(date +%s) - T0 )) s"
