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
    """Per design: how often each rule says structure, with its bound, and the mean of Δ/se over
    the data sets (near 0 under the null for an unbiased comparison); the oracle beside it."""
    table = rows(RUN, "results.csv")
    lines = ["| design | α | data sets | the verdict (held-out cells) | mean Δ/se | held-out and PSIS-LOO cells | "
             "mean Δ/se | oracle (true rates) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
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
                z = [sum(float(r[d]) / float(r[e]) for r in mine) / n
                     for d, e in (("difference", "se"), ("with_loo_difference", "with_loo_se"))]
                lines.append(f"| {strength}, {noise} | {alpha} | {n} | {_rate(held, n, null)} | {z[0]:+.2f} | "
                             f"{_rate(pooled, n, null)} | {z[1]:+.2f} | {'—' if null else _rate(oracle, n, False)} |")
    return minus("\n".join(lines))
