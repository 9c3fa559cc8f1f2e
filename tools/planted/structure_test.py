"""The error rates of the test of structure on the release (docs/model-checking.md, "How often
the verdict is right"): how often `lppf fit` says `structure_in_release` on networks with no
structure beyond activity x popularity (the false-positive rate) and with weak or strong planted
communities (the power).

    LPPF_BIN=... target/ci-python/bin/python tools/planted/structure_test.py \
        --out docs/evidence/structure-test --replications 100 [--enron-size]
        [--release results/own-data/released.csv --components 2 4 8]

The data sets and releases are the verdict study's (`verdict.draw_and_release`: the same designs,
seeds and releases, so the rows pair with its results.csv and oracles.csv). The test does not
depend on the fit, so each release is fitted with a token schedule (one chain, 4 sweeps) and no
held-out cells: the test sees every modelled cell, as it does in a default `lppf fit`. Rows
already in results.csv are skipped, so a killed run resumes.
"""

import tempfile
import tomllib
from pathlib import Path

from study import LPPF, appending, run, seed_of
from verdict import design_arguments, draw_and_release, each_data_set, enron_size_release

FIELDS = ["strength", "noise", "alpha", "replication", "structure", "p", "statistic", "dispersion"]


def test_release(work, release, groups, seed):
    """(structure, p, T, r) of `lppf fit`'s test of `release` with `groups` groups."""
    out = work / "fit"
    run([LPPF, "fit", "--input", release, "--model", "block", "--components", groups, "--method", "private",
         "--chains", 1, "--iterations", 4, "--burn-in", 2, "--thin", 1, "--seed", seed, "--quiet", "--force",
         "--output", out])
    fit = tomllib.loads((out / "fit.toml").read_text())
    return (int(fit["structure_in_release"]), fit["structure_test_p"], fit["structure_test_statistic"],
            fit.get("structure_test_dispersion", ""))


def enron_size(out):
    """The Enron-sized planted network (120 actors, 8 communities, cell-level NB(0.3), alpha =
    0.5; the data set and release of `study.py --shapes network-large`, replication 0)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        group = enron_size_release(work)
        row = test_release(work, work / "release.csv", group.max() + 1, seed_of("fit", "network-large", "cell-nb", 0.5, 0))
    (out / "enron-size.csv").write_text("structure,p,statistic,dispersion\n" + ",".join(map(str, row)) + "\n")
    print("enron-size:", row, flush=True)


def on_release(out, release, components):
    """The test of a user's release (the Enron release of docs/own-data.md, made by
    tools/own-data-demo.sh) at each K: one row each in enron-release.csv."""
    with tempfile.TemporaryDirectory() as tmp, open(out / "enron-release.csv", "w") as f:
        f.write("components,structure,p,statistic,dispersion\n")
        for k in components:
            row = test_release(Path(tmp), release, k, 2)
            f.write(",".join(map(str, (k, *row))) + "\n")
            print(f"K = {k}:", row, flush=True)


def main():
    parser = design_arguments(__doc__)
    parser.add_argument("--enron-size", action="store_true", help="only the Enron-sized planted network")
    parser.add_argument("--release", type=Path, help="only this release (enron-release.csv), at --components")
    parser.add_argument("--components", nargs="+", type=int, default=[2, 4, 8])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.release:
        return on_release(args.out, args.release, args.components)
    if args.enron_size:
        return enron_size(args.out)
    key = lambda r: (r["strength"], r["noise"], float(r["alpha"]), int(r["replication"]))  # noqa: E731
    with appending(args.out / "results.csv", FIELDS, key) as (done, write), tempfile.TemporaryDirectory() as tmp:
        for strength, noise, alpha, rep in each_data_set(args, done):
            work = Path(tmp)
            _, _, group, release = draw_and_release(work, strength, noise, alpha, rep)
            structure, p, t, r = test_release(work, release, group.max() + 1,
                                              seed_of("structure-test", strength, noise, alpha, rep))
            write({"strength": strength, "noise": noise, "alpha": alpha, "replication": rep,
                   "structure": structure, "p": p, "statistic": t, "dispersion": r})
            print(f"{strength} {noise} a={alpha} rep {rep}: p = {p:.3f} (T {t:.1f}, r {r})", flush=True)


if __name__ == "__main__":
    main()
