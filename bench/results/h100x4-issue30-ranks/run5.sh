#!/usr/bin/env bash
# Device call 5 (64 cores): the distributed partitioner's steps on the slowest and fastest rank
# (its own laps), and rank 1's threads sampled (bench/thread_profile.py); Kronecker 24 and 26
# at --parts 4, 4 ranks x 16 threads.
set -u
P=build-pack/dist; export LD_LIBRARY_PATH=$PWD/$P OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=/tmp/dw; mkdir -p $W
for s in 24 26; do $P/tricount-generate --kind kronecker --scale $s -o $W/k$s.bin64 > /dev/null 2>&1; cat $W/k$s.bin64 > /dev/null; done
cat > $W/pw.sh <<'EOS'
#!/bin/bash
if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then DT=0.05 WIN=0.25 NTOP=3 exec python3 build-pack/dist/thread_profile.py "$@" > /tmp/dw/prof1.txt 2>&1; else exec "$@"; fi
EOS
chmod +x $W/pw.sh
for s in 24 26; do
  t0=$(date +%s%N); mpirun --bind-to none -np 4 $P/tricount-partition -i $W/k$s.bin64 -o $W/a.h5 --parts 4 --threads 16 > $W/k$s.txt 2>&1; t1=$(date +%s%N)
  echo "k$s 4x16 wall_ms $(( (t1 - t0) / 1000000 ))" >> $OUT/summary.txt; grep "steps\|partitioned" $W/k$s.txt >> $OUT/summary.txt; rm -f $W/a.h5
done
mpirun --bind-to none -np 4 $W/pw.sh $P/tricount-partition -i $W/k24.bin64 -o $W/b.h5 --parts 4 --threads 16 > $W/k24p.txt 2>&1
cp $W/prof1.txt $OUT/prof-rank1-k24.txt; cp $W/k24p.txt $OUT/k24-profiled.txt
cat $OUT/summary.txt
