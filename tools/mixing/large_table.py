"""A user's large table: a seeded 1,000 x 3,000 document-term release (mean count about 1,
epsilon = 2) fitted by `lppf fit` with a given set of flags, timed end to end (BENCHMARKS.md,
"A 3·10⁶-cell release"):

    target/study-python/bin/python tools/mixing/large_table.py --out docs/evidence/large-table \\
        --name poisson-a0.1 -- --likelihood poisson --a0 0.1 --iterations 1200 --burn-in 300 --thin 1

The table: 10 topics, each a Dirichlet(0.05) distribution over the 3,000 words; each document's
topic shares Gamma(0.3) normalised; its length 3,000 Gamma(5, rate 5); counts Poisson (seed
20261129, drawn with numpy). `--docs D --words W` draw a D x W table the same way (lengths
W Gamma(5, rate 5)), `--seed` sets the fit's seed. Its release: `lppf privatize --epsilon 2
--seed 1` with the full grid of labels (seeded, so NOT private). The fit: `lppf fit --model
topic --components 10 --method private --seed SEED` plus the flags after `--`, on 2 threads. One
row per run is appended to fits.csv: the flags, the wall time of the whole command (sampling,
checks and outputs), the sampling time, the verdict, R-hat and bulk ESS of the monitored
quantities, the true total and the fit's 90 % intervals of the total (rate and count) and the
release-only interval, and the fit's seed.
"""

import argparse
import csv
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "planted"))
from study import LPPF, appending  # noqa: E402

DOCS, WORDS, TOPICS = 1000, 3000, 10


def table(docs=DOCS, words=WORDS):
    """The true counts (documents x words; documents of about `words` counts)."""
    rng = np.random.default_rng(20261129)
    theta = rng.gamma(0.3, 1.0, size=(docs, TOPICS))
    theta /= theta.sum(1, keepdims=True)
    phi = rng.dirichlet(np.full(words, 0.05), size=TOPICS)
    lengths = words * rng.gamma(5.0, 1 / 5.0, size=docs)
    return rng.poisson(lengths[:, None] * theta @ phi)


def release(work, docs=DOCS, words=WORDS):
    """Writes the counts, the grid's labels and the seeded release of the `docs` x `words` table
    under `work/DOCSxWORDS/` (kept there, so a work folder reused for another size never fits the
    wrong release); returns the release's path and the true total."""
    y = table(docs, words)
    here = work / f"{docs}x{words}"
    here.mkdir(parents=True, exist_ok=True)
    if not (here / "release.csv").exists():
        with open(here / "counts.csv", "w") as f:
            f.write("row,col,count\n")
            for i, j in zip(*np.nonzero(y)):
                f.write(f"d{i},w{j},{y[i, j]}\n")
        (here / "rows.csv").write_text("label\n" + "".join(f"d{i}\n" for i in range(docs)))
        (here / "cols.csv").write_text("label\n" + "".join(f"w{j}\n" for j in range(words)))
        subprocess.run([str(LPPF), "privatize", "--input", str(here / "counts.csv"), "--rows", str(here / "rows.csv"),
                        "--cols", str(here / "cols.csv"), "--epsilon", "2", "--seed", "1", "--force",
                        "--output", str(here / "release.csv")], check=True, capture_output=True)
    return here / "release.csv", int(y.sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path,
                        help="where the counts, the release and the fit go and stay (about 200 MB); default: a new "
                             "temporary directory, removed at the end")
    parser.add_argument("--name", required=True, help="the run's name in fits.csv")
    parser.add_argument("--docs", type=int, default=DOCS, help=f"documents (default {DOCS})")
    parser.add_argument("--words", type=int, default=WORDS,
                        help=f"words, and about the counts per document (default {WORDS})")
    parser.add_argument("--seed", type=int, default=1, help="the fit's seed (default 1)")
    parser.add_argument("flags", nargs=argparse.REMAINDER, help="-- then the extra `lppf fit` flags")
    args = parser.parse_args()
    flags = args.flags[1:] if args.flags[:1] == ["--"] else args.flags
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fit_once(args, flags, args.work or Path(tmp))


def fit_once(args, flags, work):
    work.mkdir(parents=True, exist_ok=True)
    released, truth = release(work, args.docs, args.words)
    quantities = ["ln_lik", "total_rate", "structure"]
    fields = ["name", "flags", "wall_seconds", "sampling_seconds", "convergence",
              *[f"{q}_{s}" for q in quantities for s in ("rhat", "ess_bulk")],
              "true_total", "release_total_q05", "release_total_q95", "total_rate_q05", "total_rate_q95",
              "total_count_q05", "total_count_q95", "seed"]
    with appending(args.out / "fits.csv", fields, lambda r: r["name"]) as (done, write):
        if args.name in done:
            print(f"{args.name}: already in {args.out / 'fits.csv'}")
            return
        fit = work / args.name
        began = time.perf_counter()
        subprocess.run([str(LPPF), "fit", "--input", str(released), "--model", "topic",
                        "--components", str(TOPICS), "--method", "private", "--seed", str(args.seed), "--threads", "2",
                        "--force", "--quiet", "--output", str(fit), *flags], check=True)
        wall = time.perf_counter() - began
        record = tomllib.loads((fit / "fit.toml").read_text())
        with open(fit / "diagnostics.csv") as f:
            diagnostics = {r["quantity"]: r for r in csv.DictReader(f)}
        row = {"name": args.name, "flags": " ".join(flags), "wall_seconds": round(wall, 1),
               "sampling_seconds": round(record["seconds"], 1), "convergence": record["convergence"],
               "true_total": truth, "release_total_q05": record["true_total_q05"],
               "release_total_q95": record["true_total_q95"], "seed": args.seed}
        for q in quantities:
            row[f"{q}_rhat"] = round(float(diagnostics[q]["rhat"]), 4)
            row[f"{q}_ess_bulk"] = round(float(diagnostics[q]["ess_bulk"]), 1)
        for key in ("total_rate_q05", "total_rate_q95", "total_count_q05", "total_count_q95"):
            row[key] = round(record[key], 1)
        write(row)
        print(row)


if __name__ == "__main__":
    main()
