#!/usr/bin/env bash
# CPU benchmark: generate Kronecker graphs, partition, count with the CPU backend, and print
# one table row per graph: |V|, |E|, triangles, partition / load / count / total seconds, TEPS.
#   usage: bench/bench_cpu.sh [SCALE ...]        (default: 16 18 20)
#   env:   BUILD=build  WORK=/tmp/tricount-bench  RANKS=1  PARTS=1  THREADS=0
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}; work=${WORK:-/tmp/tricount-bench}; ranks=${RANKS:-1}; parts=${PARTS:-1}; threads=${THREADS:-0}
. scripts/mpi-env
mkdir -p "$work"
scales=("$@"); [ ${#scales[@]} -gt 0 ] || scales=(16 18 20)
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf "| %-14s | %10s | %12s | %14s | %11s | %7s | %8s | %8s | %10s |\n" graph "|V|" "|E|" triangles partition_s load_s count_s total_s TEPS
printf "|%s|\n" "----------------|------------|--------------|----------------|-------------|---------|----------|----------|------------"
for s in "${scales[@]}"; do
  edges=$work/kron$s.bin64 h5=$work/kron$s.p$parts.h5 json=$work/kron$s.p$parts.r$ranks.json
  [ -f "$edges" ] || "$build/bin/tricount-generate" --kind kronecker --scale "$s" --output "$edges" 2>/dev/null
  t0=$(date +%s.%N)
  "$build/bin/tricount-partition" --input "$edges" --output "$h5" --parts "$parts" --quiet
  part=$(echo "$(date +%s.%N) - $t0" | bc)
  mpirun -np "$ranks" "$build/bin/tricount-count" --input "$h5" --backend cpu --threads "$threads" \
    --workload-splits auto --json "$json" --quiet
  printf "| %-14s | %10s | %12s | %14s | %11.2f | %7.3f | %8.3f | %8.3f | %10.3g |\n" "kronecker $s" \
    "$(field "$json" "d['vertices']")" "$(field "$json" "d['edges']")" "$(field "$json" "d['triangles']")" "$part" \
    "$(field "$json" "d['seconds']['load']")" "$(field "$json" "d['seconds']['count']")" \
    "$(field "$json" "d['seconds']['total']")" "$(field "$json" "d['teps']")"
done
