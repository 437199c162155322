#!/usr/bin/env bash
# Call 1: disk rate, before (main 7aa9b3a-era build-final) and after, Kronecker 22/24/26, text + GAPBS.
set -u
C=build-pipeline2
export LD_LIBRARY_PATH=$PWD/$C/lib:${LD_LIBRARY_PATH:-}
W=/tmp/bp; mkdir -p $W
L=$OUT/logs; mkdir -p $L
T0=$(date +%s)
{ nproc; uptime; free -g; df -h /tmp; lscpu | grep -E "Model name|^CPU\(s\)"; } > $L/host.txt 2>&1
dd if=/dev/zero of=$W/dd.bin bs=1M count=4096 oflag=direct 2> $L/dd_write.txt
dd if=$W/dd.bin of=/dev/null bs=1M iflag=direct 2> $L/dd_read.txt
rm -f $W/dd.bin
cat $L/dd_*.txt
B=$C/before
run() { local name=$1 limit=$2; shift 2; echo "== $name at $(( $(date +%s) - T0 )) s"; timeout $limit env WORK=$W "$@" bash $C/bench_partition.sh $C/after > $L/$name.txt 2>&1; cat $L/$name.txt; }
run k22 60 SCALES=22 PARTS="1 4" BUDGETS="4G 16G" BEFORE=$B
run k22text 60 SCALES=22 PARTS=1 BUDGETS=16G BEFORE=$B TEXT=1 BIN64=0 GAPBS_CONVERTER=$C/converter-static
ls -la $W/k22.el >> $L/host.txt
run k24 150 SCALES=24 PARTS="1 4" BUDGETS="4G 16G" BEFORE=$B
rm -f $W/k22.el $W/k22.bin64
run k26 280 SCALES=26 PARTS=4 BUDGETS="16G 4G" BEFORE=$B
cp $W/*.log $L/ 2>/dev/null
uptime >> $L/host.txt
tar czf $OUT/run1-logs.tgz -C $OUT logs && rm -rf $L
echo "total $(( $(date +%s) - T0 )) s"
