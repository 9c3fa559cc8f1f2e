#!/usr/bin/env bash
# The Enron study scripts (tools/replicas-enron.sh, tools/model-checking-enron.sh) cut short, for
# CI: every part runs with one seed, one mask and one release, and every fit with a few sweeps, into
# a scratch directory (LPPF_STUDY_DOCS); then tools/study_smoke_compare.py checks that each table
# has the committed table's columns, its rows and numbers where the committed one has numbers.
# The scripts read lppf's text outputs (fit.toml fields, summary.txt lines, lppf score), so a
# change of those formats would otherwise leave the committed tables impossible to re-make
# without anyone noticing. The numbers themselves are not compared: a fit of a few sweeps is not
# the study's fit. About a minute with debug binaries on 2 cores.
# The same for tools/own-data-demo.sh (docs/own-data.md's fits; without its held-out sweep, which
# the pipeline's tests cover): its fits, copied into a scratch copy of docs/evidence, must still
# be readable by the generators of docs/own-data.md (study_smoke_compare.py --own-data).
# Usage: bash tools/study-smoke.sh [LPPF] [SCORE] [COUNTS_FROM_FIT] (defaults: target/debug/lppf
# and target/debug/examples/{score_against_counts,counts_from_fit}, which `cargo test
# --workspace` builds).
set -euo pipefail
cd "$(dirname "$0")/.."
real_lppf=$(realpath "${1:-target/debug/lppf}")
score=$(realpath "${2:-target/debug/examples/score_against_counts}")
counts_from_fit=$(realpath "${3:-target/debug/examples/counts_from_fit}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# lppf with every fit cut to 8 kept sweeps after 4 of burn-in, whatever schedule the script asks,
# and without the test of the release (about half of such a short fit's time; the scripts' tables
# do not read it, and the pipeline's and the CLI's tests cover it).
cat > "$scratch/lppf" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" != fit ]; then exec "$real_lppf" "\$@"; fi
args=()
skip=0
for a in "\$@"; do
    if [ \$skip = 1 ]; then skip=0; continue; fi
    case \$a in --iterations|--burn-in|--thin) skip=1; continue ;; esac
    args+=("\$a")
done
exec "$real_lppf" "\${args[@]}" --iterations 12 --burn-in 4 --thin 1 --structure-tables 0
EOF
chmod +x "$scratch/lppf"
export LPPF="$scratch/lppf" LPPF_STUDY_DOCS="$scratch/docs" SCORE="$score"
echo "== study smoke: tools/replicas-enron.sh (seed 1)"
SEEDS=1 bash tools/replicas-enron.sh all > "$scratch/replicas.log"
echo "== study smoke: tools/model-checking-enron.sh (mask 1, release 2026)"
MASKS=1 RELEASES=2026 bash tools/model-checking-enron.sh all > "$scratch/model-checking.log"
python3 tools/study_smoke_compare.py docs "$scratch/docs"
echo "== study smoke: tools/own-data-demo.sh (without its held-out sweep)"
OWN_DATA_OUT="$scratch/own-data" OWN_DATA_SWEEP=0 COUNTS_FROM_FIT="$counts_from_fit" \
    bash tools/own-data-demo.sh > "$scratch/own-data.log" 2>&1 || { cat "$scratch/own-data.log"; exit 1; }
cp -r docs/evidence "$scratch/evidence"
bash tools/own-data-evidence.sh "$scratch/own-data" "$scratch/evidence/own-data-fit"
python3 tools/study_smoke_compare.py --own-data "$scratch/evidence"
