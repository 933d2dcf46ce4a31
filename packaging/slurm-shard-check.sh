#!/usr/bin/env bash
# Runs `vidorient audit --shard K/4` as a Slurm job array on a single-node Slurm started here
# (slurmctld and slurmd on this machine, munge for authentication), merges the four parts and
# checks that the merged result is the one-machine audit of the same folder, line for line.
#
#   sudo packaging/slurm-shard-check.sh [LIBRARY] [VIDORIENT]
#
# LIBRARY: the folder to audit (default TestMedia). VIDORIENT: the binary (default
# .build/release/vidorient, else the one on PATH). Needs root (slurmd starts jobs as their user)
# and Debian's slurm-wlm and munge (`apt-get install slurm-wlm munge`; nothing else on the machine
# is configured: the daemons read a slurm.conf, a munge key and a socket of their own under a
# temporary folder, listen on ports 16817/16818 (SLURM_CHECK_PORT changes the first), and are
# stopped at the end). Not run in CI (it starts daemons); run by hand, as docs/audit.md says.
# Exit status 0 when the merge equals the one-machine audit, 1 when it differs, 2 when Slurm
# could not be started or the job failed.
set -euo pipefail
cd "$(dirname "$0")/.."

library=$(realpath "${1:-TestMedia}")
vidorient=${2:-.build/release/vidorient}
[ -x "$vidorient" ] || vidorient=$(command -v vidorient || true)
[ -n "$vidorient" ] && [ -x "$vidorient" ] || { echo "slurm-shard-check: no vidorient binary (build it, or name one)" >&2; exit 2; }
vidorient=$(realpath "$vidorient")
for tool in slurmctld slurmd sbatch squeue sacct munged; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || {
    echo "slurm-shard-check: $tool is missing: apt-get install slurm-wlm munge" >&2
    exit 2
  }
done
[ "$(id -u)" = 0 ] || { echo "slurm-shard-check: run as root (slurmd starts jobs as their user)" >&2; exit 2; }

shards=4
port=${SLURM_CHECK_PORT:-16817}
state=$(mktemp -d /tmp/vidorient-slurm.XXXXXX)
chmod 755 "$state"
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
say() { echo "slurm-shard-check: $*" >&2; }

cleanup() {
  [ -f "$state/slurmd.pid" ] && kill "$(cat "$state/slurmd.pid")" 2>/dev/null || true
  [ -f "$state/slurmctld.pid" ] && kill "$(cat "$state/slurmctld.pid")" 2>/dev/null || true
  [ -f "$state/munged.pid" ] && kill "$(cat "$state/munged.pid")" 2>/dev/null || true
  sleep 1
  if [ -z "${SLURM_CHECK_KEEP:-}" ]; then rm -rf "$state"; else say "kept $state"; fi
}
trap cleanup EXIT

# munge: its own key, socket and files, run as root (--force: not the munge user).
mkdir -m 700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
/usr/sbin/munged --force --socket="$state/munge/socket" --key-file="$state/munge/munge.key" \
  --log-file="$state/munge/munged.log" --pid-file="$state/munged.pid" --seed-file="$state/munge/seed"

# A one-node cluster: this machine, all its cores, no cgroups (process tracking by /proc).
mkdir -p "$state/ctld" "$state/spool" "$state/out"
cat > "$state/slurm.conf" <<EOF
ClusterName=vidorient-check
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$state/slurm.conf
/usr/sbin/slurmctld -f "$SLURM_CONF"
/usr/sbin/slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 1
done
sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)' || {
  say "the node did not come up:"
  sinfo >&2 || true
  tail -5 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
  exit 2
}
say "single-node Slurm up: $(sinfo -h -o '%N %c CPUs %T')"

# The job array: one shard per task, each bound to its cores (task/affinity); vidorient's default
# --jobs is the cores the task may use (its affinity mask). Exit 1 (findings) is a result.
cat > "$state/audit.sbatch" <<EOF
#!/bin/sh
#SBATCH --job-name=orientation-audit
#SBATCH --array=1-$shards
#SBATCH --cpus-per-task=1
#SBATCH --output=$state/out/audit-%a.log
echo "shard \$SLURM_ARRAY_TASK_ID/$shards on \$(hostname -s), cores allowed: \$(nproc)"
"$vidorient" audit "$library" --jsonl --no-progress \\
  --shard "\$SLURM_ARRAY_TASK_ID/$shards" > "$state/out/part-\$SLURM_ARRAY_TASK_ID.jsonl"
test \$? -le 1
EOF
start=$(date +%s.%N)
job=$(sbatch --parsable --wait "$state/audit.sbatch") || {
  say "the job array failed:"
  tail -n 5 "$state"/out/audit-*.log >&2 || true
  exit 2
}
end=$(date +%s.%N)
say "job array $job: $shards tasks done in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
for k in $(seq "$shards"); do
  [ -f "$state/out/part-$k.jsonl" ] || { say "shard $k wrote nothing"; exit 2; }
  say "  $(head -1 "$state/out/audit-$k.log"): $(wc -l < "$state/out/part-$k.jsonl") files"
done

# The merge, and the one-machine audit it must equal (the order of lines aside).
cat "$state"/out/part-*.jsonl | LC_ALL=C sort > "$state/merged.jsonl"
set +e
"$vidorient" audit "$library" --jsonl --no-progress > "$state/one.jsonl"
status=$?
set -e
[ "$status" -le 1 ] || { say "the one-machine audit failed ($status)"; exit 2; }
LC_ALL=C sort -o "$state/one.jsonl" "$state/one.jsonl"
if cmp -s "$state/merged.jsonl" "$state/one.jsonl"; then
  say "merged: $(wc -l < "$state/merged.jsonl") files, equal to the one-machine audit"
  exit 0
fi
say "the merged result differs from the one-machine audit:"
diff "$state/merged.jsonl" "$state/one.jsonl" | head -20 >&2
exit 1
