"""Paired comparisons of the DP-SEP study (docs/dp-sep.md), written for the docs' generated tables.

Usage (repository root, after `lppf run experiments/dp-sep-mog-20.toml` and `just docs`, which
copies the run to docs/evidence/dp-sep-mog-20/): `python3 tools/reference/dp_sep_paired.py
docs/evidence/dp-sep-mog-20`. Needs pandas, pyarrow and scipy (python/requirements-ci.txt).

Writes two files in that folder. `fits.csv`: one line per fit (replication, method, clip, ε, noise
multiplier σ, the F-norms). `paired.csv`: for each comparison, first minus second of the replication's
F-norm average over the same data sets and starts (lower is better): n, wins (first lower), mean
difference, 95 % t-interval, paired t-test p and Wilcoxon signed-rank p (two-sided, exact). Holm's
adjustment over the family is left to tools/docs/generate.py, which knows the family.
"""

import csv
import pathlib
import sys

import pandas as pd
from scipy import stats

from evidence_csv import paired_t, write_fits

COMPARISONS = [
    ("SEP − clipped SEP C = 20", ("sep", None, None), ("clipped-sep", 20.0, None)),
    ("clipped C = 20 − C = 10", ("clipped-sep", 20.0, None), ("clipped-sep", 10.0, None)),
    ("clipped C = 10 − C = 1", ("clipped-sep", 10.0, None), ("clipped-sep", 1.0, None)),
    ("DP-SEP ε = 50 − ε = 5", ("dp-sep", None, 50.0), ("dp-sep", None, 5.0)),
    ("DP-SEP ε = 5 − ε = 1", ("dp-sep", None, 5.0), ("dp-sep", None, 1.0)),
    ("DP-EM − DP-SEP, ε = 50", ("dp-em", None, 50.0), ("dp-sep", None, 50.0)),
    ("DP-EM − DP-SEP, ε = 5", ("dp-em", None, 5.0), ("dp-sep", None, 5.0)),
    ("DP-EM − DP-SEP, ε = 1", ("dp-em", None, 1.0), ("dp-sep", None, 1.0)),
]


def values(df, method, clip, epsilon):
    x = df[df.method == method]
    if clip is not None:
        x = x[x["clip"] == clip]
    if epsilon is not None:
        x = x[x["epsilon"] == epsilon]
    return x.sort_values("replication").set_index("replication").f_norm_average


def main(folder):
    folder = pathlib.Path(folder)
    df = pd.read_parquet(folder / "results.parquet")
    columns = ["replication", "method", "clip", "epsilon", "noise_multiplier", "f_norm_mean", "f_norm_covariance",
               "f_norm_average"]
    write_fits(df, columns, folder / "fits.csv")
    with open(folder / "paired.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["comparison", "n", "wins", "mean", "low", "high", "p_t", "p_wilcoxon"])
        for label, first, second in COMPARISONS:
            a, b = values(df, *first).align(values(df, *second), join="inner")
            d, mean, low, high, t = paired_t(a, b)
            numbers = [mean, low, high, t, stats.wilcoxon(a, b).pvalue]
            out.writerow([label, len(d), int((d < 0).sum())] + [repr(float(x)) for x in numbers])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/evidence/dp-sep-mog-20")
