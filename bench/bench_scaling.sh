#!/usr/bin/env bash
# Strong scaling on one host: generate a Kronecker graph, partition it with n = 4 and 8,
# count with 1 and 2 GPU workers (plus the scheduler rank), journal every run, and replay the
# 1-GPU journals through the simulator up to 1024 workers.
#   usage: bench/bench_scaling.sh SCALE [GPUS...]     (default GPUS: 1 2)
#   env:   BUILD=build  WORK=/tmp/tricount-scaling  PARTS="4 8"  OUT=<dir for logs>  REPEATS=1
#          PARTITION_ARGS="..." (extra tricount-partition options, e.g. --memory-budget 200G)
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-24}; shift || true
gpus=("$@"); [ ${#gpus[@]} -gt 0 ] || gpus=(1 2)
build=${BUILD:-build}; work=${WORK:-/tmp/tricount-scaling}; parts_list=${PARTS:-"4 8"}; out=${OUT:-$work}
repeats=${REPEATS:-1}; partition_args=${PARTITION_ARGS:-}
. scripts/mpi-env
mkdir -p "$work" "$out"
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
edges=$work/kron$scale.bin64
[ -f "$edges" ] || "$build/bin/tricount-generate" --kind kronecker --scale "$scale" --output "$edges"
nvidia-smi -L 2>/dev/null || true
rows=()
for parts in $parts_list; do
  h5=$work/kron$scale.p$parts.h5
  if [ ! -f "$h5" ]; then
    t0=$(date +%s.%N)
    "$build/bin/tricount-partition" --input "$edges" --output "$h5" --parts "$parts" $partition_args
    echo "partition scale $scale n=$parts: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  fi
  for g in "${gpus[@]}"; do
    for rep in $(seq 1 "$repeats"); do
      json=$out/scaling_s${scale}_n${parts}_g${g}_r${rep}.json journal=$work/s${scale}_n${parts}_g${g}.journal
      rm -f "$journal"
      mpirun -np $((g + 1)) "$build/bin/tricount-count" --input "$h5" --backend cuda --workload-splits auto \
        --journal "$journal" --json "$json"
      rows+=("$parts $g $(field "$json" "d['seconds']['schedule']") $(field "$json" "d['imbalance']") $(field "$json" "d['triangles']") $(field "$json" "d['tasks']") $(field "$json" "d['seconds']['count']") $(field "$json" "d['seconds']['load']")")
      cp "$journal" "$out/" 2>/dev/null || true
    done
  done
  echo "== simulator, n=$parts, from the 1-GPU run =="
  "$build/bin/tricount-simulate" --journal "$work/s${scale}_n${parts}_g${gpus[0]}.journal" --max-workers 1024 \
    --json "$out/simulate_s${scale}_n${parts}.json" | tee "$out/simulate_s${scale}_n${parts}.txt"
done
echo "== measured: Kronecker scale $scale =="
printf "| n | GPUs | tasks | schedule_s | speedup | imbalance | max count_s | max load_s | triangles |\n|---|---|---|---|---|---|---|---|---|\n"
declare -A base
for r in "${rows[@]}"; do
  set -- $r
  [ -n "${base[$1]:-}" ] || base[$1]=$3
  printf "| %s | %s | %s | %.3f | %.2f | %.3f | %.3f | %.3f | %s |\n" "$1" "$2" "$6" "$3" "$(awk -v a="${base[$1]}" -v b="$3" 'BEGIN {print a / b}')" "$4" "$7" "$8" "$5"
done
