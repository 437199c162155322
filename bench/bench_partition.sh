#!/usr/bin/env bash
# Benchmark of the partition pipeline (issues 4 and 15): Kronecker graphs partitioned within
# a memory budget, with the time, rate, bytes and peak RSS of every stage.
#
#   bench/bench_partition.sh [BUILD_DIR]            (default build)
#
# For each scale: tricount-generate --kind kronecker --scale S --output kS.bin64 (kept and
# reused; its wall time and peak RSS in a row labelled "gen" when it is made here), then for
# each --parts and --memory-budget: tricount-partition under /usr/bin/time -v (or getrusage).
# Prints one row per run: wall time, input edges/s, peak RSS, bytes written (the output file
# and the sorted runs), the sorted runs' bytes alone (temp_GB: to --tmpdir or to memory
# files), the graph checksum (every input of a scale and --parts must give the same); then
# one row per stage: seconds, input edges/s, bytes read and written through system calls
# (input, runs, output) and the process's peak RSS by the stage's end, from the program's
# stage lines (a binary older than the stage I/O columns shows "-").
#
# Environment:
#   SCALES     Kronecker scales (default "24 26"; edge factor 16: 2^S * 16 input edges)
#   PARTS      --parts values (default "1 4")
#   BUDGETS    --memory-budget values (default "4G 16G"; "default": the program's own)
#   THREADS    --threads (default 0: all cores)
#   WORK       folder for the edge lists and outputs (default /tmp/tricount-bench-partition;
#              scale 26 needs ~17 GB for the input, ~5 GB per output)
#   TMPDIR_RUNS  --tmpdir for runs on disk (default WORK/runs; up to ~32 B per input edge)
#   RUNS_ON_DISK=1  runs on disk at any size (default 0: the program decides; FORCE_EXTERNAL=1,
#              the old name, too)
#   BEFORE=DIR  also run DIR/tricount-partition (e.g. main's build) on the same inputs,
#              rows labelled "before" (the current build's are "after")
#   TEXT=1     also write each graph as a text edge list and partition that (the reader's
#              parsing in the stage rows); with GAPBS_CONVERTER=PATH, GAPBS's converter
#              builds its symmetric CSR from the same text file (`converter -f kS.el -s -b
#              kS.sg`), timed alike (wall, peak RSS)
#   BIN64=0    skip the bin64 input (with TEXT=1: the text edge list alone; with GENERATED=1
#              no edge file is made at all)
#   GENERATED=1  also partition the generator input directly (`--input kronecker:S`, rows
#              "kS-gen": the edges computed in the read stage, no edge file); compare its wall
#              time with the "gen" row's plus the kS row's. The lent host's Kronecker 24 and
#              26 without the 17 GB file: SCALES="24 26" PARTS=4 BUDGETS=16G GENERATED=1 BIN64=0
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
RUNS_ON_DISK=${RUNS_ON_DISK:-${FORCE_EXTERNAL:-0}}
BEFORE=${BEFORE:-}
TEXT=${TEXT:-0}
GENERATED=${GENERATED:-0}
GAPBS_CONVERTER=${GAPBS_CONVERTER:-}
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
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }

# One row per stage line of a log: stage, seconds, input edges/s, MB read, MB written, peak RSS MB.
stage_rows() {
  local log=$1 input_edges=$2 label=$3
  perl -ne '
    BEGIN { ($e, $label) = @ARGV[0, 1]; @ARGV = () }
    next if /budget \d+ MiB/;  # the closing summary line
    next unless /^\r?\[partition\] (\S+)\s.*?\s(\d+\.\d+) s\b/;
    ($stage, $s) = ($1, $2);
    ($r, $w, $p) = /\[read (\d+) MB, wrote (\d+) MB, peak RSS so far (\d+) MB\]/ ? ($1, $2, $3) : ("-", "-", "-");
    printf "    %-7s %-9s %8.2f %10.1f %10s %10s %10s\n", $label, $stage, $s, ($s > 0 ? $e / $s / 1e6 : 0), $r, $w, $p;
  ' "$input_edges" "$label" < "$log"
}

echo "host: $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM; tmpdir $RUNS"
printf '%-7s %-9s %5s %7s %9s %12s %10s %12s %12s %8s %s\n' build input parts budget wall_s "input_edges" "Medges/s" peak_RSS_MB written_GB temp_GB checksum
printf '    %-7s %-9s %8s %10s %10s %10s %10s\n' build stage seconds "Medges/s" read_MB written_MB RSS_peak_so_far_MB

# partition LABEL PROGRAM INPUT INPUT_NAME INPUT_EDGES PARTS BUDGET
partition() {
  local label=$1 program=$2 input=$3 name=$4 input_edges=$5 p=$6 b=$7
  local out=$WORK/$name-n$p-$b-$label.h5 log=$WORK/$name-n$p-$b-$label.log
  local args=(-i "$input" -o "$out" --parts "$p" --tmpdir "$RUNS" --threads "$THREADS")
  [[ $b == default ]] || args+=(--memory-budget "$b")
  # --force-external, the old spelling of --runs-on-disk: a BEFORE build may predate the new one.
  [[ $RUNS_ON_DISK == 1 ]] && args+=(--force-external)
  if ! timed "$program" "${args[@]}" > "$log.out" 2> "$log"; then
    echo "$label $name --parts $p --memory-budget $b failed: see $log" >&2
    return 0
  fi
  local wall rss scratch written temp rate sum
  wall=$(wall_of "$log")
  rss=$(rss_of "$log")
  scratch=$(sed -n 's/.* \([0-9.]*\) MiB \(written to the temporary directory\|of sorted runs written to memory\).*/\1/p' "$log")
  written=$(awk -v o="$(stat -c %s "$out")" -v t="${scratch:-0}" 'BEGIN {printf "%.2f", (o + t * 1048576) / 1e9}')
  temp=$(awk -v t="${scratch:-0}" 'BEGIN {printf "%.2f", t * 1048576 / 1e9}')
  rate=$(awk -v e="$input_edges" -v w="$wall" 'BEGIN {printf "%.1f", (w > 0 ? e / w / 1e6 : 0)}')
  sum=$(command -v h5dump > /dev/null && checksum "$out" || echo "-")
  printf '%-7s %-9s %5s %7s %9s %12s %10s %12s %12s %8s %s\n' "$label" "$name" "$p" "$b" "$wall" "$input_edges" "$rate" "$rss" "$written" "$temp" "$sum"
  stage_rows "$log" "$input_edges" "$label"
  # Every input of a scale is the same graph: one reference checksum per scale and --parts.
  local key="${name%%[.-]*}-$p"
  if [[ -n ${reference[$key]:-} && $sum != "-" && $sum != "${reference[$key]}" ]]; then
    echo "  MISMATCH: $name --parts $p: graph checksum $sum differs from ${reference[$key]}" >&2
  fi
  [[ -z ${reference[$key]:-} ]] && reference[$key]=$sum
  [[ ${KEEP:-0} == 1 ]] || rm -f "$out"
}

declare -A reference
for s in $SCALES; do
  edges=$WORK/k$s.bin64
  input_edges=$(( 16 << s ))  # tricount-generate's default edge factor
  if [[ ${BIN64:-1} == 1 && ! -s $edges ]]; then
    log=$WORK/generate-k$s.log
    timed "$BIN/tricount-generate" --kind kronecker --scale "$s" --output "$edges" > /dev/null 2> "$log" ||
      { echo "tricount-generate failed: see $log" >&2; exit 1; }
    printf '%-7s %-9s %5s %7s %9s %12s %10s %12s %12s %8s %s\n' gen "k$s.bin64" - - "$(wall_of "$log")" "$input_edges" \
      "$(awk -v e="$input_edges" -v w="$(wall_of "$log")" 'BEGIN {printf "%.1f", (w > 0 ? e / w / 1e6 : 0)}')" \
      "$(rss_of "$log")" "$(awk -v b="$(stat -c %s "$edges")" 'BEGIN {printf "%.2f", b / 1e9}')" - -
  fi
  inputs=()
  [[ ${BIN64:-1} == 1 ]] && inputs+=("$edges|k$s")
  if [[ $TEXT == 1 ]]; then
    text=$WORK/k$s.el
    [[ -s $text ]] || "$BIN/tricount-generate" --kind kronecker --scale "$s" --output "$text" --format text 2> "$WORK/generate-k$s-text.log"
    inputs+=("$text|k$s.el")
    if [[ -n $GAPBS_CONVERTER ]]; then
      log=$WORK/k$s-gapbs.log
      if timed "$GAPBS_CONVERTER" -f "$text" -s -b "$WORK/k$s.sg" > "$log.out" 2> "$log"; then
        printf '%-7s %-9s %5s %7s %9s %12s %10s %12s %12s %8s %s\n' gapbs "k$s.el" - - "$(wall_of "$log")" "$input_edges" \
          "$(awk -v e="$input_edges" -v w="$(wall_of "$log")" 'BEGIN {printf "%.1f", (w > 0 ? e / w / 1e6 : 0)}')" \
          "$(rss_of "$log")" - - -
      else
        echo "GAPBS converter failed: see $log" >&2
      fi
      rm -f "$WORK/k$s.sg"
    fi
  fi
  [[ $GENERATED == 1 ]] && inputs+=("kronecker:$s|k$s-gen")
  for entry in "${inputs[@]}"; do
    input=${entry%%|*}
    name=${entry#*|}
    for p in $PARTS; do
      for b in $BUDGETS; do
        [[ -n $BEFORE && $name != *-gen ]] && partition before "$BEFORE/tricount-partition" "$input" "$name" "$input_edges" "$p" "$b"
        partition after "$BIN/tricount-partition" "$input" "$name" "$input_edges" "$p" "$b"
      done
    done
  done
done
echo "logs (stage lines) in $WORK/*.log"
