"""Generated tables of the factorization pages: docs/calibration.md, docs/fig4.md,
docs/vi-vs-mcmc.md and docs/recovery-figures.md."""

import statistics
import tomllib

from docstats import binomial_test_p, holm, interval, mean_sd, nominal, p_text, row_interval
from sources import EVIDENCE, rows, toml


def quantity(r):
    """The quantity an `sbc.csv` line ranks: `total` or `ln_likelihood` (files made before the
    log-likelihood was ranked have no such column: the total)."""
    return r.get("quantity") or "total"


def sbc_table():
    """docs/calibration.md: Holm-adjusted p of the SBC rank histograms, per model and group."""
    columns = [("", "non-private"), ("0.2", "naive"), ("0.2", "private"), ("0.5", "naive"), ("0.5", "private"),
               ("0.8", "naive"), ("0.8", "private")]
    lines = []
    for model, run in [("topic", "calibration"), ("topic, 4 chains", "calibration-4chains"), ("block", "calibration-block"),
                       ("undirected", "calibration-undirected")]:
        by = {(r["level"], r["method"]): r for r in rows(run, "sbc.csv") if quantity(r) == "total"}

        def cell(r):
            shown = p_text(float(r["p_holm"]))
            return shown if r["uniform"] == "true" else f"**{shown}** (not uniform)"

        lines.append(f"| {model} | " + " | ".join(cell(by[c]) for c in columns) + " |")
    return "\n".join(lines)


def sbc_default_table():
    """docs/calibration.md: SBC of `lppf fit`'s default (the negative binomial)."""
    return _sbc_small_table("calibration-default")


def sbc_contaminated_table():
    """docs/calibration.md: SBC of `lppf fit --likelihood contaminated`."""
    return _sbc_small_table("calibration-contaminated")


def _sbc_small_table(prefix):
    """SBC at the small sizes of the runs `<prefix>-{topic,block,undirected}` that exist: each
    group's ECDF-test p, its Holm adjustment over the run's groups, the χ² p beside it, and the
    verdict at 0.05."""
    lines = ["| run | group | ECDF p | Holm p | χ² (9 df) p | verdict |", "| --- | --- | ---: | ---: | ---: | --- |"]
    runs = [("topic (20 × 15)", "topic", "topic"), ("block (20 actors)", "block", "block"),
            ("undirected (20 actors)", "undirected", "undirected"),
            ("block at Fig. 4's size (161 actors, C = 12)", "block-fig4-size", "block, 161 actors"),
            ("block with the Hamiltonian move (20 actors)", "block-hmc", "block, the move")]
    for model, kind, short in runs:
        run = f"{prefix}-{kind}"
        if not (EVIDENCE / run / "sbc.csv").exists():
            continue
        for i, r in enumerate(rows(run, "sbc.csv")):
            name = model if i == 0 else short
            group = "non-private" if not r["level"] else f"{r['method']}, α = {r['level']}"
            if quantity(r) != "total":
                group += ", log-likelihood"
            p, holm = float(r["ecdf_p"]), float(r["ecdf_p_holm"])
            verdict = "uniform" if holm >= 0.05 else "**not uniform**"
            lines.append(f"| {name} | {group} | {p:.2f} | {min(holm, 1.0):.2g} | {float(r['p']):.2f} | {verdict} |")
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
            f"{float(r['mean_kl']):.3f} ({float(r['sd_kl']):.3f}) | {interval(d, lo, hi, '.3f')} | "
            f"{r['paired_wins']}/{r['paired_n']} | {p_text(p)} | {p_text(holm)} |")
    lines.append("")
    lines.append(f"Private is better than naïve (Δ < 0) at Holm-adjusted p < 0.05 in **{better} of {cells}** cells "
                 f"(family: the {cells} cells; at unadjusted p < 0.05 in {better_raw} of {cells}).")
    return "\n".join(lines)


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
        lines.append(f"| {label[t[0]]} − {label[t[1]]} | {metric} | {row_interval(r, '+.3f')} | {r['wins']}/{r['n']} | "
                     f"{p_text(float(r['p']))} | {p_text(h)} |")
    return "\n".join(lines)


def recovery_table(run, header, metrics):
    """A recovery figure's table: per level (and metric, when there are several), the mean over data
    sets of each method, and private against naïve and against non-private, paired, with Holm over
    every comparison of the table."""
    fits = rows(run, "fits.csv")
    paired = {(r["level"], r["method"], r["versus"], r["metric"]): r for r in rows(run, "paired.csv")}
    levels = [lv for lv in dict.fromkeys(f["level"] for f in fits) if lv]
    tests = [(lv, "private", b, m) for lv in levels for m, _ in metrics for b in ("naive", "non-private")]
    adjusted = dict(zip(tests, holm([float(paired[t]["p"]) for t in tests])))

    def mean(method, level, metric):
        m, sd = mean_sd([float(f[metric]) for f in fits if f["method"] == method and f["level"] == level])
        return f"{m:.4f} ({sd:.4f})"

    def diff(t):
        r = paired[t]
        return (f"{row_interval(r, '+.4f')} | "
                f"{r['wins']}/{r['n']} | {p_text(adjusted[t])}")

    lines = list(header)
    for lv in levels:
        for metric, name in metrics:
            label = f"{name} | " if len(metrics) > 1 else ""
            lines.append(f"| {lv} | {label}{mean('non-private', '', metric)} | {mean('naive', lv, metric)} | "
                         f"{mean('private', lv, metric)} | {diff((lv, 'private', 'naive', metric))} | "
                         f"{diff((lv, 'private', 'non-private', metric))} |")
    n = len([f for f in fits if f["method"] == "non-private"])
    flagged = sum(f["flagged"] == "true" for f in fits)
    lines += ["", f"{n} data sets, 4 chains per fit; Holm over the {len(tests)} comparisons of the table. "
              f"The R̂/ESS rule flags {flagged} of {len(fits)} fits."]
    return "\n".join(lines)


def fig3_table():
    """docs/recovery-figures.md: Fig. 3 with 10 data sets, private against naïve and non-private."""
    header = ["| ε | non-private KL (sd) | naïve KL (sd) | private KL (sd) | private − naïve [95 % CI] | private better | Holm p "
              "| private − non-private [95 % CI] | private better | Holm p |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    return recovery_table("fig3-synthetic-10", header, [("mean_kl", "mean KL")])


def fig1_table():
    """docs/recovery-figures.md: Fig. 1 with 20 data sets, private against naïve and non-private."""
    header = ["| α₀ | metric | non-private (sd) | naïve (sd) | private (sd) | private − naïve [95 % CI] | private lower | Holm p "
              "| private − non-private [95 % CI] | private lower | Holm p |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    return recovery_table("fig1-topics-20", header, [("topic_error", "aligned topic MAE"), ("mean_kl", "mean KL of μ̂")])


def fig4_collapsed_table():
    """docs/fig4.md: the Fig. 4 quick design with the collapsed private step against the augmented run."""
    run = "fig4-enron-quick-10-collapsed"
    versus = rows(run, "versus.csv")
    private = [r for r in versus if r["method"] == "private"]
    others = [r for r in versus if r["method"] != "private"]
    adjusted = holm([float(r["p"]) for r in private])
    kl = {(r["e0"], r["level"], r["method"]): r for r in rows("fig4-enron-quick-10", "summary.csv")}
    summary = rows(run, "summary.csv")
    mine = {(r["e0"], r["level"], r["method"]): r for r in summary}
    lines = ["| e₀ | α | private KL, augmented | private KL, collapsed | collapsed − augmented [95 % CI] | collapsed lower | p | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    lower = higher = 0
    for r, h in zip(private, adjusted):
        d = float(r["mean"])
        lower += d < 0 and h < 0.05
        higher += d > 0 and h < 0.05
        a, b = kl[(r["e0"], r["level"], "private")], mine[(r["e0"], r["level"], "private")]
        lines.append(f"| {r['e0']} | {r['level']} | {float(a['mean_kl']):.3f} | {float(b['mean_kl']):.3f} | "
                     f"{row_interval(r, '+.3f')} | {r['wins']}/{r['n']} | "
                     f"{p_text(float(r['p']))} | {p_text(h)} |")
    better = sum(1 for r in summary
                 if r["method"] == "private" and r["paired_vs"] == "naive"
                 and float(r["paired_kl_difference"]) < 0 and float(r["paired_p_holm"]) < 0.05)
    same = all(r["identical"] == "true" for r in others)
    lines += ["", f"Collapsed − augmented differs at Holm-adjusted p < 0.05 in **{lower + higher} of {len(private)}** cells "
              f"({lower} lower, {higher} higher; family: the {len(private)} cells). The non-private and naïve fits of the "
              f"two runs are {'bit for bit identical' if same else 'NOT identical'} ({len(others)} cells). With the "
              f"collapsed step, private is better than naïve at Holm-adjusted p < 0.05 in **{better} of {len(private)}** cells."]
    return "\n".join(lines)


def coverage_table(run):
    """docs/calibration.md: mean coverage ± se of the true rates and row totals, per level and method."""
    sampler = toml(f"{run}/manifest.toml")["sampler"]
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


FIG4_SIZE_RUNS = [("calibration-block-fig4-size", "collapsed step", "1 chain"),
                  ("calibration-block-fig4-size-augmented", "augmented step", "1 chain"),
                  ("calibration-block-fig4-size-4chains", "collapsed step", "4 chains"),
                  ("calibration-block-fig4-size-replicas", "collapsed step", "1 chain of 4 replicas")]


def outside_every_draw(fit):
    """Whether a fit's SBC rank puts the truth below or above all L draws (rank 0 or L; probability
    2/(L + 1) under a calibrated posterior)."""
    return int(fit["sbc_total_rank"]) in (0, int(fit["sbc_draws"]))


def sbc_fig4_size():
    """docs/calibration.md: SBC of the block model at Fig. 4's size, with the collapsed step (the
    default) and the paper's augmented step on the same networks and releases, one chain per
    fit, with four chains per fit and the non-private reference, and with one chain of four
    tempered replicas; then the private ranks of these paired over the networks, and the
    replicas' hottest rung."""
    names = {"naive": "naïve", "private": "private", "non-private": "non-private"}
    lines = ["| run | group | fits | rank counts in 10 bins (low → high) | χ² (9 df) | p | Holm p | verdict | mean 90 % coverage "
             "of the rates | fits flagged | median R̂ of the log joint | truth outside every draw (expected), binomial p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    fits_of = {run: rows(run, "fits.csv") for run, _, _ in FIG4_SIZE_RUNS}
    for run, step, chains in FIG4_SIZE_RUNS:
        fits = fits_of[run]
        for r in (r for r in rows(run, "sbc.csv") if quantity(r) == "total"):
            detail = f"{step}, {chains}" if r["method"] == "private" else chains
            group = f"{names[r['method']]}, {detail}" + (f", α = {r['level']}" if r["level"] else "")
            mine = [f for f in fits if f["method"] == r["method"] and f["level"] == r["level"]]
            coverage = statistics.mean(float(f["coverage_90"]) for f in mine)
            flagged = sum(f["flagged"] == "true" for f in mine)
            rhat = statistics.median(float(f["rhat_ln_joint"]) for f in mine)
            verdict = "uniform" if r["uniform"] == "true" else "**not uniform**"
            outside = sum(outside_every_draw(f) for f in mine)
            share = 2 / (int(r["draws"]) + 1)
            lines.append(f"| {run} | {group} | {r['fits']} | {r['counts']} | {float(r['chi2']):.1f} | {p_text(float(r['p']))} | "
                         f"{p_text(float(r['p_holm']))} | {verdict} | {coverage:.3f} | {flagged}/{len(mine)} | {rhat:.2f} | "
                         f"{outside}/{len(mine)} ({share * len(mine):.1f}), {p_text(binomial_test_p(outside, len(mine), share))} |")
    # The private ranks of the same networks and releases run two ways: how often the truth lies
    # outside every draw (rank 0 or L of L draws: 2/(L + 1), about 10 % of fits, for a calibrated
    # posterior), paired over the networks by an exact sign test on the discordant ones. One plain
    # chain against four chains and against one chain of four replicas, and the two ways of
    # spending four times the sweeps against each other.
    def outer(run):
        return {f["replication"]: outside_every_draw(f) for f in fits_of[run] if f["method"] == "private"}

    label = {run: chains for run, _, chains in FIG4_SIZE_RUNS}
    single, pooled, replicas = (FIG4_SIZE_RUNS[i][0] for i in (0, 2, 3))
    lines += ["", "| private, collapsed step, α = 0.5, the same networks (about 10 % outside expected) | networks | "
              "truth outside every draw, the first | the second | outside with the first only / with the second only | sign test p | "
              "Holm p (the 3 rows) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    paired_rows = []
    for first, second in [(single, pooled), (single, replicas), (pooled, replicas)]:
        a, b = outer(first), outer(second)
        shared = sorted(set(a) & set(b), key=int)
        only_a = sum(a[r] and not b[r] for r in shared)
        only_b = sum(b[r] and not a[r] for r in shared)
        paired_rows.append((f"| {label[first]} against {label[second]} | {len(shared)} | {sum(a[r] for r in shared)} | "
                            f"{sum(b[r] for r in shared)} | {only_a} / {only_b} | ",
                            binomial_test_p(only_a, only_a + only_b, 0.5)))
    adjusted = holm([p for _, p in paired_rows])
    lines += [f"{text}{p_text(p)} | {p_text(h)} |" for (text, p), h in zip(paired_rows, adjusted)]
    # Replica exchange's hottest rung after the burn-in's ladder adaptation (docs/modes.md). The
    # ladder starts geometric down to β = 0.5 and, every 50 burn-in sweeps before the last, each
    # gap of ln β narrows by a third where its swap rate was below 0.2 (inference::tempering): a
    # ladder whose gaps narrowed at every adaptation ends at β_min = 0.5^((2/3)^n), n adaptations.
    for run, step, chains in FIG4_SIZE_RUNS:
        betas = sorted(float(f["ladder_min_beta"]) for f in fits_of[run] if f.get("ladder_min_beta"))
        if betas:
            adaptations = (int(toml(f"{run}/manifest.toml")["sampler"]["burn_in"]) - 1) // 50
            floor = 0.5 ** ((2 / 3) ** adaptations)
            at_floor = sum(abs(b - floor) < 1e-12 for b in betas)
            lines += ["", f"{run}: the hottest rung of the adapted ladders (β of the last of the replicas) has median "
                      f"{statistics.median(betas):.5f}, range {betas[0]:.5f}–{betas[-1]:.5f}, over {len(betas)} fits; "
                      f"{at_floor} of them end at {floor:.5f}, where every gap narrowed at each of the {adaptations} adaptations "
                      "(each neighbouring pair swapped in fewer than 20 % of its proposals in every 50-sweep window of the burn-in)."]
    return "\n".join(lines)


def _units(run):
    """The finished fits of a run kept as unit files (docs/evidence/RUN/units/*.toml), by
    (replication, method)."""
    fits = {}
    for path in sorted((EVIDENCE / run / "units").glob("*.toml")):
        with open(path, "rb") as f:
            fit = tomllib.load(f)["row"][0]
        fits[(fit["replication"], fit["method"])] = fit
    return fits


def _sbc_group_lines(run, tests, fits, settled=True):
    """Each group's ECDF test from `tests` (sbc.csv, or sbc-stopped.csv of a run stopped early,
    written by crates/pipeline/examples/stopped_sbc.rs), with how many of `fits` put the truth
    above every draw; the verdict only if the run is `settled` (finished, or stopped once no
    remaining fit could change it)."""
    lines = ["| group | quantity | fits | rank counts (low → high) | truth above every draw | ECDF p | Holm p (4 tests) | "
             "χ² p | verdict |", "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in rows(run, tests):
        group = "non-private" if not r["level"] else f"private, α = {r['level']}"
        key = "total_rank" if r["quantity"] == "total" else "ln_likelihood_rank"
        mine = [f for f in fits.values() if f["method"] == r["method"]]
        top = sum(f["sbc"][key] == f["sbc"]["draws"] for f in mine)
        verdict = ("uniform" if r["uniform"] == "true" else "**not uniform**") if settled else "none yet"
        name = "total" if r["quantity"] == "total" else "log-likelihood"
        lines.append(f"| {group} | {name} | {r['fits']} | {r['counts']} | {top} | {p_text(float(r['ecdf_p']))} | "
                     f"{p_text(float(r['ecdf_p_holm']))} | {p_text(float(r['p']))} | {verdict} |")
    return lines


def _by_size_lines(run, fits, bins):
    """The fits by the total of their network's counts (networks.csv, written by
    crates/pipeline/examples/sweep_data.rs): per (label, predicate of the total) of `bins`, the R̂ of
    the log joint and how often the truth lies above or outside every draw."""
    totals = {int(r["replication"]): int(r["total"]) for r in rows(run, "networks.csv")}
    lines = ["| network's counts | networks | fits | R̂ of the log joint | fits with R̂ ≥ 1.7 | truth's log-likelihood "
             "above every draw | truth's total outside every draw |", "| --- | ---: | ---: | --- | ---: | ---: | ---: |"]
    for label, inside in bins:
        mine = [f for (rep, _), f in fits.items() if inside(totals[rep])]
        if not mine:
            continue
        rhat = [f["diagnostics"]["ln_joint"]["rhat"] for f in mine]
        high = sum(f["sbc"]["ln_likelihood_rank"] == f["sbc"]["draws"] for f in mine)
        outside = sum(f["sbc"]["total_rank"] in (0, f["sbc"]["draws"]) for f in mine)
        networks = len({f["replication"] for f in mine})
        lines.append(f"| {label} | {networks} | {len(mine)} | {min(rhat):.2f}–{max(rhat):.2f} | {sum(r >= 1.7 for r in rhat)} | "
                     f"{high} | {outside} |")
    return lines


def sbc_fig4_size_default():
    """docs/calibration.md: the Fig. 4-size SBC of the default, stopped when its verdict was
    settled: each group's ECDF test over the fits that finished (sbc-stopped.csv), and how many fits
    put the truth above every draw; then the same fits by the size of their network (the split at
    one million was chosen after looking)."""
    run = "calibration-default-fig4-size"
    fits = _units(run)
    return "\n".join(_sbc_group_lines(run, "sbc-stopped.csv", fits) + [""] + _by_size_lines(run, fits, [
        ("under 1 million (mean under 39 a cell)", lambda t: t < 1_000_000),
        ("1 million or more", lambda t: t >= 1_000_000)]))


def sbc_fig4_size_light():
    """docs/history/calibration-fig4-size.md: the Fig. 4-size SBC of the default's sweep alone on
    networks whose release has a mean count of at most 40 a cell: each group's ECDF test (sbc.csv once the run has finished, until
    then sbc-stopped.csv over the fits that have), then the fits by the size of their network (the
    splits were chosen after looking at the first 56 fits)."""
    return _light_sbc("calibration-default-fig4-size-light")


def sbc_fig4_size_light_hmc():
    """docs/calibration.md: the SBC of the default with the Hamiltonian move on
    the same networks as `sbc_fig4_size_light`, by the same groups and sizes, then the same fits
    beside those without the move: how often the truth's log-likelihood is above every draw, the
    pooled KL from the true rates lower, and R̂ of the log joint at least 1.7."""
    run = "calibration-default-fig4-size-light-hmc-sbc"
    moved, plain = _units(run), _units("calibration-default-fig4-size-light")
    pairs = [(moved[k], plain[k]) for k in moved if k in plain]

    def top(fit):
        return fit["sbc"]["ln_likelihood_rank"] == fit["sbc"]["draws"]

    def flagged(fit):
        return fit["diagnostics"]["ln_joint"]["rhat"] >= 1.7

    n = len(pairs)
    return "\n".join([_light_sbc(run), "", f"The same {n} fits with and without the move: the truth's "
                      f"log-likelihood above every draw in {sum(top(m) for m, _ in pairs)} against "
                      f"{sum(top(p) for _, p in pairs)}; the pooled KL from the true rates lower with the move in "
                      f"{sum(m['mean_kl'] < p['mean_kl'] for m, p in pairs)} of {n}; R̂ of the log joint of 1.7 "
                      f"or more in {sum(flagged(m) for m, _ in pairs)} against {sum(flagged(p) for _, p in pairs)}."])


def _light_sbc(run):
    """The group tests of `run` (sbc.csv once it has finished, until then sbc-stopped.csv, with no
    verdict) and its fits by the size of their network (networks.csv of the light run, whose
    networks every such run fits)."""
    fits = _units(run)
    finished = (EVIDENCE / run / "sbc.csv").exists()
    tests = "sbc.csv" if finished else "sbc-stopped.csv"
    bins = [("under 100,000 (mean under 4 a cell)", lambda t: t < 100_000),
            ("100,000 to 300,000", lambda t: 100_000 <= t < 300_000),
            ("300,000 or more (mean 12 or more)", lambda t: t >= 300_000)]
    return "\n".join(_sbc_group_lines(run, tests, fits, settled=finished) + [""]
                     + _by_size_lines("calibration-default-fig4-size-light", fits, bins))


def _probe_lines(base_run, probe_run, column, labels):
    """A probe's fits (unit files of `probe_run`) beside the same networks' fits of `base_run`:
    per replication and method, one line each, `column` holding `labels` (base, probe)."""
    base, probe = _units(base_run), _units(probe_run)
    lines = [f"| replication | method | {column} | R̂ of the log joint | chains' KL from the truth | log-likelihood rank | "
             "total rank |", "| ---: | --- | --- | ---: | --- | ---: | ---: |"]
    for key in sorted(probe, key=lambda k: (k[0], k[1] != "non-private")):
        for label, fit in zip(labels, [base.get(key), probe[key]]):
            if fit is None:
                continue
            kl = fit["chain_mean_kl"]
            lines.append(f"| {key[0]} | {key[1]} | {label} | {fit['diagnostics']['ln_joint']['rhat']:.2f} | "
                         f"{min(kl):.3f}–{max(kl):.3f} | {fit['sbc']['ln_likelihood_rank']} | {fit['sbc']['total_rank']} |")
    return lines


def fig4_size_cavi_probe():
    """docs/calibration.md: the fits of the Fig. 4-size SBC run again from the CAVI start, beside
    the same networks' fits from the prior."""
    return "\n".join(_probe_lines("calibration-default-fig4-size", "calibration-default-fig4-size-cavi", "start",
                                   ("prior", "CAVI")))


def fig4_size_hmc_probe():
    """docs/calibration.md: the first networks of the lighter Fig. 4-size SBC fitted again with the
    Hamiltonian move after each sweep (the default's schedule), beside their fits without it."""
    return "\n".join(_probe_lines("calibration-default-fig4-size-light", "calibration-default-fig4-size-light-hmc",
                                   "kernel", ("Gibbs", "Gibbs + Hamiltonian")))


def fig4_size_long_probe():
    """docs/calibration.md: the first networks of the lighter Fig. 4-size SBC fitted again with
    chains four times as long, beside their fits with the default's 2,000 sweeps."""
    return "\n".join(_probe_lines("calibration-default-fig4-size-light", "calibration-default-fig4-size-light-long",
                                   "sweeps", ("2,000", "8,000")))
