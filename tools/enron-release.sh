# Sourced by the Enron study scripts (tools/model-checking-enron.sh, tools/replicas-enron.sh), from
# the repository's root: sets `lppf` (the binary at $LPPF, or target/release/lppf built here) and
# `dir` (a scratch directory removed on exit) holding `released.csv`, the seeded demonstration
# release of docs/own-data.md (ε = 2, N = 5, privatize seed 2026: NOT private); defines
# `field NAME FILE`, the value of a top-level `NAME = …` line of a TOML file; `diagnostic FIT
# QUANTITY COLUMN`, field COLUMN (2 = R̂, 3 = bulk ESS) of QUANTITY's row of a fit's
# diagnostics.csv; `sweep_only`, the options every study fit passes: `--hamiltonian-move off`, as
# when the committed tables were made (before the directed block model's Gibbs fits ran the move
# by default), so the scripts still make them; and `docs`, where the tables and figures go: docs/ (its data/ and figures/), or
# $LPPF_STUDY_DOCS (tools/study-smoke.sh points it at a scratch directory so that a smoke run
# leaves the committed tables alone).
if [ -z "${LPPF:-}" ]; then
    cargo build --release -p lppf-cli
fi
lppf=${LPPF:-target/release/lppf}
sweep_only=(--hamiltonian-move off)
docs=${LPPF_STUDY_DOCS:-docs}
mkdir -p "$docs/data" "$docs/figures"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$lppf privatize --input data/enron/network-counts.csv --square --epsilon 2 --precision 5 --seed 2026 \
    --output "$dir/released.csv" 2> /dev/null
# A missing line (or row) is said on stderr and gives `<missing NAME>`, which no table column accepts
# (tools/study_smoke_compare.py refuses it, and printf '%.1f' fails on it).
first_line() {  # PATTERN FILE NAME: the first line of FILE matching PATTERN, or fails as above
    grep -m 1 "$1" "$2" && return 0
    echo "$2 has no line matching '$1'" >&2
    echo "<missing $3>"
    return 1
}
field() {
    local line
    if line=$(first_line "^$1 = " "$2" "$1"); then echo "${line#"$1 = "}"; else echo "$line"; fi
}
diagnostic() {
    local line
    if line=$(first_line "^$2," "$1/diagnostics.csv" "$2"); then echo "$line" | cut -d, -f"$3"; else echo "$line"; fi
}
