#!/bin/bash
# Brings up a one-node Slurm cluster on localhost for tests of `cstsim sweep --slurm`:
# munged, slurmctld and slurmd started directly (no systemd), node "localhost" with every CPU,
# partition "debug". Installs the Debian packages (slurmctld slurmd slurm-client munge) if
# missing. Idempotent: daemons already running are left alone. Must run as root.
#
#   tools/slurm/up.sh            # ~1-2 s when installed; prints "slurm up" once `sinfo` shows the node idle
#   tools/slurm/down.sh          # stops the daemons (by pid file)
#
# State, spool, logs and pid files live in $CSTSIM_SLURM_DIR (default /tmp/cstsim-slurm).
# /etc/slurm/slurm.conf is written only if it is absent or was written by this script.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
D=${CSTSIM_SLURM_DIR:-/tmp/cstsim-slurm}
MARK="# cstsim one-node test cluster (tools/slurm/up.sh)"
CONF=/etc/slurm/slurm.conf

[ "$(id -u)" = 0 ] || { echo "error: tools/slurm/up.sh: must run as root" >&2; exit 1; }
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
   ! command -v munged >/dev/null; then
  echo "installing slurmctld slurmd slurm-client munge" >&2
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge >/dev/null
fi

# munge
if [ ! -s /etc/munge/munge.key ]; then
  install -d -o munge -g munge -m 0700 /etc/munge
  if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key
  else dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; fi
  chown munge:munge /etc/munge/munge.key
  chmod 0600 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge

# slurm.conf
if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
  echo "error: tools/slurm/up.sh: $CONF exists and was not written by this script; not touching it" >&2
  exit 1
fi
CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/{print int($2/1024*0.9)}' /proc/meminfo)
install -d -o slurm -g slurm "$D" "$D/state" "$D/log" "$D/run"
install -d -o root -g root "$D/slurmd"
install -d /etc/slurm
cat > "$CONF.tmp" <<CONF
$MARK
ClusterName=cstsimtest
SlurmctldHost=localhost
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmdSpoolDir=$D/slurmd
StateSaveLocation=$D/state
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
DependencyParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
mv "$CONF.tmp" "$CONF"

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
alive /run/munge/munged.pid || runuser -u munge -- /usr/sbin/munged
for _ in $(seq 1 20); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
munge -n | unmunge >/dev/null || { echo "error: tools/slurm/up.sh: munge does not work" >&2; exit 1; }
alive "$D/run/slurmctld.pid" || /usr/sbin/slurmctld -c
alive "$D/run/slurmd.pid" || /usr/sbin/slurmd -N localhost
for _ in $(seq 1 120); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  case "$state" in
    idle|mixed|allocated) echo "slurm up ($CPUS CPUs, node localhost $state)"; exit 0 ;;
    down*|drain*) scontrol update nodename=localhost state=resume 2>/dev/null || true ;;
  esac
  sleep 0.25
done
echo "error: tools/slurm/up.sh: slurm did not come up (node state '${state:-?}')" >&2
tail -n 20 "$D/log/slurmctld.log" "$D/log/slurmd.log" >&2 || true
exit 1
