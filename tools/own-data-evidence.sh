#!/usr/bin/env bash
# Copies the fits of tools/own-data-demo.sh (FROM, default results/own-data) into the evidence
# folder the docs' generators read (TO, default docs/evidence/own-data-fit): of each fit, the
# files docs/own-data.md and docs/model-checking.md quote. Used by `just docs` and, on fits cut
# short, by tools/study-smoke.sh. Usage: bash tools/own-data-evidence.sh [FROM] [TO]
set -euo pipefail
from=${1:-results/own-data}
to=${2:-docs/evidence/own-data-fit}
for m in private naive papers-private papers-naive papers-non-private \
         papers-private-8000 papers-private-eps5 papers-private-model; do
    mkdir -p "$to/$m"
    for f in fit.toml diagnostics.csv checks.csv partition.csv summary.txt; do
        cp "$from/$m/$f" "$to/$m/"
    done
    if [ -f "$from/$m/score.toml" ]; then cp "$from/$m/score.toml" "$to/$m/"; fi
done
