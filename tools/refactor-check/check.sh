#!/usr/bin/env bash
# The numbers-unchanged check of the runner refactor (issue 16): reruns five manifests with the
# current code and compares every value of their results.parquet with the saved files in
# tools/refactor-check/before/. These were first made before the runner refactor (issue 16) and
# re-made when issue 21 changed the random streams (ChaCha8 -> xoshiro256++, inversion binomial;
# expected to change every number). Floats are compared bit for bit; timing columns are skipped,
# and columns added later are allowed (`lppf diff --allow-added-columns`). The saved smoke run was
# made with the paper's augmented private step, the default until issue 34: smoke is run with
# that step named (the pipeline test one_chain_gives_the_numbers_of_the_saved_single_chain_run
# reads the same file).
# About 3 minutes on 2 cores (dp-sep-mog dominates). Exit 0 if all five are identical.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p lppf-cli
status=0
smoke=$(mktemp --suffix .toml)
trap 'rm -f "$smoke"' EXIT
sed 's/^thin = 10$/thin = 10\nprivate_step = "augmented"/' experiments/smoke.toml > "$smoke"
for m in smoke fig3-synthetic schofield-small dpvi-gmm dp-sep-mog; do
    manifest="experiments/$m.toml"
    if [ "$m" = smoke ]; then manifest="$smoke"; fi
    target/release/lppf run "$manifest" --force --quiet > /dev/null
    echo "== $m"
    target/release/lppf diff --allow-added-columns "tools/refactor-check/before/$m.parquet" "results/$m/results.parquet" || status=1
done
exit $status
