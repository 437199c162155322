# shellcheck shell=bash disable=SC2034  # sets variables for the scripts that source it
# Shared by the job scripts in slurm/ (sourced; not a job script itself).
#
# Site settings, all environment variables with defaults (set them before sbatch: sbatch
# passes the environment on; or edit the defaults here once for a site):
#
#   TRICOUNT_MODULES         modules to `module load` before anything runs: the MPI, HDF5,
#                            Boost and CUDA runtimes the build used. Default: none.
#                            Summit-like example: "gcc/12 openmpi/4.1 hdf5/1.12 cuda/12 boost/1.74"
#   TRICOUNT_GPUS_PER_NODE   GPUs per node = worker ranks per node. Default: what the job
#                            was given (--gpus-per-node, SLURM_GPUS_ON_NODE), else 6 (Summit).
#   TRICOUNT_SRUN_MPI        srun --mpi plugin that starts the MPI ranks. Default: pmix
#                            (Open MPI 4/5; PMI2 does not work with Debian's Open MPI).
#   TRICOUNT_GPU_BIND        how a worker gets its GPU, the two conventions of current clusters:
#                            none (default): the step asks for no GPUs per task and binds none;
#                              every rank sees the node's GPUs and a worker takes the one its
#                              node-local worker rank names (SLURM_LOCALID less the scheduler on
#                              the first node), through slurm/gpu_select.sh;
#                            closest: srun --gpus-per-task=1 --gpu-bind=closest: Slurm gives each
#                              rank one GPU near its cores (it sees only that one). The scheduler
#                              rank then holds a GPU slot too (a step gives every task the same
#                              GPUs), so the first node runs GPUs-per-node - 1 workers.
#   TRICOUNT_CPUS_PER_RANK   cores per rank (srun -c). Default: cores per GPU, the node's cores /
#                            GPUs per node (closest), or / (GPUs per node + 1) with none, so
#                            that the node holding the scheduler still fits (42 / 7 = 6 on
#                            Summit); at least 1, and srun --overcommit when even 1 does not fit.
#   TRICOUNT_STAGE_DIR       node-local folder (NVMe: /mnt/bb/$USER, /local/scratch, $TMPDIR) to
#                            copy the block file to before counting (tricount_stage, sbcast);
#                            empty (default): read it where it is.
#   TRICOUNT_SRUN_ARGS       extra srun options for every count, e.g. "--cpu-bind=cores".
#   TRICOUNT_HOME            the tricount checkout. Default: found from the submitted script.
#   TRICOUNT_BIN             folder of tricount-count and friends. Default: TRICOUNT_HOME/build/bin,
#                            else PREFIX/bin when the scripts were installed (cmake --install:
#                            PREFIX/share/tricount/slurm), else the folder of tricount-count on PATH.
#
# Account, partition, time, node count and GPU request are sbatch options: give them on the
# command line (sbatch -A ACCOUNT -p PARTITION -t 1:00:00 -N 4 --gpus-per-node=6 ...) or
# as SBATCH_ACCOUNT, SBATCH_PARTITION, SBATCH_TIMELIMIT in the environment; both override the
# #SBATCH defaults in the scripts.

tricount_log() { echo "[$(date '+%F %T')] $*"; }
tricount_die() { echo "tricount: error: $1" >&2; exit "${2:-1}"; }
# JSON values for the results files: a string, a list of numbers, a list of strings.
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
json_list() { local IFS=,; echo "[$*]"; }
json_strs() { local out=() a; for a in "$@"; do out+=("$(json_str "$a")"); done; local IFS=,; echo "[${out[*]}]"; }

# Loads modules, lets Open MPI run as root (containers, CI), finds the programs, and sets
# TRICOUNT_NODES (the job's node names, in order), TRICOUNT_GPUS_PER_NODE and
# TRICOUNT_SLOTS (nodes x GPUs per node).
tricount_setup() {
  if [ -n "${TRICOUNT_MODULES:-}" ]; then
    set +u  # module systems read unset variables
    if ! type module >/dev/null 2>&1; then
      for init in /etc/profile.d/lmod.sh /etc/profile.d/modules.sh /usr/share/lmod/lmod/init/bash; do
        # shellcheck disable=SC1090
        [ -f "$init" ] && . "$init" && break
      done
    fi
    type module >/dev/null 2>&1 || tricount_die "TRICOUNT_MODULES is set but there is no 'module' command"
    # shellcheck disable=SC2086
    module load $TRICOUNT_MODULES || tricount_die "module load $TRICOUNT_MODULES failed"
    set -u
  fi
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  if [ -z "${TRICOUNT_BIN:-}" ]; then
    if [ -x "$TRICOUNT_HOME/build/bin/tricount-count" ]; then
      TRICOUNT_BIN=$TRICOUNT_HOME/build/bin
    elif [ -x "$TRICOUNT_HOME/../../bin/tricount-count" ]; then  # installed: PREFIX/share/tricount
      TRICOUNT_BIN=$(cd "$TRICOUNT_HOME/../../bin" && pwd)
    elif command -v tricount-count >/dev/null 2>&1; then
      TRICOUNT_BIN=$(dirname "$(command -v tricount-count)")
    else
      tricount_die "no tricount-count in $TRICOUNT_HOME/build/bin or on PATH: build first (scripts/build) or set TRICOUNT_BIN"
    fi
  fi
  [ -x "$TRICOUNT_BIN/tricount-count" ] || tricount_die "no tricount-count in TRICOUNT_BIN=$TRICOUNT_BIN"
  export TRICOUNT_BIN

  [ -n "${SLURM_JOB_ID:-}" ] || tricount_die "not inside a Slurm job: submit with sbatch (or run inside salloc)"
  # shellcheck disable=SC2207
  TRICOUNT_NODES=($(scontrol show hostnames "${SLURM_JOB_NODELIST:?}"))
  [ ${#TRICOUNT_NODES[@]} -gt 0 ] || tricount_die "cannot list the job's nodes ($SLURM_JOB_NODELIST)"
  if [ -z "${TRICOUNT_GPUS_PER_NODE:-}" ]; then
    local given=${SLURM_GPUS_PER_NODE:-${SLURM_GPUS_ON_NODE:-}}
    given=${given##*:}  # "a100:4" -> 4
    if [[ $given =~ ^[0-9]+$ ]] && [ "$given" -gt 0 ]; then
      TRICOUNT_GPUS_PER_NODE=$given
    else
      TRICOUNT_GPUS_PER_NODE=6
    fi
  fi
  [[ $TRICOUNT_GPUS_PER_NODE =~ ^[1-9][0-9]*$ ]] || tricount_die "TRICOUNT_GPUS_PER_NODE='$TRICOUNT_GPUS_PER_NODE' is not a positive number"
  TRICOUNT_SLOTS=$((${#TRICOUNT_NODES[@]} * TRICOUNT_GPUS_PER_NODE))
}

# tricount_layout G W NODE... : the host of each of the W + 1 ranks, one a line, for
# srun --distribution=arbitrary. Rank 0, the scheduler, goes to the first node next to that
# node's workers: it needs a core, not a GPU. Worker w (rank w + 1) goes to node w / G, so
# that the workers of a node are its node-local ranks 0..G-1 among workers, and
# tricount-count gives each its own GPU (node-local worker rank mod GPUs).
# With TRICOUNT_GPU_BIND=closest the scheduler takes one of the first node's G slots.
tricount_layout() {
  local g=$1 w=$2
  shift 2
  local nodes=("$@")
  local first
  first=$(tricount_scheduler_slots) || exit 2
  local need=$(((w + first + g - 1) / g))
  [ "$need" -le ${#nodes[@]} ] ||
    tricount_die "$w workers at $g GPUs per node need $need nodes ($(tricount_gpu_bind) binding); the job has ${#nodes[@]}"
  echo "${nodes[0]}"
  local k
  for ((k = 0; k < w; ++k)); do echo "${nodes[(k + first) / g]}"; done
}

# The binding style (none or closest; anything else is refused).
tricount_gpu_bind() {
  case ${TRICOUNT_GPU_BIND:-none} in
    none | closest) echo "${TRICOUNT_GPU_BIND:-none}" ;;
    *) tricount_die "TRICOUNT_GPU_BIND='$TRICOUNT_GPU_BIND' is not none or closest" 2 ;;
  esac
}
# GPU slots the scheduler rank holds: 1 when Slurm binds a GPU to every task.
tricount_scheduler_slots() {
  local bind
  bind=$(tricount_gpu_bind) || exit 2
  if [ "$bind" = closest ]; then echo 1; else echo 0; fi
}

# tricount_stage FILE : copies FILE to TRICOUNT_STAGE_DIR on every node of the job (sbcast,
# one read of the shared file system, a tree broadcast to the nodes) and prints the local
# path, the same on every node; prints FILE itself when TRICOUNT_STAGE_DIR is empty.
tricount_stage() {
  local file=$1
  if [ -z "${TRICOUNT_STAGE_DIR:-}" ]; then echo "$file"; return 0; fi
  local local_path=$TRICOUNT_STAGE_DIR/tricount-$SLURM_JOB_ID-$(basename "$file")
  srun --ntasks-per-node=1 --nodes="${#TRICOUNT_NODES[@]}" mkdir -p "$TRICOUNT_STAGE_DIR" >&2 ||
    tricount_die "cannot make TRICOUNT_STAGE_DIR=$TRICOUNT_STAGE_DIR on every node"
  sbcast --force --preserve "$file" "$local_path" >&2 ||
    tricount_die "sbcast of $file to $local_path failed (is TRICOUNT_STAGE_DIR node-local and large enough?)"
  echo "$local_path"
}
# tricount_unstage PATH : removes a staged copy from every node (nothing when not staged).
tricount_unstage() {
  [ -n "${TRICOUNT_STAGE_DIR:-}" ] && [[ $1 == "$TRICOUNT_STAGE_DIR"/tricount-* ]] || return 0
  srun --ntasks-per-node=1 --nodes="${#TRICOUNT_NODES[@]}" rm -f "$1" || true
}

# tricount_srun W LABEL -- COMMAND ARGS... : runs COMMAND as one scheduler rank plus W worker
# ranks (one per GPU) as a job step. LABEL names the step in the log and its hostfile.
tricount_srun() {
  local w=$1 label=$2
  shift 2
  [ "${1:-}" = "--" ] && shift
  local g=$TRICOUNT_GPUS_PER_NODE
  local hostfile="${TMPDIR:-/tmp}/tricount-hosts.$SLURM_JOB_ID.$label"
  tricount_layout "$g" "$w" "${TRICOUNT_NODES[@]}" > "$hostfile" || exit 1
  local bind slots
  bind=$(tricount_gpu_bind) || exit 2
  slots=$(tricount_scheduler_slots) || exit 2
  local nodes_used=$(((w + slots + g - 1) / g)) rc=0
  # Cores per rank (-c): cores per GPU; with no binding the first node holds the scheduler
  # beside up to G workers.
  local cores=${SLURM_CPUS_ON_NODE:-1}
  local ranks_per_node=$((g + 1 - slots))
  local on_first=$((w + 1 < ranks_per_node ? w + 1 : ranks_per_node))
  local cpus=${TRICOUNT_CPUS_PER_RANK:-$((cores / ranks_per_node))}
  [ "$cpus" -ge 1 ] || cpus=1
  local extra=() launch=()
  if [ $((cpus * on_first)) -gt "$cores" ]; then
    extra+=(--overcommit)
  fi
  if [ "$bind" = closest ]; then
    extra+=(--gpus-per-task=1 --gpu-bind=closest)
  else
    launch=("$TRICOUNT_HOME/slurm/gpu_select.sh")
  fi
  # shellcheck disable=SC2206
  extra+=(${TRICOUNT_SRUN_ARGS:-})
  tricount_log "step $label: 1 scheduler + $w workers on $nodes_used node(s) ($g GPUs per node, GPU binding $bind, $cpus cores per rank${extra[*]:+, ${extra[*]}}): ranks -> $(paste -sd' ' "$hostfile")"
  SLURM_HOSTFILE=$hostfile srun --ntasks=$((w + 1)) --nodes="$nodes_used" --distribution=arbitrary \
    --cpus-per-task="$cpus" --mpi="${TRICOUNT_SRUN_MPI:-pmix}" --kill-on-bad-exit=1 "${extra[@]}" "${launch[@]}" "$@" || rc=$?
  rm -f "$hostfile"
  return $rc
}

# tricount_has_option NAME ARGS... : true when ARGS hold NAME or NAME=...
tricount_has_option() {
  local name=$1 a
  shift
  for a in "$@"; do
    [ "$a" = "$name" ] || [[ $a == "$name="* ]] && return 0
  done
  return 1
}
