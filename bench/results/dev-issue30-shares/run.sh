#!/usr/bin/env bash
# Issue 30, session 8, dev VM (2 cores): base and new tricount-partition alternating, 2 ranks of
# 1 thread: Kronecker 22 bin64 --parts 4 (arrays reused across steps) and Kronecker 20 text
# --parts 1 (byte ranges per rank). Usage: run.sh BASE_BINARY NEW_BINARY WORKDIR REPEATS
set -u
BASE=$1 NEW=$2 W=$3 REPEATS=${4:-3}
G=$(dirname "$NEW")/tricount-generate
mkdir -p "$W"
[ -f "$W/k22.bin64" ] || "$G" --kind kronecker --scale 22 -o "$W/k22.bin64" > /dev/null
[ -f "$W/k20.txt" ] || "$G" --kind kronecker --scale 20 -o "$W/k20.txt" > /dev/null
for rep in $(seq "$REPEATS"); do
  for v in base new; do
    P=$BASE; [ $v = new ] && P=$NEW
    for g in k22.bin64:4 k20.txt:1; do
      f=${g%%:*} n=${g##*:}
      /usr/bin/time -o "$W/time.txt" -f "wall %e user %U sys %S maxrss_kb %M minflt %R" \
        mpirun --bind-to none -np 2 "$P" -i "$W/$f" -o "$W/$v-$f.h5" --parts "$n" --threads 1 > "$W/log.txt" 2>&1
      echo "$v $f $(cat "$W/time.txt") $(grep -oE 'read [0-9.]+/[0-9.]+' "$W/log.txt")"
    done
  done
done
for f in k22.bin64 k20.txt; do cmp -s "$W/base-$f.h5" "$W/new-$f.h5" && echo "$f: same bytes" || echo "$f: DIFFERENT"; done
