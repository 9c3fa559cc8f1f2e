"""The block model's Hamiltonian move on real data: the Enron network released at ε = 2
(precision 5, seeded, so NOT a private release) and fitted privately with 8 communities by
`lppf fit`'s default, with and without `--hamiltonian-move`, the same chain seeds for both
(docs/history/mixing.md, "Tried" 10):

    cargo build --release -p lppf-cli
    target/study-python/bin/python tools/mixing/enron_hamiltonian.py --seeds 1 2 3 4 \
        --out docs/evidence/enron-hamiltonian

Writes fits.csv: per seed and kernel, the R̂ and bulk ESS of the monitored marginal
log-likelihood (`ln_lik`) and of the structure summary, each chain's mean `ln_lik`, the verdict,
the adapted steps and acceptance of the move, and the fit's seconds.
"""

import argparse
import csv
import subprocess
import tempfile
import tomllib
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
LPPF = ROOT / "target" / "release" / "lppf"
COUNTS = ROOT / "data" / "enron" / "network-counts.csv"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        released = tmp / "released.csv"
        subprocess.run([LPPF, "privatize", "--input", COUNTS, "--square", "--epsilon", "2", "--precision", "5",
                        "--seed", "20261204", "--output", released], check=True, capture_output=True)
        for seed in args.seeds:
            for kernel, extra in [("gibbs", ["--hamiltonian-move", "off"]), ("gibbs+hamiltonian", ["--hamiltonian-move", "on"])]:
                fit = tmp / f"fit-{seed}-{kernel}"
                subprocess.run([LPPF, "fit", "--input", released, "--model", "block", "--components", "8",
                                "--method", "private", "--seed", str(seed), "--quiet", "--output", fit, *extra],
                               check=True)
                diagnostics = {r["quantity"]: r for r in csv.DictReader(open(fit / "diagnostics.csv"))}
                record = tomllib.load(open(fit / "fit.toml", "rb"))
                trace = pq.read_table(fit / "trace.parquet").to_pandas()
                means = trace.groupby("chain")["ln_lik"].mean().round(1).tolist()
                rows.append({
                    "seed": seed, "kernel": kernel,
                    "ln_lik_rhat": f"{float(diagnostics['ln_lik']['rhat']):.3f}",
                    "ln_lik_ess_bulk": f"{float(diagnostics['ln_lik']['ess_bulk']):.1f}",
                    "structure_rhat": f"{float(diagnostics['structure']['rhat']):.3f}",
                    "chain_mean_ln_lik": " ".join(str(m) for m in means),
                    "best_chain_ln_lik": max(means), "worst_chain_ln_lik": min(means),
                    "convergence": record.get("convergence", ""),
                    "steps": " ".join(f"{s:.3g}" for s in record.get("hamiltonian_steps", [])),
                    "acceptance": " ".join(f"{a:.2f}" for a in record.get("hamiltonian_acceptance", [])),
                    "seconds": f"{record['seconds']:.1f}",
                })
                print(rows[-1], flush=True)
    with open(args.out / "fits.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
