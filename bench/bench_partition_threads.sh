#!/usr/bin/env bash
# tricount-partition on every core of a node (issue 30): two builds, run alternately on the
# same bin64 inputs at several --threads and --parts, with each stage's seconds.
#
#   BEFORE=DIR AFTER=DIR bash bench/bench_partition_threads.sh
#
# DIR holds bin/tricount-partition (and lib/ with the project's shared libraries, if any).
# For each scale of SCALES: AFTER's tricount-generate writes Kronecker S as bin64 into WORK
# (kept and reused), the file is read once so that it sits in the page cache, then for each
# --parts and --threads both builds run one after the other (BEFORE first), REPEAT times.
# Runs of sorted edges live where the program puts them at --memory-budget BUDGET (memory
# files, or WORK/runs). Prints one row per run: build, threads, parts, wall seconds (the
# process, from outside), where the runs were, and each stage's seconds from the program's
# own stage lines ("[partition] STAGE ... N.NN s ..."); "-" where a build has no such stage,
# "other" sums stages not in the list. Needs bash, awk, date, timeout; no bc, no ../shared.
#
# Environment:
#   BEFORE, AFTER  build folders (required; the same folder twice is fine)
#   SCALES       Kronecker scales (default "24 26"; edge factor 16: 16 * 2^S input edges,
#                Kronecker 26 is a 17 GB file and ~27 GB of runs on disk at BUDGET 16G)
#   THREADS      --threads values (default "16 64 0"; 0 = all cores)
#   PARTS        --parts values (default "1 4")
#   LARGE_FROM   scales from this one on use LARGE_THREADS and LARGE_PARTS instead (default 26:
#                a Kronecker 26 run takes ~40 s, so by default 2 builds x 2 = 4 of them)
#   LARGE_THREADS (default "64"), LARGE_PARTS (default "1 4")
#   BUDGET       --memory-budget (default 16G)
#   REPEAT       runs of each build per setting (default 1)
#   WORK         folder for inputs, runs and logs (default /tmp/tricount-bench-threads)
#   RUN_TIMEOUT  seconds before one run is stopped (default 240)
#   DISK=0       skip measuring the disk's own rates (dd with O_DIRECT, 2 GiB, in WORK)
# Time: at the defaults on 64 cores, about 6 minutes (Kronecker 24: 12 runs of ~10 s;
# Kronecker 26: generation ~30 s and 4 runs of ~40 s).
set -euo pipefail

: "${BEFORE:?set BEFORE=DIR (a build with bin/tricount-partition)}"
: "${AFTER:?set AFTER=DIR (a build with bin/tricount-partition and bin/tricount-generate)}"
SCALES=${SCALES:-"24 26"}
THREADS=${THREADS:-"16 64 0"}
PARTS=${PARTS:-"1 4"}
LARGE_FROM=${LARGE_FROM:-26}
LARGE_THREADS=${LARGE_THREADS:-"64"}
LARGE_PARTS=${LARGE_PARTS:-"1 4"}
BUDGET=${BUDGET:-16G}
REPEAT=${REPEAT:-1}
WORK=${WORK:-/tmp/tricount-bench-threads}
RUN_TIMEOUT=${RUN_TIMEOUT:-240}
STAGES="read clean ids degrees orient reorder map blocks write estimate commit"
mkdir -p "$WORK/runs" "$WORK/logs"
for d in "$BEFORE" "$AFTER"; do
  [[ -x $d/bin/tricount-partition ]] || { echo "no $d/bin/tricount-partition" >&2; exit 2; }
done
[[ -x $AFTER/bin/tricount-generate ]] || { echo "no $AFTER/bin/tricount-generate" >&2; exit 2; }

now() { date +%s%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b - a) / 1e9}'; }

# run BUILD_DIR ARGS...: the program with the build's own libraries first.
run() {
  local dir=$1
  shift
  LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout "$RUN_TIMEOUT" "$@"
}

echo "host $(hostname): $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM;" \
  "WORK $WORK on $(df -P "$WORK" | awk 'NR == 2 {print $1}'); BEFORE=$BEFORE AFTER=$AFTER; --memory-budget $BUDGET"
if [[ ${DISK:-1} == 1 ]]; then
  # The disk's own rates, past the page cache (the output's fsync and runs on disk meet them).
  w=$(dd if=/dev/zero of="$WORK/dd.bin" bs=1M count=2048 oflag=direct 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
  r=$(dd if="$WORK/dd.bin" of=/dev/null bs=1M iflag=direct 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
  rm -f "$WORK/dd.bin"
  echo "disk (dd, O_DIRECT, 1 MiB blocks, 2 GiB): write $w, read $r"
fi

# One row: the run's stage seconds from its log, in STAGES order, the rest summed as "other".
row() {
  local label=$1 threads=$2 parts=$3 wall=$4 log=$5 scale=$6
  awk -v label="$label" -v threads="$threads" -v parts="$parts" -v wall="$wall" -v stages="$STAGES" -v scale="$scale" '
    {
      sub(/^\r/, "")
      if ($1 != "[partition]") next
      if ($2 == "runs" && $3 ~ /^(in|on)$/) { where = $4 == "memory:" ? "memory" : "disk"; next }
      for (i = 3; i < NF; i++)
        if ($(i + 1) == "s" && $i ~ /^[0-9]+\.[0-9]+$/) { t[$2] += $i; seen[$2] = 1; break }
    }
    END {
      n = split(stages, name, " ")
      line = sprintf("k%-4s %-7s %7s %5s %8s %-6s", scale, label, threads, parts, wall, where == "" ? "-" : where)
      other = 0
      for (s in seen) { known = 0; for (k = 1; k <= n; k++) if (s == name[k]) known = 1; if (!known) other += t[s] }
      for (k = 1; k <= n; k++) line = line sprintf(" %8s", (name[k] in seen) ? sprintf("%.2f", t[name[k]]) : "-")
      print line sprintf(" %8.2f", other)
    }' "$log"
}

header=$(printf '%-5s %-7s %7s %5s %8s %-6s' scale build threads parts wall_s runs)
for s in $STAGES other; do header+=$(printf ' %8s' "$s"); done
echo "$header"
: > "$WORK/logs/rows.txt"

for scale in $SCALES; do
  input=$WORK/k$scale.bin64
  if [[ ! -s $input ]]; then
    start=$(now)
    run "$AFTER" "$AFTER/bin/tricount-generate" --kind kronecker --scale "$scale" --output "$input" \
      > /dev/null 2> "$WORK/logs/generate-k$scale.log" || { echo "tricount-generate failed: $WORK/logs/generate-k$scale.log" >&2; exit 1; }
    echo "# generated k$scale.bin64 in $(seconds "$start" "$(now)") s"
  fi
  cat "$input" > /dev/null  # into the page cache
  threads_list=$THREADS
  parts_list=$PARTS
  if (( scale >= LARGE_FROM )); then
    threads_list=$LARGE_THREADS
    parts_list=$LARGE_PARTS
  fi
  for parts in $parts_list; do
    for threads in $threads_list; do
      for rep in $(seq "$REPEAT"); do
        for entry in "before|$BEFORE" "after|$AFTER"; do
          label=${entry%%|*}
          dir=${entry#*|}
          out=$WORK/k$scale-n$parts-t$threads-$label.h5
          log=$WORK/logs/k$scale-n$parts-t$threads-$label-r$rep.log
          start=$(now)
          if run "$dir" "$dir/bin/tricount-partition" --input "$input" --output "$out" --parts "$parts" \
            --threads "$threads" --memory-budget "$BUDGET" --tmpdir "$WORK/runs" > "$log.out" 2> "$log"; then
            row "$label" "$threads" "$parts" "$(seconds "$start" "$(now)")" "$log" "$scale" | tee -a "$WORK/logs/rows.txt"
          else
            echo "k$scale $label threads $threads parts $parts FAILED (exit $?): see $log" >&2
          fi
          rm -f "$out"
        done
      done
    done
  done
done
# Mean wall seconds per setting and build, and before / after.
echo
echo "scale threads parts before_s after_s before/after"
awk '{ key = $1 " " $3 " " $4; n[key, $2]++; w[key, $2] += $5; if (!(key in order)) { order[key] = ++keys; name[keys] = key } }
  END {
    for (k = 1; k <= keys; k++) {
      key = name[k]; b = n[key, "before"] ? w[key, "before"] / n[key, "before"] : 0; a = n[key, "after"] ? w[key, "after"] / n[key, "after"] : 0
      printf "%s %.2f %.2f %s\n", key, b, a, (a > 0 && b > 0) ? sprintf("%.2fx", b / a) : "-"
    }
  }' "$WORK/logs/rows.txt"
echo "# stage lines in $WORK/logs/; inputs kept in $WORK (remove them when done)"
