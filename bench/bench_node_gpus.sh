#!/usr/bin/env bash
# One node, several GPUs (issue 27): the whole run as a user times it, side by side for two
# builds, with the launcher's own floor measured in the same run.
#
#   usage: bench/bench_node_gpus.sh GRAPH.h5 [GPU counts, default: 1 2 4]
#   env:   BUILDS="base:build-base new:build"  REPEATS=3  OUT=<dir>  COUNT_ARGS="--backend cuda"
#          VARIANTS="name:args|name:args" (default: one, no extra args): each build runs each
#          variant, named BUILD-NAME, e.g. issue 29's two virtual nodes against one node:
#          VARIANTS="file:--schedule static --load-path file|fwd2x2:--schedule static --ranks-per-node 3 --load-path forward"
#          (at 4 GPUs, -np 5: ranks 0-2 and 3-4 are the two nodes, each with two workers)
#
# For each repeat, each GPU count and each build in turn (alternating, so that drift hits
# both alike): `mpirun -np G+1 tricount-count GRAPH --json` with the process wall clock
# (mpirun start to exit) beside the report's total, setup, load, transfer, count and
# count phase; then `mpirun -np G+1 true`, the launcher's floor. Prints one markdown table
# of medians; the reports stay in OUT.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
graph=${1:?usage: bench/bench_node_gpus.sh GRAPH.h5 [GPUS...]}
shift
gpus=("$@"); [ ${#gpus[@]} -gt 0 ] || gpus=(1 2 4)
read -r -a builds <<< "${BUILDS:-base:build-base new:build}"
repeats=${REPEATS:-3}; out=${OUT:-/tmp/bench-node-gpus}
read -r -a count_args <<< "${COUNT_ARGS:---backend cuda}"
IFS='|' read -r -a variants <<< "${VARIANTS:-}"
[ ${#variants[@]} -gt 0 ] || variants=(":")
runs=()  # BUILD[-VARIANT]:dir:variant index
for b in "${builds[@]}"; do
  for v in "${!variants[@]}"; do
    vname=${variants[$v]%%:*}
    runs+=("${b%%:*}${vname:+-$vname}:${b#*:}:$v")
  done
done
. "$here/scripts/mpi-env"
mkdir -p "$out"
now() { date +%s.%N; }
for ((r = 1; r <= repeats; ++r)); do
  for g in "${gpus[@]}"; do
    for b in "${runs[@]}"; do
      name=${b%%:*} rest=${b#*:}; dir=${rest%:*} v=${rest##*:}
      read -r -a extra <<< "${variants[$v]#*:}"
      json=$out/$name-g$g-r$r.json
      t0=$(now)
      mpirun -np $((g + 1)) "$dir/bin/tricount-count" "$graph" --json "$json" -q "${count_args[@]}" ${extra[@]+"${extra[@]}"} > "$out/$name-g$g-r$r.log" 2>&1 ||
        { echo "bench_node_gpus: $name at $g GPUs failed:"; tail -5 "$out/$name-g$g-r$r.log"; exit 1; }
      t1=$(now)
      echo "$t0 $t1" > "$out/$name-g$g-r$r.wall"
    done
    t0=$(now); mpirun -np $((g + 1)) true; t1=$(now)
    echo "$t0 $t1" > "$out/floor-g$g-r$r.wall"
  done
done
python3 - "$out" "$repeats" "${gpus[*]}" "${runs[*]}" <<'EOF'
import json, statistics, sys
out, repeats, gpus, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), [b.split(':')[0] for b in sys.argv[4].split()]
def wall(name):
    a, b = open(f"{out}/{name}.wall").read().split()
    return float(b) - float(a)
med = lambda xs: statistics.median(xs)
print("| build | GPUs | process wall s | launcher floor s | wall − floor − total s | total s | setup s | load s | transfer s | upload GB/s | count s | count phase s | triangles | load phase s | read from file GB | received over MPI GB | nodes |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for g in gpus:
    floor = med([wall(f"floor-g{g}-r{r}") for r in range(1, repeats + 1)])
    for b in builds:
        reps = [json.load(open(f"{out}/{b}-g{g}-r{r}.json")) for r in range(1, repeats + 1)]
        walls = [wall(f"{b}-g{g}-r{r}") for r in range(1, repeats + 1)]
        s = lambda k: med([d["seconds"][k] for d in reps])
        gbps = med([max(p.get("bytes_transferred", 0) / p["transfer_seconds"] / 1e9 if p.get("transfer_seconds") else 0 for p in d["per_rank"]) for d in reps]) if "bytes_transferred" in reps[0]["per_rank"][0] else float("nan")
        print(f"| {b} | {g} | {med(walls):.2f} | {floor:.2f} | {med(walls) - floor - s('total'):.2f} | {s('total'):.3f} | {s('setup'):.3f} | {s('load'):.3f} | {s('transfer'):.3f} | {gbps:.1f} | {s('count'):.3f} | {s('count_phase'):.3f} | {reps[0]['triangles']} | {med([d['seconds'].get('load_phase') or 0 for d in reps]):.3f} | {med([sum(p.get('bytes_loaded', 0) for p in d['per_rank']) for d in reps]) / 1e9:.2f} | {med([sum(p.get('bytes_received', 0) for p in d['per_rank']) for d in reps]) / 1e9:.2f} | {reps[0].get('nodes', 1)} |")
EOF
