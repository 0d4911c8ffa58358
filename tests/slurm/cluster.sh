#!/usr/bin/env bash
# A private single-node Slurm cluster in one directory, for tests that need real Slurm
# (Debian 12's slurmctld/slurmd/slurm-client 22.05 and munge 0.5.15, installed by ./setup.sh).
#
#   tests/slurm/cluster.sh check            exit 0 if this machine can run a cluster, else
#                                           print "skip: <reason>" on stderr and exit 77
#   tests/slurm/cluster.sh start DIR        create DIR, start munged + slurmctld + slurmd in
#                                           it, wait until the node is idle
#   tests/slurm/cluster.sh env DIR          print the `export` lines that point sbatch, squeue,
#                                           scancel, scontrol and sinfo at the cluster
#                                           (SLURM_CONF), and NGB_SLURM_JOBS: a directory
#                                           for job output that any user may write to, and
#                                           NGB_MUNGE_SOCKET (for munge -S / unmunge -S)
#   tests/slurm/cluster.sh stop DIR [--clean]
#                                           cancel its jobs, stop its daemons (and any job
#                                           step daemon left behind); --clean removes DIR
#
# Exit codes: 0 done, 77 this machine cannot run a cluster (automake's "skipped"), 1 failure
# (start prints the daemons' log tails), 2 usage. Nothing outside DIR is written or read,
# apart from the installed binaries and plugins: its own munge key, munge socket, ports,
# state, spool, pid and log files. The system's munge/slurm services (which Debian's
# packages try to start and which may or may not be running) are neither used nor touched.
#
# Why the slurm.conf below looks as it does:
#   AuthInfo=socket=...       auth/munge and cred/munge both talk to our munged, not to
#                             /run/munge; client commands read the same file via SLURM_CONF.
#   SlurmctldHost=NAME(127.0.0.1), NodeAddr=127.0.0.1
#                             NAME is what `slurmd -C` calls this node (slurmd finds its
#                             NodeName line by that name); the address avoids relying on DNS.
#   SlurmctldPort/SlurmdPort  free ports picked at start, so that clusters (and a system
#                             Slurm on 6817/6818) do not collide.
#   SelectType=select/cons_tres + CR_CPU
#                             one CPU is the unit: a 3-task array of 1-CPU tasks runs 2 at
#                             once on 2 cores, instead of one whole node per task.
#   ProctrackType=proctrack/linuxproc, TaskPlugin=task/none
#                             no cgroups: containers often have none to delegate.
#   SlurmUser=root, SlurmdUser=root
#                             the test runs as root (check enforces it); slurmd must be root
#                             to run jobs as the submitting user anyway.
#   ReturnToService=2         a node that was down comes back by itself when slurmd
#                             registers with a valid configuration.
#   accounting_storage/none, jobacct_gather/none, JobCompType=jobcomp/none
#                             no slurmdbd/database: so no sacct; poll squeue/scontrol.
#   MinJobAge=300             finished jobs stay visible for 5 min to `scontrol show job` and
#                             `squeue -t all` (COMPLETED, CANCELLED, FAILED...), which stands
#                             in for sacct.
#   SchedulerParameters=batch_sched_delay=0,sched_interval=1
#                             start batch jobs at once rather than up to 3 s later: a 3-task
#                             array of trivial jobs takes 3 s instead of 6 s.
#   MailProg=/bin/true        otherwise slurmctld logs "Configured MailProg is invalid".
#   RealMemory from `slurmd -C`; more than the node has would drain it.
# What failed on the way and how it was fixed:
#   munged: "Socket is inaccessible: execute permissions for all required on DIR": the
#   socket's directory must be o+x, so DIR is chmod 0755 (mktemp -d makes it 0700). munged
#   runs as root here without --force; the key must be owned by that user, mode 0400/0600.
#   A slurmstepd whose slurmd is gone dies on SIGTERM and leaves its job running, so stop
#   kills the stray step daemons together with their descendants. Where pid 1 reaps orphans
#   late, a stopped daemon stays a zombie for a while; kill -0 succeeds on it, so "running"
#   looks at ps's state instead.
#   The daemons log "can not load PMIx library" (the mpi/pmix plugin is installed without
#   libpmix) and, on a first start, missing state files: both harmless.
# What a test can count on (measured on 2 cores): start 0.1-1.3 s; a 3-task array of 1-CPU
# trivial tasks 3 s from sbatch to an empty squeue (2 run at once); stop 0.2-0.5 s.
# `sbatch --parsable` prints the array's job id alone ("4", no cluster name). A task sees
# SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_MAX/_STEP, SLURM_CPUS_PER_TASK,
# SLURM_CPUS_ON_NODE, SLURM_JOB_CPUS_PER_NODE and its own SLURM_JOB_ID (not the array's).
# `scancel JOB_1` ends task 1 only: `squeue -t all` then shows 4_1 CANCELLED (scontrol:
# ExitCode=0:15) while 4_0 and 4_2 go on RUNNING, and task 1's output ends with
# "*** JOB <id> ON <node> CANCELLED AT ...". No GresTypes is configured, so `--gres=gpu:1`
# is refused at submission ("Invalid generic resource (gres) specification").
# Several clusters may run side by side (own ports and directories); restarting one on the
# same DIR keeps its jobs and job ids (StateSaveLocation).
set -euo pipefail

SKIP=77
die() { echo "cluster.sh: $*" >&2; exit 1; }
usage() { sed -n '5,16p' "$0" >&2; exit 2; }

# check: whether this machine can run a private cluster. Prints the reason on stderr.
check() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "skip: not root (slurmd must run as root to start jobs)" >&2; return $SKIP
  fi
  local b
  for b in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
    command -v "$b" >/dev/null 2>&1 || {
      echo "skip: $b is not installed (./setup.sh installs slurmctld slurmd slurm-client munge)" >&2
      return $SKIP
    }
  done
}

abspath() { mkdir -p "$1" && (cd "$1" && pwd -P); }

# Two free TCP ports on 127.0.0.1, held open together so that they differ.
free_ports() {
  python3 - <<'EOF'
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))
EOF
}

# Whether a pid runs. A zombie does not: pid 1 of some containers reaps orphans late, and
# kill -0 succeeds on a zombie.
running() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s:0:1}" != Z ]; }
alive() { [ -f "$1" ] && running "$(cat "$1")"; }
now_us() { local t=${EPOCHREALTIME//[.,]/}; echo "${t#0}"; }   # microseconds
elapsed() { local d=$(( $(now_us) - $1 )); printf '%d.%d' $((d / 1000000)) $((d % 1000000 / 100000)); }

tails() {  # the last lines of every log, for a failed start
  local f
  for f in "$D"/log/*; do
    [ -s "$f" ] || continue
    # a daemon's stderr repeats its log, apart from what it said before opening the log
    [[ $f == *.out && -s ${f%.out}.log ]] && continue
    echo "----- $f" >&2; tail -n 15 "$f" >&2
  done
}

# A start that fails stops what it started and leaves DIR (with its logs) for inspection.
fail() {
  tails
  local f
  for f in slurmd slurmctld munged; do
    alive "$D/run/$f.pid" && kill -KILL "$(cat "$D/run/$f.pid")" 2>/dev/null
  done
  rm -f "$D"/run/*.pid
  die "$@"
}

print_env() {
  echo "export SLURM_CONF=$D/slurm.conf"
  # munge's client tools (not Slurm, which reads AuthInfo) take the socket as an option:
  echo "export NGB_MUNGE_SOCKET=$D/munge/munge.socket"
  # a directory every user may write job output to:
  echo "export NGB_SLURM_JOBS=$D/jobs"
}

start() {
  local t0; t0=$(now_us)
  mkdir -p "$D"
  D=$(abspath "$D")
  if alive "$D/run/slurmctld.pid" || alive "$D/run/slurmd.pid" || alive "$D/run/munged.pid"; then
    die "a cluster is already running in $D (cluster.sh stop $D)"
  fi
  chmod 0755 "$D"
  mkdir -p "$D"/{munge,run,log,state,spool,jobs}
  chmod 0755 "$D/munge"   # munged requires its socket's directory to be o+x
  chmod 0777 "$D/jobs"    # job output, writable by whichever user submits

  # 1. munge, with its own key and socket.
  rm -f "$D/munge/munge.key"
  mungekey --create --keyfile="$D/munge/munge.key"
  chmod 0400 "$D/munge/munge.key"
  munged --socket="$D/munge/munge.socket" --key-file="$D/munge/munge.key" \
         --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
         --seed-file="$D/munge/munged.seed" \
    || fail "munged did not start"

  # 2. slurm.conf (see the header for each setting).
  local node cpus_line ctl_port d_port
  cpus_line=$(slurmd -C | head -n 1)                 # NodeName=vm CPUs=2 ... RealMemory=...
  node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$cpus_line")
  [ -n "$node" ] || die "cannot read the node's name from 'slurmd -C': $cpus_line"
  read -r ctl_port d_port < <(free_ports)
  cat >"$D/slurm.conf" <<EOF
# Generated by tests/slurm/cluster.sh for a private single-node cluster.
ClusterName=ngbtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=300
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
$cpus_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  sed -i 's/ UpTime=[^ ]*//' "$D/slurm.conf"   # `slurmd -C` may put UpTime on the line
  export SLURM_CONF=$D/slurm.conf

  # 3. The daemons, in the foreground (-D) of background jobs in their own sessions, so that
  # they outlive this script and a failure to start shows as a dead pid.
  setsid slurmctld -D -f "$SLURM_CONF" >"$D/log/slurmctld.out" 2>&1 </dev/null &
  echo $! >"$D/run/slurmctld.pid"; disown $!
  setsid slurmd -D -f "$SLURM_CONF" >"$D/log/slurmd.out" 2>&1 </dev/null &
  echo $! >"$D/run/slurmd.pid"; disown $!

  # 4. Wait until the node is idle.
  local state="" deadline=$((SECONDS + ${NGB_SLURM_START_TIMEOUT:-30}))
  while :; do
    alive "$D/run/slurmctld.pid" || fail "slurmctld exited during start-up"
    alive "$D/run/slurmd.pid" || fail "slurmd exited during start-up"
    state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    if [ $SECONDS -ge "$deadline" ]; then
      fail "node $node not idle after ${NGB_SLURM_START_TIMEOUT:-30} s (state '${state:-no answer}')"
    fi
    sleep 0.5
  done
  echo "cluster.sh: cluster up in $D (node $node, ports $ctl_port/$d_port) in $(elapsed "$t0") s" >&2
}

# slurmstepd processes of this cluster (they outlive slurmd by design), recognised by this
# cluster's SLURM_CONF in their environment, and all their descendants (the jobs).
strays() {
  local p todo=() found=()
  for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
    { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$D/slurm.conf" &&
      todo+=("$p")
  done
  while [ ${#todo[@]} -gt 0 ]; do
    p=${todo[0]}; todo=("${todo[@]:1}"); found+=("$p")
    # shellcheck disable=SC2207
    todo+=($(pgrep -P "$p" 2>/dev/null || true))
  done
  echo "${found[@]}"
}

stop() {
  local t0; t0=$(now_us)
  [ -d "$D" ] || die "no such directory: $D"
  D=$(abspath "$D")
  export SLURM_CONF=$D/slurm.conf
  local deadline
  # 1. Cancel every job while slurmctld and slurmd can still end them properly.
  if alive "$D/run/slurmctld.pid"; then
    local jobs; jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ' || true)
    if [ -n "${jobs// }" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      deadline=$((SECONDS + 10))
      while [ -n "$(squeue -h 2>/dev/null || true)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    fi
  fi
  # 2. The daemons: TERM, then KILL after 10 s.
  local pids="" f p
  for f in slurmd slurmctld munged; do
    alive "$D/run/$f.pid" && pids+=" $(cat "$D/run/$f.pid")"
  done
  # shellcheck disable=SC2086
  [ -z "${pids// }" ] || kill -TERM $pids 2>/dev/null || true
  deadline=$((SECONDS + 10))
  for p in $pids; do
    while running "$p" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    if running "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
  done
  # 3. Whatever job is left (slurmd gone before its job ended): a slurmstepd that gets TERM
  # dies without its job, so the whole tree is collected first and killed at once.
  pids=$(strays)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || { echo "cluster.sh: killing stray job processes $pids" >&2; kill -KILL $pids 2>/dev/null || true; }
  rm -f "$D"/run/*.pid
  if [ "${1:-}" = --clean ]; then rm -rf "$D"; fi
  echo "cluster.sh: stopped$([ "${1:-}" = --clean ] && echo " and removed") $D in $(elapsed "$t0") s" >&2
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case "$cmd" in
  check) check ;;
  start) [ $# -eq 1 ] || usage; check || exit $?; D=$1; start ;;
  stop)  if [ $# -eq 1 ] || { [ $# -eq 2 ] && [ "$2" = --clean ]; }; then D=$1; stop "${2:-}"
         else usage; fi ;;
  env)   [ $# -eq 1 ] || usage; D=$(cd "$1" && pwd -P) || die "no such directory: $1"; print_env ;;
  *) usage ;;
esac
