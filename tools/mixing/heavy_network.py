"""How far the default's block-model chains are from the posterior on one network of a Fig. 4-size
SBC (docs/history/mixing.md, "Heavy networks at Fig. 4's size" and
"Lighter networks at Fig. 4's size"):

    cargo build --release -p lppf-cli && cargo build --release -p pipeline --example sweep_data
    target/study-python/bin/python tools/mixing/heavy_network.py --replication 28 \
        --out docs/evidence/heavy-network
    target/study-python/bin/python tools/mixing/heavy_network.py --replication 4 --starts 0 \
        --manifest experiments/calibration-contaminated-block-fig4-size-light.toml \
        --out docs/evidence/light-network

Writes the network of that replication of the manifest (default
experiments/calibration-contaminated-block-fig4-size.toml; with its true rates and dispersion) by
the example sweep_data, fits it non-privately with the default (`lppf fit --model block
--components 12`: 2 chains of 6,000 sweeps, every 20th kept from the start, seed 1), and
compares, under the contaminated likelihood with the true shape `r` and share `π`
(`(1 − π) Pois(y; μ) + π NB(y; r, μ)` per cell, the diagonal not modelled):

- the true rates;
- the fit's posterior mean rates;
- the maximum found by L-BFGS over `ln θ`, `ln π` (`--starts` starts from Gamma(1, 1) factors,
  seed 1; default 4, 0 for none): where a converged posterior's mass would be, up to the prior,
  about d/2 below for d parameters.

Writes trace.csv (the fit's log-likelihood per kept sweep and chain, as lppf monitors it) and
summary.csv (one line per quantity).
"""

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from scipy.optimize import minimize
from scipy.special import gammaln

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "experiments" / "calibration-contaminated-block-fig4-size.toml"
LPPF = ROOT / "target" / "release" / "lppf"
SWEEP_DATA = ROOT / "target" / "release" / "examples" / "sweep_data"
C = 12


def contaminated(y, m, r, share):
    """Per-cell log-likelihood under (1 − π) Pois(μ) + π NB(r, μ), and its derivative in μ."""
    lp = y * np.log(m) - m - gammaln(y + 1)
    lnb = gammaln(y + r) - gammaln(r) - gammaln(y + 1) + r * np.log(r / (r + m)) + y * np.log(m / (r + m))
    a, b = np.log1p(-share) + lp, np.log(share) + lnb
    total = np.logaddexp(a, b)
    wa = np.exp(a - total)
    slope = wa * (y / m - 1) + (1 - wa) * (y / m - (y + r) / (r + m))
    return total, slope


def network(manifest, replication, tmp):
    """That replication's network of the manifest, written by the example sweep_data into `tmp`:
    the counts `y` and true rates `μ` (`V × V`), the true shape `r` and share, and the counts' CSV."""
    counts, rates = tmp / "counts.csv", tmp / "rates.csv"
    subprocess.run([SWEEP_DATA, manifest, str(replication), counts, rates], check=True)
    summary = subprocess.run([SWEEP_DATA, manifest, "summary"], check=True, capture_output=True, text=True).stdout
    truth = next(row for row in csv.DictReader(summary.splitlines()) if int(row["replication"]) == replication)
    n = int(truth["rows"])
    y, mu = np.zeros((n, n)), np.zeros((n, n))
    for row in csv.DictReader(open(counts)):
        y[int(row["row"]), int(row["col"])] = float(row["count"])
    for row in csv.DictReader(open(rates)):
        mu[int(row["row"]), int(row["col"])] = float(row["rate"])
    return y, mu, float(truth["shape"]), float(truth["share"]), counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replication", type=int, default=28)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--starts", type=int, default=4, help="L-BFGS starts (0: none)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        y, mu, r, share, counts = network(args.manifest, args.replication, tmp)
        n = len(y)
        fit = tmp / "fit"
        subprocess.run([LPPF, "fit", "--input", counts, "--model", "block", "--components", str(C), "--method", "non-private",
                        "--chains", "2", "--iterations", "6000", "--burn-in", "0", "--thin", "20", "--seed", "1", "--quiet",
                        "--hamiltonian-move", "off",
                        "--output", fit], check=True)
        mean = np.zeros((n, n))
        table = pq.read_table(fit / "rates.parquet").to_pandas()
        mean[table["row"].astype(int), table["col"].astype(int)] = table["mean"]
        trace = pq.read_table(fit / "trace.parquet").to_pandas()
    mask = ~np.eye(n, dtype=bool)
    yy = y[mask]

    def ln_lik(m):
        return float(contaminated(yy, m[mask], r, share)[0].sum())

    def kl(m):
        t, e = mu[mask], m[mask]
        return float(np.mean(np.where(t > 0, t * np.log(t / e), 0.0) - t + e))

    def objective(x):
        theta, pi = np.exp(x[:n * C]).reshape(n, C), np.exp(x[n * C:]).reshape(C, C)
        m = np.maximum(theta @ pi @ theta.T, 1e-300)
        value, slope = contaminated(yy, m[mask], r, share)
        w = np.zeros((n, n))
        w[mask] = slope
        g_theta, g_pi = w @ theta @ pi.T + w.T @ theta @ pi, theta.T @ w @ theta
        return -value.sum(), -np.concatenate([(g_theta * theta).ravel(), (g_pi * pi).ravel()])

    lines = [("truth", ln_lik(mu), 0.0), ("posterior mean of the fit", ln_lik(np.maximum(mean, 1e-300)), kl(np.maximum(mean, 1e-300)))]
    rng = np.random.default_rng(1)
    for start in range(args.starts):
        found = minimize(objective, np.log(rng.gamma(1.0, 1.0, n * C + C * C)), jac=True, method="L-BFGS-B",
                         options=dict(maxiter=20000, maxfun=40000))
        theta, pi = np.exp(found.x[:n * C]).reshape(n, C), np.exp(found.x[n * C:]).reshape(C, C)
        lines.append((f"L-BFGS maximum, start {start} ({found.nit} iterations)", -found.fun, kl(theta @ pi @ theta.T)))
    with open(args.out / "summary.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["replication", "total", "shape", "share", "quantity", "ln_likelihood", "kl_from_truth"])
        for name, value, divergence in lines:
            w.writerow([args.replication, int(yy.sum()), f"{r:.4g}", f"{share:.4g}", name, f"{value:.1f}", f"{divergence:.4f}"])
    trace[["chain", "iteration", "ln_lik", "structure", "dispersion", "overdispersed_share"]].to_csv(args.out / "trace.csv", index=False)
    for name, value, divergence in lines:
        print(f"{name:45} {value:12.1f} {divergence:.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
