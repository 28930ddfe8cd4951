#!/usr/bin/env bash
# A single-node Slurm cluster for tests (recipe: PLATFORM.md), entirely under
# DIR: slurm.conf, state, spool, logs and pid files. Needs root (slurmd runs
# jobs as their submitting user) and Debian's slurm-wlm + munge.
#   slurm_cluster.sh start DIR PORT   # PORT and PORT+1: slurmctld and slurmd
#                                     # (or the next free pair above them)
#   slurm_cluster.sh stop DIR
# After start, SLURM_CONF=DIR/slurm.conf points sbatch, squeue, ... at it;
# the node answers `srun` within seconds. munged is started if none runs
# (it is machine-wide and left running; it holds no state).
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?DIR}
fail() { echo "slurm_cluster: $*" >&2; exit 1; }

if [[ $cmd == stop ]]; then
  # Jobs first: slurmd going away leaves their processes behind.
  if [[ -f $dir/slurm.conf ]]; then
    export SLURM_CONF=$dir/slurm.conf
    # Each client call is bounded: one waits ~9 s for a controller that is
    # not there, and the daemons must be stopped all the same.
    ids=$(timeout 5 squeue -h -o %i 2>/dev/null || true)
    if [[ -n $ids ]]; then
      # shellcheck disable=SC2086
      timeout 5 scancel $ids 2>/dev/null || true
      for _ in $(seq 50); do [[ -z $(timeout 2 squeue -h -o %i 2>/dev/null || true) ]] && break; sleep 0.1; done
    fi
  fi
  for d in slurmd slurmctld; do
    if [[ -f $dir/$d.pid ]]; then
      pid=$(cat "$dir/$d.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  exit 0
fi
[[ $cmd == start ]] || fail "unknown command $cmd"
port=${3:?PORT}
[[ $(id -u) -eq 0 ]] || fail "needs root (slurmd runs jobs as their user); run the test as root"
for t in slurmctld slurmd munged sbatch; do
  command -v "$t" >/dev/null || fail "$t not found: apt-get install slurm-wlm munge (scripts/setup does)"
done

if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
  [[ -f /etc/munge/munge.key ]] || mungekey --create >/dev/null 2>&1 || fail "cannot create /etc/munge/munge.key"
  chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
  runuser -u munge -- munged || fail "munged did not start"
fi

mkdir -p "$dir"/{state,spool,log}
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
write_conf() {  # $1: slurmctld's port; slurmd's is the next one
  cat > "$dir/slurm.conf" <<CONF
ClusterName=accelopt-test
SlurmctldHost=$host
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ReturnToService=2
MinJobAge=600
KillWait=2
InactiveLimit=0
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}
logs() { for f in "$dir"/log/*.log; do echo "--- $f"; tail -n 8 "$f"; done 2>/dev/null; }
listening() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }
# Waits until daemon $1 (it daemonizes and writes $dir/$1.pid) listens on
# port $2. Returns 0 when it does, 2 when the port was taken (the caller
# moves to other ports), and fails on any other death or after
# 60 s. A connect probe returns at once, unlike sinfo, which waits ~9 s for
# a controller that is not there.
await_listening() {
  local name=$1 port=$2 pid=
  for _ in $(seq 600); do
    if listening "$port"; then return 0; fi
    # slurmctld dies on a taken port; slurmd stays and retries the bind.
    if grep -q "Address already in use" "$dir/log/$name.log" 2>/dev/null; then return 2; fi
    [[ -z $pid && -s $dir/$name.pid ]] && pid=$(cat "$dir/$name.pid")
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then fail "$name died on start: $(logs)"; fi
    sleep 0.1
  done
  fail "$name did not listen on port $port within 60 s: $(logs)"
}
stop_daemons() {
  for d in slurmd slurmctld; do
    [[ -s $dir/$d.pid ]] || continue
    pid=$(cat "$dir/$d.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$d.pid"
  done
}
export SLURM_CONF=$dir/slurm.conf
# The port pair may be taken (a listener, or an outgoing connection's local
# port): then both daemons are stopped and the next pair is tried.
for attempt in $(seq 0 9); do
  p=$((port + 2 * attempt))
  if listening "$p" || listening $((p + 1)); then
    echo "slurm_cluster: port $p or $((p + 1)) has a listener; trying the next pair" >&2
    continue
  fi
  write_conf "$p"
  rm -f "$dir"/log/*.log "$dir"/*.pid
  slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start: $(logs)"
  rc=0; await_listening slurmctld "$p" || rc=$?
  if [[ $rc -eq 0 ]]; then
    slurmd -c -f "$SLURM_CONF" || fail "slurmd did not start: $(logs)"
    rc=0; await_listening slurmd $((p + 1)) || rc=$?
    [[ $rc -eq 0 ]] && break
  fi
  echo "slurm_cluster: port $p or $((p + 1)) is taken; trying the next pair" >&2
  stop_daemons
done
[[ $rc -eq 0 && -s $dir/slurmd.pid ]] || fail "no free port pair from $port to $p: $(logs)"
deadline=$((SECONDS + 60))
while [[ $SECONDS -lt $deadline ]]; do
  if timeout 5 sinfo -h -o %T 2>/dev/null | grep -qx idle; then exit 0; fi
  sleep 0.5
done
fail "the node did not become idle within 60 s: $(timeout 10 sinfo 2>&1 | tail -2); $(logs)"
