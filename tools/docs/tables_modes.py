"""Generated blocks of docs/modes.md: replica exchange against plain chains on the Enron release
(docs/data/replicas-enron*.csv) and the Fig. 4 quick run pooled two ways
(docs/data/fig4-quick-stacking.csv)."""

import statistics

from docstats import binomial_test_p, holm, interval, minus, p_text, paired_t
from sources import data_rows, rows

SETTINGS = [("plain2000", "2,000 sweeps"), ("plain8000", "8,000 sweeps"), ("pt4", "4 replicas × 2,000 sweeps")]
METHODS = [("non-private", "non-private"), ("private", "private (ε = 2)")]


def by_seed(fits, method, setting):
    """The fits of one method and setting, in seed order."""
    return sorted((r for r in fits if r["method"] == method and r["setting"] == setting), key=lambda r: int(r["seed"]))


def spread(values):
    """`median (smallest–largest)` of R̂ values over the seeds."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def replicas_table(name):
    """Per method and setting, over the seeds: the mean seconds of a fit, and R̂ of the log joint and
    of the total rate (median and range, and how many seeds reach R̂ < 1.1)."""
    fits = data_rows(name)
    seeds = len({r["seed"] for r in fits})
    lines = [f"| fit | setting | seconds (mean) | R̂ log joint: median (range) over {seeds} seeds | below 1.1 | "
             "R̂ total: median (range) | below 1.1 |", "| --- | --- | ---: | --- | ---: | --- | ---: |"]
    for method, label in METHODS:
        for setting, text in SETTINGS:
            mine = by_seed(fits, method, setting)
            seconds = statistics.mean(float(r["seconds"]) for r in mine)
            cells = []
            for column in ("rhat_ln_joint", "rhat_total"):
                values = [float(r[column]) for r in mine]
                cells.append(f"{spread(values)} | {sum(v < 1.1 for v in values)} of {len(values)}")
            lines.append(f"| {label} | {text} | {seconds:.1f} | {' | '.join(cells)} |")
            label = method
    return "\n".join(lines)


def paired_lines(fits, seeds, family):
    """Paired over the seeds, for each `(method, column, name)` of `family`: R̂ with 8,000-sweep
    chains − with replicas, Holm-adjusted over the family."""
    def column(method, setting, name):
        return [float(r[name]) for r in by_seed(fits, method, setting)]

    cost = [statistics.mean(column(m, "pt4", "seconds")) / statistics.mean(column(m, "plain8000", "seconds"))
            for m, _ in METHODS]
    ratio = f"{min(cost):.1f}" if f"{min(cost):.1f}" == f"{max(cost):.1f}" else f"{min(cost):.1f} to {max(cost):.1f}"
    lines = [f"Paired over the {seeds} seeds, at {ratio} times the cost of four-times-longer "
             f"chains, replicas change R̂ as follows (8,000-sweep chains − replicas; 95 % "
             f"t-interval, {seeds - 1} degrees of freedom; Holm over the {len(family)} comparisons):", ""]
    tests = [paired_t(column(m, "plain8000", c), column(m, "pt4", c)) for m, c, _ in family]
    for i, ((method, _, name), (_, lower, d, lo, hi, p), adjusted) in enumerate(zip(family, tests, holm([t[-1] for t in tests]))):
        verdict = "significant" if adjusted < 0.05 else "not significant"
        lines.append(f"- {method}, R̂ of the {name}: by {interval(d, lo, hi, '.2f')}, lower with replicas for {lower} of "
                     f"{seeds} seeds, p = {p:.3g}, Holm-adjusted {adjusted:.3g} ({verdict}){'.' if i == len(family) - 1 else ';'}")
    return lines


def ladder_line(fits):
    """The smallest inverse temperature β of the adapted ladders over every fit with replicas
    (`min_beta`: the smallest rung of each fit's four chains' ladders)."""
    betas = [float(r["min_beta"]) for r in fits if r["min_beta"]]
    return (f"The adapted ladders stay within {min(betas):.3f} ≤ β ≤ 1 in all {len(betas)} fits with replicas "
            f"(`min_beta`, read from each fit's `fit.toml`).")


def replicas_papers():
    """The papers' model: the table, the paired change of R̂ (8,000-sweep chains − replicas, over the
    seeds) and the spread of the non-private chains' mean log joints."""
    fits = data_rows("replicas-enron")
    seeds = len({r["seed"] for r in fits})
    family = [("non-private", "rhat_ln_joint", "log joint"), ("private", "rhat_ln_joint", "log joint"),
              ("private", "rhat_total", "total rate")]
    lines = [replicas_table("replicas-enron"), ""] + paired_lines(fits, seeds, family)
    chains = [r for r in data_rows("replicas-enron-chains") if r["model"] == "papers" and r["method"] == "non-private"]

    def spreads(setting):
        """Per seed: the largest − smallest chain's mean log joint, and the largest."""
        out = []
        for seed in sorted({r["seed"] for r in chains}, key=int):
            means = [float(r["mean_ln_joint"]) for r in chains if r["setting"] == setting and r["seed"] == seed]
            out.append((max(means) - min(means), max(means)))
        return out

    pt, plain = spreads("pt4"), spreads("plain8000")
    better = sum(a > b for (_, a), (_, b) in zip(pt, plain))
    narrower = sum(a < b for (a, _), (b, _) in zip(pt, plain))
    lines += ["", f"The non-private cold chains' mean log joints sit {min(s for s, _ in pt):,.0f}–{max(s for s, _ in pt):,.0f} "
              f"nats apart (largest − smallest per seed), against {min(s for s, _ in plain):,.0f}–"
              f"{max(s for s, _ in plain):,.0f} for the 8,000-sweep plain chains; closer together in {narrower} of "
              f"{len(pt)} seeds (sign test p = {binomial_test_p(narrower, len(pt), 0.5):.2g}; "
              f"`docs/data/replicas-enron-chains.csv`). The best cold chain is above the best plain chain in "
              f"{better} of {len(pt)} seeds (sign test p = {binomial_test_p(better, len(pt), 0.5):.2g}).", "",
              ladder_line(fits)]
    return minus("\n".join(lines))


def replicas_default():
    """The hierarchical prior with the negative binomial: the table and the paired change of R̂."""
    fits = data_rows("replicas-enron-default")
    family = [(m, "rhat_ln_joint", "log joint") for m, _ in METHODS]
    return minus("\n".join([replicas_table("replicas-enron-default"), ""] +
                           paired_lines(fits, len({r["seed"] for r in fits}), family) + ["", ladder_line(fits)]))


def fig4_stacking():
    """Private against naïve in every cell of the Fig. 4 quick run, with equal and stacked weights."""
    cells = data_rows("fig4-quick-stacking")
    lines = []
    for way, text in (("equal", "equal weights"), ("stacked", "stacked")):
        ps = [float(c[f"{way}_p"]) for c in cells]
        raw = sum(p < 0.05 for p in ps)
        adjusted = sum(p < 0.05 for p in holm(ps))
        every = sum(int(c[f"{way}_wins"]) == int(c["n"]) for c in cells)
        lines.append(f"- {text}: p < 0.05 in {raw} of {len(cells)} cells, {adjusted} of {len(cells)} after Holm's "
                     f"correction at 0.05; private better on every data set in {every} of {len(cells)} cells{';' if way == 'equal' else '.'}")
    moves = [(abs(float(c["stacked_diff"]) - float(c["equal_diff"])), c) for c in cells]
    _, c = max(moves, key=lambda m: m[0])
    lines += ["", f"The largest move is e₀ = {c['e0']}, α = {c['alpha']}: "
              f"{interval(float(c['equal_diff']), float(c['equal_lo']), float(c['equal_hi']), '.3f')} with equal "
              f"weights against {interval(float(c['stacked_diff']), float(c['stacked_lo']), float(c['stacked_hi']), '.3f')} "
              f"stacked."]
    return minus("\n".join(lines))


def fig4_verdicts():
    """docs/modes.md, section 5: what the old warning and the convergence verdict say of every
    Gibbs fit of the Fig. 4 quick run, and why (docs/data/fig4-quick-fits.csv)."""
    fits = data_rows("fig4-quick-fits")
    verdicts = ["mixed"] + sorted({f["convergence"] for f in fits} - {"mixed"})
    names = [("non-private", "non-private"), ("naive", "naïve"), ("private", "private")]
    warned = sum(f["warned"] == "true" for f in fits)
    lines = [f"Under a per-trace rule (split-R̂ > 1.01 or ESS < 100 per chain on any trace): **{warned} of {len(fits)}** "
             f"Gibbs fits flagged. Under the verdict:", "",
             "| method | fits | " + " | ".join(verdicts) + " | median R̂ of the log joint | median bulk ESS (10 % quantile) |",
             "| --- | ---: | " + " | ".join("---:" for _ in verdicts) + " | ---: | ---: |"]
    for method, name in names:
        mine = [f for f in fits if f["method"] == method]
        ess = sorted(float(f["ess_bulk_ln_joint"]) for f in mine)
        counts = " | ".join(str(sum(f["convergence"] == v for f in mine)) for v in verdicts)
        lines.append(f"| {name} | {len(mine)} | {counts} | {statistics.median(float(f['rhat_ln_joint']) for f in mine):.2f} | "
                     f"{statistics.median(ess):.0f} ({ess[round((len(ess) - 1) * 0.1)]:.0f}) |")
    lines += ["", "**Stacked against equal weights** (the same fits, paired; stacked − equal mean KL, 95 % t-interval):", "",
              "| method | fits | stacked − equal | stacked lower | p |", "| --- | --- | --- | --- | --- |"]
    for method, name in names:
        mine = [f for f in fits if f["method"] == method and f["mean_kl_stacked"]]
        n, lower, mean, low, high, p = paired_t([float(f["mean_kl"]) for f in mine], [float(f["mean_kl_stacked"]) for f in mine])
        lines.append(f"| {name} | {n} | {interval(-mean, -high, -low, '+.4f')} | {lower} | {p_text(p)} |")
    return minus("\n".join(lines))


NEAR_BEST = 30.0


def block_starts():
    """docs/inference.md, "Where the chains start": per start, the chains within 30 nats of their
    data set's best chain (mean marginal log-likelihood over the kept draws, best over both
    starts), and the data sets where the CAVI start has more such chains (exact sign test, ties
    dropped; docs/evidence/block-starts/, tools/mixing/starts.py)."""
    chains = rows("block-starts", "chains.csv")
    sets = sorted({r["dataset"] for r in chains}, key=int)
    near = {}
    for dataset in sets:
        mine = [r for r in chains if r["dataset"] == dataset]
        best = max(float(r["mean_ln_lik"]) for r in mine)
        for start in ("prior", "cavi"):
            near[dataset, start] = sum(best - float(r["mean_ln_lik"]) < NEAR_BEST for r in mine if r["start"] == start)
    more = {s: sum(near[d, s] > near[d, o] for d in sets) for s, o in (("prior", "cavi"), ("cavi", "prior"))}
    trials = more["prior"] + more["cavi"]
    p = binomial_test_p(more["cavi"], trials, 0.5) if trials else 1.0
    lines = ["| start | chains near the best | data sets where it has more such chains |", "| --- | --- | --- |"]
    for start in ("prior", "cavi"):
        total = sum(r["start"] == start for r in chains)
        test = f" (two-sided sign test p = {p_text(p)})" if start == "cavi" else ""
        lines.append(f"| {start} | {sum(near[d, start] for d in sets)} of {total} | {more[start]} of {len(sets)}{test} |")
    return "\n".join(lines)


def fig4_starts():
    """docs/inference.md, "Where the chains start": the cut-down Fig. 4 design run twice on the same
    data sets and releases, chains started from the prior and from CAVI
    (docs/evidence/fig4-enron-start-{prior,cavi}/fits.csv): per method, the fits the diagnostics
    flag, the median R̂ of the log joint, how often it is lower from CAVI (exact sign test), and
    the paired difference of the mean KL (CAVI − prior, mean [95 % t-interval])."""
    runs = {s: {(r["replication"], r["level"], r["method"]): r for r in rows(f"fig4-enron-start-{s}", "fits.csv")}
            for s in ("prior", "cavi")}
    lines = ["| method | fits | flagged (prior / CAVI) | median R̂ log joint (prior / CAVI) | R̂ lower from CAVI | "
             "mean KL, CAVI − prior |", "| --- | ---: | --- | --- | --- | --- |"]
    for method in ("non-private", "naive", "private"):
        keys = sorted(k for k in runs["prior"] if k[2] == method and k in runs["cavi"])
        pairs = [(runs["prior"][k], runs["cavi"][k]) for k in keys]
        flagged = [sum(r["flagged"] == "true" for r in side) for side in zip(*pairs)]
        rhat = [statistics.median(float(r["rhat_ln_joint"]) for r in side) for side in zip(*pairs)]
        lower = sum(float(c["rhat_ln_joint"]) < float(p["rhat_ln_joint"]) for p, c in pairs)
        higher = sum(float(c["rhat_ln_joint"]) > float(p["rhat_ln_joint"]) for p, c in pairs)
        p = binomial_test_p(lower, lower + higher, 0.5) if lower + higher else 1.0
        _, _, mean, low, high, _ = paired_t([float(c["mean_kl"]) for _, c in pairs], [float(p["mean_kl"]) for p, _ in pairs])
        lines.append(f"| {method} | {len(pairs)} | {flagged[0]} / {flagged[1]} | {rhat[0]:.2f} / {rhat[1]:.2f} | "
                     f"{lower} of {len(pairs)} (p = {p_text(p)}) | {interval(mean, low, high, '+.3f')} |")
    return minus("\n".join(lines))
