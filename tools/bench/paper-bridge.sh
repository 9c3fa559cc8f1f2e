#!/bin/bash
# The sweep benchmarks of two builds, interleaved on one machine (BENCHMARKS.md, "Against the
# paper's code at the end of issue 34"): OLD is the bench binary of the commit whose speed the
# paper's Cython was measured against (1b49ca1), NEW the one to compare. Rounds alternate which
# binary goes first. Each binary is `target/release/deps/gibbs-*`, as printed by
# `cargo bench -p benches --bench gibbs --no-run` (build the old one in its own worktree and
# CARGO_TARGET_DIR; commits before 2026-11-29 had the benchmark in `-p inference`). Criterion's output goes to stdout; tools/bench/criterion_medians.py turns it
# into a CSV.
#
#   tools/bench/paper-bridge.sh OLD NEW [ROUNDS...] > bridge.log
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_BENCH_BINARY NEW_BENCH_BINARY [ROUND...]" >&2
  exit 2
fi
old=$1 new=$2
shift 2
rounds=("$@")
[ ${#rounds[@]} -gt 0 ] || rounds=(1 2 3)
cases=("topic 1000x1000 K=50 alpha=1/e/(private|naive|private collapsed)/1 thread"
       "block V=161 C=10 alpha=0.5/(private|naive|private collapsed)/1 thread")
for round in "${rounds[@]}"; do
  if [ $((round % 2)) = 1 ]; then order=(old new); else order=(new old); fi
  for case in "${cases[@]}"; do
    for which in "${order[@]}"; do
      if [ "$which" = old ]; then binary=$old; else binary=$new; fi
      echo "== round $round $which $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
      "$binary" --bench --sample-size 20 --measurement-time 6 --warm-up-time 2 "$case" 2>&1 |
        grep -E '^(topic|block)|time:'
    done
  done
done
