#!/usr/bin/env bash
# The posterior predictive checks behind docs/model-checking.md, "Checks on the Enron release":
# the private and naive block-model fits of docs/own-data.md (K = 8, seed 2, default chains) on
# the seeded demonstration release (ε = 2, N = 5). About 1 minute on 2 cores. Writes
# docs/data/checks-enron-private.csv and docs/data/checks-enron-naive.csv (each fit's checks.csv)
# and the private fit's figure, docs/figures/checks-enron-private.png.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p cli
lppf=target/release/lppf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$lppf privatize --input data/enron/network-counts.csv --square --epsilon 2 --precision 5 --seed 2026 \
    --output "$dir/released.csv" 2> /dev/null
for method in private naive; do
    $lppf fit --input "$dir/released.csv" --model block --components 8 --method $method --seed 2 \
        --output "$dir/$method" --quiet
    cp "$dir/$method/checks.csv" "docs/data/checks-enron-$method.csv"
    if [ "$method" = private ]; then cp "$dir/$method/checks.png" docs/figures/checks-enron-private.png; fi
    echo "== $method"
    cat "docs/data/checks-enron-$method.csv"
done
