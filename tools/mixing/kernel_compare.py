"""Paired fits of the same releases by two arms, with their effective sample sizes and times: the
contaminated likelihood's r and pi drawn by a Newton-Metropolis step against the slice samplers it
replaced, the same default fits by two release binaries (docs/history/performance.md):

    target/study-python/bin/python tools/mixing/kernel_compare.py --out docs/evidence/contaminated-kernel \
        --before OLD_LPPF [--replications 4] [--labels THIS BEFORE]

(`--labels` names the two arms in the rows' `binary`; "newton" and "slice" unless given.)

With `--against-papers` instead of `--before`, this checkout's default fit against its fit of the
papers' model (`--prior flat --likelihood poisson`) on the same releases and seeds, the rows'
`binary` being `default` and `papers` (docs/evidence/default-vs-papers-ess/); `--move` adds a
third arm, the default with the block model's Hamiltonian move (`--hamiltonian-move`, `binary`
`default+move`), and keeps to the network shapes (docs/evidence/move-vs-papers-ess/).

Shapes: those of tools/planted/cost.py, or the `--shapes` given (the planted 60-actor network and
90 x 60 document-term table with Poisson counts, each with cell-level NB(0.3) counts, a 12 x 10
table of rates a_i b_j). Each replication releases the shape again at alpha = 0.5 (seeded, NOT
private) and fits the release privately with `lppf fit`'s defaults (4 chains, 2,000 sweeps, 1,000 burn-in, thin 5;
K = 3, 2 for the tiny table), chains from a seed of their own, by this checkout's binary and by
`--before`, alternating which goes first. Per fit: the wall time of the whole command, lppf's
split-R-hat and bulk ESS of each monitored quantity (diagnostics.csv), and the bulk ESS (arviz) of
the kept draws of r and pi (trace.parquet). Rows are appended to fits.csv (a killed run resumes).
"""

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import arviz as az
import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "planted"))
from cost import CANDIDATES, SHAPES, release as released, shape_counts  # noqa: E402
from study import LPPF, SWEEP_ONLY, WITH_MOVE, appending, seed_of  # noqa: E402

QUANTITIES = ["ln_lik", "total_rate", "structure"]
TRACED = {"dispersion": "r", "overdispersed_share": "pi"}


def measured(binary, release, out, square, components, seed, flags=()):
    """Runs one default fit (with `flags` added); returns its wall time and its ESS and R-hat by
    quantity (r and pi empty where the fit has none)."""
    began = time.perf_counter()
    subprocess.run([str(a) for a in [
        binary, "fit", "--input", release, "--model", "block" if square else "topic", "--components", components,
        "--method", "private", "--seed", seed, "--quiet", "--force", "--output", out, *flags]],
        check=True, capture_output=True)
    row = {"wall_seconds": f"{time.perf_counter() - began:.2f}"}
    with open(out / "diagnostics.csv") as f:
        for d in csv.DictReader(f):
            if d["quantity"] in QUANTITIES:
                row[f"rhat_{d['quantity']}"], row[f"ess_{d['quantity']}"] = d["rhat"], d["ess_bulk"]
    trace = pq.read_table(out / "trace.parquet").to_pandas()
    chains = sorted(trace["chain"].unique())
    for column, name in TRACED.items():
        if column not in trace or trace[column].isna().all():
            row[f"ess_{name}"] = row[f"rhat_{name}"] = ""
            continue
        draws = np.array([trace.loc[trace["chain"] == c, column].to_numpy() for c in chains])
        row[f"ess_{name}"] = f"{float(az.ess(draws, method='bulk')):.1f}"
        row[f"rhat_{name}"] = f"{float(az.rhat(draws)):.4f}"
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--before", type=Path, help="the binary to compare this checkout's with")
    group.add_argument("--against-papers", action="store_true", help="the default against the papers' model")
    parser.add_argument("--move", action="store_true",
                        help="with --against-papers: a third arm, the default with --hamiltonian-move (networks only)")
    parser.add_argument("--replications", type=int, default=4)
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES), metavar="SHAPE",
                        help="the shapes of tools/planted/cost.py to fit (all unless given)")
    parser.add_argument("--labels", nargs=2, default=["newton", "slice"], metavar=("THIS", "BEFORE"),
                        help="the rows' `binary` for this checkout's fits and --before's")
    args = parser.parse_args()
    if args.move and not args.against_papers:
        parser.error("--move goes with --against-papers")
    args.out.mkdir(parents=True, exist_ok=True)
    names = QUANTITIES + list(TRACED.values())
    fields = ["shape", "replication", "binary", "wall_seconds"] + [f"{s}_{q}" for q in names for s in ("ess", "rhat")]
    key = lambda r: (r["shape"], str(r["replication"]), r["binary"])  # noqa: E731
    # The default's sweep alone (an earlier binary has no move by default, and no `off` to name).
    arms = {"default": (LPPF, SWEEP_ONLY), "papers": (LPPF, CANDIDATES["papers"])} if args.against_papers else \
        {args.labels[0]: (LPPF, SWEEP_ONLY), args.labels[1]: (args.before, [])}
    if args.move:
        arms["default+move"] = (LPPF, WITH_MOVE)
        args.shapes = [s for s in args.shapes if "network" in s]
    with appending(args.out / "fits.csv", fields, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for shape in args.shapes:
            axes, square, components = shape_counts(shape, work)
            for rep in range(args.replications):
                release = released(work, axes, seed_of("release", shape, rep))
                # Which arm goes first alternates (with three arms, a rotation).
                order = list(arms)[rep % len(arms):] + list(arms)[:rep % len(arms)]
                for which in order:
                    if (shape, str(rep), which) in done:
                        continue
                    binary, flags = arms[which]
                    row = measured(binary, release, work / which, square, components, seed_of("fit", shape, rep), flags)
                    write({"shape": shape, "replication": rep, "binary": which, **row})
                    print(f"{shape} {rep} {which}: {row}", flush=True)


if __name__ == "__main__":
    main()
