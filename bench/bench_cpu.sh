#!/usr/bin/env bash
# CPU benchmark: per graph, partition once, then count with the CPU backend at each thread
# count and print one row: |V|, |E|, triangles, threads, median count seconds and TEPS, and,
# when GAPBS_TC names a GAPBS tc binary, GAPBS's "Average Time" on the same edges at the same
# thread count and the ratio tricount / GAPBS (below 1: tricount is faster).
#   usage: bench/bench_cpu.sh [GRAPH ...]   (default: kron:16 kron:18 kron:20)
#     GRAPH: kron:SCALE | uniform:SCALE | grid:SIDE | SCALE (= kron:SCALE) | an edge file (SNAP text, .gz too)
#   env:   BUILD=build  WORK=/tmp/tricount-bench  RANKS=1  PARTS=1  THREADS="1 2 0" (0 = all cores)
#          REPEAT=3 (tricount runs per row, median; GAPBS trials, its average)  GAPBS_TC=path/to/tc
#          GAPBS_CONVERTER=path/to/converter: GAPBS reads a .sg it wrote once (reading text is slow)
# GAPBS is public (github.com/sbeamer/gapbs): build it yourself outside this repository.
# TEPS = |E| / count seconds, |E| the undirected edges after cleaning (tricount's JSON "edges").
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}; work=${WORK:-/tmp/tricount-bench}; ranks=${RANKS:-1}; parts=${PARTS:-1}
threads_list=${THREADS:-"1 2 0"}; repeat=${REPEAT:-3}; gapbs=${GAPBS_TC:-}; converter=${GAPBS_CONVERTER:-}
. scripts/mpi-env
mkdir -p "$work"
graphs=("$@"); [ ${#graphs[@]} -gt 0 ] || graphs=(kron:16 kron:18 kron:20)
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cores=$(nproc)
echo "machine: $cores cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "| %-22s | %10s | %12s | %14s | %11s | %7s | %9s | %10s | %9s | %10s | %5s |\n" graph "|V|" "|E|" triangles partition_s threads count_s TEPS gapbs_s "gapbs TEPS" ratio
printf "|%s|\n" "------------------------|------------|--------------|----------------|-------------|---------|-----------|------------|-----------|------------|-------"
for g in "${graphs[@]}"; do
  # 1. The edge file, as text so that GAPBS reads the same edges (.el: "u v" lines, no comments).
  case "$g" in
    kron:*|uniform:*|[0-9]*)
      kind=${g%%:*}; arg=${g#*:}; [ "$kind" != "$g" ] || { kind=kron; arg=$g; }
      [ "$kind" = kron ] && kind=kronecker
      name=$kind$arg; edges=$work/$name.el
      [ -f "$edges" ] || "$build/bin/tricount-generate" --kind "$kind" --scale "$arg" --output "$edges" >/dev/null 2>&1 ;;
    grid:*)
      name=grid${g#grid:}; edges=$work/$name.el
      [ -f "$edges" ] || "$build/bin/tricount-generate" --kind grid3d --grid-side "${g#grid:}" --output "$edges" >/dev/null 2>&1 ;;
    *)
      [ -f "$g" ] || { echo "bench_cpu.sh: error: '$g' is neither kron:S, uniform:S, grid:SIDE nor an edge file" >&2; exit 2; }
      name=$(basename "$g"); name=${name%.gz}; name=${name%.txt}; edges=$work/$name.el
      [ -f "$edges" ] || { if [[ $g == *.gz ]]; then zcat "$g"; else cat "$g"; fi | grep -v '^[#%]' | tr -d '\r' >"$edges.tmp" && mv "$edges.tmp" "$edges"; } ;;
  esac
  # 2. Partition once.
  h5=$work/$name.p$parts.h5
  t0=$(date +%s.%N)
  "$build/bin/tricount-partition" --input "$edges" --format edgelist --output "$h5" --parts "$parts" --quiet
  part=$(python3 -c "print($(date +%s.%N) - $t0)")
  # 3. GAPBS's input: the text symmetrized on reading, or its own serialized graph.
  gapbs_input=(-f "$edges" -s)
  if [ -n "$gapbs" ] && [ -n "$converter" ]; then
    [ -f "$work/$name.sg" ] || "$converter" -f "$edges" -s -b "$work/$name.sg" >/dev/null
    gapbs_input=(-f "$work/$name.sg")
  fi
  # 4. Count at each thread count; GAPBS beside it.
  for t in $threads_list; do
    shown=$t; [ "$t" != 0 ] || shown="all ($cores)"
    json=$work/$name.p$parts.r$ranks.t$t.json secs=""
    for _ in $(seq "$repeat"); do
      mpirun -np "$ranks" "$build/bin/tricount-count" --input "$h5" --backend cpu --threads "$t" \
        --workload-splits auto --json "$json" --quiet
      secs="$secs $(field "$json" "d['seconds']['count']")"
    done
    count_s=$(echo "$secs" | median); m=$(field "$json" "d['edges']")
    gapbs_s=- gapbs_teps=- ratio=-
    if [ -n "$gapbs" ]; then
      omp=$t; [ "$t" != 0 ] || omp=$cores
      gapbs_s=$(OMP_NUM_THREADS=$omp "$gapbs" "${gapbs_input[@]}" -n "$repeat" | awk '/Average Time/{print $3}')
      gapbs_teps=$(python3 -c "print('%.3g' % ($m / $gapbs_s))")
      ratio=$(python3 -c "print('%.2f' % ($count_s / $gapbs_s))")
    fi
    printf "| %-22s | %10s | %12s | %14s | %11.2f | %7s | %9.4g | %10.3g | %9s | %10s | %5s |\n" "$name" \
      "$(field "$json" "d['vertices']")" "$m" "$(field "$json" "d['triangles']")" "$part" "$shown" "$count_s" \
      "$(python3 -c "print($m / $count_s)")" "$gapbs_s" "$gapbs_teps" "$ratio"
  done
done
