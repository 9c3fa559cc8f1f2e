"""How often the interval for the true total that `lppf fit` gives from the release alone holds the
true total, on the planted designs (docs/model-checking.md, "Planted designs"; the interval is
`analysis::totals::release_total`).

    target/ci-python/bin/python tools/planted/release_total.py --out docs/evidence/release-total \
        --replications 100

The data sets and releases are those of tools/planted/study.py (the same seeds, so replications
0-2 are the study's 72 data sets). The interval needs no model, so each release is read by a fit
of two sweeps of one chain (`true_total_q05`, `true_total_q95` of fit.toml) and nothing else of
the fit is used. Rows are appended as they finish, and rows already there are skipped.
"""

import argparse
import tempfile
import tomllib
from pathlib import Path

import numpy as np

import designs
from study import LPPF, appending, run, seed_of, write_counts

FIELDS = ["shape", "noise", "alpha", "replication", "true_total", "released_total", "q05", "q95", "covered"]
# The fit is only the reader of the release: its schedule is as short as `lppf fit` allows.
READER = ["--chains", "1", "--iterations", "2", "--burn-in", "1", "--thin", "1", "--quiet", "--force"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replications", type=int, default=100)
    parser.add_argument("--shapes", nargs="+", default=["network", "topics"], choices=designs.SHAPES)
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.2, 0.5, 0.8])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    key = lambda r: (r["shape"], r["noise"], float(r["alpha"]), int(r["replication"]))  # noqa: E731
    with appending(args.out / "results.csv", FIELDS, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for rep in range(args.replications):
            for shape in args.shapes:
                for noise in designs.NOISES:
                    if all((shape, noise, a, rep) in done for a in args.alphas):
                        continue
                    y, _, group, square = designs.draw(shape, noise, seed_of("data", shape, noise, rep))
                    write_counts(work / "counts.csv", y, shape)
                    modelled = ~np.eye(*y.shape, dtype=bool) if square else np.ones(y.shape, dtype=bool)
                    true_total = int(y[modelled].sum())
                    for alpha in args.alphas:
                        if (shape, noise, alpha, rep) in done:
                            continue
                        axes = (["--labels", work / "counts.csv.rows", "--square"] if square else
                                ["--rows", work / "counts.csv.rows", "--cols", work / "counts.csv.cols"])
                        run([LPPF, "privatize", "--input", work / "counts.csv", *axes, "--alpha", alpha,
                             "--seed", seed_of("release", shape, noise, alpha, rep), "--force",
                             "--output", work / "release.csv"])
                        model = "block" if square else "topic"
                        run([LPPF, "fit", "--input", work / "release.csv", "--model", model, "--components", "1",
                             "--method", "private", "--seed", "1", "--output", work / "fit", *READER])
                        fit = tomllib.loads((work / "fit" / "fit.toml").read_text())
                        lo, hi = fit["true_total_q05"], fit["true_total_q95"]
                        write({"shape": shape, "noise": noise, "alpha": alpha, "replication": rep,
                               "true_total": true_total, "released_total": fit["true_total_from_release"],
                               "q05": lo, "q95": hi, "covered": int(lo <= true_total <= hi)})
            print(f"replication {rep} done", flush=True)


if __name__ == "__main__":
    main()
