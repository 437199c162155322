#!/usr/bin/env bash
# Launch wrapper for TRICOUNT_GPU_BIND=none (slurm/lib.sh): Slurm bound no GPU to this rank,
# so it picks its own from SLURM_LOCALID before exec'ing the program. The layout puts the
# scheduler (rank 0) first on node 0, so a worker's GPU there is its local id less one; the
# scheduler counts nothing and is left as it is. A rank with one visible GPU then takes it
# (tricount-count: device = node-local worker rank mod visible devices).
#   usage: gpu_select.sh PROGRAM ARGS...
set -eu
[ $# -ge 1 ] || { echo "gpu_select.sh: error: no program to run" >&2; exit 2; }
local_id=${SLURM_LOCALID:?gpu_select.sh runs under srun (no SLURM_LOCALID)}
if [ "${SLURM_PROCID:-0}" -ne 0 ]; then
  [ "${SLURM_NODEID:-0}" -eq 0 ] && local_id=$((local_id - 1))
  # Slurm lists the GPUs the step may use (or none, or NoDevFiles for count-only GPUs).
  if [ -z "${CUDA_VISIBLE_DEVICES:-}" ] || [ "${CUDA_VISIBLE_DEVICES}" = "NoDevFiles" ]; then
    export CUDA_VISIBLE_DEVICES=$local_id
  else
    IFS=, read -r -a visible <<<"$CUDA_VISIBLE_DEVICES"
    export CUDA_VISIBLE_DEVICES=${visible[local_id % ${#visible[@]}]}
  fi
fi
exec "$@"
