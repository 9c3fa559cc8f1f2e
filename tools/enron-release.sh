# Sourced by the Enron study scripts (tools/model-checking-enron.sh, tools/replicas-enron.sh), from
# the repository's root: sets `lppf` (the binary at $LPPF, or target/release/lppf built here) and
# `dir` (a scratch directory removed on exit) holding `released.csv`, the seeded demonstration
# release of docs/own-data.md (ε = 2, N = 5, privatize seed 2026: NOT private); defines
# `field NAME FILE`, the value of a top-level `NAME = …` line of a TOML file.
if [ -z "${LPPF:-}" ]; then
    cargo build --release -p cli
fi
lppf=${LPPF:-target/release/lppf}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$lppf privatize --input data/enron/network-counts.csv --square --epsilon 2 --precision 5 --seed 2026 \
    --output "$dir/released.csv" 2> /dev/null
field() { grep "^$1 = " "$2" | head -1 | sed 's/^[a-z0-9_]* = //'; }
