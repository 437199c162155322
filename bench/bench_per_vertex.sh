#!/usr/bin/env bash
# Per-vertex output at disk speed (issue 31.2): the plain count against --per-vertex .tsv and
# .h5 on a Kronecker graph, end to end, at each worker count; the table's MB and the writer's
# MB/s (seconds.per_vertex_write: formatting, writing and fsync, overlapping the reduction).
# OUTPUT=per-edge measures --per-edge the same way (seconds.per_edge, per_edge_write, per_edge_bytes).
#   usage: bench/bench_per_vertex.sh SCALE [RANKS...]   (default RANKS: 2 5 = 1 and 4 workers beside
#          the scheduler rank; 1 = a single rank that schedules and counts)
#   env:   BUILD=build  BACKEND=cuda  WORK=/tmp/tricount-pv (graph, block files)
#          TABLES=$WORK (where the tables go: the disk measured)  PARTS=4  REPS=3
#          THREADS="" (--threads for the CPU backend)  OUTPUT=per-vertex (or per-edge)
# Prints one line per run and a table of medians: total s, step s, write s, MB, MB/s,
# and total / plain total (target: <= 1.5 at Kronecker 24, 1 and 4 GPUs); then the medians of
# rank 0's parts of the step (seconds.per_vertex_steps or per_edge_steps).
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-24}; shift || true
rank_list=("$@"); [ ${#rank_list[@]} -gt 0 ] || rank_list=(2 5)
build=${BUILD:-build}; backend=${BACKEND:-cuda}; work=${WORK:-/tmp/tricount-pv}; tables=${TABLES:-$work}
parts=${PARTS:-4}; reps=${REPS:-3}; threads=${THREADS:-}
output=${OUTPUT:-per-vertex}; key=${output//-/_}; tag=$( [ "$output" = per-edge ] && echo pe || echo pv )
case "$output" in per-vertex|per-edge) ;; *) echo "OUTPUT must be per-vertex or per-edge, not '$output'" >&2; exit 2;; esac
. scripts/mpi-env
mkdir -p "$work" "$tables"
edges=$work/kron$scale.bin64 h5=$work/kron$scale.p$parts.h5
[ -f "$edges" ] || "$build/bin/tricount-generate" --kind kronecker --scale "$scale" --output "$edges"
[ -f "$h5" ] || "$build/bin/tricount-partition" --input "$edges" --output "$h5" --parts "$parts" --quiet
extra=(--backend "$backend"); [ -n "$threads" ] && extra+=(--threads "$threads")
nvidia-smi -L 2>/dev/null || true
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), host $(hostname), tables on: $(df -h "$tables" | tail -1)"
results=$work/bench_$key.jsonl
: > "$results"
for ranks in "${rank_list[@]}"; do
  for rep in $(seq 1 "$reps"); do
    for mode in plain tsv h5; do
      json=$work/${tag}_np${ranks}_${mode}_r$rep.json args=()
      [ "$mode" = plain ] || { table=$tables/k$scale.$tag.$mode; rm -f "$table"; args=(--$output "$table"); }
      mpirun -np "$ranks" "$build/bin/tricount-count" --input "$h5" "${extra[@]}" "${args[@]}" --json "$json" --quiet
      python3 - "$json" "$ranks" "$mode" "$key" >> "$results" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); s = d["seconds"]; k = sys.argv[4]
print(json.dumps({"ranks": int(sys.argv[2]), "mode": sys.argv[3], "total": s["total"], "count": s["count"],
                  "step": s.get(k), "write": s.get(k + "_write"), "bytes": d.get(k + "_bytes"),
                  "steps": s.get(k + "_steps")}))
EOF
      tail -1 "$results"
      [ "$mode" = plain ] || rm -f "$table"
    done
  done
done
python3 - "$results" "$key" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = lambda xs: statistics.median(xs) if xs else float("nan")
print(f"| ranks | output | total s | {sys.argv[2]} s | write s | MB | MB/s | total / plain |")
print("|---|---|---|---|---|---|---|---|")
for w in sorted({r["ranks"] for r in runs}):
    plain = med([r["total"] for r in runs if r["ranks"] == w and r["mode"] == "plain"])
    for mode in ("plain", "tsv", "h5"):
        rs = [r for r in runs if r["ranks"] == w and r["mode"] == mode]
        if not rs: continue
        total = med([r["total"] for r in rs])
        if mode == "plain":
            print(f"| {w} | none | {total:.3f} | | | | | 1.00 |"); continue
        pv, wr = med([r["step"] for r in rs]), med([r["write"] for r in rs])
        mb = rs[0]["bytes"] / 1e6
        print(f"| {w} | .{mode} | {total:.3f} | {pv:.3f} | {wr:.3f} | {mb:.1f} | {mb / wr:.0f} | {total / plain:.2f} |")
steps = [r for r in runs if r.get("steps")]
if steps:
    names = list(steps[0]["steps"])
    print()
    print("| ranks | output | " + " | ".join(f"{n} s" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for w in sorted({r["ranks"] for r in steps}):
        for mode in ("tsv", "h5"):
            rs = [r for r in steps if r["ranks"] == w and r["mode"] == mode]
            if rs:
                print(f"| {w} | .{mode} | " + " | ".join(f"{med([r['steps'][n] for r in rs]):.3f}" for n in names) + " |")
EOF
