"""The "no structure" verdict's error rates (docs/model-checking.md, "How often the verdict is
right"): how often `lppf fit --holdout 0.1` says structure on networks with none (the
false-positive rate) and with weak or strong planted communities (the power), beside an oracle
that knows the true rates.

    target/ci-python/bin/python tools/planted/verdict.py --out docs/evidence/verdict-error-rates \
        --replications 100 [--strengths null weak strong] [--noises poisson cell-nb] \
        [--alphas 0.2 0.5 0.8] [--likelihood contaminated] [--move]

Designs (`designs.draw_strength`): 45 actors in 3 communities, activities Gamma(4, rate 4),
block rates equal (null), 2.0/0.8 (weak) or 3.0/0.3 (strong) within/between; Poisson or
cell-level NB(0.3) counts. Each data set is released at alpha with a seeded demonstration
release (NOT private) and fitted by the private method with every default of `lppf fit` but the
likelihood, the negative binomial unless `--likelihood` says otherwise (K = 3, the planted
number), and `--holdout 0.1`.

Per data set: the fit's verdict (`structure`, `structure_difference` and its se, on the
held-out cells), the same rule with the PSIS-LOO cells added (`with_loo_*`, recorded beside the
verdict), the fit's convergence verdict and seconds; and the oracle's: the same paired rule (Delta > 2 se) between the true
rates and their best independence approximation (a_i b_j, fitted to the true rates), scored
on an independent 10 % of the cells by the released-data likelihood of the true noise (Poisson
or NB(0.3), each convolved with the two-sided geometric noise). The oracle is the power any fit
could reach with this many held-out cells. Every draw is seeded from (strength, noise, alpha,
replication); rows already in results.csv are skipped, so a killed run resumes. With
`--likelihood L` other than the negative binomial (e.g. `contaminated`, `lppf fit`'s default) the
data, releases and seeds are the same, so the rows pair with the negative binomial's, whose
oracle they share and leave empty; write them to another directory. `--move` runs the block
model's Hamiltonian move after each sweep (`--hamiltonian-move on`, the directed block model's
default since 2026-12-04; without it the fits run the sweep alone, as the committed tables did).
"""

import argparse
import csv
import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
import designs  # noqa: E402
from study import LPPF, SWEEP_ONLY, WITH_MOVE, appending, run, seed_of, write_counts  # noqa: E402

# The likelihood of the base rows (the default of `lppf fit` when they were made); the oracle is
# computed on its rows.
NB = "negative-binomial"
HOLDOUT = 0.1
DISPERSION = 0.3  # the cell-level NB's shape in designs._noised
FIELDS = [
    "strength", "noise", "alpha", "replication", "with_loo_structure", "with_loo_difference", "with_loo_se",
    "with_loo_cells", "structure", "difference", "se", "convergence", "seconds",
    "oracle_structure", "oracle_difference", "oracle_se",
]


def released(path, n):
    """The released values of an `n`-actor square release as an n x n array."""
    values = np.loadtxt(path, delimiter=",", skiprows=1, usecols=2, dtype=np.int64)
    return values.reshape(n, n)


def independence(mu, modelled, sweeps=50):
    """The independence rates a_i b_j closest to `mu` in Poisson deviance on the modelled cells
    (iterative proportional fitting of the row and column sums)."""
    a, b = np.ones(mu.shape[0]), np.ones(mu.shape[1])
    m = np.where(modelled, mu, 0.0)
    for _ in range(sweeps):
        a = m.sum(1) / (modelled * b[None, :]).sum(1)
        b = m.sum(0) / (modelled * a[:, None]).sum(0)
    return np.outer(a, b)


def released_log_pmf(values, mean, alpha, noise):
    """ln p(released value) of cells with count mean `mean`: the count's pmf (Poisson, or NB with
    shape DISPERSION) convolved with the two-sided geometric pmf (1 - alpha)/(1 + alpha) alpha^|d|,
    summed over counts 0..Y with Y far beyond every cell's mass (checked: the pmf's tail mass
    beyond Y is below 1e-12)."""
    y = np.arange(0, int(max(values.max(), 0) + 200 * mean.max() + 400))
    if noise == "poisson":
        count = stats.poisson.pmf(y[None, :], mean[:, None])
        tail = stats.poisson.sf(y[-1], mean)
    else:
        p = DISPERSION / (DISPERSION + mean)
        count = stats.nbinom.pmf(y[None, :], DISPERSION, p[:, None])
        tail = stats.nbinom.sf(y[-1], DISPERSION, p)
    assert tail.max() < 1e-12, tail.max()
    noise_pmf = (1 - alpha) / (1 + alpha) * alpha ** np.abs(values[:, None] - y[None, :])
    return np.log((count * noise_pmf).sum(1))


def oracle(release, mu, alpha, noise, seed):
    """(structure, Delta, se) of the true rates against their independence approximation on a
    seeded 10 % of the modelled cells."""
    n = mu.shape[0]
    modelled = ~np.eye(n, dtype=bool)
    cells = np.flatnonzero(modelled)
    rng = np.random.default_rng(seed)
    held = rng.choice(cells, size=int(round(HOLDOUT * cells.size)), replace=False)
    values = release.ravel()[held]
    true = released_log_pmf(values, mu.ravel()[held], alpha, noise)
    flat = released_log_pmf(values, independence(mu, modelled).ravel()[held], alpha, noise)
    d = true - flat
    difference, se = d.sum(), np.sqrt(d.size) * d.std(ddof=1)
    # Under the null the two rate tables agree up to rounding: a Δ of 1e-15 is no structure.
    return int(difference > max(2 * se, 1e-9)), difference, se


def draw_and_release(work, strength, noise, alpha, rep):
    """(true counts, true rates, planted groups, the release's path) of one data set, drawn and
    released (seeded) into `work`."""
    y, mu, group = designs.draw_strength(strength, noise, seed_of("verdict-data", strength, noise, rep))
    write_counts(work / "counts.csv", y, "network")
    release = work / "release.csv"
    run([LPPF, "privatize", "--input", work / "counts.csv", "--labels", work / "counts.csv.rows", "--square",
         "--alpha", alpha, "--seed", seed_of("verdict-release", strength, noise, alpha, rep), "--force",
         "--output", release])
    return y, mu, group, release


def one(work, strength, noise, alpha, rep, likelihood=NB, move=False):
    y, mu, group, release = draw_and_release(work, strength, noise, alpha, rep)
    out = work / "fit"
    run([LPPF, "fit", "--input", release, "--model", "block", "--components", group.max() + 1,
         "--method", "private", "--holdout", HOLDOUT, "--seed", seed_of("verdict-fit", strength, noise, alpha, rep),
         "--quiet", "--force", "--output", out, "--likelihood", likelihood,
         *(WITH_MOVE if move else SWEEP_ONLY)])
    fit = tomllib.loads((out / "fit.toml").read_text())
    # The oracle does not depend on the fit: with another likelihood it is the negative binomial's row's.
    o = ("", float("nan"), float("nan")) if likelihood != NB else oracle(
        released(release, y.shape[0]), mu, alpha, noise, seed_of("verdict-oracle", strength, noise, alpha, rep))
    return {
        "strength": strength, "noise": noise, "alpha": alpha, "replication": rep,
        "with_loo_structure": int(fit["structure_with_loo_difference"] > 2 * fit["structure_with_loo_difference_se"]),
        "with_loo_difference": fit["structure_with_loo_difference"],
        "with_loo_se": fit["structure_with_loo_difference_se"], "with_loo_cells": fit["structure_with_loo_cells"],
        "structure": int(fit["structure"]), "difference": fit["structure_difference"],
        "se": fit["structure_difference_se"], "convergence": fit.get("convergence", ""),
        "seconds": fit["seconds"], "oracle_structure": o[0], "oracle_difference": o[1], "oracle_se": o[2],
    }


def enron_size_release(work):
    """Draws and releases (seeded) the Enron-sized network of the planted designs (120 actors, 8
    communities, cell-level NB(0.3), alpha = 0.5; the data set and release of `study.py --shapes
    network-large`, replication 0) into `work`/release.csv; returns the planted groups."""
    y, _, group, _ = designs.draw("network-large", "cell-nb", seed_of("data", "network-large", "cell-nb", 0))
    write_counts(work / "counts.csv", y, "network-large")
    run([LPPF, "privatize", "--input", work / "counts.csv", "--labels", work / "counts.csv.rows", "--square",
         "--alpha", 0.5, "--seed", seed_of("release", "network-large", "cell-nb", 0.5, 0), "--force",
         "--output", work / "release.csv"])
    return group


def enron_size(out):
    """The verdict on the Enron-sized network of the planted designs (120 actors, 8 communities,
    cell-level NB(0.3), alpha = 0.5; the data set and release of `study.py --shapes network-large`,
    replication 0), fitted with the negative binomial and `--holdout 0.1`: one row in enron-size.csv."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        group = enron_size_release(work)
        run([LPPF, "fit", "--input", work / "release.csv", "--model", "block", "--components", group.max() + 1,
             "--method", "private", "--holdout", HOLDOUT, "--seed", seed_of("fit", "network-large", "cell-nb", 0.5, 0),
             "--quiet", "--force", "--output", work / "fit", "--likelihood", NB, *SWEEP_ONLY])
        fit = tomllib.loads((work / "fit" / "fit.toml").read_text())
    fields = ["structure", "structure_difference", "structure_difference_se", "structure_with_loo_difference",
              "structure_with_loo_difference_se", "heldout_cells", "convergence", "seconds"]
    with open(out / "enron-size.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        writer.writerow([int(fit[k]) if k == "structure" else fit[k] for k in fields])
    print("enron-size:", {k: fit[k] for k in fields}, flush=True)


def design_arguments(description):
    """A parser with the options that choose the study's designs and depth (--out, --replications,
    --strengths, --noises, --alphas)."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replications", type=int, default=100)
    parser.add_argument("--strengths", nargs="+", default=list(designs.STRENGTHS), choices=list(designs.STRENGTHS))
    parser.add_argument("--noises", nargs="+", default=["poisson", "cell-nb"], choices=["poisson", "cell-nb"])
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.2, 0.5, 0.8])
    return parser


def each_data_set(args, done):
    """(strength, noise, alpha, replication) of every data set of `args` not in `done`; replications
    outermost, so that a run stopped early has every design at the same depth."""
    for rep in range(args.replications):
        for strength in args.strengths:
            for noise in args.noises:
                for alpha in args.alphas:
                    if (strength, noise, alpha, rep) not in done:
                        yield strength, noise, alpha, rep


def main():
    parser = design_arguments(__doc__)
    parser.add_argument("--likelihood", choices=["contaminated", NB, "poisson"], default=NB,
                        help="fit with this likelihood instead of the negative binomial (same data and seeds)")
    parser.add_argument("--move", action="store_true",
                        help="with the block model's Hamiltonian move after each sweep (lppf fit's default)")
    parser.add_argument("--enron-size", action="store_true",
                        help="only the verdict on the Enron-sized planted network (enron-size.csv)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.enron_size:
        return enron_size(args.out)
    key = lambda r: (r["strength"], r["noise"], float(r["alpha"]), int(r["replication"]))  # noqa: E731
    with appending(args.out / "results.csv", FIELDS, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        for strength, noise, alpha, rep in each_data_set(args, done):
            row = one(Path(tmp), strength, noise, alpha, rep, args.likelihood, args.move)
            write(row)
            print(f"{strength} {noise} a={alpha} rep {rep}: structure {row['structure']} "
                  f"({row['difference']:+.1f} ± {row['se']:.1f}); with LOO {row['with_loo_structure']} "
                  f"({row['with_loo_difference']:+.1f} ± {row['with_loo_se']:.1f}); oracle {row['oracle_structure']} "
                  f"({row['oracle_difference']:+.1f} ± {row['oracle_se']:.1f}) {row['seconds']:.1f}s",
                  flush=True)


if __name__ == "__main__":
    main()
