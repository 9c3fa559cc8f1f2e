"""Fits candidate models to planted designs through `lppf privatize` and `lppf fit`, and records
how each recovers the planted structure and the total (docs/model-checking.md, "Planted designs").

    target/ci-python/bin/python tools/planted/study.py --out docs/evidence/planted-designs \
        --replications 4 [--shapes network topics] [--alphas 0.2 0.5 0.8]

Every design, release and fit is seeded from (replication, shape, noise, alpha), so the rows are
reproducible; releases are seeded demonstrations (NOT private). Rows are appended to
results.csv as fits finish and rows already there are skipped, so a killed run resumes.

Per fit: `ari` (adjusted Rand index of partition.csv, the co-clustering point estimate, with the
planted groups), `total_covered` (the true counts' total inside the fit's 90 % interval of
sum mu), `total_error` (fitted total / true total - 1), `kl` (mean Poisson KL of the true rates
from the fitted posterior means, per cell), the fit's convergence verdict and seconds, and
`count_covered` (the true total inside the 90 % interval of the table's own total, the true
counts drawn given the release).
"""

import argparse
import contextlib
import csv
import hashlib
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).parent))
import designs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# LPPF_BIN: another binary (e.g. a copy, so that a long study is not disturbed by a rebuild).
LPPF = Path(os.environ.get("LPPF_BIN", ROOT / "target" / "release" / "lppf"))

# The Gibbs sweep alone: the studies' candidates were measured before `lppf fit` ran the directed
# block model's Hamiltonian move by default, and name it so that they still run what they measured
# (`off` is accepted by every model).
SWEEP_ONLY = ["--hamiltonian-move", "off"]
# The sweep and the move after it, asked for by name (what `lppf fit` runs by default on a directed
# network; an error elsewhere).
WITH_MOVE = ["--hamiltonian-move", "on"]
# name -> extra `lppf fit` flags (beside the hierarchical prior with a learned scale, which every
# candidate but the papers' model keeps from `lppf fit`'s defaults). "contaminated" is the
# likelihood `lppf fit` runs with no model flags (and "hamiltonian-move" its whole default for a
# directed network); "negative-binomial" has r learned and held at 1 for half the burn-in, as every
# learned r is unless --dispersion-warm-up says otherwise.
CANDIDATES = {
    "papers": ["--prior", "flat", "--likelihood", "poisson", *SWEEP_ONLY],
    "hierarchical-poisson": ["--prior", "hierarchical", "--likelihood", "poisson", *SWEEP_ONLY],
    "negative-binomial": ["--likelihood", "negative-binomial", *SWEEP_ONLY],
    "no-warm-up": ["--likelihood", "negative-binomial", "--dispersion-warm-up", "0", *SWEEP_ONLY],
    "nb-prior": ["--likelihood", "negative-binomial", "--dispersion-prior", "10,10", "--dispersion-warm-up", "0",
                 *SWEEP_ONLY],
    "nb-r1": ["--likelihood", "negative-binomial", "--dispersion", "1", *SWEEP_ONLY],
    "contaminated": ["--likelihood", "contaminated", *SWEEP_ONLY],
    # The default model with its chains started at the best of 8 CAVI fits (docs/inference.md).
    "cavi-start": ["--likelihood", "contaminated", "--start", "cavi", *SWEEP_ONLY],
    # The default model with the block model's Hamiltonian move after each sweep (networks only).
    "hamiltonian-move": ["--likelihood", "contaminated", *WITH_MOVE],
}
FIELDS = [
    "shape", "noise", "alpha", "replication", "candidate", "ari", "total_covered", "total_error",
    "kl", "true_total", "q05", "q95", "dispersion_q50", "convergence", "seconds",
    "count_covered", "count_q05", "count_q95",
]


def seed_of(*parts):
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:7], "little")


@contextlib.contextmanager
def appending(table, fields, key):
    """A resumable results table: yields (the keys `key(row)` of the rows already in `table`, a
    function that appends one row and flushes it). The header is written when `table` is new, so
    a killed run loses at most the row in flight. An existing table must have exactly `fields` as
    its header (rows are written in that order), or this stops with a message."""
    done = set()
    if table.exists():
        with open(table) as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is not None and reader.fieldnames != list(fields):
                sys.exit(f"{table}: its columns {reader.fieldnames} are not {list(fields)}; move it aside first")
            done = {key(r) for r in reader}
    new = not table.exists()
    with open(table, "a", newline="") as f:
        writer = csv.DictWriter(f, fields)
        if new:
            writer.writeheader()

        def write(row):
            writer.writerow(row)
            f.flush()

        yield done, write


def adjusted_rand_index(a, b):
    a = np.unique(np.asarray(a), return_inverse=True)[1]
    b = np.unique(np.asarray(b), return_inverse=True)[1]
    table = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(table, (a, b), 1)
    pairs = lambda x: (x * (x - 1) / 2).sum()  # noqa: E731
    index, rows, cols, n = pairs(table), pairs(table.sum(1)), pairs(table.sum(0)), len(a)
    expected = rows * cols / (n * (n - 1) / 2)
    top = (rows + cols) / 2
    return 1.0 if top == expected else (index - expected) / (top - expected)


def labels(shape, n, axis):
    return [f"a{i:03}" if shape.startswith("network") else f"{axis}{i:03}" for i in range(n)]


def write_counts(path, y, shape):
    rows, cols = labels(shape, y.shape[0], "d"), labels(shape, y.shape[1], "w")
    with open(path, "w") as f:
        f.write("row,col,count\n")
        for i, j in zip(*np.nonzero(y)):
            f.write(f"{rows[i]},{cols[j]},{y[i, j]}\n")
    for name, axis in (("rows", rows), ("cols", cols)):
        Path(f"{path}.{name}").write_text("label\n" + "\n".join(axis) + "\n")


def run(args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def fit_row(work, shape, noise, alpha, rep, candidate, y, rate, group, components):
    release = work / "release.csv"
    out = work / candidate
    method = "private" if alpha > 0 else "non-private"
    model = "block" if shape.startswith("network") else "topic"
    data = release if alpha > 0 else work / "counts.csv"
    run([LPPF, "fit", "--input", data, "--model", model, "--components", components, "--method", method,
         "--seed", seed_of("fit", shape, noise, alpha, rep), "--quiet", "--force", "--output", out,
         *CANDIDATES[candidate]])
    fit = tomllib.loads((out / "fit.toml").read_text())
    part = np.loadtxt(out / "partition.csv", delimiter=",", skiprows=1, usecols=1, dtype=int)
    rates = pq.read_table(out / "rates.parquet").to_pandas()
    index = {name: i for i, name in enumerate(labels(shape, y.shape[0], "d"))}
    cindex = {name: i for i, name in enumerate(labels(shape, y.shape[1], "w"))}
    fitted = np.zeros_like(rate)
    fitted[rates["row"].map(index), rates["col"].map(cindex)] = rates["mean"]
    modelled = np.ones_like(rate, dtype=bool)
    if shape.startswith("network"):
        np.fill_diagonal(modelled, False)
    t, f = rate[modelled], np.maximum(fitted[modelled], 1e-300)
    kl = np.where(t > 0, t * np.log(np.where(t > 0, t, 1) / f), 0.0) - t + f
    true_total = float(y[modelled].sum())
    return {
        "shape": shape, "noise": noise, "alpha": alpha, "replication": rep, "candidate": candidate,
        "ari": adjusted_rand_index(part, group), "true_total": true_total,
        "q05": fit["total_rate_q05"], "q95": fit["total_rate_q95"],
        "total_covered": int(fit["total_rate_q05"] <= true_total <= fit["total_rate_q95"]),
        "total_error": (fit["total_rate_q05"] + fit["total_rate_q95"]) / 2 / true_total - 1,
        "kl": float(kl.mean()), "dispersion_q50": fit.get("dispersion_q50", ""),
        "convergence": fit.get("convergence", ""), "seconds": fit["seconds"],
        # The posterior of the table's own total (the true counts drawn given the release), where
        # the fit writes it (private fits since the column existed).
        "count_q05": fit.get("total_count_q05", ""), "count_q95": fit.get("total_count_q95", ""),
        "count_covered": (int(fit["total_count_q05"] <= true_total <= fit["total_count_q95"])
                          if "total_count_q05" in fit else ""),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replications", type=int, default=4)
    parser.add_argument("--shapes", nargs="+", default=["network", "topics"], choices=designs.SHAPES)
    parser.add_argument("--noises", nargs="+", default=list(designs.NOISES), choices=designs.NOISES)
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.2, 0.5, 0.8])
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=list(CANDIDATES))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    key = lambda r: (r["shape"], r["noise"], float(r["alpha"]), int(r["replication"]), r["candidate"])  # noqa: E731
    with appending(args.out / "results.csv", FIELDS, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.replications):
            for shape in args.shapes:
                for noise in args.noises:
                    y, rate, group, square = designs.draw(shape, noise, seed_of("data", shape, noise, rep))
                    work = Path(tmp)
                    write_counts(work / "counts.csv", y, shape)
                    components = str(group.max() + 1)
                    for alpha in args.alphas:
                        todo = [c for c in args.candidates if (shape, noise, alpha, rep, c) not in done]
                        if not todo:
                            continue
                        if alpha > 0:
                            axes = (["--labels", work / "counts.csv.rows", "--square"] if square else
                                    ["--rows", work / "counts.csv.rows", "--cols", work / "counts.csv.cols"])
                            run([LPPF, "privatize", "--input", work / "counts.csv", *axes, "--alpha", alpha,
                                 "--seed", seed_of("release", shape, noise, alpha, rep), "--force",
                                 "--output", work / "release.csv"])
                        for candidate in todo:
                            row = fit_row(work, shape, noise, alpha, rep, candidate, y, rate, group, components)
                            write(row)
                            print(f"{shape} {noise} a={alpha} rep {rep} {candidate}: ari {row['ari']:.2f} "
                                  f"total {row['total_error']:+.2f} covered {row['total_covered']} "
                                  f"{row['seconds']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
