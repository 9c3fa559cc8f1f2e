#!/usr/bin/env bash
# A real Slurm in CI (issue 37): installs Debian's slurm-wlm and munge if missing, starts a
# single-node controller and compute daemon on this machine, and checks that
#   1. the scripts `lppf slurm` writes run under Slurm (4 array tasks, then the merge) and give
#      results bit-identical to a single-process run (`lppf diff`);
#   2. after one array task is killed mid-unit (scancel), the merge is cancelled, and running
#      submit.sh again completes the design with the same identical results;
#   3. all of it from a directory whose name holds quotes, a command substitution, spaces and
#      Slurm's % patterns: the scripts reach the right manifest and run nothing else.
# Needs root (it installs packages and starts daemons). Usage: tools/slurm/ci.sh path/to/lppf
set -euo pipefail
LPPF=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=slurm-test
JOB=lppf-$NAME

step() { echo "== slurm: $*"; }

start_slurm() {
    if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
        step "installing slurm-wlm and munge"
        apt-get update -qq > /dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > /dev/null
    fi
    if ! pgrep -x munged > /dev/null; then
        mkdir -p /run/munge && chown munge:munge /run/munge
        runuser -u munge -- /usr/sbin/munged
    fi
    local host
    host=$(hostname)
    # A cluster of its own: fresh state directories, and any daemons of an earlier configuration
    # stopped (this is a CI machine's throwaway Slurm).
    pkill -x slurmctld || true
    pkill -x slurmd || true
    sleep 1
    rm -rf /var/spool/lppf-slurm
    mkdir -p /etc/slurm /var/spool/lppf-slurm/ctld /var/spool/lppf-slurm/d /var/log/slurm
    cat > /etc/slurm/slurm.conf <<EOF
ClusterName=lppf-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/lppf-slurm/ctld
SlurmdSpoolDir=/var/spool/lppf-slurm/d
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    slurmctld
    slurmd
    for _ in $(seq 1 30); do
        sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
        sleep 1
    done
    echo "slurm did not come up: $(sinfo 2>&1)" >&2
    exit 1
}

# Waits (up to 10 minutes) until no job of the design is queued or running.
wait_for_design() {
    for _ in $(seq 1 300); do
        [ -z "$(squeue -h -n "$JOB" -o %i)" ] && return 0
        sleep 2
    done
    echo "jobs of $JOB still queued after 10 minutes: $(squeue)" >&2
    exit 1
}

start_slurm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A hostile name: if any script pasted it into shell code, PWNED would appear.
cluster="$work/it's a \"dir\" \$(touch PWNED) %x %%"
mkdir -p "$work/reference" "$cluster"
cp "$HERE/slurm-test.toml" "$work/reference/"
cp "$HERE/slurm-test.toml" "$cluster/"

step "a single-process run for reference"
(cd "$work/reference" && "$LPPF" run "$NAME.toml" --quiet)

step "lppf slurm, 4 tasks, and submit.sh"
cd "$cluster"
start=$(date +%s)
"$LPPF" slurm "$NAME.toml" --tasks 4 --cpus-per-task 1
bash "slurm/$NAME/submit.sh"
# While its jobs are queued, a second submit.sh refuses (squeue's %Z of the hostile directory must
# match the directory exactly) and submits nothing.
if again=$(bash "slurm/$NAME/submit.sh" 2>&1); then
    echo "submit.sh submitted again while the design's jobs were queued: $again" >&2
    exit 1
fi
echo "$again" | grep -q "still queued or running" || { echo "submit.sh failed otherwise: $again" >&2; exit 1; }
step "a second submit.sh while they run refuses"
wait_for_design
"$LPPF" diff "$work/reference/results/$NAME/results.parquet" "results/$NAME/results.parquet"
step "identical to the single-process run ($(( $(date +%s) - start )) s under Slurm)"

step "a task killed mid-unit, then submit.sh again"
rm -rf "results/$NAME"
bash "slurm/$NAME/submit.sh"
victim=""
for _ in $(seq 1 150); do
    # A running array task that holds a unit claim is computing a unit now.
    victim=$(squeue -h -n "$JOB" -t RUNNING -o %i | grep _ | head -1 || true)
    if [ -n "$victim" ] && compgen -G "results/$NAME/units/*.claim" > /dev/null; then
        break
    fi
    victim=""
    sleep 0.2
done
[ -n "$victim" ] || { echo "no array task was caught running a unit" >&2; exit 1; }
scancel --signal=KILL "$victim"
step "killed $victim"
wait_for_design
if [ -f "results/$NAME/results.parquet" ]; then
    echo "the merge ran although a task was killed" >&2
    exit 1
fi
missing=$("$LPPF" run "$NAME.toml" --merge-only --quiet 2>&1 || true)
echo "$missing" | grep -q "not done" || { echo "the merge did not refuse: $missing" >&2; exit 1; }
step "the merge refuses: ${missing:0:160}"
bash "slurm/$NAME/submit.sh"
wait_for_design
"$LPPF" diff "$work/reference/results/$NAME/results.parquet" "results/$NAME/results.parquet"
step "after the re-submission: identical to the single-process run"
# Every script runs in (or cd's to) the project directory, inside $work.
if [ -n "$(find "$work" -name PWNED)" ]; then
    echo "a script ran a command from the directory's name" >&2
    exit 1
fi
ls "slurm/$NAME/logs/" | grep -q "^lppf-$NAME-[0-9]*_0.log$" || { echo "no log of task 0 in slurm/$NAME/logs: $(ls "slurm/$NAME/logs")" >&2; exit 1; }
step "the hostile directory name ran nothing and every log is where it belongs"
