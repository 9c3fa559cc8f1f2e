"""Generated tables of the central-DP baselines: docs/dp-sep.md and docs/dpvi.md."""

import statistics

from docstats import holm, p_text, row_interval
from sources import rows


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
        lines.append(f"| {r['comparison']} | {r['wins']}/{r['n']} | {row_interval(r, '+.4g')} | {p_text(float(r['p_t']))} | "
                     f"{p_text(ht)} | "
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
        paired = rows(run, "paired.csv")
        for family in families:
            mine = [r for r in paired if r["family"] == family]
            for r, h in zip(mine, holm([float(r["p"]) for r in mine])):
                lines.append(f"| {run.removeprefix('dpvi-')} | {float(r['epsilon']):g} | {r['first']} − {r['second']} | "
                             f"{r['wins']}/{r['n']} | {row_interval(r, '+.4f')} | {p_text(float(r['p']))} | "
                             f"{p_text(h)} ({len(mine)}) |")
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
