"""Generated blocks of BENCHMARKS.md: the collapsed against the augmented private step, ESS per
second paired fit by fit (docs/data/private-step-*-ess.csv, written by the `ess_per_second`
example); and the comparison with the paper's code through the interleaved sweeps of two bench
binaries (docs/data/paper-bridge-sweeps.csv, from tools/bench/)."""

import math
from statistics import median

from docstats import interval, mean_sd, minus, p_text, paired_t, t_quantile
from sources import data_rows, rows


def log_mean_half(values):
    """The mean of the logs of positive ratios and the half-width of its 95 % t-interval."""
    logs = [math.log(v) for v in values]
    mean, sd = mean_sd(logs)
    return mean, t_quantile(0.975, len(logs) - 1) * sd / math.sqrt(len(logs))


def log_ratio(values):
    """Geometric mean of positive ratios with its 95 % t-interval on the log scale."""
    mean, half = log_mean_half(values)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def ess_per_second(designs):
    """Per design: B/A (collapsed/augmented) of the seconds per fit, the ESS per second of the log
    joint, the total rate and the KL, and the ESS per sweep of the log joint (geometric means over
    the paired private fits, 95 % t-intervals on the log scale; how many pairs favour B), and the
    paired difference of the mean KL (B − A)."""
    lines = ["| design | fits | seconds per fit | ESS/s, log joint | ESS/s, total rate | ESS/s, KL | ESS per sweep, log joint "
             "| mean KL, collapsed − augmented |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, label in designs:
        fits = [f for f in data_rows(name) if f["method"] == "private"]
        n = len(fits)

        def ratio(b_over_a, favour, emphasize=False, word=""):
            """The geometric mean of B/A with its interval (bold when `emphasize` and the interval
            is above 1), and how many pairs `favour` B."""
            values = [b_over_a(f) for f in fits]
            mean, low, high = log_ratio(values)
            text = interval(mean, low, high, ".2f")
            return f"{'**' + text + '**' if emphasize and low > 1 else text}, {sum(favour(v) for v in values)}/{n}{word}"

        def per_second(quantity):
            return lambda f: (float(f[f"ess_{quantity}_b"]) / float(f["seconds_b"])) / (
                float(f[f"ess_{quantity}_a"]) / float(f["seconds_a"]))

        cells = [ratio(lambda f: float(f["seconds_b"]) / float(f["seconds_a"]), lambda v: v < 1, word=" faster")]
        cells += [ratio(per_second(q), lambda v: v > 1, emphasize=True) for q in ("ln_joint", "total", "kl")]
        sweep = log_ratio([float(f["ess_ln_joint_b"]) / float(f["ess_ln_joint_a"]) for f in fits])
        cells.append(interval(*sweep, ".2f"))
        _, _, d, lo, hi, p = paired_t([float(f["mean_kl_b"]) for f in fits], [float(f["mean_kl_a"]) for f in fits])
        cells.append(f"{interval(d, lo, hi, '+.3f' if hi - lo > 0.01 else '+.5f')}, p = {p_text(p)}")
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


# Issue 34's side-by-side run against the paper's Cython (one core): the paper's time over ours at
# 1b49ca1, per sweep benchmark of crates/benches/benches/gibbs.rs.
TOPIC, BLOCK = "topic 1000x1000 K=50 alpha=1/e/", "block V=161 C=10 alpha=0.5/"
BRIDGE_CASES = [
    ("private topic, collapsed step (the default)", TOPIC + "private", TOPIC + "private collapsed", 5.2, "≥ 10×"),
    ("private topic, augmented step (the paper's)", TOPIC + "private", TOPIC + "private", 5.2, "—"),
    ("naïve topic", TOPIC + "naive", TOPIC + "naive", 10.0, "≥ 8×"),
    ("private block, collapsed step (the default)", BLOCK + "private", BLOCK + "private collapsed", 5.7, "≥ 8×"),
    ("private block, augmented step (the paper's)", BLOCK + "private", BLOCK + "private", 5.7, "—"),
    ("naïve block", BLOCK + "naive", BLOCK + "naive", 6.5, "≥ 8×"),
]


def paper_bridge(name):
    """Each sweep of issue 34's comparison with the paper's code: the bench binaries of 1b49ca1
    ("old", the speed the paper's Cython was measured against) and of HEAD ("new") interleaved
    round by round (docs/data/NAME.csv from tools/bench/criterion_medians.py). Per round the ratio
    new / old of criterion's medians; their geometric mean with a 95 % t-interval on the log scale
    over the rounds; and the paper's time over ours now, the issue's ratio divided by it."""
    lines = ["| sweep, 1 thread | paper / ours at 1b49ca1 | 1b49ca1 (ms) | HEAD (ms) "
             "| HEAD / 1b49ca1 [95 % CI], rounds faster | paper / HEAD [95 % CI] | target |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    medians = bridge_medians(name)
    for label, _, _, paper, target in BRIDGE_CASES:
        olds, news = medians[label]
        ratios = [n / o for n, o in zip(news, olds)]
        mean, low, high = log_ratio(ratios)
        faster = sum(x < 1 for x in ratios)
        cells = [f"{paper:.1f}×", f"{median(olds):.3g}", f"{median(news):.3g}",
                 f"{interval(mean, low, high, '.2f')}, {faster}/{len(ratios)}",
                 f"{interval(paper / mean, paper / high, paper / low, '.1f')}×", target]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def bridge_medians(name):
    """Per case of BRIDGE_CASES: criterion's medians (ms) of its benchmark in the old binary and
    of its benchmark in the new one, round by round (docs/data/NAME.csv, read once)."""
    medians = {}
    for r in data_rows(name):
        medians[(r["binary"], r["benchmark"].removesuffix("/1 thread(s)"), int(r["round"]))] = float(r["median_ms"])
    rounds = sorted({k[2] for k in medians})
    return {label: ([medians[("old", old, k)] for k in rounds], [medians[("new", new, k)] for k in rounds])
            for label, old, new, _, _ in BRIDGE_CASES}


def paper_ess(bridge, designs):
    """ESS per second of the collapsed step (the default) against the paper's augmented sampler,
    per model (`designs`: label, ESS table of docs/data, "block" or "topic"), two ways, each a
    product of two independent measurements whose 95 % intervals combine in quadrature on the log
    scale:
    - issue 34's stated way: the paper's sweep time over our collapsed sweep (interleaved bridge,
      `bridge`) times our collapsed/augmented ESS per sweep (paired fits, `designs`);
    - the paper's sweep time over our augmented sweep (the same algorithm as the paper's, so the
      same ESS per sweep) times our collapsed/augmented ESS per second (the fits' own time ratio).
    Beside them the largest R̂ of the log joint over the fits; where it is 1.05 or more the ESS
    figures are of chains that had not settled, so they are no mixing result and say so."""
    lines = ["| private case | quantity | paper / HEAD, sweep (collapsed) × ESS per sweep, collapsed / augmented "
             "| paper / HEAD, sweep (augmented) × ESS/s, collapsed / augmented (the fits' times) | target | "
             "largest R̂ of the log joint |", "| --- | --- | ---: | ---: | ---: | --- |"]
    medians = bridge_medians(bridge)
    paper = {label: ratio for label, _, _, ratio, _ in BRIDGE_CASES}

    def paper_over_head(label):
        """(log, half-width) of the paper's sweep time over ours now, for one bridge case."""
        olds, news = medians[label]
        m, h = log_mean_half([n / o for n, o in zip(news, olds)])
        return math.log(paper[label]) - m, h

    for label_text, design, model in designs:
        collapsed, augmented = (paper_over_head(f"private {model}, {step}") for step in STEPS)
        fits = [f for f in data_rows(design) if f["method"] == "private"]
        rhat = max(float(f[f"rhat_ln_joint_{side}"]) for f in fits for side in "ab")
        settled = f"{rhat:.2f}" if rhat < 1.05 else f"{rhat:.2f}: unsettled chains, not a mixing result"
        for quantity, key in (("log joint", "ln_joint"), ("total rate", "total")):
            per_sweep = log_mean_half([float(f[f"ess_{key}_b"]) / float(f[f"ess_{key}_a"]) for f in fits])
            per_second = log_mean_half([(float(f[f"ess_{key}_b"]) / float(f["seconds_b"]))
                                        / (float(f[f"ess_{key}_a"]) / float(f["seconds_a"])) for f in fits])
            cells = [product(collapsed, per_sweep), product(augmented, per_second)]
            lines.append(f"| {label_text} | {quantity} | " + " | ".join(cells) + f" | ≥ 15× | {settled} |")
    return minus("\n".join(lines))


# The private steps as the labels of BRIDGE_CASES name them: collapsed, then augmented.
STEPS = ("collapsed step (the default)", "augmented step (the paper's)")


def product(first, second):
    """exp(m₁ + m₂) with the 95 % interval whose log half-width is √(h₁² + h₂²), from two
    (log mean, half-width) pairs; the factors' point values beside it."""
    (m1, h1), (m2, h2) = first, second
    m, h = m1 + m2, math.hypot(h1, h2)
    return f"{math.exp(m1):.1f} × {math.exp(m2):.2f} = {interval(math.exp(m), math.exp(m - h), math.exp(m + h), '.1f')}×"


def fit_cost():
    """The default fit (and the negative binomial) against the papers' model as a user pays it
    (docs/evidence/fit-cost/fits.csv, written by tools/planted/cost.py): per shape, the median wall
    time of each over the repeats and each one's ratio to the papers' model (geometric mean over
    the paired repeats, 95 % t-interval on the log scale; the range of the repeats)."""
    fits = rows("fit-cost", "fits.csv")
    names = {"default": "default (contaminated)", "negative-binomial": "negative binomial"}
    others = [c for c in names if any(r["candidate"] == c for r in fits)]
    lines = ["| data | papers' model (flat, Poisson): median wall | "
             + " | ".join(f"{names[c]}: median wall | {names[c]} / papers, geometric mean [95 %] (range)"
                          for c in others)
             + " |", "| --- | ---: |" + " ---: | --- |" * len(others)]
    for shape in dict.fromkeys(r["shape"] for r in fits):
        mine = [r for r in fits if r["shape"] == shape]
        wall = {c: {r["repeat"]: float(r["wall_seconds"]) for r in mine if r["candidate"] == c}
                for c in ("papers", *others)}
        cells = [f"{median(wall['papers'].values()):.2f} s"]
        for c in others:
            ratios = [wall[c][k] / wall["papers"][k] for k in wall["papers"] if k in wall[c]]
            ratio, low, high = log_ratio(ratios)
            cells += [f"{median(wall[c].values()):.2f} s",
                      f"{interval(ratio, low, high, '.2f')} ({min(ratios):.2f}–{max(ratios):.2f})"]
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def until_mixed():
    """Time to a mixed fit (docs/evidence/until-mixed/fits.csv, written by tools/mixing/until_mixed.py):
    per shape and model, each replication's lengths run with `--until-mixed 16000`, its final
    verdict and the wall time of the whole command; with `--before`, the earlier binary's wall
    time beside it and, under the table, the ratio over the fits that ran more than once."""
    fits = rows("until-mixed", "fits.csv")
    names = {"papers": "papers' model (flat, Poisson)", "default": "default (hierarchical, contaminated)"}
    before = all(r.get("wall_seconds_before") for r in fits)
    head = "| data | model | sweeps per chain run, each replication | verdict at the last | wall time |"
    lines = [head + (" each run afresh (before) |" if before else ""),
             "| --- | --- | --- | --- | ---: |" + (" ---: |" if before else "")]
    for shape in dict.fromkeys(r["shape"] for r in fits):
        for candidate in names:
            mine = sorted((r for r in fits if r["shape"] == shape and r["candidate"] == candidate),
                          key=lambda r: int(r["replication"]))
            if not mine:
                continue
            runs = "; ".join(r["run_lengths"].replace(" ", ", ") for r in mine)
            verdicts = ", ".join(r["convergence"] for r in mine)
            wall = ", ".join(f"{float(r['wall_seconds']):.1f} s" for r in mine)
            row = f"| {shape} | {names[candidate]} | {runs} | {verdicts} | {wall} |"
            if before:
                row += " " + ", ".join(f"{float(r['wall_seconds_before']):.1f} s" for r in mine) + " |"
            lines.append(row)
    if before:
        def ratio(group):
            now = sum(float(r["wall_seconds"]) for r in group)
            then = sum(float(r["wall_seconds_before"]) for r in group)
            return f"{now:.0f} s against {then:.0f} s ({now / then:.2f})"
        again = [r for r in fits if " " in r["run_lengths"]]
        once = [r for r in fits if " " not in r["run_lengths"]]
        lines.append("")
        lines.append(f"Wall time summed over the {len(again)} fits that ran more than once: {ratio(again)}; "
                     f"over the {len(once)} that mixed at their first run: {ratio(once)}.")
    return "\n".join(lines)


def until_mixed_networks():
    """Time to a mixed fit on the planted networks, the papers' model against the block model's
    whole default, its sweep with the Hamiltonian move (docs/evidence/until-mixed-networks/fits.csv,
    written by `tools/mixing/until_mixed.py --shapes ... --candidates papers default+move`): per
    shape and model, how many fits mixed within the cap, the sweeps per chain each ran to, and the
    median wall time of the whole command; under the table, per shape, how many releases mixed by
    one and not the other."""
    fits = rows("until-mixed-networks", "fits.csv")
    names = {"papers": "papers' model (flat, Poisson)", "default+move": "default (hierarchical, contaminated, the move)"}
    lines = ["| data | model | mixed | sweeps per chain at the last run, each release | median wall time [range] |",
             "| --- | --- | ---: | --- | ---: |"]
    notes = []
    for shape in dict.fromkeys(r["shape"] for r in fits):
        by = {c: {int(r["replication"]): r for r in fits if r["shape"] == shape and r["candidate"] == c} for c in names}
        for candidate, label in names.items():
            mine = [by[candidate][k] for k in sorted(by[candidate])]
            if not mine:
                continue
            mixed = sum(r["convergence"] == "mixed" for r in mine)
            last = ", ".join(r["run_lengths"].split()[-1] + ("" if r["convergence"] == "mixed" else " (not)")
                             for r in mine)
            wall = [float(r["wall_seconds"]) for r in mine]
            lines.append(f"| {shape} | {label} | {mixed} of {len(mine)} | {last} | "
                         f"{median(wall):.0f} s [{min(wall):.0f}, {max(wall):.0f}] |")
        both = sorted(set(by["papers"]) & set(by["default+move"]))
        def only(a, b):
            """Releases mixed by `a` and not by `b`."""
            return sum(by[a][k]["convergence"] == "mixed" and by[b][k]["convergence"] != "mixed" for k in both)
        notes.append(f"{shape}: of {len(both)} releases, mixed by the default only {only('default+move', 'papers')}, "
                     f"by the papers' model only {only('papers', 'default+move')}")
    return "\n".join(lines + ["", "; ".join(notes) + " (`(not)`: not mixed at the cap of 16,000)."])


def paper_until_mixed():
    """Time to a converged fit against the paper's code (docs/evidence/paper-until-mixed/fits.csv,
    written by tools/mixing/paper_until_mixed.py): per shape and fitter, the sweeps per chain each
    replication needed, how many converged, and the median wall time; then, per shape and paired
    over the replications, the paper's time over lppf's (its sweeps alone, and with the traces its
    criterion reads) and lppf's augmented step over its collapsed one, as geometric means with 95 %
    t-intervals on the log scale."""
    fits = rows("paper-until-mixed", "fits.csv")
    names = ("paper (Cython, augmented)", "lppf, collapsed step", "lppf, augmented step")
    lines = ["| data | fitter | sweeps per chain, each replication | converged | median wall time "
             "| median in its sweeps |", "| --- | --- | --- | ---: | ---: | ---: |"]
    notes = []
    for shape in dict.fromkeys(r["shape"] for r in fits):
        by = {}
        for r in fits:
            if r["shape"] == shape:
                by.setdefault(r["fitter"], {})[r["replication"]] = r
        for fitter in names:
            mine = [by[fitter][k] for k in sorted(by.get(fitter, {}), key=int)]
            if not mine:
                continue
            sweeps = ", ".join(r["sweeps_per_chain"] for r in mine)
            ok = sum(r["converged"] == "True" for r in mine)
            wall = median(float(r["wall_seconds"]) for r in mine)
            sampling = [float(r["sampling_seconds"]) for r in mine if r["sampling_seconds"]]
            inner = f"{median(sampling):.1f} s" if sampling else "—"
            lines.append(f"| {shape} | {fitter} | {sweeps} | {ok} of {len(mine)} | {wall:.1f} s | {inner} |")
        if not all(name in by for name in names):
            continue
        paper, collapsed, augmented = (by[name] for name in names)
        shared = sorted(set(paper) & set(collapsed) & set(augmented), key=int)
        if len(shared) < 2:
            continue

        def ratio(top, bottom, column):
            g, lo, hi = log_ratio([float(top[k][column]) / float(bottom[k]["wall_seconds"]) for k in shared])
            return f"{g:.1f}× [{lo:.1f}, {hi:.1f}]"
        notes.append(f"{shape}, paired over {len(shared)} releases: the paper's sweeps alone over lppf's whole fit "
                     f"{ratio(paper, collapsed, 'sampling_seconds')}; with the traces its criterion reads "
                     f"{ratio(paper, collapsed, 'wall_seconds')}; lppf's augmented step (the paper's algorithm) "
                     f"over its collapsed step {ratio(augmented, collapsed, 'wall_seconds')}.")
    lines.append("")
    lines.append("Geometric means with 95 % t-intervals on the log scale. " + " ".join(notes))
    return "\n".join(lines)


def large_table():
    """A 3·10⁶-cell release (docs/evidence/large-table/fits.csv, written by
    tools/mixing/large_table.py): per run, its flags and seed, the wall time of the whole command and of the
    sampling, R̂ and bulk ESS of the marginal log-likelihood, the total and the structure summary,
    and the true total beside the fit's and the release's 90 % intervals."""
    fits = rows("large-table", "fits.csv")
    lines = ["| flags | seed | wall time (sampling) | ln_lik R̂, ESS | total R̂, ESS | structure R̂, ESS | verdict "
             "| true total | fit's Σμ, 90 % | fit's Σy, 90 % | release alone, 90 % |",
             "| --- | ---: | ---: | --- | --- | --- | --- | ---: | --- | --- | --- |"]
    for r in fits:
        def diag(q):
            return f"{float(r[q + '_rhat']):.4f}, {float(r[q + '_ess_bulk']):.0f}"

        def span(low, high):
            return f"[{float(r[low]):,.0f}, {float(r[high]):,.0f}]"
        lines.append(f"| `{r['flags']}` | {r['seed']} | {float(r['wall_seconds']):.0f} s ({float(r['sampling_seconds']):.0f} s) | "
                     f"{diag('ln_lik')} | {diag('total_rate')} | {diag('structure')} | {r['convergence']} | "
                     f"{int(r['true_total']):,} | {span('total_rate_q05', 'total_rate_q95')} | "
                     f"{span('total_count_q05', 'total_count_q95')} | "
                     f"{span('release_total_q05', 'release_total_q95')} |")
    return "\n".join(lines)


KERNEL_QUANTITIES = [("ln_lik", "marginal log-likelihood"), ("total_rate", "total rate"),
                     ("structure", "structure summary"), ("r", "shape r"), ("pi", "share π")]


def paired_fits(evidence, name, arms):
    """The fits of docs/evidence/EVIDENCE/NAME (tools/mixing/kernel_compare.py) paired by shape
    and replication: every pair, and the pairs on the two tables (where chains mix)."""
    pairs = {}
    for f in rows(evidence, name):
        pairs.setdefault((f["shape"], f["replication"]), {})[f["binary"]] = f
    pairs = [p for p in pairs.values() if all(a in p for a in arms)]
    return pairs, [p for p in pairs if p[arms[0]]["shape"] in ("dense table", "tiny table")]


def ess_ratio(group, quantity, per_second, arms):
    """Geometric mean with its 95 % t-interval of arm 0's bulk ESS (or ESS per second of wall time)
    of `quantity` over arm 1's, over the pairs of `group`."""
    values = []
    for p in group:
        new, old = (float(p[b][f"ess_{quantity}"]) for b in arms)
        if per_second:
            new, old = new / float(p[arms[0]]["wall_seconds"]), old / float(p[arms[1]]["wall_seconds"])
        values.append(new / old)
    return interval(*log_ratio(values), ".2f")


def default_vs_papers():
    """The default fit against the papers' model on the same releases
    (docs/evidence/default-vs-papers-ess/, tools/mixing/kernel_compare.py --against-papers): per
    shape, default over papers' model, the ESS per second of the marginal log-likelihood and of the
    total (geometric means over the four releases, 95 % t-intervals), the wall-time ratio, and how
    many fits of each had R̂ < 1.05 for both quantities."""
    return against_papers("default-vs-papers-ess", ["default"])


def move_vs_papers():
    """The default with and without the Hamiltonian move against the papers' model on the same
    releases of the two network shapes (docs/evidence/move-vs-papers-ess/,
    tools/mixing/kernel_compare.py --against-papers --move): as `default_vs_papers`, with the
    structure summary's ESS per second beside, a row per arm."""
    return against_papers("move-vs-papers-ess", ["default", "default+move"], ["structure"])


def against_papers(evidence, shown, extra=()):
    """Per shape and arm of `shown`, the arm over the papers' model on the same releases: ESS per
    second of the log-likelihood, the total and the `extra` quantities (geometric means, 95 %
    t-intervals), the wall-time ratio, and the fits with R̂ < 1.05 for log-likelihood and total."""
    quantities = ["ln_lik", "total_rate", *extra]
    labels = {"ln_lik": "log-likelihood", "total_rate": "total", "structure": "structure summary"}
    pairs, _ = paired_fits(evidence, "fits.csv", (*shown, "papers"))
    arm = "| arm " if len(shown) > 1 else ""
    lines = [f"| data {arm}| " + " | ".join(f"ESS/s, {labels[q]}" for q in quantities)
             + f" | wall time | fits with R̂ < 1.05 ({' / '.join(shown)} / papers) |",
             "| --- " * (len(quantities) + 3 + (len(shown) > 1)) + "|"]

    def settled(group, a):
        return sum(max(float(p[a]["rhat_ln_lik"]), float(p[a]["rhat_total_rate"])) < 1.05 for p in group)

    for shape in dict.fromkeys(p["papers"]["shape"] for p in pairs):
        group = [p for p in pairs if p["papers"]["shape"] == shape]
        counts = " / ".join(str(settled(group, a)) for a in (*shown, "papers"))
        for which in shown:
            wall = [float(p[which]["wall_seconds"]) / float(p["papers"]["wall_seconds"]) for p in group]
            ratios = " | ".join(ess_ratio(group, q, True, (which, "papers")) for q in quantities)
            name = f"| {which} " if len(shown) > 1 else ""
            lines.append(f"| {shape} {name}| {ratios} | {interval(*log_ratio(wall), '.2f')} | "
                         f"{counts} of {len(group)} |")
    return minus("\n".join(lines))


def kernel_compare(name="fits.csv"):
    """The contaminated likelihood's Newton–Metropolis steps against the slice samplers they
    replaced (docs/evidence/contaminated-kernel/NAME, written by tools/mixing/kernel_compare.py):
    per quantity, the ratio new/old of the bulk ESS and of the ESS per second of wall time,
    geometric means over the paired fits with 95 % t-intervals on the log scale, over all four
    shapes and over the two tables; the wall-time ratio under the table."""
    arms = ("newton", "slice")
    pairs, tables = paired_fits("contaminated-kernel", name, arms)

    def ratio(group, quantity, per_second):
        return ess_ratio(group, quantity, per_second, arms)

    lines = [f"| quantity | ESS, all {len(pairs)} pairs | ESS per second, all | ESS, the {len(tables)} table pairs "
             "| ESS per second, tables |", "| --- | --- | --- | --- | --- |"]
    for quantity, label in KERNEL_QUANTITIES:
        lines.append(f"| {label} | {ratio(pairs, quantity, False)} | {ratio(pairs, quantity, True)} | "
                     f"{ratio(tables, quantity, False)} | {ratio(tables, quantity, True)} |")
    wall = [float(p["newton"]["wall_seconds"]) / float(p["slice"]["wall_seconds"]) for p in pairs]
    lines += ["", f"Wall time of the whole fit, new over old: {interval(*log_ratio(wall), '.2f')} "
              f"({len(pairs)} pairs)."]
    return minus("\n".join(lines))
