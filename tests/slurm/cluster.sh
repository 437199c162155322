#!/usr/bin/env bash
# A real one-node Slurm cluster for the tests, in a directory of its own: its own munged,
# slurmctld and slurmd, its own slurm.conf, spool, state, log and socket files, and its own
# ports. Nothing under /etc or /var is touched, and nothing of a Slurm or munge already
# running on the machine is used or disturbed.
#
#   tests/slurm/cluster.sh check             exit 0 when this machine can run one; else print
#                                            the reason on one line and exit 3
#   tests/slurm/cluster.sh start DIR [GPUS] [--owner PID]
#                                            bring one up in DIR (created; empty or absent)
#                                            and wait until its node is idle. GPUS (default
#                                            3): count-only gres/gpu on the node, so that job
#                                            scripts can ask for --gpus-per-node as on a
#                                            GPU cluster (no device files: nothing is bound).
#                                            Prints the line to source, "export SLURM_CONF=...",
#                                            and writes it to DIR/env too. --owner PID: a
#                                            watchdog stops the cluster when PID ends (a test
#                                            killed before its teardown leaves nothing behind).
#   tests/slurm/cluster.sh stop DIR          stop every daemon that `start DIR` started (by
#                                            the pids it recorded) and wait for them to go.
#                                            Safe to run twice, or after a failed start.
#   tests/slurm/cluster.sh status DIR        sinfo and squeue of that cluster
#
# Needs the Debian packages slurm-wlm (slurmctld, slurmd, slurm-client) and munge. Runs as
# root (munged then runs as the munge user, the Slurm daemons as root); as another user,
# every daemon runs as that user, which is enough for jobs of that same user.
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

check() {
  local missing=()
  for p in slurmctld slurmd sbatch srun scontrol sinfo munged; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Slurm/munge programs missing (${missing[*]}): install the Debian packages slurm-wlm and munge (scripts/test does)"
    return 3
  fi
  if ! ls /usr/lib/*/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 && ! ls /usr/lib/slurm/mpi_pmix*.so >/dev/null 2>&1; then
    echo "Slurm's PMIx plugin (mpi_pmix.so, package slurm-wlm-basic-plugins) is missing"
    return 3
  fi
  return 0
}

# Two TCP ports nobody listens on, from a random spot in 20000..29999.
free_ports() {
  python3 - <<'EOF'
import random, socket
found = []
for port in random.sample(range(20000, 30000), 400):
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("0.0.0.0", port))
        found.append(port)
    except OSError:
        continue
    if len(found) == 2:
        break
print(*found)
EOF
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

wait_for_file() {  # FILE SECONDS
  local i
  for ((i = 0; i < $2 * 10; ++i)); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

start() {
  local dir=${1:-} gpus=3 owner=""
  [ -n "$dir" ] || die "start needs a directory"
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --owner) owner=${2:?--owner needs a pid}; shift 2 ;;
      *) gpus=$1; shift ;;
    esac
  done
  [[ $gpus =~ ^[0-9]+$ ]] || die "GPUS '$gpus' is not a number"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  local reason
  reason=$(check) || die "$reason"
  # A start that fails half-way stops what it started.
  STARTING_DIR=$dir
  trap 'stop "$STARTING_DIR" >/dev/null 2>&1' EXIT

  local me runas_munge=()
  me=$(id -un)
  mkdir -p "$dir"/{etc,munge,state,spool,log,run,tmp}
  # munged and the job steps must reach into the directory (mkdtemp makes it 0700).
  chmod 0755 "$dir" "$dir"/{etc,state,spool,log,run}
  chmod 1777 "$dir/tmp"
  if [ "$(id -u)" -eq 0 ] && getent passwd munge >/dev/null; then
    chown munge: "$dir/munge"
    runas_munge=(runuser -u munge --)
    "${runas_munge[@]}" test -x "$dir/munge" ||
      die "the munge user cannot reach $dir/munge: a folder above it is closed to others (chmod o+x)"
  fi
  chmod 0700 "$dir/munge"

  if [ -n "$owner" ]; then
    # Detached, with no inherited descriptors: whoever captures our output is not held up.
    # shellcheck disable=SC2016  # $1.. are the arguments of the inner bash
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" stop "$3"' \
      watchdog "$owner" "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$dir" \
      </dev/null >>"$dir/log/watchdog.log" 2>&1 &
    echo $! > "$dir/run/watchdog.pid"
  fi

  # munge: a key of our own, a socket of our own.
  "${runas_munge[@]}" dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  "${runas_munge[@]}" chmod 0400 "$dir/munge/munge.key"
  "${runas_munge[@]}" munged --force \
    --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" --num-threads=10 </dev/null >/dev/null 2>&1 ||
    die "munged did not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)"
  wait_for_file "$dir/munge/munged.pid" 10 || die "munged wrote no pid file"
  cp "$dir/munge/munged.pid" "$dir/run/munged.pid"
  # the socket must be usable by the job steps and clients of this user
  munge -n -S "$dir/munge/munge.socket" | unmunge -S "$dir/munge/munge.socket" >/dev/null ||
    die "munged does not answer on $dir/munge/munge.socket"

  # The node as slurmd sees it: configuring more CPUs or memory than there are leaves it
  # 'inval'.
  local node_line node host ctld_port slurmd_port
  node_line=$(slurmd -C | head -n 1)
  node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node_line")
  [ -n "$node" ] || die "slurmd -C printed no NodeName line"
  host=$(uname -n)
  read -r ctld_port slurmd_port <<<"$(free_ports)"
  [ -n "$slurmd_port" ] || die "found no free ports"

  : > "$dir/etc/plugstack.conf"
  # gres/gpu drops GPUs without device files; links to /dev/null stand in for them.
  mkdir -p "$dir/dev" "$dir/spool/$node"
  local k
  for ((k = 0; k < gpus; ++k)); do ln -s /dev/null "$dir/dev/gpu$k"; done
  if [ "$gpus" -gt 0 ]; then
    echo "NodeName=$node Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" > "$dir/etc/gres.conf"
  else
    : > "$dir/etc/gres.conf"
  fi
  cat > "$dir/etc/slurm.conf" <<EOF
# Written by tests/slurm/cluster.sh: a one-node test cluster in $dir.
ClusterName=tricounttest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/etc/plugstack.conf
TmpFS=$dir/tmp
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=512
GresTypes=gpu
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
InactiveLimit=0
KillWait=5
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=60
$node_line NodeAddr=127.0.0.1 NodeHostname=$host $( [ "$gpus" -gt 0 ] && echo "Gres=gpu:$gpus") State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/etc/slurm.conf
  echo "export SLURM_CONF=$SLURM_CONF" > "$dir/env"

  slurmctld -i -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1 || die "slurmctld did not start: $(tail -n 5 "$dir/log/slurmctld.log" 2>/dev/null)"
  wait_for_file "$dir/run/slurmctld.pid" 20 || die "slurmctld wrote no pid file: $(tail -n 5 "$dir/log/slurmctld.log")"
  slurmd -f "$SLURM_CONF" -N "$node" </dev/null >>"$dir/log/slurmd.out" 2>&1 || die "slurmd did not start: $(tail -n 5 "$dir/log/slurmd.log" 2>/dev/null)"
  wait_for_file "$dir/run/slurmd.pid" 20 || die "slurmd wrote no pid file: $(tail -n 5 "$dir/log/slurmd.log")"

  # Wait for the node to come up idle; resume it once if it came up down or drained.
  local state="" i resumed=0
  for ((i = 0; i < 120; ++i)); do
    state=$(timeout 10 sinfo -h -n "$node" -o '%T' 2>/dev/null | head -n 1 || true)
    case $state in
      idle) break ;;
      inval*) break ;;  # the configuration does not fit the node: resuming does not help
      down*|drain*)
        if [ $resumed -eq 0 ] && [ $i -ge 6 ]; then
          scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true
          resumed=1
        fi ;;
    esac
    sleep 0.5
  done
  [ "$state" = idle ] ||
    die "node $node is '${state:-unknown}', not idle: $(scontrol show node "$node" 2>&1 | grep -i reason || true); $(tail -n 5 "$dir/log/slurmd.log")"
  trap - EXIT
  echo "export SLURM_CONF=$SLURM_CONF"
}

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  local pid i
  # Jobs first, so that no job step outlives the cluster.
  if [ -s "$dir/etc/slurm.conf" ] && pid_alive "$(cat "$dir/run/slurmctld.pid" 2>/dev/null)"; then
    export SLURM_CONF=$dir/etc/slurm.conf
    local jobs
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      timeout 10 scancel $jobs 2>/dev/null || true
      for ((i = 0; i < 150; ++i)); do
        [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  # Slurm clients of this cluster that are still waiting (the sbatch --wait of a test that
  # was killed): they would poll a controller that is gone.
  local p
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2>/dev/null) in sbatch|srun|salloc|sattach) ;; *) continue ;; esac
    if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$dir/etc/slurm.conf"; then
      kill -TERM "${p#/proc/}" 2>/dev/null || true
    fi
  done
  local watchdog
  watchdog=$(cat "$dir/run/watchdog.pid" 2>/dev/null || true)
  if [ -n "$watchdog" ] && [ "$watchdog" != "$$" ] && [ "$watchdog" != "$PPID" ] && pid_alive "$watchdog"; then
    kill -TERM "$watchdog" 2>/dev/null || true
  fi
  local name pids=()
  for name in slurmd slurmctld munged; do
    pid=$(cat "$dir/run/$name.pid" 2>/dev/null || cat "$dir/munge/$name.pid" 2>/dev/null || true)
    if pid_alive "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  local alive=()
  for ((i = 0; i < 100; ++i)); do
    alive=()
    for pid in "${pids[@]}"; do pid_alive "$pid" && alive+=("$pid"); done
    [ ${#alive[@]} -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${alive[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  # A slurmstepd of this cluster that is still there (a job that would not end) holds a
  # file of this cluster open (its log): end it and its job's processes.
  local fd
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
    for fd in "$p"/fd/*; do
      case $(readlink "$fd" 2>/dev/null) in
        "$dir"/*)
          pid=${p#/proc/}
          # the job's processes (slurmstepd's children) first, then slurmstepd
          local c
          for c in /proc/[0-9]*/stat; do
            [ "$(awk '{print $4}' "$c" 2>/dev/null)" = "$pid" ] && kill -KILL "$(basename "$(dirname "$c")")" 2>/dev/null || true
          done
          kill -KILL "$pid" 2>/dev/null || true
          break ;;
      esac
    done
  done
  return 0
}

status() {
  local dir=$1
  export SLURM_CONF=$dir/etc/slurm.conf
  sinfo
  squeue
}

cmd=${1:-}
shift || true
case $cmd in
  check) check ;;
  start) start "$@" ;;
  stop) stop "$@" ;;
  status) status "$@" ;;
  *) echo "usage: $0 check | start DIR [GPUS] | stop DIR | status DIR" >&2; exit 2 ;;
esac
