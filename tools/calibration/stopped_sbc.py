"""The SBC tests of a run stopped before its last unit (docs/calibration.md, "At Fig. 4's size"):
the same tests `lppf run` writes to sbc.csv, over the fits that finished.

    target/study-python/bin/python tools/calibration/stopped_sbc.py \
        docs/evidence/calibration-default-fig4-size/units docs/evidence/calibration-default-fig4-size

`lppf summarize` refuses a run with units missing, so this script reads the unit files itself. Per
group (method and noise level) and quantity (the total; the true parameters' log-likelihood):

- the ECDF test with simultaneous bands (Säilynoja, Bürkner & Vehtari 2022), exactly as
  crates/results/src/sbc_ecdf.rs computes it (the same thresholds and statistic), its null
  distribution simulated 20,000 times with numpy (lppf simulates 4,000 with its own generator, so
  p differs in the Monte Carlo digits only);
- the chi-squared test of the ranks in min(10, fits/5) bins, as crates/results/src/sbc.rs;
- Holm's adjustment of each over the run's groups.

Writes sbc-stopped.csv (the columns of lppf's sbc.csv) and sbc-stopped.png (the ECDF of the
ranks minus uniform, with the simultaneous 95 % band; one panel per group and quantity).
"""

import argparse
import csv
import tomllib
from pathlib import Path

import sys

import matplotlib
import numpy as np
from scipy.stats import binom, chi2

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from docstats import holm  # noqa: E402  (Holm's step-down p, as results::holm)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIMULATIONS = 20_000
SEED = 20_221_127
QUANTITIES = [("total", "total_rank"), ("ln_likelihood", "ln_likelihood_rank")]


def thresholds(draws):
    """The interior bin edges 1..=L, at most 100 of them evenly spaced (sbc_ecdf.rs)."""
    k = min(max(draws, 1), 100)
    return np.array([-(-(i * draws) // k) for i in range(1, k + 1)])


def tail_table(n, draws, ts):
    """tails[j][c]: the two-sided tail probability of c ranks below threshold j, Binomial(n, t/(L+1))."""
    c = np.arange(n + 1)
    return np.array([np.minimum(2 * np.minimum(binom.cdf(c, n, t / (draws + 1)), binom.sf(c - 1, n, t / (draws + 1))), 1.0)
                     for t in ts])


def statistic(ranks, ts, tails):
    """T = the smallest pointwise tail probability over the thresholds."""
    below = np.searchsorted(np.sort(ranks), ts, side="left")
    return tails[np.arange(len(ts)), below].min()


def ecdf_test(ranks, draws):
    """(T, p, curve): p = (1 + #{T_null <= T}) / (1 + S); curve rows (z, F(z) - z, low - z, high - z)."""
    n, ts = len(ranks), thresholds(draws)
    tails = tail_table(n, draws, ts)
    observed = statistic(np.minimum(ranks, draws), ts, tails)
    rng = np.random.default_rng(SEED + n)
    null = np.sort([statistic(rng.integers(0, draws + 1, n), ts, tails) for _ in range(SIMULATIONS)])
    gamma = null[int(0.05 * SIMULATIONS)]
    below = np.searchsorted(np.sort(ranks), ts, side="left") / n
    curve = []
    for j, t in enumerate(ts):
        z = t / (draws + 1)
        inside = np.nonzero(tails[j] > gamma)[0]
        low, high = (inside[0] / n, inside[-1] / n) if len(inside) else (z, z)
        curve.append((z, below[j] - z, low - z, high - z))
    return observed, (1 + np.searchsorted(null, observed, side="right")) / (1 + SIMULATIONS), curve


def chi_squared(ranks, draws):
    """(bins, counts, chi2, p) of the ranks in min(10, fits/5) bins (at least 2)."""
    n = len(ranks)
    b = min(max(n // 5, 2), 10, draws + 1)
    of_rank = np.array([r * b // (draws + 1) for r in range(draws + 1)])
    expected = np.bincount(of_rank, minlength=b) / (draws + 1) * n
    counts = np.bincount(of_rank[np.minimum(ranks, draws)], minlength=b)
    x = float(((counts - expected) ** 2 / expected).sum())
    return b, counts, x, float(chi2.sf(x, b - 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    fits = [tomllib.loads(f.read_text())["row"][0] for f in sorted(args.units.glob("*.toml"))]
    groups = {}
    for fit in fits:
        level = "" if fit["method"] == "non-private" else f"{fit['alpha']:g}"
        groups.setdefault((level, fit["method"]), []).append(fit)
    lines = []
    for (level, method), members in sorted(groups.items(), key=lambda g: (g[0][0] != "", g[0])):
        for quantity, key in QUANTITIES:
            ranks = np.array([m["sbc"][key] for m in members])
            draws = members[0]["sbc"]["draws"]
            bins, counts, x, p = chi_squared(ranks, draws)
            t, ecdf_p, curve = ecdf_test(ranks, draws)
            lines.append(dict(e0="", level=level, method=method, quantity=quantity, fits=len(ranks), draws=draws,
                              bins=bins, chi2=x, p=p, counts=" ".join(map(str, counts)), ecdf_statistic=t,
                              ecdf_p=ecdf_p, curve=curve, at_top=int((ranks == draws).sum())))
    for name, adjusted in [("p_holm", holm([g["p"] for g in lines])), ("ecdf_p_holm", holm([g["ecdf_p"] for g in lines]))]:
        for g, a in zip(lines, adjusted):
            g[name] = a
    columns = ["e0", "level", "method", "quantity", "fits", "draws", "bins", "chi2", "p", "p_holm", "uniform", "counts",
               "ecdf_statistic", "ecdf_p", "ecdf_p_holm"]
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "sbc-stopped.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for g in lines:
            g["uniform"] = "true" if g["ecdf_p_holm"] >= 0.05 else "false"
            w.writerow([f"{g[c]:.4e}" if isinstance(g[c], float) else g[c] for c in columns])
    fig, axes = plt.subplots(len(QUANTITIES), len(groups), figsize=(4.2 * len(groups), 3.4 * len(QUANTITIES)),
                             squeeze=False, sharex=True)
    for i, g in enumerate(lines):
        ax = axes[i % len(QUANTITIES)][i // len(QUANTITIES)]
        z, d, lo, hi = np.array(g["curve"] + g["curve"][-1:]).T
        z[-1] = 1.0
        ax.fill_between(z, lo, hi, step="post", color="0.85", label="simultaneous 95 % band")
        ax.step(z, d, where="post", color="C3" if g["uniform"] == "false" else "C0", label="ECDF − uniform")
        ax.axhline(0, color="0.5", lw=0.6)
        who = g["method"] + (f", α = {g['level']}" if g["level"] else "")
        ax.set_title(f"{who}: {g['quantity']}\n{g['fits']} fits, ECDF p {g['ecdf_p']:.2g} (Holm {g['ecdf_p_holm']:.2g})",
                     fontsize=9)
        ax.set_xlabel("fractional rank")
    axes[0][0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(args.out / "sbc-stopped.png", dpi=110)
    for g in lines:
        print(f"{g['method']:12} {g['level']:4} {g['quantity']:14} fits {g['fits']:3} top {g['at_top']:2} "
              f"ECDF T {g['ecdf_statistic']:.2g} p {g['ecdf_p']:.2g} Holm {g['ecdf_p_holm']:.2g} chi2 p {g['p']:.2g}")


if __name__ == "__main__":
    main()
