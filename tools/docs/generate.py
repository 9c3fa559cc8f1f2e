#!/usr/bin/env python3
"""Numbers in docs/ generated from the committed evidence (issue 36; docs/statistics.md).

Each generator reads files under docs/evidence/ and writes a block of a page between the markers
`<!-- NAME:begin -->` and `<!-- NAME:end -->`. `python3 tools/docs/generate.py` rewrites the
blocks; with --check it changes nothing and exits 1 if any page differs from what the evidence
says (CI runs this, so a stale number fails CI). Standard library only.
"""

import csv
import math
import re
import pathlib
import statistics
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "docs" / "evidence"


def rows(run, name):
    with open(EVIDENCE / run / name, newline="") as f:
        return list(csv.DictReader(f))


def p_text(p):
    return "< 1e-9" if p < 1e-9 else f"{p:.3g}"


def sbc_table():
    """docs/calibration.md: Holm-adjusted p of the SBC rank histograms, per model and group."""
    columns = [("", "non-private"), ("0.2", "naive"), ("0.2", "private"), ("0.5", "naive"), ("0.5", "private"),
               ("0.8", "naive"), ("0.8", "private")]
    lines = []
    for model, run in [("topic", "calibration"), ("topic, 4 chains", "calibration-4chains"), ("block", "calibration-block"),
                       ("undirected", "calibration-undirected")]:
        by = {(r["level"], r["method"]): r for r in rows(run, "sbc.csv")}

        def cell(r):
            shown = p_text(float(r["p_holm"]))
            return shown if r["uniform"] == "true" else f"**{shown}** (not uniform)"

        lines.append(f"| {model} | " + " | ".join(cell(by[c]) for c in columns) + " |")
    return "\n".join(lines)


def fig4_table():
    """docs/fig4.md: private against naïve in every cell of the quick design with 10 data sets."""
    summary = rows("fig4-enron-quick-10", "summary.csv")
    kl = {(r["e0"], r["level"], r["method"]): r for r in summary}
    lines = ["| e₀ | α | naïve KL (sd) | private KL (sd) | Δ private − naïve [95 % CI] | private wins | p | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    better = better_raw = cells = 0
    for r in summary:
        if r["method"] != "private" or r["paired_vs"] != "naive":
            continue
        cells += 1
        naive = kl[(r["e0"], r["level"], "naive")]
        d, lo, hi = float(r["paired_kl_difference"]), float(r["paired_kl_difference_low"]), float(r["paired_kl_difference_high"])
        p, holm = float(r["paired_p_value"]), float(r["paired_p_holm"])
        better += d < 0 and holm < 0.05
        better_raw += d < 0 and p < 0.05
        lines.append(
            f"| {r['e0']} | {r['level']} | {float(naive['mean_kl']):.3f} ({float(naive['sd_kl']):.3f}) | "
            f"{float(r['mean_kl']):.3f} ({float(r['sd_kl']):.3f}) | {d:.3f} [{lo:.3f}, {hi:.3f}] | "
            f"{r['paired_wins']}/{r['paired_n']} | {p_text(p)} | {p_text(holm)} |")
    lines.append("")
    lines.append(f"Private is better than naïve (Δ < 0) at Holm-adjusted p < 0.05 in **{better} of {cells}** cells "
                 f"(family: the {cells} cells; at unadjusted p < 0.05 in {better_raw} of {cells}).")
    return "\n".join(lines)


def holm(ps):
    """Holm's step-down adjusted p-values, in the order given (as results::holm)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adjusted, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def mean_sd(values):
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5 if n > 1 else float("nan")
    return mean, sd


def vi_table():
    """docs/vi-vs-mcmc.md: the appendix E small demonstration, per method and paired."""
    fits = rows("schofield-small-20", "fits.csv")
    names = [("non-private", "non-private Gibbs"), ("cavi", "CAVI (non-private)"), ("naive", "naïve Gibbs"),
             ("private", "private Gibbs"), ("naive-cavi", "naïve CAVI"), ("private-cavi", "private CAVI (paper's update)")]
    lines = ["| method | fits | MAE of μ̂ (sd) | mean KL (sd) | aligned topic MAE (sd) | flagged by R̂/ESS |",
             "| --- | --- | --- | --- | --- | --- |"]
    for method, name in names:
        mine = [f for f in fits if f["method"] == method]
        stats = [mean_sd([float(f[c]) for f in mine]) for c in ("rate_mae", "mean_kl", "topic_error")]
        flagged = sum(f["flagged"] == "true" for f in mine)
        chains = mine[0]["chains"]
        flags = f"{flagged} of {len(mine)}" if chains != "1" else "— (one CAVI fit)"
        lines.append(f"| {name} | {len(mine)} × {chains} chain{'s' if chains != '1' else ''} | "
                     + " | ".join(f"{m:.3f} ({sd:.3f})" for m, sd in stats) + f" | {flags} |")
    paired = {(r["method"], r["versus"], r["metric"]): r for r in rows("schofield-small-20", "paired.csv")}
    family = [("private-cavi", "naive-cavi"), ("private", "private-cavi"), ("private", "naive")]
    tests = [(a, b, m) for a, b in family for m in ("mean_kl", "rate_mae")]
    adjusted = holm([float(paired[t]["p"]) for t in tests])
    lines += ["", "| comparison (A − B) | metric | mean [95 % CI] | A better | p | Holm p |",
              "| --- | --- | --- | --- | --- | --- |"]
    label = dict(names)
    for t, h in zip(tests, adjusted):
        r = paired[t]
        metric = {"mean_kl": "KL", "rate_mae": "MAE"}[t[2]]
        lines.append(f"| {label[t[0]]} − {label[t[1]]} | {metric} | {float(r['mean']):+.3f} "
                     f"[{float(r['low']):+.3f}, {float(r['high']):+.3f}] | {r['wins']}/{r['n']} | "
                     f"{p_text(float(r['p']))} | {p_text(h)} |")
    return "\n".join(lines)


def fig3_table():
    """docs/recovery-figures.md: Fig. 3 with 10 data sets, private against naïve and non-private."""
    run = "fig3-synthetic-10"
    fits = rows(run, "fits.csv")
    paired = {(r["level"], r["method"], r["versus"]): r for r in rows(run, "paired.csv") if r["metric"] == "mean_kl"}
    levels = [lv for lv in dict.fromkeys(f["level"] for f in fits) if lv]
    tests = [(lv, "private", b) for lv in levels for b in ("naive", "non-private")]
    adjusted = dict(zip(tests, holm([float(paired[t]["p"]) for t in tests])))

    def kl(method, level):
        m, sd = mean_sd([float(f["mean_kl"]) for f in fits if f["method"] == method and f["level"] == level])
        return f"{m:.4f} ({sd:.4f})"

    def diff(t):
        r = paired[t]
        return (f"{float(r['mean']):+.4f} [{float(r['low']):+.4f}, {float(r['high']):+.4f}] | "
                f"{r['wins']}/{r['n']} | {p_text(adjusted[t])}")

    n = len([f for f in fits if f["method"] == "non-private"])
    flagged = sum(f["flagged"] == "true" for f in fits)
    lines = ["| ε | non-private KL (sd) | naïve KL (sd) | private KL (sd) | private − naïve [95 % CI] | private better | Holm p "
             "| private − non-private [95 % CI] | private better | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for lv in levels:
        lines.append(f"| {lv} | {kl('non-private', '')} | {kl('naive', lv)} | {kl('private', lv)} | "
                     f"{diff((lv, 'private', 'naive'))} | {diff((lv, 'private', 'non-private'))} |")
    lines += ["", f"{n} data sets, 4 chains per fit; Holm over the {len(tests)} comparisons of the table. "
              f"The R̂/ESS rule flags {flagged} of {len(fits)} fits."]
    return "\n".join(lines)


def fig1_table():
    """docs/recovery-figures.md: Fig. 1 with 20 data sets, private against naïve and non-private."""
    run = "fig1-topics-20"
    fits = rows(run, "fits.csv")
    paired = {(r["level"], r["method"], r["versus"], r["metric"]): r for r in rows(run, "paired.csv")}
    levels = [lv for lv in dict.fromkeys(f["level"] for f in fits) if lv]
    metrics = [("topic_error", "aligned topic MAE"), ("mean_kl", "mean KL of μ̂")]
    tests = [(lv, "private", b, m) for lv in levels for m, _ in metrics for b in ("naive", "non-private")]
    adjusted = dict(zip(tests, holm([float(paired[t]["p"]) for t in tests])))

    def mean(method, level, metric):
        m, sd = mean_sd([float(f[metric]) for f in fits if f["method"] == method and f["level"] == level])
        return f"{m:.4f} ({sd:.4f})"

    def diff(t):
        r = paired[t]
        return (f"{float(r['mean']):+.4f} [{float(r['low']):+.4f}, {float(r['high']):+.4f}] | "
                f"{r['wins']}/{r['n']} | {p_text(adjusted[t])}")

    n = len([f for f in fits if f["method"] == "non-private"])
    flagged = sum(f["flagged"] == "true" for f in fits)
    lines = ["| α₀ | metric | non-private (sd) | naïve (sd) | private (sd) | private − naïve [95 % CI] | private lower | Holm p "
             "| private − non-private [95 % CI] | private lower | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for lv in levels:
        for metric, name in metrics:
            lines.append(f"| {lv} | {name} | {mean('non-private', '', metric)} | {mean('naive', lv, metric)} | "
                         f"{mean('private', lv, metric)} | {diff((lv, 'private', 'naive', metric))} | "
                         f"{diff((lv, 'private', 'non-private', metric))} |")
    lines += ["", f"{n} data sets, 4 chains per fit; Holm over the {len(tests)} comparisons of the table. "
              f"The R̂/ESS rule flags {flagged} of {len(fits)} fits."]
    return "\n".join(lines)


def fig4_collapsed_table():
    """docs/fig4.md: the Fig. 4 quick design with the collapsed private step against the augmented run."""
    run = "fig4-enron-quick-10-collapsed"
    versus = rows(run, "versus.csv")
    private = [r for r in versus if r["method"] == "private"]
    others = [r for r in versus if r["method"] != "private"]
    adjusted = holm([float(r["p"]) for r in private])
    kl = {(r["e0"], r["level"], r["method"]): r for r in rows("fig4-enron-quick-10", "summary.csv")}
    mine = {(r["e0"], r["level"], r["method"]): r for r in rows(run, "summary.csv")}
    lines = ["| e₀ | α | private KL, augmented | private KL, collapsed | collapsed − augmented [95 % CI] | collapsed lower | p | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    lower = higher = 0
    for r, h in zip(private, adjusted):
        d = float(r["mean"])
        lower += d < 0 and h < 0.05
        higher += d > 0 and h < 0.05
        a, b = kl[(r["e0"], r["level"], "private")], mine[(r["e0"], r["level"], "private")]
        lines.append(f"| {r['e0']} | {r['level']} | {float(a['mean_kl']):.3f} | {float(b['mean_kl']):.3f} | "
                     f"{d:+.3f} [{float(r['low']):+.3f}, {float(r['high']):+.3f}] | {r['wins']}/{r['n']} | "
                     f"{p_text(float(r['p']))} | {p_text(h)} |")
    better = sum(1 for r in rows(run, "summary.csv")
                 if r["method"] == "private" and r["paired_vs"] == "naive"
                 and float(r["paired_kl_difference"]) < 0 and float(r["paired_p_holm"]) < 0.05)
    same = all(r["identical"] == "true" for r in others)
    lines += ["", f"Collapsed − augmented differs at Holm-adjusted p < 0.05 in **{lower + higher} of {len(private)}** cells "
              f"({lower} lower, {higher} higher; family: the {len(private)} cells). The non-private and naïve fits of the "
              f"two runs are {'bit for bit identical' if same else 'NOT identical'} ({len(others)} cells). With the "
              f"collapsed step, private is better than naïve at Holm-adjusted p < 0.05 in **{better} of {len(private)}** cells."]
    return "\n".join(lines)


def nominal(kept, level):
    """The exact coverage of the central `level` interval among `kept` samples (results::nominal_coverage)."""
    lo = int(kept * (1 - level) / 2 + 0.5)
    return (kept - 2 * lo + 1) / (kept + 1)


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
    Lentz, as in Numerical Recipes' betacf)."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300

    def guard(v):
        return v if abs(v) > tiny else tiny

    c, d = 1.0, 1.0 / guard(1.0 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 400):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 / guard(1.0 + numerator * d)
            c = guard(1.0 + numerator / c)
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    return front * h / a


def t_two_sided_p(t, df):
    """Two-sided p of Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2)."""
    return incomplete_beta(df / 2, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """The `p` quantile (p > 0.5) of Student's t, by bisection on the two-sided p."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_two_sided_p(mid, df) > 2 * (1 - p) else (lo, mid)
    return (lo + hi) / 2


def paired_t(first, second):
    """Paired differences first − second: n, wins (first higher), mean, 95 % t-interval, two-sided p
    (as results::paired and SciPy's ttest_rel)."""
    d = [a - b for a, b in zip(first, second)]
    n = len(d)
    mean, sd = mean_sd(d)
    se = sd / math.sqrt(n)
    half = t_quantile(0.975, n - 1) * se
    return n, sum(x > 0 for x in d), mean, mean - half, mean + half, t_two_sided_p(mean / se, n - 1)


def coverage_table(run):
    """docs/calibration.md: mean coverage ± se of the true rates and row totals, per level and method."""
    with open(EVIDENCE / run / "manifest.toml", "rb") as f:
        sampler = tomllib.load(f)["sampler"]
    kept = (sampler["iterations"] - sampler["burn_in"]) // sampler["thin"] * sampler.get("chains", 1)
    fits = rows(run, "fits.csv")
    levels = {"": "—", "0.2": "0.2", "0.5": "0.5", "0.8": "0.8"}
    names = {"non-private": "non-private", "naive": "naïve", "private": "private"}
    columns = [("coverage_50", 0.5), ("coverage_90", 0.9), ("row_coverage_50", 0.5), ("row_coverage_90", 0.9)]
    lines = ["| α | method | fits | rates, 50 % | rates, 90 % | row totals, 50 % | row totals, 90 % | mean KL | median bulk ESS (KL) "
             "| flagged |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    worst, tested = (0.0, ""), 0
    for level, method in [("", "non-private")] + [(lv, m) for lv in ("0.2", "0.5", "0.8") for m in ("naive", "private")]:
        mine = [f for f in fits if f["level"] == level and f["method"] == method]
        cells = []
        for column, c in columns:
            values = [float(f[column]) for f in mine]
            mean, se = statistics.mean(values), statistics.stdev(values) / len(values) ** 0.5
            z = (mean - nominal(kept, c)) / se
            tested += method != "naive"
            if method != "naive" and abs(z) > abs(worst[0]):
                worst = (z, f"{names[method]} at α = {levels[level]}, {column.replace('_', ' ')}")
            cells.append(f"{mean:.4f} ± {se:.4f} ({z:+.1f} se)")
        kl = statistics.mean(float(f["mean_kl"]) for f in mine)
        ess = statistics.median(float(f["ess_bulk_kl"]) for f in mine)
        flagged = sum(f["flagged"] == "true" for f in mine)
        lines.append(f"| {levels[level]} | {names[method]} | {len(mine)} | " + " | ".join(cells) + f" | {kl:.3f} | {ess:.0f} "
                     f"| {flagged} |")
    threshold = statistics.NormalDist().inv_cdf(1 - 0.05 / (2 * tested))
    lines += ["", f"S = {kept} kept samples per fit: nominal {nominal(kept, 0.5):.4f} (50 %) and {nominal(kept, 0.9):.4f} "
              f"(90 %); in brackets, (mean − nominal)/se. The largest deviation among the non-private and private "
              f"lines: {worst[0]:+.1f} se ({worst[1]}), against {threshold:.2f} se, the two-sided Bonferroni bound at "
              f"family-wise 0.05 over those {tested} values (a calibrated sampler exceeds it in at most 5 % of runs)."]
    return "\n".join(lines)


# Table 1 of Vinaroz & Park (2021): the paper's F-norm average over its 5 runs, typed from the paper.
DP_SEP_PAPER = {("sep", "", ""): "0.0012", ("clipped-sep", "20.0", ""): "0.0134", ("clipped-sep", "10.0", ""): "0.7477",
                ("clipped-sep", "1.0", ""): "1.1262", ("dp-sep", "", "50.0"): "1.1385", ("dp-sep", "", "5.0"): "6.6139",
                ("dp-sep", "", "1.0"): "44.0262", ("dp-em", "", "50.0"): "3.3479", ("dp-em", "", "5.0"): "7.1060",
                ("dp-em", "", "1.0"): "32.6916"}


def dp_sep_table():
    """docs/dp-sep.md: Table 1 (F-norms per method) and the paired comparisons, Holm over the family."""
    run = "dp-sep-mog-20"
    fits = rows(run, "fits.csv")
    names = {"ep": "EP", "sep": "SEP", "clipped-sep": "clipped SEP", "dp-sep": "DP-SEP", "dp-em": "DP-EM"}
    lines = ["| method | fits | F-norm mean | F-norm cov | average | median of average | largest average | paper (average, 5 runs) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key in dict.fromkeys((f["method"], f["clip"], f["epsilon"]) for f in fits):
        mine = [f for f in fits if (f["method"], f["clip"], f["epsilon"]) == key]
        method, clip, epsilon = key
        label = names[method] + (f" C = {float(clip):g}" if clip and method == "clipped-sep" else "")
        if epsilon:
            sigma = statistics.mean(float(f["noise_multiplier"]) for f in mine)
            label += f" ε = {float(epsilon):g} (σ {sigma:.3g})"
        mean = {c: statistics.mean(float(f[c]) for f in mine) for c in ("f_norm_mean", "f_norm_covariance", "f_norm_average")}
        average = [float(f["f_norm_average"]) for f in mine]
        lines.append(f"| {label} | {len(mine)} | {mean['f_norm_mean']:.4g} | {mean['f_norm_covariance']:.4g} | "
                     f"{mean['f_norm_average']:.4g} | {statistics.median(average):.4g} | {max(average):.4g} | "
                     f"{DP_SEP_PAPER.get((method, clip if method == 'clipped-sep' else '', epsilon), '—')} |")
    paired = rows(run, "paired.csv")
    holm_t, holm_w = holm([float(r["p_t"]) for r in paired]), holm([float(r["p_wilcoxon"]) for r in paired])
    lines += ["", "| comparison (first − second) | first lower | mean difference [95 % CI] | t-test p | Holm | "
              "Wilcoxon p | Holm |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r, ht, hw in zip(paired, holm_t, holm_w):
        lines.append(f"| {r['comparison']} | {r['wins']}/{r['n']} | {float(r['mean']):+.4g} [{float(r['low']):+.4g}, "
                     f"{float(r['high']):+.4g}] | {p_text(float(r['p_t']))} | {p_text(ht)} | "
                     f"{p_text(float(r['p_wilcoxon']))} | {p_text(hw)} |")
    lines += ["", f"Holm over the {len(paired)} comparisons, separately for each test."]
    return "\n".join(lines)


def dpvi_setting(f, varies):
    """A DPVI fit's label within its run: the method, and the q or c the run varies."""
    name = {"non-private": "non-private", "dpvi-moments-accountant": "moments accountant",
            "dpvi-advanced-composition": "advanced composition"}[f["method"]]
    if "q" in varies:
        name += f", q = {float(f['sampling_rate']):g}"
    if "c" in varies and f["clip"]:
        name += f", c = {float(f['clip']):g}"
    return name


def dpvi_means(runs):
    """docs/dpvi.md: the metric's mean ± se over replications, per setting (rows) and target ε (columns)."""
    lines, shown = [], None
    for run in runs:
        fits = rows(run, "fits.csv")
        metric = "test_log_likelihood" if run.endswith("gmm") else "accuracy"
        varies = {k for k, c in (("q", "sampling_rate"), ("c", "clip")) if len({f[c] for f in fits if f[c]}) > 1}
        epsilons = sorted({float(f["target_epsilon"]) for f in fits if f["target_epsilon"]})
        if epsilons != shown:  # a header for each set of ε (the runs of one table share theirs)
            lines += ([""] if lines else []) + [
                "| run | setting | fits | " + " | ".join(f"ε = {e:g}" for e in epsilons) + " | non-private |",
                "| --- | --- | --- | " + " | ".join("---" for _ in epsilons) + " | --- |"]
            shown = epsilons
        settings = dict.fromkeys(dpvi_setting(f, varies) for f in fits if f["target_epsilon"])

        def cell(mine):
            values = [float(f[metric]) for f in mine]
            if not values:
                return "—"
            return f"{statistics.mean(values):.3f} ± {statistics.stdev(values) / len(values) ** 0.5:.3f}"

        for setting in settings:
            mine = [f for f in fits if dpvi_setting(f, varies) == setting]
            reference = [f for f in fits if f["method"] == "non-private"
                         and ("q" not in varies or f["sampling_rate"] == mine[0]["sampling_rate"])]
            by_e = [cell([f for f in mine if f["target_epsilon"] and float(f["target_epsilon"]) == e]) for e in epsilons]
            n = len({f["replication"] for f in mine})
            lines.append(f"| {run.removeprefix('dpvi-')} | {setting} | {n} | " + " | ".join(by_e) + f" | {cell(reference)} |")
    return "\n".join(lines)


def dpvi_paired(runs, families):
    """docs/dpvi.md: paired comparisons over the same replications, Holm within each run's family."""
    lines = ["| run | ε | first − second | first higher | mean difference [95 % CI] | p | Holm p (family) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for run in runs:
        for family in families:
            mine = [r for r in rows(run, "paired.csv") if r["family"] == family]
            for r, h in zip(mine, holm([float(r["p"]) for r in mine])):
                lines.append(f"| {run.removeprefix('dpvi-')} | {float(r['epsilon']):g} | {r['first']} − {r['second']} | "
                             f"{r['wins']}/{r['n']} | {float(r['mean']):+.4f} [{float(r['low']):+.4f}, "
                             f"{float(r['high']):+.4f}] | {p_text(float(r['p']))} | {p_text(h)} ({len(mine)}) |")
    return "\n".join(lines)


def dpvi_adjacent(runs, family):
    """docs/dpvi.md: each q (or c) against the next, one row per pair and one column per ε:
    the mean paired difference and its Holm-adjusted p (family: the run's pairs × ε)."""
    lines, shown = [], None
    for run in runs:
        mine = [r for r in rows(run, "paired.csv") if r["family"] == family]
        adjusted = holm([float(r["p"]) for r in mine])
        epsilons = list(dict.fromkeys(r["epsilon"] for r in mine))
        if epsilons != shown:
            lines += ([""] if lines else []) + [
                "| run | first − second | " + " | ".join(f"ε = {float(e):g}" for e in epsilons) + " |",
                "| --- | --- | " + " | ".join("---" for _ in epsilons) + " |"]
            shown = epsilons
        for pair in dict.fromkeys((r["first"], r["second"]) for r in mine):
            cells = [f"{float(r['mean']):+.4f} ({r['wins']}/{r['n']}, Holm {p_text(h)})"
                     for r, h in zip(mine, adjusted) if (r["first"], r["second"]) == pair]
            lines.append(f"| {run.removeprefix('dpvi-')} | {pair[0]} − {pair[1]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def own_data_defaults():
    """docs/own-data.md: the old and new defaults of `lppf fit` on several releases of the Enron
    network, scored against the raw counts (docs/data/defaults-enron.csv,
    `bash tools/model-checking-enron.sh defaults`)."""
    with open(ROOT / "docs" / "data" / "defaults-enron.csv", newline="") as f:
        fits = list(csv.DictReader(f))
    by = {(r["release_seed"], r["fit"]): r for r in fits}
    seeds = list(dict.fromkeys(r["release_seed"] for r in fits))
    lines = ["| release seed | naïve: total, log-lik. | private old: total, log-lik., R̂ (log joint / total) | prev: total, "
             "log-lik., R̂ | new: total, log-lik., R̂ | new: 90 % interval of the total (released total) |",
             "| --- | --- | --- | --- | --- | --- |"]

    def fit(r, rhat=True):
        text = f"{float(r['fitted_total']):,.0f}, {float(r['loglik_raw']):,.0f}"
        return text + (f", {float(r['rhat_ln_joint']):.2f} / {float(r['rhat_total']):.2f}" if rhat else "")

    for seed in seeds:
        new = by[(seed, "new")]
        lines.append(f"| {seed} | {fit(by[(seed, 'naive')], False)} | {fit(by[(seed, 'old')])} | {fit(by[(seed, 'prev')])} | "
                     f"{fit(new)} | {float(new['total_q05']):,.0f} – {float(new['total_q95']):,.0f} "
                     f"({float(new['released_total']):,.0f}) |")
    raw = float(fits[0]["raw_total"])
    comparisons = [("new", "old"), ("new", "naive"), ("new", "prev")]
    tests = [paired_t([float(by[(s, a)]["loglik_raw"]) for s in seeds], [float(by[(s, b)]["loglik_raw"]) for s in seeds])
             for a, b in comparisons]
    adjusted = holm([t[5] for t in tests])
    lines += ["", "| log-likelihood of the raw counts, paired over the releases | new higher | mean difference [95 % CI] "
              "| p | Holm p |", "| --- | --- | --- | --- | --- |"]
    for (a, b), (n, wins, mean, low, high, p), h in zip(comparisons, tests, adjusted):
        lines.append(f"| {a} − {b} | {wins}/{n} | {mean:+,.0f} [{low:+,.0f}, {high:+,.0f}] | {p_text(p)} | {p_text(h)} |")
    gap = [abs(float(by[(s, "new")]["fitted_total"]) / raw - 1) for s in seeds]
    inside = sum(float(by[(s, "new")]["total_q05"]) <= float(by[(s, "new")]["released_total"])
                 <= float(by[(s, "new")]["total_q95"]) for s in seeds)
    holds_raw = sum(float(by[(s, "new")]["total_q05"]) <= raw <= float(by[(s, "new")]["total_q95"]) for s in seeds)
    lost = [1 - float(by[(s, "old")]["fitted_total"]) / raw for s in seeds]
    added = [float(by[(s, "naive")]["fitted_total"]) / raw - 1 for s in seeds]
    lines += ["", f"Raw total {raw:,.0f}. The new default's total is within {100 * max(gap):.1f} % of it in every release; "
              f"its 90 % interval holds the raw total in {holds_raw} and the released total in {inside} of {len(seeds)} "
              f"releases. The old private fit "
              f"loses {100 * min(lost):.0f}–{100 * max(lost):.0f} % of the total, the naïve fit adds "
              f"{100 * min(added):.0f}–{100 * max(added):.0f} %."]
    return "\n".join(lines)


def own_data_heldout():
    """docs/own-data.md, section 2: held-out log predictive of the hidden released values by K,
    private against naïve and the best K against the others, paired over the masks."""
    fits = rows("own-data-enron-10", "fits.csv")
    ks = sorted({int(f["components"]) for f in fits})

    def score(method, k):
        mine = sorted((f for f in fits if f["method"] == method and int(f["components"]) == k),
                      key=lambda f: int(f["replication"]))
        return [float(f["heldout_log_predictive"]) for f in mine], max(float(f["rhat_ln_joint"]) for f in mine)

    tests = [paired_t(score("naive", k)[0], score("private", k)[0]) for k in ks]
    adjusted = holm([t[5] for t in tests])
    lines = ["| K | private (mean ± sd over masks) | naïve | naïve − private [95 % CI] | naïve higher | Holm p | worst R̂ private / naïve |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    means = {}
    for k, (n, wins, mean, low, high, p), h in zip(ks, tests, adjusted):
        (private, rhat_p), (naive, rhat_n) = score("private", k), score("naive", k)
        (mp, sp), (mn, sn) = mean_sd(private), mean_sd(naive)
        means[k] = mp
        lines.append(f"| {k} | {mp:,.0f} ± {sp:,.0f} | {mn:,.0f} ± {sn:,.0f} | {mean:+,.0f} [{low:+,.0f}, {high:+,.0f}] | "
                     f"{wins}/{n} | {p_text(h)} | {rhat_p:.2f} / {rhat_n:.2f} |")
    best = max(means, key=means.get)
    above = sum(float(f["heldout_log_predictive"]) > float(f["chain_max"]) for f in fits)
    others = [k for k in ks if k != best]
    tests = [paired_t(score("private", best)[0], score("private", k)[0]) for k in others]
    adjusted = holm([t[5] for t in tests])
    lines += ["", f"| private, K = {best} (the best mean) − K | K = {best} higher | mean difference [95 % CI] | p | Holm p |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for k, (n, wins, mean, low, high, p), h in zip(others, tests, adjusted):
        lines.append(f"| {k} | {wins}/{n} | {mean:+,.0f} [{low:+,.0f}, {high:+,.0f}] | {p_text(p)} | {p_text(h)} |")
    lines += ["", f"{tests[0][0]} masks of {fits[0]['heldout_cells']} cells; Holm over the {len(ks)} "
              f"private − naïve comparisons, and separately over the {len(others)} comparisons of K (K = {best} was "
              f"picked as the best mean before they were computed: *chosen after looking*). The pooled score is above "
              f"every single chain's in {above} of {len(fits)} fits."]
    return "\n".join(lines)


def check_rows(name):
    """A committed CSV of `check_calibration` (docs/data/check-calibration*.csv)."""
    with open(ROOT / "docs" / "data" / f"{name}.csv", newline="") as f:
        return list(csv.DictReader(f))


def check_designs(fits):
    """The (mean rate, α) designs of a check-calibration file, in file order, with their rows."""
    designs = dict.fromkeys((f["scale"], f["alpha"]) for f in fits)
    return [(d, [f for f in fits if (f["scale"], f["alpha"]) == d]) for d in designs]


def centre_bias(mine):
    """The relative bias of the centre of the total's 90 % interval, per replication, in %."""
    return [100 * ((float(f["total_q05"]) + float(f["total_q95"])) / 2 / float(f["true_total"]) - 1) for f in mine]


def minus(text):
    """A typeset minus sign (U+2212) before every negative number of `text`."""
    return re.sub(r"-(?=\d)", "\u2212", text)


def percent(x):
    return f"{x:+.0f} %".replace("+0 %", "0 %").replace("-0 %", "0 %")


def check_calibration_flat():
    """docs/model-checking.md: the flat prior's total on model data (bias, coverage, flags)."""
    lines = ["| mean rate | α | total: bias of the interval's centre (range) | covered | total flagged |", "|---|---|---|---|---|"]
    for (scale, alpha), mine in check_designs(check_rows("check-calibration")):
        bias = centre_bias(mine)
        covered = sum(f["covered"] == "true" for f in mine)
        flagged = sum(f["flag_total"] == "true" for f in mine)
        low, high = (f"{x:+.0f}".replace("+0", "0").replace("-0", "0") for x in (min(bias), max(bias)))
        lines.append(f"| {float(scale):g} | {alpha} | {percent(statistics.mean(bias))} ({low}, {high}) | "
                     f"{covered}/{len(mine)} | {flagged}/{len(mine)} |")
    return minus("\n".join(lines))


def check_calibration_priors():
    """docs/model-checking.md: the flat prior against the two hierarchical settings, same data sets."""
    files = ["check-calibration", "check-calibration-hierarchical", "check-calibration-hierarchical-a0.3"]
    runs = [check_designs(check_rows(name)) for name in files]
    lines = ["| mean rate | α | flat: bias, covered | hier. a₀ = 1: bias, covered | hier. a₀ = 0.3: bias, covered |",
             "|---|---|---|---|---|"]
    for designs in zip(*runs):
        (scale, alpha), _ = designs[0]
        cells = [f"{percent(statistics.mean(centre_bias(mine)))}, {sum(f['covered'] == 'true' for f in mine)}/{len(mine)}"
                 for _, mine in designs]
        lines.append(f"| {float(scale):g} | {alpha} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def check_calibration_default():
    """docs/model-checking.md: coverage of the total by the papers' prior and by the default, topic model."""
    lines = ["| data | fit | covered, mean rate 0.1 (α = 0.2 / 0.5 / 0.8) | mean rate 1 | mean rate 10 | all 180 | any flag |",
             "|---|---|---|---|---|---|---|"]
    for data, fit, name in [("Poisson", "flat, Poisson (the papers')", "check-calibration"),
                            ("Poisson", "**default**", "check-calibration-poissondata-default"),
                            ("NB (r = 0.3)", "**default**", "check-calibration-nbdata-default")]:
        fits = check_rows(name)
        designs = check_designs(fits)
        by_scale = {}
        for (scale, _), mine in designs:
            by_scale.setdefault(scale, []).append(str(sum(f["covered"] == "true" for f in mine)))
        covered = sum(f["covered"] == "true" for f in fits)
        flagged = sum(any(v == "true" for k, v in f.items() if k.startswith("flag_")) for f in fits)
        share = f"{covered} ({100 * covered / len(fits):.0f} %)"
        share = f"**{share}**" if "default" in fit else share
        lines.append(f"| {data} | {fit} | " + " | ".join(" / ".join(v) for v in by_scale.values()) +
                     f" | {share} | {flagged}/{len(fits)} |")
    return minus("\n".join(lines))


BLOCKS = [("docs/calibration.md", "sbc-table", sbc_table),
          ("docs/calibration.md", "coverage-1chain", lambda: coverage_table("calibration")),
          ("docs/calibration.md", "coverage-4chains", lambda: coverage_table("calibration-4chains")), ("docs/fig4.md", "fig4-quick-10", fig4_table),
          ("docs/vi-vs-mcmc.md", "schofield-small-20", vi_table),
          ("docs/recovery-figures.md", "fig3-synthetic-10", fig3_table),
          ("docs/recovery-figures.md", "fig1-topics-20", fig1_table),
          ("docs/dp-sep.md", "dp-sep-mog-20", dp_sep_table),
          ("docs/own-data.md", "own-data-heldout", own_data_heldout),
          ("docs/model-checking.md", "check-calibration-flat", check_calibration_flat),
          ("docs/model-checking.md", "check-calibration-priors", check_calibration_priors),
          ("docs/model-checking.md", "check-calibration-default", check_calibration_default),
          ("docs/own-data.md", "own-data-defaults", own_data_defaults),
          ("docs/dpvi.md", "dpvi-abalone", lambda: dpvi_means(["dpvi-abalone"])),
          ("docs/dpvi.md", "dpvi-adult", lambda: dpvi_means(["dpvi-adult"])),
          ("docs/dpvi.md", "dpvi-paired", lambda: dpvi_paired(["dpvi-abalone", "dpvi-adult"], ["ma-ac", "ma-np"])),
          ("docs/dpvi.md", "dpvi-q", lambda: dpvi_means(["dpvi-abalone-q", "dpvi-adult-q"])),
          ("docs/dpvi.md", "dpvi-q-paired", lambda: dpvi_adjacent(["dpvi-abalone-q", "dpvi-adult-q"], "q")),
          ("docs/dpvi.md", "dpvi-clip", lambda: dpvi_means(["dpvi-abalone-clip", "dpvi-adult-clip"])),
          ("docs/dpvi.md", "dpvi-clip-paired", lambda: dpvi_adjacent(["dpvi-abalone-clip", "dpvi-adult-clip"], "c")),
          ("docs/dpvi.md", "dpvi-gmm", lambda: dpvi_means(["dpvi-gmm"])),
          ("docs/dpvi.md", "dpvi-gmm-paired", lambda: dpvi_paired(["dpvi-gmm"], ["ma-np"])),
          ("docs/fig4.md", "fig4-quick-10-collapsed", fig4_collapsed_table)]


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for page, name, make in BLOCKS:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        if begin not in text or end not in text:
            # A page that lost its markers would never be checked again: that is an error too.
            stale.append(f"{page} ({name}: markers missing)")
            continue
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        new = f"{head}{begin}\n{make()}\n{end}{tail}"
        if new != text:
            if check:
                stale.append(f"{page} ({name})")
            else:
                path.write_text(new, encoding="utf-8")
    if stale:
        print("docs differ from docs/evidence: " + ", ".join(stale) + "; run python3 tools/docs/generate.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
