#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, on loopback, from Debian's
# packages (slurmctld, slurmd, slurm-client, munge), to run nbcguard through
# srun as on a site's cluster:
#   bash tools/slurm-cluster.sh start    munged, slurmctld, slurmd; waits until the node is idle
#   bash tools/slurm-cluster.sh status   exit 0 when the node answers (sinfo), 3 when not started
#   bash tools/slurm-cluster.sh stop     stops what start started, removes the state directory
# start and stop are idempotent. Everything lives in one state directory
# (NBCGUARD_SLURM_DIR, default /var/tmp/nbcguard-slurm): slurm.conf, a munge
# key generated for this cluster, the daemons' pid, log and state files.
# /etc/slurm/slurm.conf is made a link to that slurm.conf while the cluster
# runs, so srun, sinfo, squeue work in any shell without SLURM_CONF; start
# refuses to run where a slurm.conf of another cluster is already there.
# The daemons are started directly (no systemd), as root; the node is this
# host (short host name) with the CPUs and memory `slurmd -C` finds.
# Ports: NBCGUARD_SLURM_PORTS="<slurmctld> <slurmd>", default "6817 6818".
set -uo pipefail

dir=${NBCGUARD_SLURM_DIR:-/var/tmp/nbcguard-slurm}
read -r ctld_port d_port <<<"${NBCGUARD_SLURM_PORTS:-6817 6818}"
etc_conf=/etc/slurm/slurm.conf
conf=$dir/slurm.conf
node=$(hostname -s)
daemons=(slurmd slurmctld munged)  # stop order; start is the reverse

die() { echo "slurm-cluster: $*" >&2; exit 1; }
say() { echo "slurm-cluster: $*"; }

pid_of() {  # pid_of DAEMON: its pid if its pid file names a live process of that name
  local f="$dir/$1.pid" pid
  [ -s "$f" ] || return 1
  pid=$(tr -dc '0-9' < "$f")
  [ -n "$pid" ] && [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = "$1" ] && echo "$pid"
}

log_tails() {
  local f
  for f in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [ -f "$f" ] || continue
    echo "---- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

node_state() { sinfo --noheader --nodes="$node" --format=%t 2>/dev/null | head -n 1; }

our_link() { [ -L "$etc_conf" ] && [ "$(readlink "$etc_conf")" = "$conf" ]; }

start() {
  local missing=() cmd
  for cmd in munged mungekey slurmctld slurmd sinfo srun; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
  done
  [ ${#missing[@]} -eq 0 ] || die "not installed: ${missing[*]} (bash tools/install-deps.sh installs slurmctld slurmd slurm-client munge)"
  [ "$(id -u)" -eq 0 ] || die "start needs root (the daemons run as root: SlurmUser=root)"
  if [ -e "$etc_conf" ] || [ -L "$etc_conf" ]; then
    if ! our_link; then
      [ -L "$etc_conf" ] && [[ "$(readlink "$etc_conf")" == */slurm.conf ]] && [ -f "$(dirname "$(readlink "$etc_conf")")/munge.key" ] &&
        die "$etc_conf links to $(readlink "$etc_conf"): a cluster of this script with another NBCGUARD_SLURM_DIR runs; stop it first"
      die "$etc_conf exists and is not this script's: this machine has a Slurm configuration of its own; use that cluster, or move the file away"
    fi
  fi
  if [ -d "$dir" ]; then
    if pid_of munged >/dev/null && pid_of slurmctld >/dev/null && pid_of slurmd >/dev/null; then
      say "already running ($dir); node $node: $(node_state)"
      return 0
    fi
    say "$dir holds a cluster that is not (fully) running: stopping what is left first"
    stop
  fi
  local port
  for port in "$ctld_port" "$d_port"; do
    if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
      die "TCP port $port is taken (by: $(ss -Hltnp "sport = :$port" | sed 's/.*users://' | head -n 1)); set NBCGUARD_SLURM_PORTS=\"<slurmctld> <slurmd>\" to free ports"
    fi
  done

  mkdir -p "$dir" "$dir/ctld" "$dir/spool" || die "cannot create $dir"
  chmod 0700 "$dir"
  # munge: a key of this cluster's own, socket and files in the state dir.
  mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 || die "mungekey could not create $dir/munge.key"
  chmod 0400 "$dir/munge.key"
  munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
         --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
    || { log_tails; die "munged did not start"; }

  local hw
  hw=$(slurmd -C 2>/dev/null | head -n 1 | sed 's/^NodeName=[^ ]* *//')
  [ -n "$hw" ] || die "slurmd -C could not describe this node"
  cat > "$conf" <<EOF
# Written by tools/slurm-cluster.sh: a one-node cluster on loopback.
ClusterName=nbcguard
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups here: processes tracked by parentage, tasks bound by
# sched_setaffinity (srun --cpu-bind) without a cgroup.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerType=sched/backfill
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  ln -sfn "$conf" "$etc_conf" || die "cannot link $etc_conf to $conf"

  slurmctld -f "$conf" || { log_tails; die "slurmctld did not start"; }
  slurmd -f "$conf" -N "$node" || { log_tails; die "slurmd did not start"; }

  local t state=""
  for t in $(seq 1 60); do
    state=$(node_state)
    case "$state" in
      idle) say "running: node $node idle (${hw%% Boards*}, RealMemory ${hw##*RealMemory=}); state in $dir"
            return 0 ;;
    esac
    sleep 0.5
  done
  log_tails
  die "node $node is not idle after 30 s (sinfo state: '${state:-no answer}')"
}

stop() {
  if [ ! -d "$dir" ]; then
    our_link && rm -f "$etc_conf"
    say "not running (no $dir)"
    return 0
  fi
  # Jobs still running on this throwaway cluster end with it.
  if pid_of slurmctld >/dev/null; then
    local jobs
    jobs=$(squeue --noheader --format=%i 2>/dev/null | tr '\n' ' ')
    [ -n "${jobs// }" ] && scancel $jobs 2>/dev/null
  fi
  local d pid t failed=()
  for d in "${daemons[@]}"; do
    pid=$(pid_of "$d") || continue
    kill "$pid" 2>/dev/null
    for t in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null
      sleep 0.2
      kill -0 "$pid" 2>/dev/null && failed+=("$d ($pid)")
    fi
    say "stopped $d ($pid)"
  done
  [ ${#failed[@]} -eq 0 ] || die "could not stop ${failed[*]}; $dir kept"
  our_link && rm -f "$etc_conf"
  rm -rf "$dir"
  say "stopped; removed $dir"
}

status() {
  if [ ! -d "$dir" ]; then
    say "not running (no $dir)"
    return 3
  fi
  local d pid rc=0
  for d in munged slurmctld slurmd; do
    if pid=$(pid_of "$d"); then say "$d running ($pid)"; else say "$d NOT running"; rc=1; fi
  done
  if our_link; then
    sinfo --nodes="$node" || rc=1
  else
    say "$etc_conf does not point to $conf"; rc=1
  fi
  return $rc
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: bash tools/slurm-cluster.sh start|stop|status (got '${1:-}')" >&2; exit 2 ;;
esac
