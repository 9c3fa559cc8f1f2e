#!/usr/bin/env bash
# Copies the fits of tools/over-time/enron-by-month.sh (FROM, default results/counts-over-time)
# into the evidence folder docs/counts-over-time.md is generated from (TO, default
# docs/evidence/counts-over-time): of each fit, its record, diagnostics, summary and score.
# Used by `just docs`. Usage: bash tools/over-time/evidence.sh [FROM] [TO]
set -euo pipefail
from=${1:-results/counts-over-time}
to=${2:-docs/evidence/counts-over-time}
for dir in "$from"/private "$from"/naive "$from"/non-private "$from"/heldout-*; do
    m=$(basename "$dir")
    mkdir -p "$to/$m"
    for f in fit.toml diagnostics.csv summary.txt score.toml; do
        if [ -f "$dir/$f" ]; then cp "$dir/$f" "$to/$m/"; fi
    done
done
