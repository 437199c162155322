#!/usr/bin/env bash
# Benchmark of the external-memory partitioner (issue 4): Kronecker graphs partitioned
# within a memory budget.
#
#   bench/bench_partition.sh [BUILD_DIR]            (default build)
#
# For each scale: tricount-generate --kind kronecker --scale S --output kS.bin64 (kept and
# reused), then for each --parts and --memory-budget: tricount-partition under
# /usr/bin/time -v (or getrusage). Prints one row per run: wall time, input edges/s, peak RSS, bytes
# written (the output file and the temporary runs), and checks that every run of a scale
# and --parts gives the same graph checksum.
#
# Environment:
#   SCALES     Kronecker scales (default "24 26"; edge factor 16: 2^S * 16 input edges)
#   PARTS      --parts values (default "1 4")
#   BUDGETS    --memory-budget values (default "4G 16G")
#   THREADS    --threads (default 0: all cores)
#   WORK       folder for the edge lists and outputs (default /tmp/tricount-bench-partition;
#              scale 26 needs ~17 GB for the input, ~5 GB per output)
#   TMPDIR_RUNS  --tmpdir for the sorted runs (default WORK/runs; up to ~32 B per input edge)
#   FORCE_EXTERNAL=0  let partition_file pick the path (default: always external)
#   KEEP=1     keep the .h5 outputs (default: removed after each run)
set -euo pipefail

BUILD=${1:-build}
BIN=$BUILD/bin
SCALES=${SCALES:-"24 26"}
PARTS=${PARTS:-"1 4"}
BUDGETS=${BUDGETS:-"4G 16G"}
THREADS=${THREADS:-0}
WORK=${WORK:-/tmp/tricount-bench-partition}
RUNS=${TMPDIR_RUNS:-$WORK/runs}
FORCE=${FORCE_EXTERNAL:-1}
mkdir -p "$WORK" "$RUNS"
[[ -x $BIN/tricount-partition && -x $BIN/tricount-generate ]] || { echo "no programs in $BIN (build first)" >&2; exit 2; }
# Wall time and peak RSS: /usr/bin/time -v, or (hosts without it) the same two lines from
# Python's getrusage of the child.
timed() {
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v "$@"
  else
    python3 -c '
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[1:])
w = time.time() - t
print("\tElapsed (wall clock) time (h:mm:ss or m:ss): %d:%05.2f" % (w // 60, w % 60), file=sys.stderr)
print("\tMaximum resident set size (kbytes): %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(rc)' "$@"
  fi
}
command -v h5dump > /dev/null || echo "(h5dump not found: graph checksums are not compared)" >&2

checksum() { h5dump -a /graph_checksum "$1" 2> /dev/null | awk '/\(0\)/ {print $2}'; }

echo "host: $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM; tmpdir $RUNS"
printf '%-6s %5s %7s %9s %12s %10s %12s %12s %s\n' scale parts budget wall_s "input_edges" "Medges/s" peak_RSS_MB written_GB checksum
for s in $SCALES; do
  edges=$WORK/k$s.bin64
  if [[ ! -s $edges ]]; then
    "$BIN/tricount-generate" --kind kronecker --scale "$s" --output "$edges" 2> "$WORK/generate-k$s.log"
  fi
  input_edges=$(( $(stat -c %s "$edges") / 16 ))
  for p in $PARTS; do
    reference=""
    for b in $BUDGETS; do
      out=$WORK/k$s-n$p-$b.h5
      log=$WORK/k$s-n$p-$b.log
      args=(-i "$edges" -o "$out" --parts "$p" --memory-budget "$b" --tmpdir "$RUNS" --threads "$THREADS")
      [[ $FORCE == 1 ]] && args+=(--force-external)
      if ! timed "$BIN/tricount-partition" "${args[@]}" > "$log.out" 2> "$log"; then
        echo "k$s --parts $p --memory-budget $b failed: see $log" >&2
        continue
      fi
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
      rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
      scratch=$(sed -n 's/.* \([0-9.]*\) MiB written to the temporary directory.*/\1/p' "$log")
      written=$(awk -v o="$(stat -c %s "$out")" -v t="${scratch:-0}" 'BEGIN {printf "%.2f", (o + t * 1048576) / 1e9}')
      rate=$(awk -v e="$input_edges" -v w="$wall" 'BEGIN {printf "%.1f", (w > 0 ? e / w / 1e6 : 0)}')
      sum=$(command -v h5dump > /dev/null && checksum "$out" || echo "-")
      printf '%-6s %5s %7s %9s %12s %10s %12s %12s %s\n' "k$s" "$p" "$b" "$wall" "$input_edges" "$rate" "$rss" "$written" "$sum"
      if [[ -n $reference && $sum != "-" && $sum != "$reference" ]]; then
        echo "  MISMATCH: k$s --parts $p: graph checksum $sum differs from $reference" >&2
      fi
      [[ -z $reference ]] && reference=$sum
      [[ ${KEEP:-0} == 1 ]] || rm -f "$out"
    done
  done
done
echo "logs (stage lines with per-stage rates) in $WORK/*.log"
