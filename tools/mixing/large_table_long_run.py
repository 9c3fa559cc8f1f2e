"""A fit of the 3·10⁶-cell release at the length BENCHMARKS.md reports, against a long run of the
same release (BENCHMARKS.md, "A 3·10⁶-cell release in ten minutes"): do the short fit's posterior
means, sds and intervals agree with the long run's, within their Monte Carlo error?

    target/study-python/bin/python tools/mixing/large_table_long_run.py --short DIR --long DIR \\
        --out docs/evidence/large-table/long-run.csv

DIR: the output folders of two `lppf fit` runs of the same release (tools/mixing/large_table.py
with `--work`, which keeps them): the short one (2,200 sweeps) and the long one (another seed,
many more sweeps). Written, one row per quantity:

* the total rate and the total count: each fit's 90 % interval (fit.toml); for the total rate also
  its posterior mean (trace.parquet) and the short fit's mean minus the long one's in units of the
  long run's posterior sd;
* the cells' rates (rates.parquet, 3·10⁶ cells): the quantiles of `z = (mean_short − mean_long) /
  sd_long` over cells and of `sd_short / sd_long`, and the share of cells with `|z| > 0.5`. If
  both fits sample the same posterior, `z` is Monte Carlo error only: a cell's mean from a chain of
  effective size `n` is off by about `sd / √n`, so |z| stays far below 0.5 where the fits agree;
* the marginal log-likelihood of the monitored cells (trace.parquet): each fit's mean and 90 %
  interval over its kept draws.
"""

import argparse
import csv
import tomllib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq


def totals(fit):
    record = tomllib.loads((fit / "fit.toml").read_text())
    trace = pq.read_table(fit / "trace.parquet", columns=["total_rate", "ln_lik"]).to_pydict()
    return record, {name: np.array(values) for name, values in trace.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=Path, required=True)
    parser.add_argument("--long", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    (short, short_trace), (long, long_trace) = totals(args.short), totals(args.long)
    rows = []
    for name in ("total_rate", "total_count"):
        row = {"quantity": name}
        for label, record, trace in (("short", short, short_trace), ("long", long, long_trace)):
            for key in ("q05", "q95"):
                row[f"{label}_{key}"] = round(float(record[f"{name}_{key}"]), 1)
            if name == "total_rate":
                row[f"{label}_mean"] = round(float(trace["total_rate"].mean()), 1)
        if name == "total_rate":
            sd_long = float(np.std(long_trace["total_rate"], ddof=1))
            row["short_minus_long_in_long_sd"] = round((row["short_mean"] - row["long_mean"]) / sd_long, 3)
        rows.append(row)
    row = {"quantity": "ln_lik"}
    for label, trace in (("short", short_trace), ("long", long_trace)):
        row[f"{label}_mean"] = round(float(trace["ln_lik"].mean()), 1)
        for key, p in (("q05", 0.05), ("q95", 0.95)):
            row[f"{label}_{key}"] = round(float(np.quantile(trace["ln_lik"], p)), 1)
    rows.append(row)
    columns = ["mean", "sd"]
    a = pq.read_table(args.short / "rates.parquet", columns=columns).to_pydict()
    b = pq.read_table(args.long / "rates.parquet", columns=columns).to_pydict()
    mean_a, sd_a = np.array(a["mean"]), np.array(a["sd"])
    mean_b, sd_b = np.array(b["mean"]), np.array(b["sd"])
    z = (mean_a - mean_b) / sd_b
    ratio = sd_a / sd_b
    for name, values in (("cell_z", z), ("cell_sd_ratio", ratio)):
        q = np.quantile(values, [0.01, 0.05, 0.5, 0.95, 0.99])
        rows.append({"quantity": name, **{f"q{p:02d}": round(float(v), 4) for p, v in zip((1, 5, 50, 95, 99), q)}})
    rows.append({"quantity": "cells_abs_z_above_0.5", "share": round(float(np.mean(np.abs(z) > 0.5)), 5),
                 "cells": len(z)})
    fields = sorted({k for r in rows for k in r}, key=lambda k: (k != "quantity", k))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
