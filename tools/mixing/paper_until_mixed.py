"""Time to a converged fit against the paper's code: the private topic model on the planted
document-term table and the private block model on the planted network, fitted by lppf and by the
paper's Cython samplers run on to the same criterion (BENCHMARKS.md, "Time to a converged fit,
against the paper's code"):

    PYTHONPATH=<paper>/code <paper>/venv/bin/python tools/mixing/paper_until_mixed.py \\
        --paper-code <paper>/code --out docs/evidence/paper-until-mixed [--shape "sparse network"]

`<paper>` is a build of xandaschofield/locally_private_bpf_icml19 (`python setup.py build_ext -i`
in `code/`, with Cython 0.29.37, numpy < 2 and GSL), whose Python also has arviz and pyarrow.

The data are the planted 90 x 60 document-term table of tools/planted (3 topics, Poisson counts,
seed 11) or its planted 60-actor directed network (3 communities; the diagonal left out by both
codes), released at alpha = 0.5 by `lppf privatize` (seeded, NOT private). Each release is
fitted with K = 3, 4 chains of 2,000 sweeps (1,000 burn-in, every 5th kept), run on to twice the
length while not converged, up to 16,000 sweeps per chain (`--cap`):

* lppf, the papers' model (`--prior flat --likelihood poisson`: Gamma(1, 1) factors) with its
  default collapsed private step, and with `--private-step augmented` (the paper's algorithm),
  `--until-mixed 16000` on 2 threads (chains in parallel); its criterion is its own verdict
  `mixed` (R-hat <= 1.01 and bulk ESS >= 100 per chain for the marginal log-likelihood of up to
  2,000 cells, the total rate and the structure summary, and every chain settled);
* the paper's BPPMF or BPSBM (`sym = 0`; `a = b = 1`, the same prior) with 2 OpenMP threads (parallel within a sweep),
  its 4 chains one after the other and continued in place; criterion R-hat <= 1.01 and bulk ESS
  >= 400 (arviz: rank-normalized split R-hat, bulk ESS) for the marginal log-likelihood of the
  release at 2,000 evenly spaced cells (the Poisson convolved with the two-sided geometric noise,
  summed to 1e-12) and the total rate. No structure summary and no per-chain check: a criterion
  the paper's chains meet no later than lppf's would.

`--shape "fig4 network"` is the Fig. 4 design instead: one network of the Fig. 4 recipe
(tools/mixing/starts.py, data set 1; the actors with counts only), K = 12 and the Fig. 4 model,
Gamma(0.1, rate 0.1) factors for both codes (lppf: `--a0 0.1 --b0 0.1`), and lppf also with
`--start cavi`; the augmented step is left out there (its per-sweep cost is measured elsewhere).

Wall time of the whole fit (the paper's: its sampling and the traces; lppf's: the whole command).
Rows are appended to fits.csv; lppf's own R-hat and bulk ESS of each monitored quantity in its last
fit (its diagnostics.csv) to lppf-diagnostics.csv.
"""

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "planted"))
from cost import SHAPES  # noqa: E402
from starts import network as fig4_network  # noqa: E402
from study import LPPF, SWEEP_ONLY, appending, seed_of, write_counts  # noqa: E402

ALPHA = 0.5
CAP = 16000
SCHEDULE = (2000, 1000, 5)
CHAINS = 4
SCORED = 2000
PAPERS = ["--prior", "flat", "--likelihood", "poisson"]
# The Fig. 4 model's factor prior, Gamma(a, rate b), for lppf and the paper's code (its default).
FIG4_PRIOR = 0.1


def fig4_counts():
    """Data set 1 of the Fig. 4 recipe, the actors with counts only (as a fit sees them), and the
    components to fit."""
    _, y = fig4_network(1)
    active = (y.sum(0) + y.sum(1)) > 0
    return y[np.ix_(active, active)], 12


def read_release(path, rows, cols):
    """The released values as a rows x cols matrix, by the labels' order."""
    index_r = {name: i for i, name in enumerate(rows)}
    index_c = {name: j for j, name in enumerate(cols)}
    out = np.zeros((len(rows), len(cols)), dtype=np.int64)
    with open(path) as f:
        next(f)
        for line in f:
            r, c, v = line.rstrip("\n").split(",")
            out[index_r[r], index_c[c]] = int(v)
    return out


def released_ln_lik(released, mu, alpha):
    """ln p(released | mu) per cell: Pois(y; mu) convolved with the two-sided geometric noise,
    (1 - alpha) / (1 + alpha) alpha^|released - y|, summed over y until the terms fall below
    1e-12 of the sum."""
    top = int(max(released.max(), 0) + mu.max() + 12 * np.sqrt(mu.max()) + 60)
    y = np.arange(top + 1)[:, None]
    ln_pois = y * np.log(mu)[None, :] - mu[None, :] - np.cumsum(np.log(np.maximum(y, 1)), axis=0)
    ln_noise = np.log((1 - alpha) / (1 + alpha)) + np.abs(released[None, :] - y) * np.log(alpha)
    terms = ln_pois + ln_noise
    m = terms.max(axis=0)
    return m + np.log(np.exp(terms - m).sum(axis=0))


def converged(traces):
    """R-hat <= 1.01 and bulk ESS >= 400 for every trace (chains x draws)."""
    import arviz
    for draws in traces.values():
        if arviz.rhat(draws) > 1.01 or arviz.ess(draws, method="bulk") < 400:
            return False
    return True


def paper_fit(released, k, alpha, seed, network, prior, cap=CAP):
    """The paper's sampler to the criterion; (sweeps per chain, converged, seconds, seconds in its
    sweeps alone)."""
    d, v = released.shape
    modelled = np.flatnonzero(~np.eye(d, dtype=bool).reshape(-1)) if network else np.arange(d * v)
    cells = modelled[np.unique(np.linspace(0, len(modelled) - 1, min(SCORED, len(modelled))).astype(int))]
    flat = released.reshape(-1)[cells]

    def build(seed):
        if network:
            from bpsbm import BPSBM
            return BPSBM(d, k, a=prior, b=prior, sym=0, seed=seed)
        from bppmf import BPPMF
        return BPPMF(d, v, k, a=prior, b=prior, seed=seed)

    def rates(state):
        if network:
            theta = state["Theta_VC"]
            return theta @ state["Pi_CC"] @ theta.T
        return state["Theta_DK"] @ state["Phi_KV"]
    began = time.perf_counter()
    sampling = 0.0
    models = []
    for c in range(CHAINS):
        model = build(seed + c)
        # An array of levels, as the paper's own experiment passes them.
        levels = np.full((d, v), alpha)
        if network:
            model.fit(released, alpha=levels, num_itns=0, verbose=False, initialize=True)
        else:
            model.fit(released, priv=levels, num_itns=0, verbose=False, initialize=True)
        models.append(model)
    done, (iterations, burn_in, thin) = 0, SCHEDULE
    while True:
        traces = {"ln_lik": [], "total": []}
        for model in models:
            start = time.perf_counter()
            model.update(burn_in - done, 0)
            sampling += time.perf_counter() - start
            ln_lik, total = [], []
            for _ in range((iterations - burn_in) // thin):
                start = time.perf_counter()
                model.update(thin, 0)
                sampling += time.perf_counter() - start
                mu = rates(dict(model.get_state())).reshape(-1)
                total.append(mu[modelled].sum())
                ln_lik.append(released_ln_lik(flat, mu[cells], alpha).sum())
            traces["ln_lik"].append(ln_lik)
            traces["total"].append(total)
        ok = converged({name: np.array(t) for name, t in traces.items()})
        if ok or 2 * iterations > cap:
            return iterations, ok, time.perf_counter() - began, sampling
        # On to twice the length, keeping the second half (lppf's Schedule::extended).
        done, kept = iterations, (iterations - burn_in) // thin
        iterations, burn_in = 2 * iterations, max(2 * burn_in, iterations)
        thin = max(1, (iterations - burn_in) // kept)


def lppf_fit(release, out, k, seed, step, network, model_flags, cap=CAP):
    """lppf to the same criterion: fresh fits of 2,000, 4,000, ... sweeps per chain (burn-in half,
    thinning doubled: the draws a continued chain keeps, `Schedule::extended`) until its trace
    meets it; (sweeps per chain, converged, seconds of the last fit, which continued chains cost)."""
    import pyarrow.parquet as pq
    iterations, burn_in, thin = SCHEDULE
    while True:
        began = time.perf_counter()
        subprocess.run([str(a) for a in [
            LPPF, "fit", "--input", release, "--model", "block" if network else "topic", "--components", k,
            "--method", "private",
            "--seed", seed, "--chains", CHAINS, "--iterations", iterations, "--burn-in", burn_in, "--thin", thin,
            "--private-step", step, "--threads", 2, "--structure-tables", 0, "--quiet", "--force",
            *SWEEP_ONLY, "--output", out, *model_flags]], check=True, capture_output=True)
        seconds = time.perf_counter() - began
        trace = pq.read_table(out / "trace.parquet").to_pydict()
        chain = np.array(trace["chain"])
        traces = {name: np.array([np.array(trace[column])[chain == c] for c in range(CHAINS)])
                  for name, column in (("ln_lik", "ln_lik"), ("total", "total_rate"))}
        ok = converged(traces)
        if ok or 2 * iterations > cap:
            return iterations, ok, seconds
        iterations, burn_in, thin = 2 * iterations, 2 * burn_in, 2 * thin


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper-code", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replications", type=int, default=2)
    parser.add_argument("--cap", type=int, default=CAP, help=f"sweeps per chain at most (default {CAP})")
    parser.add_argument("--shape", choices=["dense table", "sparse network", "fig4 network"], default="dense table")
    args = parser.parse_args()
    network = args.shape != "dense table"
    sys.path.insert(0, str(args.paper_code))
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["shape", "replication", "fitter", "sweeps_per_chain", "converged", "wall_seconds", "sampling_seconds"]
    key = lambda r: (r["shape"], str(r["replication"]), r["fitter"])  # noqa: E731
    fig4 = args.shape == "fig4 network"
    if fig4:
        (y, k), prior = fig4_counts(), FIG4_PRIOR
        model_flags = [*PAPERS, "--a0", prior, "--b0", prior]
    else:
        y, _, group, _ = SHAPES[args.shape]()
        k, prior, model_flags = int(group.max() + 1), 1.0, PAPERS
    diagnostic_fields = ["shape", "replication", "fitter", "quantity", "rhat", "ess_bulk"]
    diagnostic_key = lambda r: (r["shape"], str(r["replication"]), r["fitter"], r["quantity"])  # noqa: E731
    with appending(args.out / "fits.csv", fields, key) as (done, write), \
            appending(args.out / "lppf-diagnostics.csv", diagnostic_fields, diagnostic_key) as (kept, keep), \
            tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_counts(work / "counts.csv", y, "network" if network else "topics")
        rows = (work / "counts.csv.rows").read_text().split("\n")[1:-1]
        cols = rows if network else (work / "counts.csv.cols").read_text().split("\n")[1:-1]
        axes = (["--labels", work / "counts.csv.rows", "--square"] if network else
                ["--rows", work / "counts.csv.rows", "--cols", work / "counts.csv.cols"])
        for rep in range(args.replications):
            release = work / "release.csv"
            subprocess.run([str(a) for a in [
                LPPF, "privatize", "--input", work / "counts.csv", *axes, "--alpha", ALPHA,
                "--seed", seed_of("release", args.shape, rep), "--force", "--output", release]],
                check=True, capture_output=True)
            released = read_release(release, rows, cols)
            seed = seed_of("fit", args.shape, rep) % 2**31
            def lppf(step, *start):
                return lambda: lppf_fit(release, work / "fit", k, seed, step, network, [*model_flags, *start], args.cap)
            fitters = {"paper (Cython, augmented)": lambda: paper_fit(released, k, ALPHA, seed, network, prior,
                                                                      args.cap),
                       "lppf, collapsed step": lppf("collapsed")}
            if fig4:
                fitters["lppf, collapsed step, CAVI start"] = lppf("collapsed", "--start", "cavi")
            else:
                fitters["lppf, augmented step"] = lppf("augmented")
            # The order turns with the replication, so that drift in the machine's load falls on all.
            names = list(fitters)
            names = names[rep % len(names):] + names[:rep % len(names)]
            for name in names:
                if (args.shape, str(rep), name) in done:
                    continue
                sweeps, ok, seconds, *sampling = fitters[name]()
                if name.startswith("lppf"):
                    with open(work / "fit" / "diagnostics.csv") as f:
                        for d in csv.DictReader(f):
                            row = {"shape": args.shape, "replication": rep, "fitter": name,
                                   **{field: d[field] for field in ("quantity", "rhat", "ess_bulk")}}
                            if diagnostic_key(row) not in kept:
                                keep(row)
                write({"shape": args.shape, "replication": rep, "fitter": name, "sweeps_per_chain": sweeps,
                       "converged": ok,
                       "wall_seconds": f"{seconds:.1f}", "sampling_seconds": f"{sampling[0]:.1f}" if sampling else ""})
                print(f"{rep} {name}: {sweeps} sweeps per chain, converged {ok}, {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
