#!/usr/bin/env bash
# GPU benchmark of the CUDA backend on the synthetic graphs of issue 3.
#
#   bench/bench_cuda.sh [BUILD_DIR]            (default build-gpu)
#
# For each graph: tricount-generate -> tricount-partition --parts 1 -> tricount-count
# --backend cuda --json (end-to-end: load, transfer, count) and the driver
# BUILD_DIR/tests/cuda_bench count (bench/cuda_bench.cpp), which times the count with the blocks
# already on the GPU: the median of TRICOUNT_BENCH_REPS runs after a warm-up, measured
# with CUDA events around the classification, hash building and counting kernels.
#
# Environment:
#   GRAPHS     graphs to run (default "k18 k20 u20 g128 k23 u24 k24"):
#              kS = Kronecker scale S (edge factor 16), u20 = uniform 2^20 V / 2^24 E,
#              u24 = uniform 2^24 V / 2^28 E, g128 = 3D grid 128^3; a "c" suffix
#              (k23c) partitions the same edges with --order collective
#   PARTITION_ARGS  extra tricount-partition arguments (default "--memory-budget 100G":
#              the in-memory path)
#   VARIANTS   extra driver runs per graph, ';'-separated "name:key=value,key=value":
#              lower-case keys are the backend's tuning (tricount-count --cuda-tuning,
#              listed by tricount-count --help), upper-case ones environment variables of
#              the driver (TRICOUNT_BENCH_CTA_THRESHOLD, TRICOUNT_BENCH_CHUNK,
#              TRICOUNT_BENCH_REPS); e.g. "prof:profile=1;nosplit:v-side=0". The default row
#              is always run and named "default"
#   REPS       timed repetitions (default 10)
#   WORK       scratch folder for graph files (default /tmp/tricount-bench; not removed)
#   OUT        folder for the logs and results.json (default WORK)
#   NO_CLI=1   skip the tricount-count end-to-end run
#   PER_VERTEX=1  also time the count with per-vertex counting off and on (cuda_bench
#              per-vertex: two backends on the same blocks, REPS of each alternating,
#              medians and their ratio);
#              PER_VERTEX=only runs that alone (no end-to-end run, no count driver)
#   PER_EDGE=1 also time the count with per-edge counting off, on, and on with the
#              sorted-list kernel (cuda_bench per-edge: medians and ratios to off);
#              PER_EDGE=only runs that alone
set -euo pipefail

BUILD=${1:-build-gpu}
BIN=$BUILD/bin
DRIVER=$BUILD/tests/cuda_bench
GRAPHS=${GRAPHS:-"k18 k20 u20 g128 k23 u24 k24"}
REPS=${REPS:-10}
WORK=${WORK:-/tmp/tricount-bench}
OUT=${OUT:-$WORK}
VARIANTS=${VARIANTS:-}
PARTITION_ARGS=${PARTITION_ARGS:-"--memory-budget 100G"}
mkdir -p "$WORK" "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH=$BUILD:${LD_LIBRARY_PATH:-}

gen_args() {
  case ${1%c} in
    k*) local s=${1%c}; echo "--kind kronecker --scale ${s#k}" ;;
    u20) echo "--kind uniform --vertices 1048576 --edges 16777216" ;;
    u24) echo "--kind uniform --vertices 16777216 --edges 268435456" ;;
    g*) echo "--kind grid3d --grid-side ${1#g}" ;;
    *) echo "unknown graph $1" >&2; exit 2 ;;
  esac
}

# The driver's off/on mode MODE on graph G's blocks: its line (tagged TAG) into the results as KIND.
on_off() {  # G BLOCKS MODE TAG KIND
  local line
  line=$(env TRICOUNT_BENCH_REPS="$REPS" TRICOUNT_BENCH_FILE="$2" "$DRIVER" "$3" 2>&1 |
    tee -a "$OUT/bench.log" | grep "^$4 " || true)
  if [[ -n $line ]]; then
    echo "${line#"$4 "}" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d.update(graph=sys.argv[1], kind=sys.argv[2]); print(json.dumps(d))" "$1" "$5" >> "$RESULTS"
  else
    echo "$3 driver failed on $1, see $OUT/bench.log" >&2
  fi
}

RESULTS=$OUT/results.jsonl
: > "$RESULTS"
for g in $GRAPHS; do
  edges=$WORK/${g%c}.bin64  # k23c: the edges of k23
  blocks=$WORK/$g.h5
  order=degree
  [[ $g == *c ]] && order=collective
  t0=$(date +%s%N)
  [[ -s $edges ]] || "$BIN/tricount-generate" $(gen_args "$g") --output "$edges" >> "$OUT/bench.log" 2>&1
  [[ -s $blocks ]] || "$BIN/tricount-partition" -i "$edges" -o "$blocks" --parts 1 --order $order $PARTITION_ARGS -q >> "$OUT/bench.log" 2>&1
  echo "{\"graph\": \"$g\", \"kind\": \"prepare\", \"ms\": $(( ($(date +%s%N) - t0) / 1000000 ))}" >> "$RESULTS"
  if [[ -n ${PER_VERTEX:-} ]]; then
    on_off "$g" "$blocks" per-vertex BENCHPV per_vertex
    [[ $PER_VERTEX == only ]] && continue
  fi
  if [[ -n ${PER_EDGE:-} ]]; then
    on_off "$g" "$blocks" per-edge BENCHPE per_edge
    [[ $PER_EDGE == only ]] && continue
  fi
  if [[ -z ${NO_CLI:-} ]]; then
    if "$BIN/tricount-count" -i "$blocks" --backend cuda --json "$OUT/$g.count.json" -q >> "$OUT/bench.log" 2>&1; then
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['graph']=sys.argv[2]; d['kind']='cli'; print(json.dumps(d))" \
        "$OUT/$g.count.json" "$g" >> "$RESULTS"
    else
      echo "tricount-count failed on $g (see $OUT/bench.log)" >&2
    fi
  fi
  IFS=';' read -ra vlist <<< "default:;$VARIANTS"
  for v in "${vlist[@]}"; do
    [[ -z $v ]] && continue
    name=${v%%:*}
    envs=()
    tuning=""
    IFS=',' read -ra kv <<< "${v#*:}"
    for e in "${kv[@]}"; do
      if [[ $e =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$e")
      elif [[ -n $e ]]; then tuning+=${tuning:+,}$e
      fi
    done
    line=$(env TRICOUNT_BENCH_REPS="$REPS" "${envs[@]}" TRICOUNT_BENCH_FILE="$blocks" TRICOUNT_BENCH_TUNING="$tuning" \
      "$DRIVER" count 2>&1 |
      tee -a "$OUT/bench.log" | grep '^BENCH ' || true)
    if [[ -n $line ]]; then
      echo "${line#BENCH }" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d.update(graph=sys.argv[1], kind='driver', variant=sys.argv[2]); print(json.dumps(d))" "$g" "$name" >> "$RESULTS"
    else
      echo "driver failed on $g ($name), see $OUT/bench.log" >&2
    fi
  done
done

python3 - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cli = {r["graph"]: r for r in rows if r["kind"] == "cli"}
print(f"{'graph':6} {'variant':10} {'|V|':>10} {'|E|':>11} {'triangles':>14} {'count ms':>9} {'best ms':>8} "
      f"{'e2e s':>7} {'GTEPS':>7} {'Gtri/s':>7} {'Gprobe/s':>8}  device")
for r in rows:
    if r["kind"] != "driver":
        continue
    c = cli.get(r["graph"], {})
    e2e = c.get("seconds", {}).get("total")
    ms = r["count_ms_median"]
    if c and c.get("triangles") != r["triangles"]:
        print(f"!! {r['graph']}: tricount-count says {c.get('triangles')} triangles, driver {r['triangles']}")
    print(f"{r['graph']:6} {r['variant']:10} {r['vertices']:>10} {r['edges']:>11} {r['triangles']:>14} {ms:>9.3f} "
          f"{r['count_ms_best']:>8.3f} {e2e if e2e is not None else float('nan'):>7.3f} "
          f"{r['edges'] / ms / 1e6:>7.2f} {r['triangles'] / ms / 1e6:>7.2f} {r.get('probes', 0) / ms / 1e6:>8.2f}  {r['device']}")
pv = [r for r in rows if r["kind"] == "per_vertex"]
if pv:
    print(f"\n{'graph':6} {'triangles':>14} {'off ms':>9} {'on ms':>9} {'on/off':>7}  device  (per-vertex counting)")
for r in pv:
    print(f"{r['graph']:6} {r['triangles']:>14} {r['off_ms_median']:>9.3f} {r['on_ms_median']:>9.3f} {r['ratio']:>7.3f}  {r['device']}")
pe = [r for r in rows if r["kind"] == "per_edge"]
if pe:
    print(f"\n{'graph':6} {'triangles':>14} {'off ms':>9} {'on ms':>9} {'on/off':>7} {'lists ms':>9} {'lists/off':>9}  device  (per-edge counting)")
for r in pe:
    print(f"{r['graph']:6} {r['triangles']:>14} {r['off_ms_median']:>9.3f} {r['on_ms_median']:>9.3f} {r['ratio']:>7.3f} "
          f"{r['lists_ms_median']:>9.3f} {r['lists_ratio']:>9.3f}  {r['device']}")
EOF
