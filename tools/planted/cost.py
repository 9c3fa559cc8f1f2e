"""The cost of a default fit against the papers' model, as a user pays it: the wall time of
`lppf fit` with every default against `--prior flat --likelihood poisson` (same release, seed,
chains and sweeps), interleaved, on five shapes of data (BENCHMARKS.md, "The default fit against
the papers' model"):

    target/ci-python/bin/python tools/planted/cost.py --out docs/evidence/fit-cost --repeats 3

* sparse network: the planted 60-actor network, Poisson counts (tools/planted/designs.py);
* dense table: the planted 90 x 60 document-term table, Poisson counts;
* overdispersed network: the planted network with cell-level NB(0.3) counts;
* overdispersed table: the planted document-term table with cell-level NB(0.3) counts;
* tiny table: 12 x 10 counts, rates a_i b_j with a, b ~ Gamma(2, rate 1).

Each is released at alpha = 0.5 (seeded, NOT private) and fitted privately (K = 3; 2 for the tiny
table). The two candidates alternate within each repeat (order flipped every repeat), so that
drift in the machine's load falls on both. Wall time is measured around the whole command
(reading, chains, checks, PSIS-LOO, outputs); both run the same sweeps, so the ratio is also the
ratio per sweep. Rows are appended to fits.csv.
"""

import argparse
import csv
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import designs  # noqa: E402
from study import LPPF, SWEEP_ONLY, write_counts  # noqa: E402

CANDIDATES = {
    "papers": ["--prior", "flat", "--likelihood", "poisson", *SWEEP_ONLY],
    "negative-binomial": ["--likelihood", "negative-binomial", *SWEEP_ONLY],
    # The default model, its sweep alone (as measured; the block model's default adds the move).
    "default": SWEEP_ONLY,
}


def tiny(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.gamma(2.0, 1.0, size=12), rng.gamma(2.0, 1.0, size=10)
    mu = np.outer(a, b)
    return rng.poisson(mu), mu, np.zeros(12, dtype=int), False


SHAPES = {
    "sparse network": lambda: designs.draw("network", "poisson", 11),
    "dense table": lambda: designs.draw("topics", "poisson", 11),
    "overdispersed network": lambda: designs.draw("network", "cell-nb", 11),
    "overdispersed table": lambda: designs.draw("topics", "cell-nb", 11),
    "tiny table": lambda: tiny(11),
}


def shape_counts(shape, work):
    """Draws `shape`, writes its counts to work/counts.csv with their labels, and returns the label
    options of `lppf privatize`, whether the table is a network, and the components to fit."""
    y, _, group, square = SHAPES[shape]()
    write_counts(work / "counts.csv", y, "network" if square else "topics")
    axes = (["--labels", work / "counts.csv.rows", "--square"] if square else
            ["--rows", work / "counts.csv.rows", "--cols", work / "counts.csv.cols"])
    return axes, square, str(max(group.max() + 1, 2))


def release(work, axes, seed):
    """work/release.csv: work/counts.csv released at alpha = 0.5 with `seed` (NOT private)."""
    subprocess.run([str(a) for a in [LPPF, "privatize", "--input", work / "counts.csv", *axes, "--alpha", "0.5",
                                      "--seed", seed, "--force", "--output", work / "release.csv"]],
                   check=True, capture_output=True)
    return work / "release.csv"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    table = args.out / "fits.csv"
    new = not table.exists()
    with open(table, "a", newline="") as f, tempfile.TemporaryDirectory() as tmp:
        writer = csv.writer(f)
        if new:
            writer.writerow(["shape", "repeat", "candidate", "wall_seconds", "fit_seconds", "machine"])
        work = Path(tmp)
        for shape in SHAPES:
            axes, square, components = shape_counts(shape, work)
            release(work, axes, 5)
            for repeat in range(args.repeats):
                order = list(CANDIDATES) if repeat % 2 == 0 else list(reversed(CANDIDATES))
                for candidate in order:
                    out = work / candidate
                    start = time.perf_counter()
                    subprocess.run([str(a) for a in [LPPF, "fit", "--input", work / "release.csv", "--model",
                                                      "block" if square else "topic", "--components", components,
                                                      "--method", "private", "--seed", "3", "--quiet", "--force",
                                                      "--output", out, *CANDIDATES[candidate]]],
                                   check=True, capture_output=True)
                    wall = time.perf_counter() - start
                    seconds = next(line.split("=")[1].strip() for line in (out / "fit.toml").read_text().splitlines()
                                   if line.startswith("seconds ="))
                    writer.writerow([shape, repeat, candidate, f"{wall:.3f}", seconds, platform.processor() or "?"])
                    f.flush()
                    print(f"{shape} {repeat} {candidate}: {wall:.2f} s", flush=True)


if __name__ == "__main__":
    main()
