#!/usr/bin/env bash
# The Enron tables and figure behind docs/model-checking.md, on the seeded demonstration release
# of the Enron network (ε = 2, N = 5, as docs/own-data.md makes it). About 4 minutes on 2 cores.
#   verdict: the private block model with the hierarchical prior and the negative binomial
#     (LIKELIHOOD=contaminated for the default's) and K = 2, 4, 8, each with 10 % of the cells held
#     out by ten seeds (ten masks; MASKS="..." to choose others), against the independence model
#     on the same cells -> docs/data/verdict-enron.csv (verdict-enron-contaminated.csv; about 15
#     minutes, 30 with the contaminated form)
#   checks: the private and naive fits of docs/own-data.md (K = 8, seed 2, default chains, with
#     the flat prior, the Poisson likelihood and the augmented private step that were the defaults
#     then: the papers' model)
#     -> docs/data/checks-enron-{private,naive}.csv and docs/figures/checks-enron-private.png
#   priors: the release of docs/own-data.md fitted privately (K = 8, seed 2) with each prior x
#     likelihood (flat or hierarchical x Poisson or negative binomial; hierarchical contaminated),
#     with K = 1 (no structure) under both overdispersed likelihoods, and naively, each scored
#     against the raw counts (lppf score) -> docs/data/priors-enron.csv (about 10 minutes)
#   defaults: the old defaults (flat, Poisson), the first hierarchical default (a' = b' = 1 fixed,
#     negative binomial: "prev") and the learned scale (a' = 10, negative binomial: "new")
#     on ten releases (privatize seeds 2026 to 2035; RELEASES="..." to choose others), private
#     K = 8 seed 2, with the naive fit, each scored against the raw counts
#     (examples/score_against_counts) -> docs/data/defaults-enron.csv (about 15 minutes)
# The checks and defaults fits pool their chains with equal weights (`--weights equal`), as when
# their committed tables were made: since issue 33, `--weights auto` stacks chains that sit in
# different modes. The verdict fits use every other default of `lppf fit`, as a user's fit does.
# Run `bash tools/model-checking-enron.sh verdict` or `... checks` for one part. LPPF=path runs
# that binary instead of building target/release/lppf (e.g. one built from a clean worktree), and
# SCORE=path the score_against_counts example. tools/study-smoke.sh runs every part cut short.
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in
    all|verdict|checks|priors|defaults) ;;
    *) echo "$0: unknown part '$part'; expected one of: all verdict checks priors defaults" >&2; exit 2 ;;
esac
. tools/enron-release.sh
if [ "$part" = all ] || [ "$part" = verdict ]; then
    likelihood=${LIKELIHOOD:-negative-binomial}
    case $likelihood in
        negative-binomial|contaminated|poisson) ;;
        *) echo "$0: LIKELIHOOD='$likelihood'; expected negative-binomial, contaminated or poisson" >&2; exit 2 ;;
    esac
    out=$docs/data/verdict-enron.csv
    if [ "$likelihood" != negative-binomial ]; then out=$docs/data/verdict-enron-$likelihood.csv; fi
    echo "K,seed,heldout_cells,log_predictive,independence_log_predictive,difference,se,structure" > "$out.tmp"
    for k in 2 4 8; do
        for seed in ${MASKS:-1 2 3 4 5 6 7 8 9 10}; do
            fit="$dir/k$k-s$seed"
            $lppf fit "${sweep_only[@]}" --input "$dir/released.csv" --model block --components $k --method private --seed $seed \
                --likelihood "$likelihood" --holdout 0.1 --output "$fit" --quiet
            t="$fit/fit.toml"
            printf '%s,%s,%s,%.1f,%.1f,%.1f,%.1f,%s\n' $k $seed "$(field heldout_cells "$t")" \
                "$(field heldout_log_predictive "$t")" "$(field independence_log_predictive "$t")" \
                "$(field structure_difference "$t")" "$(field structure_difference_se "$t")" \
                "$(field structure "$t")" >> "$out.tmp"
        done
    done
    mv "$out.tmp" "$out"
    cat "$out"
fi
if [ "$part" = all ] || [ "$part" = checks ]; then
    for method in private naive; do
        $lppf fit "${sweep_only[@]}" --input "$dir/released.csv" --model block --components 8 --method $method --seed 2 \
            --prior flat --likelihood poisson --private-step augmented --weights equal --output "$dir/$method" --quiet
        cp "$dir/$method/checks.csv" "$docs/data/checks-enron-$method.csv"
        if [ "$method" = private ]; then cp "$dir/$method/checks.png" "$docs/figures/checks-enron-private.png"; fi
        echo "== $method"
        cat "$docs/data/checks-enron-$method.csv"
    done
fi
if [ "$part" = all ] || [ "$part" = priors ]; then
    out=$docs/data/priors-enron.csv
    echo "fit,prior,likelihood,fitted_total,total_q05,total_q95,released_total,rhat_ln_joint,rhat_total,flagged_checks,loglik_raw,seconds" > "$out.tmp"
    # k1-*: one component, the hierarchical prior: the same likelihood with no structure at all
    # (each cell's rate a row scale times a column scale, times the multipliers).
    for variant in flat-poisson hierarchical-poisson flat-negative-binomial hierarchical-negative-binomial \
        hierarchical-contaminated k1-negative-binomial k1-contaminated naive; do
        k=8
        case $variant in
            naive) opts=(--method naive --prior flat --likelihood poisson) ;;
            *-poisson) opts=(--method private --prior "${variant%%-*}" --likelihood poisson) ;;
            k1-*) k=1; opts=(--method private --prior hierarchical --likelihood "${variant#k1-}") ;;
            *) opts=(--method private --prior "${variant%%-*}" --likelihood "${variant#*-}") ;;
        esac
        fit="$dir/priors-$variant"
        $lppf fit "${sweep_only[@]}" --input "$dir/released.csv" --model block --components $k --seed 2 "${opts[@]}" \
            --weights equal --output "$fit" --quiet
        t="$fit/fit.toml"
        flagged=$(awk -F, 'NR > 1 && $7 != "" { printf "%s%s", sep, $1; sep = " " }' "$fit/checks.csv")
        loglik=$(field log_likelihood <($lppf score --fit "$fit" --truth data/enron/network-counts.csv))
        echo "$variant,$(field prior "$t" | tr -d '"'),$(field likelihood "$t" | tr -d '"'),$(field fitted_total "$t"),$(field total_rate_q05 "$t"),$(field total_rate_q95 "$t"),$(field released_total "$t"),$(diagnostic "$fit" ln_joint 2),$(diagnostic "$fit" total_rate 2),$flagged,$loglik,$(field seconds "$t")" >> "$out.tmp"
    done
    mv "$out.tmp" "$out"
    cat "$out"
fi
if [ "$part" = all ] || [ "$part" = defaults ]; then
    if [ -z "${SCORE:-}" ]; then
        cargo build --release -p analysis --example score_against_counts
    fi
    score=${SCORE:-target/release/examples/score_against_counts}
    out=$docs/data/defaults-enron.csv
    echo "release_seed,fit,fitted_total,raw_total,released_total,total_q05,total_q95,loglik_raw,rhat_ln_joint,rhat_total" > "$out.tmp"
    for rs in ${RELEASES:-2026 2027 2028 2029 2030 2031 2032 2033 2034 2035}; do
        $lppf privatize --input data/enron/network-counts.csv --square --epsilon 2 --precision 5 --seed $rs \
            --output "$dir/released-$rs.csv" 2> /dev/null
        for variant in naive old prev new; do
            case $variant in
                naive) opts=(--method naive --prior flat --likelihood poisson) ;;
                old) opts=(--method private --prior flat --likelihood poisson) ;;
                prev) opts=(--method private --scale-shape 1 --scale-mean 1 --likelihood negative-binomial) ;;
                new) opts=(--method private --likelihood negative-binomial) ;;
            esac
            fit="$dir/$variant-$rs"
            $lppf fit "${sweep_only[@]}" --input "$dir/released-$rs.csv" --model block --components 8 --seed 2 "${opts[@]}" \
                --weights equal --output "$fit" --quiet
            s=$($score "$fit/rates.parquet" data/enron/network-counts.csv)
            fitted=$(echo "$s" | head -1 | sed 's/.*fitted total rate \([0-9.]*\).*/\1/')
            raw=$(echo "$s" | head -1 | sed 's/.*raw total \([0-9]*\).*/\1/')
            loglik=$(echo "$s" | sed -n 2p | sed 's/.*counts: \(-*[0-9.]*\) .*/\1/')
            t="$fit/fit.toml"
            echo "$rs,$variant,$fitted,$raw,$(field released_total "$t"),$(field total_rate_q05 "$t"),$(field total_rate_q95 "$t"),$loglik,$(diagnostic "$fit" ln_joint 2),$(diagnostic "$fit" total_rate 2)" >> "$out.tmp"
        done
    done
    mv "$out.tmp" "$out"
    cat "$out"
fi
