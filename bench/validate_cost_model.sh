#!/usr/bin/env bash
# Cost model validation runs on one GPU host (issue 21), in parts that each fit one device
# call. Every part's results (journals, --json reports, shapes of the block files, logs; never
# graphs) are packed into ONE archive, $OUT/validate-TAG.tgz, whatever happens: on success, on
# an error, and when the time limit stops it (an EXIT trap). The fits and predictions are made
# afterwards, anywhere, from the archive: bench/cost_model_table.py.
#
#   usage: BUILD=dir OUT=dir bench/validate_cost_model.sh PART...
#   PART:  gpu:S   Kronecker S at n in PARTS, m in SPLITS, one GPU (mpirun -np 2: the
#                  scheduler and one worker), after one warm-up count per block file
#          cpu:S   Kronecker S at n = CPU_PARTS, m = 1, W CPU workers for W in WORKERS
#                  (mpirun -np W+1 --backend cpu --threads CORES/W)
#          sample:S  Kronecker S at n = 2: its shape only (a sample of the family fit)
#   env:   WORK=/tmp/cmv  TAG=run  PARTS="2 4 8"  SPLITS="1 2 3 4"  WORKERS="1 2 4 8 15"  CPU_PARTS=8
#          CORES=16  STOP_AFTER_S=480 (no count starts after this; the archive is made at once)
#          GPU_BACKEND=cuda (cpu: to try the script on a machine without a GPU)
#          PARTITION_JOBS=16 partitions at once (1: one at a time on every core), PARTITION_BUDGET=16G
#          each (a partition over budget spills to /tmp: three of Kronecker 26 at once filled the
#          GPU host's 64 GB disk; there PARTITION_JOBS=1 PARTITION_BUDGET=60G keeps it in memory)
#          TOOL=dir/cost_model_tool (default BUILD's): writes each block file's shape
#
# Graphs: every scale generated at once, then every block file partitioned at once, in WORK
# (generated edge files are removed once partitioned). A count that fails is logged and the
# run goes on.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}; work=${WORK:-/tmp/cmv}; out=${OUT:-$work/out}; tag=${TAG:-run}
parts_list=${PARTS:-"2 4 8"}; splits_list=${SPLITS:-"1 2 3 4"}; workers_list=${WORKERS:-"1 2 4 8 15"}
cpu_parts=${CPU_PARTS:-8}; cores=${CORES:-16}; stop_after=${STOP_AFTER_S:-480}; gpu_backend=${GPU_BACKEND:-cuda}
partition_jobs=${PARTITION_JOBS:-16}; partition_budget=${PARTITION_BUDGET:-16G}
bin=$build; [ -x "$build/bin/tricount-count" ] && bin=$build/bin
tool=${TOOL:-$bin/cost_model_tool}
[ $# -gt 0 ] || { echo "validate_cost_model: error: name at least one part (gpu:S, cpu:S, sample:S)" >&2; exit 2; }
. "$here/scripts/mpi-env"
res=$work/results-$tag
mkdir -p "$work" "$out" "$res/journal" "$res/report" "$res/shape"
start=$(date +%s)
log() { echo "[$(date +%T) +$(( $(date +%s) - start ))s] $*" | tee -a "$res/log.txt"; }
pack() { log "packing"; tar czf "$out/validate-$tag.tgz" -C "$res" . && ls -l "$out/validate-$tag.tgz"; }
trap pack EXIT
in_time() { [ $(( $(date +%s) - start )) -lt "$stop_after" ] || { log "time limit ($stop_after s): no more counts"; return 1; }; }
nvidia-smi -L 2>/dev/null || true
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; free -g | head -2; } > "$res/machine.txt" 2>&1

# 1. Which block files the parts need (scale:n), and the scales to generate.
files=(); scales=()
for part in "$@"; do
  kind=${part%%:*}; s=${part#*:}
  case $kind in
    gpu) for n in $parts_list; do files+=("$s:$n"); done ;;
    cpu) files+=("$s:$cpu_parts") ;;
    sample) files+=("$s:2") ;;
    *) log "unknown part '$part'"; exit 2 ;;
  esac
  scales+=("$s")
done
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u -t: -k1,1n -k2,2n)
mapfile -t scales < <(printf '%s\n' "${scales[@]}" | sort -u -n)

# 2. Generate, partition (each file with its share of the cores), shapes.
pids=()
for s in "${scales[@]}"; do
  [ -f "$work/k$s.bin64" ] || { "$bin/tricount-generate" --kind kronecker --scale "$s" --output "$work/k$s.bin64" > "$res/gen$s.log" 2>&1 & pids+=($!); }
done
wait "${pids[@]}"; log generated "${scales[*]}"
pids=()
for f in "${files[@]}"; do  # scales >= 24 get 4 threads, smaller ones 2 (the cores oversubscribed)
  s=${f%%:*}; n=${f#*:}; threads=2; [ "$s" -lt 24 ] || threads=4
  [ "$partition_jobs" -gt 1 ] || threads=$cores
  [ -f "$work/k$s.p$n.h5" ] && continue
  while [ "$(jobs -rp | wc -l)" -ge "$partition_jobs" ]; do wait -n; done
  "$bin/tricount-partition" -i "$work/k$s.bin64" -o "$work/k$s.p$n.h5" --parts "$n" \
    --threads "$threads" --memory-budget "$partition_budget" -q > "$res/part_k${s}_n$n.log" 2>&1 & pids+=($!)
done
wait "${pids[@]}"; log partitioned "${files[*]}"; rm -f "$work"/*.bin64
for f in "${files[@]}"; do
  s=${f%%:*}; n=${f#*:}
  "$tool" shape "$work/k$s.p$n.h5" "$res/shape/k${s}_n$n.json" || log "no shape for k$s.p$n.h5"
done
ls -l "$work"/*.h5 | tee -a "$res/log.txt"

# 3. Counts, part by part.
count() {  # NAME RANKS FILE [options]: one measured count with its journal and report
  local name=$1 ranks=$2 file=$3; shift 3
  mpirun -np "$ranks" "$bin/tricount-count" --input "$file" --journal "$res/journal/$name.journal" \
    --json "$res/report/$name.json" "$@" > "$res/report/$name.txt" 2>&1 || log "count $name failed"
}
for part in "$@"; do
  kind=${part%%:*}; s=${part#*:}
  case $kind in
    gpu)
      for n in $parts_list; do
        in_time || break 2
        mpirun -np 2 "$bin/tricount-count" --input "$work/k$s.p$n.h5" --backend "$gpu_backend" > "$res/warmup_k${s}_n$n.txt" 2>&1
        for m in $splits_list; do
          in_time || break 3
          count "k${s}_n${n}_m${m}" 2 "$work/k$s.p$n.h5" --backend "$gpu_backend" --workload-splits "$m"
        done
        log "counted k$s n=$n"
      done ;;
    cpu)
      for w in $workers_list; do
        in_time || break 2
        count "cpu_k${s}_n${cpu_parts}_w$w" $((w + 1)) "$work/k$s.p$cpu_parts.h5" --backend cpu \
          --threads $((cores / w)) --workload-splits 1
        log "counted cpu k$s W=$w"
      done ;;
  esac
done
log done
