"""Generated table of docs/model-checking.md, "How often the verdict is right": the "no structure"
verdict on networks with none and with planted communities (docs/evidence/verdict-error-rates/
results.csv, written by tools/planted/verdict.py)."""

from docstats import binomial_bounds, minus
from sources import rows

RUN = "verdict-error-rates"
STRENGTHS = ["null", "weak", "strong"]
NOISES = ["poisson", "cell-nb"]


def _rate(k, n, null):
    """"k/n (bound)": under the null the false-positive rate with its one-sided 95 % upper bound,
    else the power with its one-sided 95 % lower bound."""
    low, high = binomial_bounds(k, n)
    return f"{k}/{n} (≤ {100 * high:.1f} %)" if null else f"{k}/{n} (≥ {100 * low:.0f} %)"


def verdict_error_rates():
    """Per design: how often each rule says structure, with its bound; the oracle beside it."""
    table = rows(RUN, "results.csv")
    lines = ["| design | α | data sets | the verdict (held-out cells) | held-out and PSIS-LOO cells | oracle (true rates) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for strength in STRENGTHS:
        for noise in NOISES:
            for alpha in sorted({r["alpha"] for r in table}, key=float):
                mine = [r for r in table if (r["strength"], r["noise"], r["alpha"]) == (strength, noise, alpha)]
                if not mine:
                    continue
                n, null = len(mine), strength == "null"
                held = sum(int(r["structure"]) for r in mine)
                pooled = sum(int(r["with_loo_structure"]) for r in mine)
                # Under the null the oracle's two rate tables agree up to rounding (Δ about 1e-15).
                oracle = sum(float(r["oracle_difference"]) > max(2 * float(r["oracle_se"]), 1e-9) for r in mine)
                lines.append(f"| {strength}, {noise} | {alpha} | {n} | {_rate(held, n, null)} | "
                             f"{_rate(pooled, n, null)} | {'—' if null else _rate(oracle, n, False)} |")
    return minus("\n".join(lines))
