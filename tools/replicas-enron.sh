#!/usr/bin/env bash
# The replica-exchange study of docs/modes.md on the Enron network (K = 8, 4 chains per fit): for
# each seed, the raw counts fitted non-privately and the demonstration release of docs/own-data.md
# (ε = 2, N = 5, privatize seed 2026) fitted privately, each with 2,000 sweeps ("plain2000"),
# 8,000 sweeps ("plain8000": burn-in 4,000, every 20th kept, so 200 kept per chain as at 2,000)
# and 4 replicas per chain × 2,000 sweeps ("pt4"); with the default model, seed 1's non-private fit
# also with 4 replicas × 8,000 sweeps ("pt4x8000").
#   papers: the papers' model (--prior flat --likelihood poisson --private-step augmented)
#     -> docs/data/replicas-enron.csv
#   default: lppf fit's default model -> docs/data/replicas-enron-default.csv
# Both write the chains' mean log joints and total rates to docs/data/replicas-enron-chains.csv
# (rows of the other model are kept). SEEDS="1 2 3" chooses the seeds (default 1 to 10); about
# 95 s a seed for papers and 230 s for default on 2 cores. LPPF=path runs that binary instead of
# building target/release/lppf. Usage: bash tools/replicas-enron.sh [papers|default|all]
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in
    all|papers|default) ;;
    *) echo "$0: unknown part '$part'; expected one of: all papers default" >&2; exit 2 ;;
esac
. tools/enron-release.sh
chains=$docs/data/replicas-enron-chains.csv
for model in papers default; do
    if [ "$part" != all ] && [ "$part" != "$model" ]; then
        continue
    fi
    case $model in
        papers) out=$docs/data/replicas-enron.csv; opts=(--prior flat --likelihood poisson --private-step augmented) ;;
        default) out=$docs/data/replicas-enron-default.csv; opts=() ;;
    esac
    header="method,setting,seed,seconds,rhat_ln_joint,ess_ln_joint,rhat_total,ess_total,min_beta"
    if [ "$model" = default ]; then header="$header,modes"; fi
    echo "$header" > "$out.tmp"
    echo "model,method,setting,seed,chain,mean_ln_joint,mean_total_rate" > "$dir/chains.csv"
    if [ -f "$chains" ]; then
        grep -v "^$model," "$chains" | tail -n +2 >> "$dir/chains.csv" || true
    fi
    for seed in ${SEEDS:-1 2 3 4 5 6 7 8 9 10}; do
        for method in non-private private; do
            settings="plain2000 plain8000 pt4"
            if [ "$model" = default ] && [ "$method" = non-private ] && [ "$seed" = 1 ]; then
                settings="$settings pt4x8000"
            fi
            for setting in $settings; do
                case $setting in
                    plain2000) run=() ;;
                    plain8000) run=(--iterations 8000 --burn-in 4000 --thin 20) ;;
                    pt4) run=(--replicas 4) ;;
                    pt4x8000) run=(--replicas 4 --iterations 8000 --burn-in 4000 --thin 20) ;;
                esac
                input="$dir/released.csv"
                if [ "$method" = non-private ]; then input=data/enron/network-counts.csv; fi
                fit="$dir/$model-$method-$setting-$seed"
                $lppf fit "${sweep_only[@]}" --input "$input" --model block --components 8 --method $method --seed "$seed" \
                    "${opts[@]}" "${run[@]}" --output "$fit" --quiet
                # The smallest inverse temperature of the fit's adapted ladders, 1.0 included (empty
                # without replicas: no `ladders` line).
                min_beta=$( (grep -m 1 '^ladders = ' "$fit/fit.toml" || true) | grep -oE '[0-9]+\.[0-9]+' | sort -g | head -1 || true)
                line="$method,$setting,$seed,$(field seconds "$fit/fit.toml"),$(diagnostic "$fit" ln_joint 2),$(diagnostic "$fit" ln_joint 3),$(diagnostic "$fit" total_rate 2),$(diagnostic "$fit" total_rate 3),$min_beta"
                if [ "$model" = default ]; then
                    # The number of modes: groups in fit.toml's `modes = [[…], […]]`.
                    line="$line,$(field modes "$fit/fit.toml" | grep -o '\[[0-9, ]*\]' | wc -l)"
                fi
                echo "$line" >> "$out.tmp"
                sed -n 's/^ *chain \([0-9]*\): mean ln_joint \(-*[0-9]*\), mean total_rate \([0-9]*\).*/\1,\2,\3/p' \
                    "$fit/summary.txt" | sed "s/^/$model,$method,$setting,$seed,/" >> "$dir/chains.csv"
            done
        done
    done
    mv "$out.tmp" "$out"
    mv "$dir/chains.csv" "$chains"
    cat "$out"
done
