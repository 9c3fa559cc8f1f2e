#!/usr/bin/env bash
# The worked example of docs/counts-over-time.md (`just counts-over-time`; about 25 minutes on 2
# cores): the Enron network by month, privatized at ε = 2 (seeded: a demonstration, NOT private);
# K chosen by held-out score on the release (private fits, 10 % of the cells held out); the private
# and naïve fits at that K and the three scored against the raw counts; and the base of the sweep
# experiments/tensor-enron.toml: K chosen by held-out score on the raw counts (the Fig. 4 recipe),
# the non-private fit at that K, `lppf base-from-fit`. `just docs` copies the evidence.
# LPPF=path runs that binary instead of building target/release/lppf; OVER_TIME_OUT=dir writes
# there instead of results/counts-over-time.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${LPPF:-}" ]; then
    cargo build --release -p lppf-cli
fi
lppf=${LPPF:-target/release/lppf}
out=${OVER_TIME_OUT:-results/counts-over-time}
counts=data/enron/network-by-month.csv
months=data/enron/months.csv
candidates="4 8 16 24"
mkdir -p "$out"
$lppf prepare-enron-network ../shared/data/enron/Enron.csv --by-month --output $counts --months-output $months
$lppf privatize --input $counts --time-column time --times $months --square --epsilon 2 \
    --seed 2026 --output "$out/released.csv" --force
# Held-out fits of every candidate K, on the release (private) and on the raw counts (non-private);
# pick_k takes the best of each.
for k in $candidates; do
    $lppf fit --input "$out/released.csv" --model tensor --components $k --method private --holdout 0.1 \
        --seed 1 --structure-tables 0 --quiet --output "$out/heldout-private-$k" --force
    $lppf fit --input $counts --model tensor --components $k --method non-private --holdout 0.1 \
        --seed 1 --structure-tables 0 --quiet --output "$out/heldout-non-private-$k" --force
done
pick_k() {  # the candidate with the best held-out log predictive of fits named $1-K
    for k in $candidates; do
        printf '%s %s\n' "$k" "$(grep -m1 '^heldout_log_predictive = ' "$out/$1-$k/fit.toml" | cut -d' ' -f3)"
    done | sort -k2 -g | tail -1 | cut -d' ' -f1
}
k_release=$(pick_k heldout-private)
k_raw=$(pick_k heldout-non-private)
echo "K by held-out score: $k_release on the release, $k_raw on the raw counts"
for method in private naive; do
    $lppf fit --input "$out/released.csv" --model tensor --components "$k_release" --method $method \
        --seed 2 --output "$out/$method" --force
done
$lppf fit --input $counts --model tensor --components "$k_raw" --method non-private --seed 2 \
    --output "$out/non-private" --force
for fit in private naive non-private; do
    $lppf score --fit "$out/$fit" --truth $counts --times $months > "$out/$fit/score.toml"
done
$lppf base-from-fit --fit "$out/non-private" --output data/enron/tensor-base.toml
