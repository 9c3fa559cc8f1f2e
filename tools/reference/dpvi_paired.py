"""Per-fit and paired tables of the DPVI study (docs/dpvi.md), written for the docs' generated tables.

Usage (repository root, after `just dpvi` and `just docs`, which copy the runs to
docs/evidence/dpvi-*/): `python3 tools/reference/dpvi_paired.py docs/evidence/dpvi-*`. Needs
pandas, pyarrow and scipy (python/requirements-ci.txt).

Writes two files in each folder. `fits.csv`: one line per fit (replication, method, q, c, target
ε, noise multiplier σ, spent ε, accuracy, test log-likelihood). `paired.csv`: comparisons over the
same replications (data split and start), first minus second of the run's metric (accuracy;
for the Gaussian mixture the test log-likelihood per point; higher is better): n, wins (first
higher), mean difference, 95 % t-interval, paired t-test p. A comparison's `family` names the
tests Holm's adjustment runs over (tools/docs/generate.py):
- `ma-ac`: the moments accountant against advanced composition, at each ε;
- `ma-np`: the moments accountant against the non-private fit of the same q and c, at each ε;
- `q` / `c`: each sampling rate or clipping threshold against the next, at each ε.
"""

import csv
import pathlib
import sys

import pandas as pd

from evidence_csv import paired_t, write_fits

MA, AC, NP = "dpvi-moments-accountant", "dpvi-advanced-composition", "non-private"


def paired(a, b):
    """The CSV cells of first − second: n, wins (first higher), mean, 95 % interval, p."""
    d, *numbers = paired_t(a, b)
    return [len(d), int((d > 0).sum())] + [repr(float(x)) for x in numbers]


def write(folder):
    folder = pathlib.Path(folder)
    df = pd.read_parquet(folder / "results.parquet")
    columns = ["replication", "method", "sampling_rate", "clip", "target_epsilon", "noise_multiplier",
               "epsilon_spent", "accuracy", "test_log_likelihood"]
    write_fits(df, columns, folder / "fits.csv")
    metric = "test_log_likelihood" if df.dataset.iloc[0] == "gmm" else "accuracy"

    def get(method, epsilon=None, q=None, c=None):
        x = df[df.method == method]
        if epsilon is not None:
            x = x[x.target_epsilon == epsilon]
        if q is not None:
            x = x[x.sampling_rate == q]
        if c is not None and method != NP:
            x = x[x["clip"] == c]
        return x.set_index("replication")[metric]

    qs, cs = sorted(df.sampling_rate.dropna().unique()), sorted(df["clip"].dropna().unique())
    lines = []
    for e in sorted(df.target_epsilon.dropna().unique()):
        if (df.method == AC).any():
            lines.append(["ma-ac", e, "moments accountant", "advanced composition"] + paired(get(MA, e), get(AC, e)))
        if len(qs) == 1 and len(cs) == 1:
            lines.append(["ma-np", e, "moments accountant", "non-private"] + paired(get(MA, e), get(NP)))
        for a, b in zip(qs, qs[1:]) if len(qs) > 1 else []:
            lines.append(["q", e, f"q = {a:g}", f"q = {b:g}"] + paired(get(MA, e, q=a), get(MA, e, q=b)))
        for a, b in zip(cs, cs[1:]) if len(cs) > 1 else []:
            lines.append(["c", e, f"c = {a:g}", f"c = {b:g}"] + paired(get(MA, e, c=a), get(MA, e, c=b)))
    with open(folder / "paired.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["family", "epsilon", "first", "second", "n", "wins", "mean", "low", "high", "p"])
        out.writerows(lines)


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        write(folder)
