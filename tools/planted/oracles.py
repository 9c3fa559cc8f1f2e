"""How much power the verdict's held-out rule could have on overdispersed networks, at best
(docs/model-checking.md, "How often the verdict is right"): the oracle of tools/planted/verdict.py
(the true rates against their best independence approximation, both under the true noise
NB(0.3)), beside two variants that bound what a fit could reach.

    target/ci-python/bin/python tools/planted/oracles.py --out docs/evidence/verdict-error-rates \
        [--replications 20]

* ``learned``: the independence model gets the NB shape r that fits the release best (maximum
  likelihood on the cells not held out), as a fitted independence model does; the block model
  keeps the true rates and r = 0.3. A fit must learn r for both models.
* ``all``: the same two comparisons over every modelled cell instead of a held-out 10 %, the most
  a rule that scores every cell once (K-fold) could see.

The data sets, releases and held-out cells are verdict.py's (the same seeds), so the rows pair
with its results.csv: the ``fixed`` columns reproduce its oracle. Cell-level NB designs only.
Rows are appended as they finish, and rows already there are skipped.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).parent))
from study import appending, seed_of  # noqa: E402
from verdict import DISPERSION, HOLDOUT, draw_and_release, independence, released  # noqa: E402

FIELDS = ["strength", "noise", "alpha", "replication", "learned_r",
          "fixed_difference", "fixed_se", "learned_difference", "learned_se",
          "all_fixed_difference", "all_fixed_se", "all_learned_difference", "all_learned_se"]
# verdict.py's depth per strength, so that every row pairs with one of its rows.
DEPTH = {"null": 60, "weak": 20, "strong": 40}



def log_pmf(values, mean, alpha, r):
    """ln p(released value) under NB(r, mean) convolved with 2Geo(alpha), summed over counts
    0..Y with the NB's tail beyond Y below 1e-12 (asserted)."""
    p = r / (r + mean)
    y = np.arange(0, int(max(values.max(), 0, stats.nbinom.isf(1e-13, r, p.min())) + 200))
    count = stats.nbinom.pmf(y[None, :], r, p[:, None])
    assert stats.nbinom.sf(y[-1], r, p).max() < 1e-12
    noise = (1 - alpha) / (1 + alpha) * alpha ** np.abs(values[:, None] - y[None, :])
    return np.log((count * noise).sum(1))


def paired(a, b):
    d = a - b
    return d.sum(), np.sqrt(d.size) * d.std(ddof=1)


def one(work, strength, alpha, rep):
    noise = "cell-nb"
    _, mu, _, release = draw_and_release(work, strength, noise, alpha, rep)
    n = mu.shape[0]
    modelled = ~np.eye(n, dtype=bool)
    cells = np.flatnonzero(modelled)
    rng = np.random.default_rng(seed_of("verdict-oracle", strength, noise, alpha, rep))
    held = rng.choice(cells, size=int(round(HOLDOUT * cells.size)), replace=False)
    seen = np.setdiff1d(cells, held)
    values = released(release, n).ravel()
    true_mu, flat_mu = mu.ravel(), independence(mu, modelled).ravel()

    def best_r(at):
        fit = optimize.minimize_scalar(lambda u: -log_pmf(values[at], flat_mu[at], alpha, np.exp(u)).sum(),
                                       bounds=(np.log(0.02), np.log(20.0)), method="bounded",
                                       options={"xatol": 1e-2})
        return float(np.exp(fit.x))

    row = {"strength": strength, "noise": noise, "alpha": alpha, "replication": rep}
    r_seen, r_all = best_r(seen), best_r(cells)
    row["learned_r"] = r_seen
    for prefix, at, r in (("", held, r_seen), ("all_", cells, r_all)):
        true = log_pmf(values[at], true_mu[at], alpha, DISPERSION)
        row[f"{prefix}fixed_difference"], row[f"{prefix}fixed_se"] = paired(
            true, log_pmf(values[at], flat_mu[at], alpha, DISPERSION))
        row[f"{prefix}learned_difference"], row[f"{prefix}learned_se"] = paired(
            true, log_pmf(values[at], flat_mu[at], alpha, r))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.2, 0.5, 0.8])
    parser.add_argument("--replications", type=int, default=max(DEPTH.values()),
                        help="at most this many data sets per design (and at most verdict.py's depth)")
    args = parser.parse_args()
    key = lambda r: (r["strength"], float(r["alpha"]), int(r["replication"]))  # noqa: E731
    with appending(args.out / "oracles.csv", FIELDS, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.replications):
            for strength, depth in DEPTH.items():
                for alpha in args.alphas:
                    if rep >= depth or (strength, alpha, rep) in done:
                        continue
                    row = one(Path(tmp), strength, alpha, rep)
                    write(row)
                    print(f"{strength} a={alpha} rep {rep}: r {row['learned_r']:.3f}; held out "
                          f"{row['fixed_difference']:+.1f}/{row['learned_difference']:+.1f} ± {row['learned_se']:.1f}; "
                          f"all {row['all_fixed_difference']:+.1f}/{row['all_learned_difference']:+.1f} "
                          f"± {row['all_learned_se']:.1f}", flush=True)


if __name__ == "__main__":
    main()
