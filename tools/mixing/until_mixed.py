"""Time to a mixed fit: `lppf fit --until-mixed` on small releases of three shapes, the papers'
model against `lppf fit`'s default (its sweep alone; docs/history/performance.md, "Time to a mixed
fit, the sweep alone"):

    target/study-python/bin/python tools/mixing/until_mixed.py --out docs/evidence/until-mixed

`--shapes` and `--candidates` choose others: e.g. `--shapes "overdispersed network" --candidates
papers default+move` (the default's sweep with the block model's Hamiltonian move, `lppf fit`'s
whole default for a directed network; BENCHMARKS.md, "Time to a mixed fit on networks").

Shapes (tools/planted/designs.py and tools/planted/cost.py): the planted 60-actor network and the
planted 90 x 60 document-term table (Poisson counts), and a 12 x 10 table of rates a_i b_j, each
drawn once (seed 11). Each replication releases it again at alpha = 0.5 (seeded, NOT private) and
fits the release privately with chains from another seed (K = 3; 2 for the tiny table)
with the default schedule (4 chains, 2,000 sweeps, 1,000 burn-in, thin 5) and `--until-mixed
16000`: a fit that is not `mixed` runs on to twice its length, up to 16,000 sweeps per chain. Per fit:
the lengths run, the final verdict, and the wall time of the whole command (every run, the checks
and the outputs). With `--before BINARY`, each fit is also made by that binary (an earlier build,
e.g. one whose longer runs started the chains afresh), the two alternating in order, and its wall
time is written beside (the run lengths and verdict must agree). Rows are appended to fits.csv (a
killed run resumes).
"""

import argparse
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "planted"))
from cost import CANDIDATES, SHAPES, release as released, shape_counts  # noqa: E402
from study import LPPF, SWEEP_ONLY, WITH_MOVE, appending, seed_of  # noqa: E402

CAP = 16000
FIT_SHAPES = ["sparse network", "dense table", "tiny table"]
# name -> `lppf fit` flags: cost.py's, and `lppf fit`'s whole default for a directed network
# (its sweep and the Hamiltonian move after each).
FITS = {**CANDIDATES, "default+move": WITH_MOVE}
FIT_CANDIDATES = ["papers", "default"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replications", type=int, default=2)
    parser.add_argument("--before", type=Path, help="an earlier lppf binary to time beside, fit by fit")
    parser.add_argument("--shapes", nargs="+", default=FIT_SHAPES, choices=list(SHAPES))
    parser.add_argument("--candidates", nargs="+", default=FIT_CANDIDATES, choices=list(FITS))
    args = parser.parse_args()
    if args.before and "default+move" in args.candidates:
        parser.error("--before times an earlier binary, which has no Hamiltonian move: leave out default+move")
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["shape", "replication", "candidate", "run_lengths", "convergence", "wall_seconds", "wall_seconds_before"]
    key = lambda r: (r["shape"], str(r["replication"]), r["candidate"])  # noqa: E731
    with appending(args.out / "fits.csv", fields, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for shape in args.shapes:
            axes, square, components = shape_counts(shape, work)
            for rep in range(args.replications):
                release = released(work, axes, seed_of("release", shape, rep))
                for candidate in args.candidates:
                    if (shape, str(rep), candidate) in done:
                        continue
                    def timed(binary):
                        out = work / candidate
                        # An earlier binary runs no move by default and has no `off` to name.
                        flags = [f for f in FITS[candidate] if binary == LPPF or f not in SWEEP_ONLY]
                        began = time.perf_counter()
                        subprocess.run([str(a) for a in [
                            binary, "fit", "--input", release, "--model", "block" if square else "topic",
                            "--components", components, "--method", "private", "--seed", seed_of("fit", shape, rep),
                            "--until-mixed", CAP, "--quiet", "--force", "--output", out, *flags]],
                            check=True, capture_output=True)
                        wall = time.perf_counter() - began
                        record = tomllib.loads((out / "fit.toml").read_text())
                        return wall, " ".join(str(n) for n in record["run_lengths"]), record["convergence"]
                    # The two binaries alternate which goes first, fit by fit.
                    order = ["now", "before"] if args.before and len(done) % 2 else ["before", "now"]
                    made = {which: timed(LPPF if which == "now" else args.before)
                            for which in order if which == "now" or args.before}
                    wall, lengths, convergence = made["now"]
                    if "before" in made and made["before"][1:] != (lengths, convergence):
                        sys.exit(f"{shape} {rep} {candidate}: the two binaries ran {made['before'][1:]} and "
                                 f"{(lengths, convergence)}")
                    before = f"{made['before'][0]:.1f}" if "before" in made else ""
                    write({"shape": shape, "replication": rep, "candidate": candidate, "run_lengths": lengths,
                           "convergence": convergence, "wall_seconds": f"{wall:.1f}", "wall_seconds_before": before})
                    done.add((shape, str(rep), candidate))
                    print(f"{shape} {rep} {candidate}: {lengths} -> {convergence}, {wall:.0f} s (before: {before} s)",
                          flush=True)


if __name__ == "__main__":
    main()
