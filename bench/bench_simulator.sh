#!/usr/bin/env bash
# The simulator against a measured run (what the Runtime test checked within 15% until the
# tests stopped timing things): Kronecker SCALE partitioned into PARTS, counted by
# tricount-count with W CPU workers of one thread (mpirun -np W+1, --workload-splits SPLITS,
# journalled), REPEAT times; each journal replayed by tricount-simulate at 1..W workers. Prints
# per run the measured schedule seconds (the counting phase), the prediction for W workers
# and their ratio, and whether it lies within TOLERANCE.
#   usage: bench/bench_simulator.sh [BUILD_DIR]          (default build)
#   env:   SCALE=17 PARTS=2 SPLITS=4 WORKERS=2 REPEAT=3 TOLERANCE=0.15
#          WORK=/tmp/tricount-bench-simulator (kept: delete it to regenerate)
# Defaults: tasks of tens of milliseconds on a 2-core machine, enough of them that
# scheduling, not one task, decides.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/bin
scale=${SCALE:-17}; parts=${PARTS:-2}; splits=${SPLITS:-4}; workers=${WORKERS:-2}; repeat=${REPEAT:-3}
tolerance=${TOLERANCE:-0.15}; work=${WORK:-/tmp/tricount-bench-simulator}
. scripts/mpi-env
mkdir -p "$work"
edges=$work/k$scale.bin64 h5=$work/k${scale}p$parts.h5
[ -s "$edges" ] || "$bin/tricount-generate" --kind kronecker --scale "$scale" --output "$edges"
[ -s "$h5" ] || "$bin/tricount-partition" --input "$edges" --output "$h5" --parts "$parts" -q
echo "| run | tasks | measured schedule s | predicted s ($workers workers) | predicted / measured | within $tolerance |"
echo "|---|---|---|---|---|---|"
for r in $(seq 1 "$repeat"); do
  journal=$work/run$r.journal report=$work/run$r.json sim=$work/run$r.sim.json
  rm -f "$journal"
  mpirun -np $((workers + 1)) "$bin/tricount-count" --input "$h5" --backend cpu --threads 1 \
    --workload-splits "$splits" --journal "$journal" --json "$report" -q
  "$bin/tricount-simulate" --journal "$journal" --workers "$(seq -s, 1 "$workers")" --json "$sim" >/dev/null
  python3 - "$r" "$report" "$sim" "$workers" "$tolerance" <<'PY'
import json, sys
run, report, sim, workers, tolerance = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), int(sys.argv[4]), float(sys.argv[5])
measured = report["seconds"]["schedule"]
predicted = next(p["predicted_seconds"] for p in sim["points"] if p["workers"] == workers)
ratio = predicted / measured
print(f"| {run} | {report['tasks']} | {measured:.3f} | {predicted:.3f} | {ratio:.3f} | {'yes' if abs(ratio - 1) <= tolerance else 'NO'} |")
PY
done
