#!/usr/bin/env bash
# Device call 17 (64 cores): issue 30's partitioner on every core, main 2f0bfa1 (before)
# against part-par da7fa19 (after), Kronecker 24 and 26 (bench_partition_threads.sh).
set -u
mkdir -p /tmp/pp && tar xzf build-pack/part17.tgz -C /tmp/pp
{ nproc; free -g | head -2; df -h /tmp | tail -1; } > $OUT/device.txt
BEFORE=/tmp/pp/build-base AFTER=/tmp/pp/build-new WORK=/tmp/bpt RUN_TIMEOUT=150 timeout 560 bash build-pack/bench_partition_threads.sh > $OUT/partition_threads.txt 2>&1
cp -r /tmp/bpt/logs $OUT/ 2>/dev/null
tail -60 $OUT/partition_threads.txt
