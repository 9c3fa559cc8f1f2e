#!/usr/bin/env bash
# A real Slurm in CI: installs Debian's slurm-wlm and munge if missing, starts a single-node
# controller and compute daemon of its own on this machine, and checks that
#   1. the scripts `lppf slurm` writes run under Slurm (4 array tasks, then the merge) and give
#      results bit-identical to a single-process run (`lppf diff`);
#   2. after one array task is killed mid-unit (scancel), the merge fails with a log that lists
#      the missing units, and running submit.sh again completes the design with the same
#      identical results (the log lines of the tasks that helped with the missing units are shown);
#   3. all of it from a directory whose name holds quotes, a command substitution, spaces and
#      Slurm's % patterns: the scripts reach the right manifest and run nothing else.
# Its Slurm has its own configuration, state, ports and pid files in a temporary directory
# (SLURM_CONF points Slurm's commands at it), so a Slurm the machine already runs is neither read
# nor touched; at exit it stops only the daemons it started. Needs root (it installs packages
# and starts daemons). Usage: tools/slurm/ci.sh path/to/lppf
set -euo pipefail
LPPF=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=slurm-test
JOB=lppf-$NAME
SLURM_HOME=$(mktemp -d /tmp/lppf-slurm.XXXXXX)
export SLURM_CONF=$SLURM_HOME/slurm.conf
started_munge=""

step() { echo "== slurm: $*"; }

# Stops the daemons start_slurm started (by their pid files), and nothing else, and waits (up to
# 10 s each) until they have exited: a munged still shutting down would be taken for a running one
# by the next run, whose Slurm would then find no munge socket.
stop_slurm() {
    local pids=() pid
    for pidfile in "$SLURM_HOME/slurmd.pid" "$SLURM_HOME/slurmctld.pid"; do
        if [ -f "$pidfile" ]; then pids+=("$(cat "$pidfile")"); fi
    done
    if [ -n "$started_munge" ] && [ -f /run/munge/munged.pid ]; then
        pids+=("$(cat /run/munge/munged.pid)")
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.2
        done
    done
    rm -rf "$SLURM_HOME"
}

start_slurm() {
    if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
        step "installing slurm-wlm and munge"
        apt-get update -qq > /dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > /dev/null
    fi
    if ! pgrep -x munged > /dev/null; then
        mkdir -p /run/munge && chown munge:munge /run/munge
        runuser -u munge -- /usr/sbin/munged
        started_munge=1
        for _ in $(seq 1 50); do
            [ -S /run/munge/munge.socket.2 ] && break
            sleep 0.2
        done
    fi
    local host
    host=$(hostname)
    mkdir -p "$SLURM_HOME/ctld" "$SLURM_HOME/d"
    # Ports of its own (Slurm's defaults are 6817 and 6818), so that it cannot meet another.
    cat > "$SLURM_CONF" <<CONF
ClusterName=lppf-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$SLURM_HOME/ctld
SlurmdSpoolDir=$SLURM_HOME/d
SlurmctldPidFile=$SLURM_HOME/slurmctld.pid
SlurmdPidFile=$SLURM_HOME/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmctldLogFile=$SLURM_HOME/slurmctld.log
SlurmdLogFile=$SLURM_HOME/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 1 30); do
        sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
        sleep 1
    done
    echo "slurm did not come up: $(sinfo 2>&1); $(tail -n 5 "$SLURM_HOME"/*.log 2>&1)" >&2
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

work=$(mktemp -d)
trap 'stop_slurm; rm -rf "$work"' EXIT
start_slurm
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
    echo "the merge wrote results although a task was killed" >&2
    exit 1
fi
merge_log=$(ls -t "slurm/$NAME/logs/lppf-$NAME-merge-"*.log | head -1)
if ! grep -q "not done" "$merge_log" || ! grep -q "submit.sh again" "$merge_log"; then
    echo "the merge's log does not list the missing units: $(cat "$merge_log")" >&2
    exit 1
fi
step "the merge failed, and its log says why: $(grep -o 'not done.\{0,100\}' "$merge_log" | head -1)"
rm -f "slurm/$NAME/logs/"*.log
bash "slurm/$NAME/submit.sh"
wait_for_design
"$LPPF" diff "$work/reference/results/$NAME/results.parquet" "results/$NAME/results.parquet"
step "after the re-submission: identical to the single-process run"
# Which tasks helped with the killed task's units depends on when each started (the runner's
# tests check the spreading itself), so this is shown, not asserted.
step "tasks of the rerun that helped: $(grep -ho 'computed [0-9]* unit(s) of other shards' "slurm/$NAME/logs/"*.log | tr '\n' ';' || true)"
# Every script runs in (or cd's to) the project directory, inside $work.
if [ -n "$(find "$work" -name PWNED)" ]; then
    echo "a script ran a command from the directory's name" >&2
    exit 1
fi
ls "slurm/$NAME/logs/" | grep -q "^lppf-$NAME-[0-9]*_0.log$" || { echo "no log of task 0 in slurm/$NAME/logs: $(ls "slurm/$NAME/logs")" >&2; exit 1; }
step "the hostile directory name ran nothing and every log is where it belongs"
