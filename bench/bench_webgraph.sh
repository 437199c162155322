#!/usr/bin/env bash
# Benchmark of the WebGraph BV reader (issue 16): decode rate and partition time of a BV
# graph against the same arcs as bin64.
#
#   bench/bench_webgraph.sh [BUILD_DIR]            (default build)
#
# Graphs: cnr-2000 (../shared/data/webgraph) and Kronecker graphs made BV by the bench
# encoder (tests/webgraph_tool encode, checked by decoding back). For each: decode rate on
# THREADS_LIST threads by .offsets and sequentially (webgraph_tool decode, REPEAT runs, best
# reported), then tricount-partition of the BV graph and of its bin64 copy (same arcs, same
# order), wall time and user CPU seconds (/usr/bin/time).
#
# Environment:
#   SCALES        Kronecker scales to encode (default "18"; edge factor 16)
#   THREADS_LIST  decode threads (default "1 2")
#   REPEAT        runs per decode measurement (default 3)
#   WORK          folder for the generated files (default /tmp/tricount-bench-webgraph)
set -euo pipefail

BUILD=${1:-build}
BIN=$BUILD/bin
TOOL=$BUILD/tests/webgraph_tool
SCALES=${SCALES:-"18"}
THREADS_LIST=${THREADS_LIST:-"1 2"}
REPEAT=${REPEAT:-3}
WORK=${WORK:-/tmp/tricount-bench-webgraph}
DATA=$(dirname "$0")/../../shared/data/webgraph
mkdir -p "$WORK"
[[ -x $BIN/tricount-partition && -x $TOOL ]] || { echo "no programs in $BIN or $TOOL (build first)" >&2; exit 2; }

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
bases=()
[[ -f $DATA/cnr-2000.graph ]] && bases+=("$DATA/cnr-2000")
for s in $SCALES; do
  base=$WORK/k$s
  if [[ ! -f $base.graph ]]; then
    [[ -f $WORK/k$s.bin64 ]] || "$BIN/tricount-generate" --kind kronecker --scale "$s" --output "$WORK/k$s.bin64" >/dev/null 2>&1
    "$TOOL" encode "$WORK/k$s.bin64" "$base"
  fi
  bases+=("$base")
done

for base in "${bases[@]}"; do
  name=$(basename "$base")
  echo "## $name: $(grep -E '^(nodes|arcs)=' "$base.properties" | tr '\n' ' ')graph $(stat -c %s "$base.graph") bytes"
  for t in $THREADS_LIST; do
    for r in $(seq "$REPEAT"); do "$TOOL" decode "$base" "$t"; done
  done
  for r in $(seq "$REPEAT"); do "$TOOL" decode "$base" 1 sequential; done
  [[ -f $WORK/$name.arcs.bin64 ]] || "$TOOL" bin64 "$base" "$WORK/$name.arcs.bin64"
  for t in $THREADS_LIST; do
    for input in "$base.graph" "$WORK/$name.arcs.bin64"; do
      /usr/bin/time -f "partition $(basename "$input") --threads $t: %e s wall, %U s user" \
        "$BIN/tricount-partition" --input "$input" --output "$WORK/out.h5" --threads "$t" --quiet
      rm -f "$WORK/out.h5"
    done
  done
done
