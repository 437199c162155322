#!/usr/bin/env bash
# A strong-scaling study on one GPU host without Slurm (the lent multi-GPU machines): the
# same results folder as slurm/study.sbatch, made with mpirun instead of srun, so that
# `python3 slurm/report.py DIR` makes the same table and plots.
#
#   usage: bench/study_host.sh GRAPH.h5 DIR [GPU counts, default: 1 2 4]
#   env:   BUILD=build  REPEATS=3  PREDICT_TO=1024  COUNT_ARGS="--backend cuda --workload-splits auto"
#
# What it runs: a journal run at each of the two smallest GPU counts (warm-ups, not
# measurements) and tricount-simulate on each journal, then REPEATS rounds over the GPU
# counts. Each count is one scheduler rank plus one worker rank per GPU, unbound
# (scripts/mpi-env). Results:
#   DIR/study.json, DIR/runs/wNNNN-rRR.json (+ .log)    as study.sbatch writes them
#   DIR/journal/ and DIR/prediction.json                from the smallest count's journal
#   DIR/journal2/ and DIR/prediction2.json              from the second smallest count's
#   DIR/check.md   each prediction (PREDICTED) next to the measured median, per GPU count
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
graph=${1:?usage: bench/study_host.sh GRAPH.h5 DIR [GPUS...]}
results=${2:?usage: bench/study_host.sh GRAPH.h5 DIR [GPUS...]}
shift 2
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1 2 4)
build=${BUILD:-$here/build}; repeats=${REPEATS:-3}; predict_to=${PREDICT_TO:-1024}
read -r -a count_args <<< "${COUNT_ARGS:---backend cuda --workload-splits auto}"
. "$here/scripts/mpi-env"
[ -f "$graph" ] || { echo "study_host: no graph file '$graph'" >&2; exit 2; }
mkdir -p "$results/runs" "$results/journal" "$results/journal2"
# shellcheck source=slurm/lib.sh
. "$here/slurm/lib.sh"  # json_str, json_list, json_strs (sourcing it starts nothing)
count() {  # W JSON [more options]
  local w=$1 json=$2
  shift 2
  mpirun -np $((w + 1)) "$build/bin/tricount-count" --input "$graph" --json "$json" "$@" "${count_args[@]}"
}
predicted=()
for ((p = 1; p <= predict_to; p *= 2)); do predicted+=("$p"); done
all=$(printf '%s\n' "${sizes[@]}" "${predicted[@]}" | sort -n -u | paste -sd,)
started=$(date -u +%FT%TZ)
write_study() {  # STATUS
  cat > "$results/study.json" <<EOF
{
  "study": "tricount strong scaling (one host, mpirun)",
  "status": $(json_str "$1"),
  "job_id": "none (bench/study_host.sh)",
  "cluster": $(json_str "$(hostname)"),
  "nodes": $(json_strs "$(hostname)"),
  "gpus_per_node": $(nvidia-smi -L 2>/dev/null | wc -l),
  "device": $(json_str "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"),
  "input": $(json_str "$graph"),
  "sizes": $(json_list "${sizes[@]}"),
  "repeats": $repeats,
  "predicted_sizes": $(json_list "${predicted[@]}"),
  "count_args": $(json_strs "${count_args[@]}"),
  "programs": $(json_str "$build/bin"),
  "started": $(json_str "$started"),
  "finished": $(json_str "$(date -u +%FT%TZ)")
}
EOF
}
write_study running
for pair in "0 journal prediction" "1 journal2 prediction2"; do
  set -- $pair
  [ "$1" -lt ${#sizes[@]} ] || continue
  w=${sizes[$1]}
  echo "journal run at $w GPU(s)"
  count "$w" "$results/$2/run.json" --journal "$results/$2/journal.txt" > "$results/$2/run.log" 2>&1 ||
    { echo "study_host: the journal run failed:" >&2; head -n 5 "$results/$2/run.log" >&2; exit 1; }
  "$build/bin/tricount-simulate" --journal "$results/$2/journal.txt" --input "$graph" --workers "$all" \
    --json "$results/$3.json" > "$results/$2/prediction.txt"
done
for ((r = 1; r <= repeats; ++r)); do
  for w in "${sizes[@]}"; do
    name=$(printf 'w%04d-r%02d' "$w" "$r")
    count "$w" "$results/runs/$name.json" > "$results/runs/$name.log" 2>&1 ||
      { echo "study_host: run $name failed:" >&2; head -n 5 "$results/runs/$name.log" >&2; exit 1; }
    echo "$name: $(tail -n 1 "$results/runs/$name.log")"
  done
done
write_study complete
python3 - "$results" <<'PY' | tee "$results/check.md"
import glob, json, os, statistics, sys
d = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(d, "runs", "*.json")):
    j = json.load(open(f))
    runs.setdefault(j["workers"], []).append(j)
counts = {t for v in runs.values() for t in (j["triangles"] for j in v)}
print(f"triangles in every run: {sorted(counts)}")
print("| GPUs | measured schedule s (median) | imbalance (max) | predicted from 1st journal | error | predicted from 2nd journal | error |")
print("|---|---|---|---|---|---|---|")
preds = []
for name in ("prediction.json", "prediction2.json"):
    p = os.path.join(d, name)
    preds.append({r["workers"]: r["predicted_seconds"] for r in json.load(open(p))["points"]} if os.path.exists(p) else {})
for w in sorted(runs):
    m = statistics.median(j["seconds"]["schedule"] for j in runs[w])
    cells = [f"{w}", f"{m:.3f}", f"{max(j['imbalance'] for j in runs[w]):.3f}"]
    for p in preds:
        cells += [f"{p[w]:.3f}", f"{100 * (p[w] - m) / m:+.1f}%"] if w in p else ["-", "-"]
    print("| " + " | ".join(cells) + " |")
PY
