#!/usr/bin/env bash
# Cost model validation on one GPU (issue 21): Kronecker 24 and 25 at n = 2, 4, 8 and
# m = 1..4, one journal and one --json report per run; fits on part of the runs and predicts
# the others (tricount-simulate --fit / --model); Kronecker 16-25 block files as samples of
# the family fit. Everything lands in $OUT (journals, reports, models, predictions, log);
# bench/cost_model_table.py turns it into the RESULTS tables. It also packs $OUT into
# $OUT.tgz: a device call returns a limited number of files, so copy that one back.
#   usage: BUILD=dir-with-binaries OUT=dir bench/validate_cost_model.sh
#   REUSE_GRAPHS=1: keep the block files already in WORK (no generating, no partitioning)
#   env:   WORK=/tmp/cmv  BACKEND=cuda  DEVICE="NVIDIA H200"  SCALES="24 25"  PARTS="2 4 8"  SPLITS="1 2 3 4"  SAMPLES="16 18 20 22"
set -uo pipefail
cd "$(dirname "$0")/.." 2>/dev/null || true
build=${BUILD:-build}; work=${WORK:-/tmp/cmv}; out=${OUT:-$work/out}
backend=${BACKEND:-cuda}; scales=${SCALES:-"24 25"}; parts_list=${PARTS:-"2 4 8"}; splits_list=${SPLITS:-"1 2 3 4"}; samples=${SAMPLES:-"16 18 20 22"}
bin=$build; [ -x "$build/bin/tricount-count" ] && bin=$build/bin
. scripts/mpi-env
mkdir -p "$work" "$out/journal" "$out/report" "$out/predict"
log() { echo "[$(date +%T)] $*"; }
nvidia-smi -L 2>/dev/null || true
# 1. Graphs: every scale generated at once, then every partition at once (in memory).
if [ -z "${REUSE_GRAPHS:-}" ]; then
for s in $samples $scales; do
  "$bin/tricount-generate" --kind kronecker --scale "$s" --output "$work/k$s.bin64" > "$work/gen$s.log" 2>&1 &
done
wait; log generated
for s in $samples; do
  "$bin/tricount-partition" -i "$work/k$s.bin64" -o "$work/k$s.p2.h5" --parts 2 --threads 2 -q &
done
for s in $scales; do for n in $parts_list; do
  "$bin/tricount-partition" -i "$work/k$s.bin64" -o "$work/k$s.p$n.h5" --parts "$n" --threads 3 --memory-budget 40G -q &
done; done
wait; log partitioned; rm -f "$work"/*.bin64
fi
ls -l "$work"/*.h5
# 2. Counts: a warm-up (CUDA context, not measured), then every (scale, n, m) once.
mpirun -np 1 "$bin/tricount-count" --input "$work/k${samples##* }.p2.h5" --backend "$backend" > /dev/null
for s in $scales; do for n in $parts_list; do for m in $splits_list; do
  name=k${s}_n${n}_m${m}
  mpirun -np 1 "$bin/tricount-count" --input "$work/k$s.p$n.h5" --backend "$backend" --workload-splits "$m" \
    --journal "$out/journal/$name.journal" --json "$out/report/$name.json" > "$out/report/$name.txt" 2>&1 \
    || log "count $name failed"
done; done; done
log counted
# 3. Fits and predictions. A: fit on scale 24, predict scale 25. B: fit on n = 4, predict
# n = 2 and 8. all: every run (the model for the predictions at scale).
fit() {  # NAME, then journal names
  local model=$1; shift
  local args=()
  for j in "$@"; do args+=(--journal "$out/journal/$j.journal" --report "$out/report/$j.json"); done
  for s in $samples $scales; do args+=(--kronecker-sample "$s=$work/k$s.p2.h5"); done
  "$bin/tricount-simulate" --fit "$out/model_$model.json" --backend "$backend" --device "${DEVICE:-NVIDIA H200}" --storage "page cache" "${args[@]}"
}
predict() {  # MODEL NAME: one 1-GPU prediction of run NAME from its block file
  local s=${2#k}; s=${s%%_*}; local n=${2#*_n}; n=${n%%_*}; local m=${2##*_m}
  "$bin/tricount-simulate" --model "$out/model_$1.json" --input "$work/k$s.p$n.h5" --workload-splits "$m" --gpus 1 \
    --json "$out/predict/$1_$2.json" > /dev/null
}
runs() { for s in $1; do for n in $2; do for m in $splits_list; do echo "k${s}_n${n}_m${m}"; done; done; done; }
first=${scales%% *}
fit A $(runs "$first" "$parts_list")
for r in $(runs "${scales#* }" "$parts_list"); do predict A "$r"; done
fit B $(runs "$scales" 4)
for r in $(runs "$scales" "2 8"); do predict B "$r"; done
fit all $(runs "$scales" "$parts_list")
for r in $(runs "$scales" "$parts_list"); do predict all "$r"; done
log done
tar czf "$out.tgz" -C "$out" . && log "packed $out.tgz"
