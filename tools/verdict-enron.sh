#!/usr/bin/env bash
# The table behind docs/model-checking.md, "The verdict on the Enron release": the private block
# model with K = 2, 4, 8 on the seeded demonstration release of the Enron network (ε = 2, N = 5),
# each with 10 % of the cells held out by three seeds (three masks), compared with the
# independence model on the same cells. About 3 minutes on 2 cores. Writes docs/data/verdict-enron.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p cli
lppf=target/release/lppf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$lppf privatize --input data/enron/network-counts.csv --square --epsilon 2 --precision 5 --seed 2026 \
    --output "$dir/released.csv" 2> /dev/null
out=docs/data/verdict-enron.csv
echo "K,seed,heldout_cells,log_predictive,independence_log_predictive,difference,se,structure" > "$out.tmp"
field() { grep "^$1 = " "$2" | head -1 | sed 's/^[a-z_]* = //'; }
for k in 2 4 8; do
    for seed in 1 2 3; do
        fit="$dir/k$k-s$seed"
        $lppf fit --input "$dir/released.csv" --model block --components $k --method private --seed $seed \
            --holdout 0.1 --output "$fit" --quiet
        t="$fit/fit.toml"
        printf '%s,%s,%s,%.1f,%.1f,%.1f,%.1f,%s\n' $k $seed "$(field heldout_cells "$t")" \
            "$(field heldout_log_predictive "$t")" "$(field independence_log_predictive "$t")" \
            "$(field structure_difference "$t")" "$(field structure_difference_se "$t")" \
            "$(field structure "$t")" >> "$out.tmp"
    done
done
mv "$out.tmp" "$out"
cat "$out"
