#!/usr/bin/env bash
# CPU workers sharing one node (issue 21, "load once per node"): for each Kronecker scale,
# generate and partition the graph once, then count it with W CPU workers (mpirun -np W+1,
# --threads CORES/W each, so that W x threads <= CORES) with two builds of tricount-count,
# BEFORE (every worker checks every block it uses) and AFTER (each block checked once per
# node), alternating, and print one table per scale: total and schedule seconds, speedup and
# core efficiency against W = 1 of the same build, and per worker load / check seconds and
# bytes checked / loaded (means over the workers, from the JSON's per_rank entries).
#   usage: bench/bench_node_load.sh SCALE:W,W,... [SCALE:W,...]   e.g. 22:1,2,4,8,15 24:15,1
#   env:   AFTER=<dir with tricount-count>  BEFORE=<dir with tricount-count> (left out: AFTER only)
#          TOOLS=<dir with tricount-generate, tricount-partition> (default AFTER)
#          CORES=16  PARTS=8  WORK=/tmp/tricount-node-load  OUT=<dir for logs and JSON>
#          STOP_AFTER_S=<start no run after this many seconds of the script> (default: none)
set -euo pipefail
cd "$(dirname "$0")/.."
after=${AFTER:?AFTER=<dir with tricount-count>}; before=${BEFORE:-}; tools=${TOOLS:-$after}
cores=${CORES:-16}; parts=${PARTS:-8}; work=${WORK:-/tmp/tricount-node-load}; out=${OUT:-$work}
stop_after=${STOP_AFTER_S:-0}
. scripts/mpi-env
mkdir -p "$work" "$out"
start=$(date +%s)
variants=(after); [ -n "$before" ] && variants=(before after)
summary=$out/node_load_runs.txt; : >"$summary"
for spec in "$@"; do
  scale=${spec%%:*}; workers=${spec#*:}; workers=${workers//,/ }
  edges=$work/kron$scale.bin64 h5=$work/kron$scale.p$parts.h5
  [ -f "$edges" ] || "$tools/tricount-generate" --kind kronecker --scale "$scale" --output "$edges"
  [ -f "$h5" ] || "$tools/tricount-partition" --input "$edges" --output "$h5" --parts "$parts" -q
  cat "$h5" >/dev/null  # in the page cache: load seconds are checks, not the disk
  for w in $workers; do
    threads=$((cores / w))
    for v in "${variants[@]}"; do
      if [ "$stop_after" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$stop_after" ]; then
        echo "skipped scale $scale W=$w $v: past STOP_AFTER_S=$stop_after" | tee -a "$summary"; continue
      fi
      dir=$after; [ "$v" = before ] && dir=$before
      json=$out/node_load_s${scale}_w${w}_$v.json
      echo "+ mpirun -np $((w + 1)) $dir/tricount-count --input $h5 --backend cpu --threads $threads --workload-splits auto --json $json -q"
      mpirun -np $((w + 1)) "$dir/tricount-count" --input "$h5" --backend cpu --threads "$threads" \
        --workload-splits auto --json "$json" -q
      python3 - "$json" "$scale" "$w" "$threads" "$v" >>"$summary" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ws = [r for r in d["per_rank"] if r["role"] != "scheduler"]
mean = lambda k: sum(r.get(k, 0) for r in ws) / len(ws)
print(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], d["tasks"], d["seconds"]["total"], d["seconds"]["schedule"],
      mean("load_seconds"), max(r["load_seconds"] for r in ws), mean("check_seconds") if "check_seconds" in ws[0] else -1,
      mean("bytes_checked") / 1e9 if "bytes_checked" in ws[0] else -1, mean("bytes_loaded") / 1e9, d["triangles"])
EOF
    done
  done
done
echo "== $(nproc) cores, parts $parts; speedup and efficiency from schedule seconds (counting phase); core efficiency = (T1 x cores1) / (TW x W x threads) =="
python3 - "$summary" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("skipped")]
# W = 1 of the same scale and build: its schedule seconds and the cores it used.
base = {(r[0], r[3]): (float(r[6]), int(r[1]) * int(r[2])) for r in rows if r[1] == "1"}
print("| scale | build | W | threads | tasks | total s | schedule s | speedup | core efficiency | load s/worker (mean) | load s (max) | check s/worker | GB checked/worker | GB loaded/worker | triangles |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
fmt = lambda x: "n/a" if float(x) < 0 else f"{float(x):.3f}"
for s, w, t, v, tasks, total, sched, load, lmax, check, gbc, gbl, tri in rows:
    speed = eff = ""
    if (s, v) in base:
        t1, c1 = base[(s, v)]
        speed = f"{t1 / float(sched):.2f}"
        eff = f"{100 * t1 * c1 / (float(sched) * int(w) * int(t)):.0f}%"
    print(f"| {s} | {v} | {w} | {t} | {tasks} | {float(total):.3f} | {float(sched):.3f} | {speed} | {eff} | {float(load):.3f} | {float(lmax):.3f} | {fmt(check)} | {fmt(gbc)} | {float(gbl):.3f} | {tri} |")
EOF
