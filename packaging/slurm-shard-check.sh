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
# temporary folder, listen on two free ports from 16817 up (SLURM_CHECK_PORT changes where the
# search starts), and are stopped at the end, whatever happened). Needs no systemd and no daemon
# already running: munged, slurmctld and slurmd are started here and only these are stopped, so
# a Slurm or munge of the machine's own, or one left by an earlier run, is neither used nor
# touched. Every wait is bounded: the whole check ends within SLURM_CHECK_TIMEOUT seconds
# (default 110). `.ci/run` runs it on every change. Exit status 0 when the merge equals the
# one-machine audit, 1 when it differs, 2 when Slurm could not be started or the job failed.
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
limit=${SLURM_CHECK_TIMEOUT:-110}
started=$SECONDS
state=$(mktemp -d /tmp/vidorient-slurm.XXXXXX)
chmod 755 "$state"
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
say() { echo "slurm-shard-check: $*" >&2; }
# Seconds left of the whole check's time, at least 1.
left() { local n=$((limit - (SECONDS - started))); [ "$n" -ge 1 ] && echo "$n" || echo 1; }
# The daemons' logs, when something went wrong.
logs() { tail -n 8 "$state"/munge/munged.log "$state"/slurmctld.log "$state"/slurmd.log >&2 2>/dev/null || true; }

cleanup() {
  status=$?
  trap - EXIT INT TERM
  # The job first (its tasks are children of slurmstepd, not of the daemons), then the daemons
  # this run started, by the ids they wrote: TERM, and KILL for any still there after 5 s.
  # (This cluster's controller is ours alone: nothing else is cancelled.)
  if [ -s "$state/slurmctld.pid" ]; then timeout 5 scancel --name=orientation-audit 2>/dev/null || true; fi
  pids=()
  for daemon in slurmd slurmctld munged; do
    [ -s "$state/$daemon.pid" ] && pids+=("$(cat "$state/$daemon.pid")")
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=()
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    [ ${#alive[@]} -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${alive[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [ -z "${SLURM_CHECK_KEEP:-}" ]; then rm -rf "$state"; else say "kept $state"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# Two free ports in a row (nothing answers on them), from SLURM_CHECK_PORT up: a daemon of an
# earlier run, or the machine's own Slurm, keeps its ports and this run takes others.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${SLURM_CHECK_PORT:-16817}
for _ in $(seq 100); do
  listening "$port" || listening $((port + 1)) || break
  port=$((port + 2))
done
if listening "$port" || listening $((port + 1)); then say "no two free ports found from ${SLURM_CHECK_PORT:-16817}"; exit 2; fi

# munge: its own key, socket and files, run as root (--force: not the munge user).
mkdir -m 700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
timeout 10 /usr/sbin/munged --force --socket="$state/munge/socket" --key-file="$state/munge/munge.key" \
  --log-file="$state/munge/munged.log" --pid-file="$state/munged.pid" --seed-file="$state/munge/seed" || {
  say "munged did not start:"
  logs
  exit 2
}
for _ in $(seq 100); do [ -S "$state/munge/socket" ] && break; sleep 0.1; done
[ -S "$state/munge/socket" ] || { say "munged made no socket"; logs; exit 2; }

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
# Each daemon forks into the background once it has read its configuration; the start itself is
# bounded, and so is every client call below (a client waits on a controller that is not there).
for daemon in slurmctld slurmd; do
  timeout 15 "/usr/sbin/$daemon" -f "$SLURM_CONF" || { say "$daemon did not start:"; logs; exit 2; }
done
up() { timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; }
# A daemon that died (a port taken between the search and its bind, say) ends the wait at once.
dead() { [ -s "$state/$1.pid" ] && ! kill -0 "$(cat "$state/$1.pid")" 2>/dev/null; }
for _ in $(seq 90); do
  up && break
  dead slurmctld || dead slurmd && break
  sleep 0.5
done
up || {
  say "the node did not come up:"
  timeout 5 sinfo >&2 || true
  logs
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
# sbatch --wait ends with the array, its status the worst task's; bounded by the check's time
# (a job left running is cancelled by the clean-up).
timeout "$(left)" sbatch --parsable --wait "$state/audit.sbatch" > "$state/job" || {
  say "the job array failed or did not finish in time:"
  tail -n 5 "$state"/out/audit-*.log >&2 || true
  logs
  exit 2
}
job=$(cut -d';' -f1 "$state/job")
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
