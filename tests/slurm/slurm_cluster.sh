#!/usr/bin/env bash
# A single-node Slurm cluster for tests (recipe: PLATFORM.md), entirely under
# DIR: slurm.conf, state, spool, logs and pid files. Needs root (slurmd runs
# jobs as their submitting user) and Debian's slurm-wlm + munge.
#   slurm_cluster.sh start DIR PORT   # PORT and PORT+1: slurmctld and slurmd
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
    ids=$(squeue -h -o %i 2>/dev/null || true)
    if [[ -n $ids ]]; then
      # shellcheck disable=SC2086
      scancel $ids 2>/dev/null || true
      for _ in $(seq 100); do [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.1; done
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
cat > "$dir/slurm.conf" <<CONF
ClusterName=accelopt-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
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
export SLURM_CONF=$dir/slurm.conf
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start; see $dir/log/slurmctld.log"
slurmd -c -f "$SLURM_CONF" || fail "slurmd did not start; see $dir/log/slurmd.log"
for _ in $(seq 150); do
  if sinfo -h -o %T 2>/dev/null | grep -qx idle; then exit 0; fi
  sleep 0.2
done
fail "the node did not become idle within 30 s: $(sinfo 2>&1 | tail -2); logs in $dir/log"
