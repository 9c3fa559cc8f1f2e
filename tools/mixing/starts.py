"""Where a block-model chain starts, and how far below the best chain it still is after a fixed
number of sweeps (docs/inference.md, "Where the chains start"):

    target/study-python/bin/python tools/mixing/starts.py --out docs/evidence/block-starts

Data sets: the Fig. 4 recipe (data/enron/base.toml: theta*_i rescaled by gamma_i ~ Gamma(e0 f0,
rate f0), e0 = 1, f0 = 0.1; y ~ Pois(theta pi theta^T), no self-loops), one per seed. Each is fitted
non-privately by `lppf fit` with the Fig. 4 model (block, C = 12, Gamma(0.1, rate 0.1), flat prior,
Poisson) and each start (`--start prior`, `--start cavi`): 6 chains of 5,000 sweeps, the last 1,000
kept (thin 10), seed 1. Per chain: the mean of the monitored marginal log-likelihood (`ln_lik`)
over its kept draws. A chain is "near" when it is within 30 nats of the best chain of that data set
over both starts. Rows are appended to chains.csv (a killed run resumes); the table of
docs/inference.md is generated from it (tools/docs/generate.py, `block-starts`).
"""

import argparse
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "planted"))
from study import LPPF, ROOT, SWEEP_ONLY, appending  # noqa: E402
STARTS = ["prior", "cavi"]


def network(seed, e0=1.0, f0=0.1):
    base = tomllib.loads((ROOT / "data" / "enron" / "base.toml").read_text())
    theta, pi = np.array(base["theta"]), np.array(base["pi"])
    rng = np.random.default_rng(seed)
    theta = theta * rng.gamma(e0 * f0, 1.0 / f0, size=theta.shape[0])[:, None]
    rates = theta @ pi @ theta.T
    np.fill_diagonal(rates, 0.0)
    return base["row_labels"], rng.poisson(rates)


def write_counts(path, labels, y):
    with open(path, "w") as f:
        f.write("row,col,count\n")
        for i, j in zip(*np.nonzero(y)):
            f.write(f"{labels[i]},{labels[j]},{y[i, j]}\n")


def fit(counts, start, out):
    began = time.perf_counter()
    subprocess.run([str(a) for a in [
        LPPF, "fit", "--input", counts, "--model", "block", "--components", 12, "--method", "non-private",
        "--prior", "flat", "--likelihood", "poisson", "--a0", 0.1, "--b0", 0.1, "--chains", 6,
        "--iterations", 5000, "--burn-in", 4000, "--thin", 10, "--seed", 1, "--start", start, "--quiet",
        *SWEEP_ONLY,
        "--force", "--output", out]], check=True, capture_output=True)
    trace = pq.read_table(out / "trace.parquet").to_pandas()
    return trace.groupby("chain")["ln_lik"].mean().to_dict(), time.perf_counter() - began


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--datasets", type=int, default=8)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["dataset", "start", "chain", "mean_ln_lik", "fit_seconds"]
    key = lambda r: (str(r["dataset"]), r["start"])  # noqa: E731
    with appending(args.out / "chains.csv", fields, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for dataset in range(1, args.datasets + 1):
            labels, y = network(dataset)
            write_counts(work / "counts.csv", labels, y)
            for start in STARTS:
                if (str(dataset), start) in done:
                    continue
                means, seconds = fit(work / "counts.csv", start, work / start)
                for chain, mean in sorted(means.items()):
                    write({"dataset": dataset, "start": start, "chain": chain, "mean_ln_lik": f"{mean:.3f}",
                           "fit_seconds": f"{seconds:.1f}"})
                print(f"data set {dataset}, start {start}: {seconds:.1f} s", flush=True)
    if args.out.resolve() == (ROOT / "docs" / "evidence" / "block-starts").resolve():
        sys.path.insert(0, str(ROOT / "tools" / "docs"))
        from tables_modes import block_starts
        print(block_starts())


if __name__ == "__main__":
    sys.exit(main())
