"""Generated tables of the real-data pages: docs/own-data.md and docs/model-checking.md."""

import re
import statistics

from docstats import holm, interval, mean_sd, minus, p_text, paired_t, percent
from sources import EVIDENCE, data_rows, rows, toml


# The settings of docs/data/defaults-enron.csv by what they are (the CSV's names are those of
# the script that made it: `old`, `prev`, `new`).
SETTING = {"naive": "naïve", "old": "papers'", "prev": "fixed scale", "new": "learned scale"}


def own_data_defaults():
    """docs/own-data.md: the papers' model and two hierarchical settings of `lppf fit` on several
    releases of the Enron network, scored against the raw counts (docs/data/defaults-enron.csv,
    `bash tools/model-checking-enron.sh defaults`)."""
    fits = data_rows("defaults-enron")
    by = {(r["release_seed"], r["fit"]): r for r in fits}
    seeds = list(dict.fromkeys(r["release_seed"] for r in fits))
    lines = ["| release seed | naïve: total, log-lik. | papers': total, log-lik., R̂ (log joint / total) | fixed scale: "
             "total, log-lik., R̂ | learned scale: total, log-lik., R̂ | learned scale: 90 % interval of the total "
             "(released total) |",
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
    lines += ["", "| log-likelihood of the raw counts, paired over the releases | learned scale higher | mean difference "
              "[95 % CI] | p | Holm p |", "| --- | --- | --- | --- | --- |"]
    for (a, b), (n, wins, mean, low, high, p), h in zip(comparisons, tests, adjusted):
        lines.append(f"| {SETTING[a]} − {SETTING[b]} | {wins}/{n} | {interval(mean, low, high, '+,.0f')} | {p_text(p)} "
                     f"| {p_text(h)} |")
    gap = [abs(float(by[(s, "new")]["fitted_total"]) / raw - 1) for s in seeds]
    inside = sum(float(by[(s, "new")]["total_q05"]) <= float(by[(s, "new")]["released_total"])
                 <= float(by[(s, "new")]["total_q95"]) for s in seeds)
    holds_raw = sum(float(by[(s, "new")]["total_q05"]) <= raw <= float(by[(s, "new")]["total_q95"]) for s in seeds)
    lost = [1 - float(by[(s, "old")]["fitted_total"]) / raw for s in seeds]
    added = [float(by[(s, "naive")]["fitted_total"]) / raw - 1 for s in seeds]
    lines += ["", f"Raw total {raw:,.0f}. The learned-scale fit's total is within {100 * max(gap):.1f} % of it in every "
              f"release; its 90 % interval holds the raw total in {holds_raw} and the released total in {inside} of "
              f"{len(seeds)} releases. The papers' private fit "
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
        lines.append(f"| {k} | {mp:,.0f} ± {sp:,.0f} | {mn:,.0f} ± {sn:,.0f} | {interval(mean, low, high, '+,.0f')} | "
                     f"{wins}/{n} | {p_text(h)} | {rhat_p:.2f} / {rhat_n:.2f} |")
    best = max(means, key=means.get)
    above = sum(float(f["heldout_log_predictive"]) > float(f["chain_max"]) for f in fits)
    others = [k for k in ks if k != best]
    tests = [paired_t(score("private", best)[0], score("private", k)[0]) for k in others]
    adjusted = holm([t[5] for t in tests])
    lines += ["", f"| private, K = {best} (the best mean) − K | K = {best} higher | mean difference [95 % CI] | p | Holm p |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for k, (n, wins, mean, low, high, p), h in zip(others, tests, adjusted):
        lines.append(f"| {k} | {wins}/{n} | {interval(mean, low, high, '+,.0f')} | {p_text(p)} | {p_text(h)} |")
    lines += ["", f"{tests[0][0]} masks of {fits[0]['heldout_cells']} cells; Holm over the {len(ks)} "
              f"private − naïve comparisons, and separately over the {len(others)} comparisons of K (K = {best} was "
              f"picked as the best mean before they were computed: *chosen after looking*). The pooled score is above "
              f"every single chain's in {above} of {len(fits)} fits."]
    return "\n".join(lines)


def check_designs(fits):
    """The (mean rate, α) designs of a check-calibration file, in file order, with their rows."""
    designs = dict.fromkeys((f["scale"], f["alpha"]) for f in fits)
    return [(d, [f for f in fits if (f["scale"], f["alpha"]) == d]) for d in designs]


def centre_bias(mine):
    """The relative bias of the centre of the total's 90 % interval, per replication, in %."""
    return [100 * ((float(f["total_q05"]) + float(f["total_q95"])) / 2 / float(f["true_total"]) - 1) for f in mine]


def check_calibration_flat():
    """docs/model-checking.md: the flat prior's total on model data (bias, coverage, flags)."""
    lines = ["| mean rate | α | total: bias of the interval's centre (range) | covered | total flagged |", "|---|---|---|---|---|"]
    for (scale, alpha), mine in check_designs(data_rows("check-calibration")):
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
    runs = [check_designs(data_rows(name)) for name in files]
    lines = ["| mean rate | α | flat: bias, covered | hier. a₀ = 1: bias, covered | hier. a₀ = 0.3: bias, covered |",
             "|---|---|---|---|---|"]
    for designs in zip(*runs):
        (scale, alpha), _ = designs[0]
        cells = [f"{percent(statistics.mean(centre_bias(mine)))}, {sum(f['covered'] == 'true' for f in mine)}/{len(mine)}"
                 for _, mine in designs]
        lines.append(f"| {float(scale):g} | {alpha} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def check_calibration_default():
    """docs/model-checking.md: coverage of the total by the papers' prior, the default (the
    contaminated likelihood) and the negative binomial, topic model and block model."""
    lines = ["| model, data | fit | covered, mean rate 0.1 (α = 0.2 / 0.5 / 0.8) | mean rate 1 | mean rate 10 | all | "
             "any flag |",
             "|---|---|---|---|---|---|---|"]
    for data, fit, name in [("topic, Poisson", "flat, Poisson (the papers')", "check-calibration"),
                            ("topic, Poisson", "**default**", "check-calibration-poissondata-contaminated"),
                            ("topic, NB (r = 0.3)", "**default**", "check-calibration-nbdata-contaminated"),
                            ("block, Poisson", "**default**", "check-calibration-block-contaminated"),
                            ("topic, Poisson", "negative binomial", "check-calibration-poissondata-default"),
                            ("topic, NB (r = 0.3)", "negative binomial", "check-calibration-nbdata-default"),
                            ("block, Poisson", "negative binomial", "check-calibration-block-default")]:
        fits = data_rows(name)
        designs = check_designs(fits)
        by_scale = {}
        for (scale, _), mine in designs:
            by_scale.setdefault(scale, []).append(str(sum(f["covered"] == "true" for f in mine)))
        covered = sum(f["covered"] == "true" for f in fits)
        flagged = sum(any(v == "true" for k, v in f.items() if k.startswith("flag_")) for f in fits)
        share = f"{covered}/{len(fits)} ({100 * covered / len(fits):.0f} %)"
        share = f"**{share}**" if "default" in fit else share
        lines.append(f"| {data} | {fit} | " + " | ".join(" / ".join(v) for v in by_scale.values()) +
                     f" | {share} | {flagged}/{len(fits)} |")
    return minus("\n".join(lines))


CHECK_NAMES = {"total": "total", "row_total_dispersion": "row total dispersion",
               "col_total_dispersion": "column total dispersion", "share_abs_le_1": "share \\|ỹ\\| ≤ 1",
               "max_cell": "largest cell", "row_total_q10": "row total q10", "row_total_q50": "row total median",
               "row_total_q90": "row total q90", "cell_chi_square": "cell chi-square"}


def scaled(x):
    """A check's value at the precision its size warrants (thousands with commas, small shares
    with three decimals)."""
    size = abs(x)
    return f"{x:,.0f}" if size >= 10 else f"{x:.1f}" if size >= 1 else f"{x:.3f}"


def checks_enron():
    """docs/model-checking.md: the posterior predictive checks of the papers'-model fits on the
    Enron release (docs/data/checks-enron-{private,naive}.csv, the `checks.csv` of the fits of
    docs/own-data.md, section 3)."""
    fits = {m: {r["statistic"]: r for r in data_rows(f"checks-enron-{m}")} for m in ("private", "naive")}
    lines = ["| statistic | release | private: replicated (p) | naive: replicated (p) |", "|---|---|---|---|"]
    for statistic, name in CHECK_NAMES.items():
        cells = []
        for m in ("private", "naive"):
            r = fits[m][statistic]
            flag = " **flag**" if r["flag"] else ""
            cells.append(f"{scaled(float(r['replicated_mean']))} ± {scaled(float(r['replicated_sd']))} "
                         f"({float(r['p_value']):.2f}){flag}")
        lines.append(f"| {name} | {scaled(float(fits['private'][statistic]['observed']))} | {' | '.join(cells)} |")
    total = {m: fits[m]["total"] for m in fits}
    share = {m: float(total[m]["replicated_mean"]) / float(total[m]["observed"]) - 1 for m in fits}
    chi = fits["private"]["cell_chi_square"]
    lines += ["", f"The private fit replicates {-100 * share['private']:.0f} % less than the released total, the naïve "
              f"fit {100 * share['naive']:.0f} % more; the release's cell chi-square is "
              f"{float(chi['observed']):,.0f} where the private fit replicates {float(chi['replicated_mean']):,.0f}."]
    return minus("\n".join(lines))


def priors_enron():
    """docs/model-checking.md: the release of docs/own-data.md fitted with each prior ×
    likelihood (and with one component, no structure), scored against the raw counts (docs/data/priors-enron.csv, `bash
    tools/model-checking-enron.sh priors`)."""
    lines = ["| prior, likelihood | total: 90 % interval (released total) | R̂ log joint / total | flagged checks | "
             "Poisson log-lik. of the raw counts | seconds |", "|---|---|---|---|---|---|"]
    for r in data_rows("priors-enron"):
        likelihood = {"poisson": "Poisson", "negative-binomial": "negative binomial",
                      "contaminated": "contaminated"}[r["likelihood"]]
        name = "naïve (flat, Poisson)" if r["fit"] == "naive" else f"{r['prior']}, {likelihood}"
        if r["fit"].startswith("k1-"):
            name += ", K = 1 (no structure)"
        if r["fit"] == "hierarchical-contaminated":
            name = f"**{name} (lppf fit's default)**"
        flagged = ", ".join(f"`{c}`" for c in r["flagged_checks"].split()) or "none"
        lines.append(f"| {name} | {float(r['total_q05']):,.0f} – {float(r['total_q95']):,.0f} "
                     f"({float(r['released_total']):,.0f}) | {float(r['rhat_ln_joint']):.2f} / {float(r['rhat_total']):.2f} | "
                     f"{flagged} | {float(r['loglik_raw']):,.0f} | {float(r['seconds']):.0f} |")
    return minus("\n".join(lines))


def check_verdict():
    """docs/model-checking.md: the structure verdict of `lppf fit --holdout 0.1` on the Enron
    release, per K over the masks, and the K paired over the same masks
    (docs/data/verdict-enron.csv, `bash tools/model-checking-enron.sh verdict`)."""
    fits = data_rows("verdict-enron")
    ks = sorted({int(f["K"]) for f in fits})

    def column(k, name):
        mine = sorted((f for f in fits if int(f["K"]) == k), key=lambda f: int(f["seed"]))
        return [float(f[name]) if name != "structure" else f[name] == "true" for f in mine]

    lines = ["| K | masks | Δ = block − independence, mean [95 % CI over masks] | Δ > 0 | p | Holm p | verdict says "
             "structure | median se of Δ within a mask |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    deltas = [paired_t(d, [0.0] * len(d)) for d in (column(k, "difference") for k in ks)]
    for k, (n, positive, mean, low, high, p), h in zip(ks, deltas, holm([t[5] for t in deltas])):
        lines.append(f"| {k} | {n} | {interval(mean, low, high, '+,.0f')} | {positive}/{n} | {p_text(p)} | {p_text(h)} | "
                     f"{sum(column(k, 'structure'))}/{n} | {statistics.median(column(k, 'se')):,.0f} |")
    pairs = [(a, b) for i, b in enumerate(ks) for a in ks[i + 1:]]
    tests = [paired_t(column(a, "log_predictive"), column(b, "log_predictive")) for a, b in pairs]
    lines += ["", "| held-out log predictive, paired over the masks | first higher | mean difference [95 % CI] | p "
              "| Holm p |", "| --- | --- | --- | --- | --- |"]
    for (a, b), (n, wins, mean, low, high, p), h in zip(pairs, tests, holm([t[5] for t in tests])):
        lines.append(f"| K = {a} − K = {b} | {wins}/{n} | {interval(mean, low, high, '+,.0f')} | {p_text(p)} | {p_text(h)} |")
    cells = {f["heldout_cells"] for f in fits}
    lines += ["", f"{', '.join(sorted(cells))} held-out cells per mask; each mask is one seed of `--holdout 0.1`, the "
              f"same for every K. Holm over the {len(ks)} values of K in the first table and over the {len(pairs)} "
              f"pairs in the second."]
    return minus("\n".join(lines))


def fit_lines(folders, dispersion):
    """One line per fit of docs/evidence/own-data-fit/FOLDER/: convergence, the total and the
    predictive checks. With `dispersion` (fits of today's default, negative binomial): convergence
    read on the marginal log-likelihood, the structure summary, the total and r, the dispersion
    column and the share of unreliable PSIS-LOO estimates; else (the papers' model, fitted
    before those were recorded) on the log joint and the total."""
    quantities = ("ln_lik", "structure", "total_rate", "dispersion") if dispersion else ("ln_joint", "total_rate")
    head = ("| fit | R̂ / bulk ESS: log-likelihood | structure | total rate | dispersion r |" if dispersion
            else "| fit | R̂ / bulk ESS: log joint | total rate |")
    head += (" verdict | fitted total rate [90 % interval] (from the release alone: the true total [90 %]) |"
             if dispersion else " verdict | fitted total [90 % interval] (released total) |")
    head += " r, median [90 %] | PSIS-LOO k̂ > 0.7 |" if dispersion else ""
    lines = [head + " checks flagged | seconds |", "|" + " --- |" * (len(quantities) + 5 + 2 * dispersion)]
    for folder in folders:
        fit = toml(f"own-data-fit/{folder}/fit.toml")
        diag = {r["quantity"]: r for r in rows("own-data-fit", f"{folder}/diagnostics.csv")}
        checks = rows("own-data-fit", f"{folder}/checks.csv")
        flagged = [r["statistic"] for r in checks if r["flag"]]
        cells = " | ".join(f"{float(diag[q]['rhat']):.2f} / {float(diag[q]['ess_bulk']):.0f}" for q in quantities)
        released = f" ({fit['released_total']:,.0f})" if "released_total" in fit else ""
        if "true_total_q05" in fit:
            released = (f" ({fit['true_total_from_release']:,.0f} [{fit['true_total_q05']:,.0f}, "
                        f"{fit['true_total_q95']:,.0f}])")
        # A non-private fit has no release, so no total check and no `fitted_total`: its interval only.
        fitted = f"{fit['fitted_total']:,.0f} " if "fitted_total" in fit else ""
        line = (f"| {folder} | {cells} | {fit['convergence']} | {fitted}"
                f"[{fit['total_rate_q05']:,.0f}, {fit['total_rate_q95']:,.0f}]{released} |")
        if dispersion:
            line += f" {fit['dispersion_q50']:.3f} [{fit['dispersion_q05']:.3f}, {fit['dispersion_q95']:.3f}] |"
            line += f" {100 * fit['loo_unreliable_share']:.1f} % of {fit['loo_cells']:,} cells |"
        # A non-private fit has no release to check (its checks.csv is empty).
        named = f"{': ' + ', '.join(f'`{s}`' for s in flagged) if flagged else ''}"
        line += f" {f'{len(flagged)} of {len(checks)}{named}' if checks else '—'} | {fit['seconds']:.1f} |"
        lines.append(line)
    return lines


def by_group(members):
    """The rows of a fit's partition.csv by group number, in group order."""
    groups = {}
    for m in sorted(members, key=lambda m: int(m["group"])):
        groups.setdefault(int(m["group"]), []).append(m)
    return groups


def group_lines(folder):
    """The label-invariant groups of a fit (partition.csv) with their co-clustering."""
    k = toml(f"own-data-fit/{folder}/fit.toml")["components"]
    members = rows("own-data-fit", f"{folder}/partition.csv")
    lines = [f"The {folder} fit's label-invariant groups (`partition.csv`: the kept sample with the least expected "
             f"Binder loss; co = an actor's co-clustering with the rest of its group over all kept samples, "
             f"1/K = {1 / k:.3f} for labels that mean nothing):", "",
             "| group | actors | mean co | the five with the highest co |", "| --- | ---: | ---: | --- |"]
    for g, mine in by_group(members).items():
        mine = sorted(mine, key=lambda m: -float(m["co_clustering"]))
        mean = statistics.mean(float(m["co_clustering"]) for m in mine)
        top = ", ".join(f"{m['row']} ({float(m['co_clustering']):.2f})" for m in mine[:5])
        lines.append(f"| {g} | {len(mine)} | {mean:.3f} | {top} |")
    every = [float(m["co_clustering"]) for m in members]
    return lines + ["", f"Co-clustering over all {len(members)} actors: median {statistics.median(every):.3f}, "
                    f"largest {max(every):.3f}."]


def chain_means(folder):
    """The chains' mean log joints and total rates, from the fit's summary.txt
    (`chain i: mean ln_joint X, mean total_rate Y, …`)."""
    with open(EVIDENCE / "own-data-fit" / folder / "summary.txt", encoding="utf-8") as f:
        found = re.findall(r"chain (\d+): mean ln_joint (-?\d+), mean total_rate (\d+)", f.read())
    if not found:
        raise ValueError(f"own-data-fit/{folder}/summary.txt: no 'chain i: mean ln_joint …' lines")
    return [(int(c), float(j), float(t)) for c, j, t in found]


def own_data_fit():
    """docs/own-data.md, section 3: the private and naïve fits of the tutorial with today's
    defaults (docs/evidence/own-data-fit/{private,naive}/): convergence, the total and the
    predictive checks, then the private fit's label-invariant groups with their co-clustering."""
    return "\n".join(fit_lines(("private", "naive"), True) + [""] + group_lines("private"))


def own_data_papers_fit():
    """docs/own-data.md, section 3: the same release fitted with the papers' model (`--prior flat
    --likelihood poisson --private-step augmented`), privately and naïvely, and the raw counts
    non-privately (docs/evidence/own-data-fit/papers-*/)."""
    folders = ("papers-private", "papers-naive", "papers-non-private")
    lines = fit_lines(folders, False) + ["", "| fit | chain: mean log joint, mean total rate |", "| --- | --- |"]
    for folder in folders:
        chains = "; ".join(f"{c}: {j:,.0f}, {t:,.0f}" for c, j, t in chain_means(folder))
        lines.append(f"| {folder} | {chains} |")
    return minus("\n".join(lines + [""] + group_lines("papers-private")))


def own_data_score():
    """docs/own-data.md, section 4: the papers'-model fits scored against the raw counts
    (`lppf score`, docs/evidence/own-data-fit/papers-*/score.toml)."""
    folders = ("papers-non-private", "papers-naive", "papers-private")
    scores = {f: toml(f"own-data-fit/{f}/score.toml") for f in folders}
    fits = {f: toml(f"own-data-fit/{f}/fit.toml") for f in folders}
    raw = scores[folders[0]]["raw_total"]
    lines = [f"| K = 8, seed 2 | fitted total rate (raw total {raw:,.0f}) | Poisson log-lik. of the raw counts | "
             "total check (gap in sd) | rate correlation with non-private | adjusted Rand with non-private |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for f in folders:
        s, gap = scores[f], fits[f].get("total_gap_sd")
        ref = s.get("reference")
        gap = "—" if gap is None else f"{gap:+.1f}"
        agreement = "— | —" if ref is None else f"{ref['rate_correlation']:.3f} | {ref['adjusted_rand']:.2f}"
        lines.append(f"| {f} | {s['fitted_total']:,.0f} | {s['log_likelihood']:,.0f} | {gap} | {agreement} |")
    lines += ["", "Fitted rate summed by the raw count of the cell:", "",
              "| raw count | cells | raw total | non-private | naïve | private |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for i, b in enumerate(scores[folders[0]]["bins"]):
        span = f"{b['lo']}" if b.get("hi") == b["lo"] else (f"{b['lo']}+" if "hi" not in b else f"{b['lo']}–{b['hi']}")
        fitted = " | ".join(f"{scores[f]['bins'][i]['fitted_total']:,.0f}" for f in folders)
        lines.append(f"| {span} | {b['cells']:,} | {b['raw_total']:,.0f} | {fitted} |")
    zero = {f: scores[f]["bins"][0]["fitted_total"] for f in folders}
    gap = scores["papers-private"]["log_likelihood"] - scores["papers-naive"]["log_likelihood"]
    lines += ["", f"The private fit's log-likelihood of the raw counts is {abs(gap):,.0f} "
              f"{'lower' if gap < 0 else 'higher'} than the naïve fit's; it keeps {100 * scores['papers-private']['total_ratio']:.0f} % of the raw "
              f"total, the naïve fit {100 * scores['papers-naive']['total_ratio']:.0f} %, which puts "
              f"{zero['papers-naive']:,.0f} of rate on the cells with no e-mail (non-private: {zero['papers-non-private']:,.0f})."]
    return minus("\n".join(lines))


def own_data_checks():
    """docs/own-data.md, section 4: the three exploratory checks of why the papers'-model private fit
    loses mass (docs/evidence/own-data-fit/papers-private-{8000,eps5,model}/), beside that fit."""
    checks = [("papers-private", "the fit above", "ε = 2", "raw counts"),
              ("papers-private-8000", "8,000 sweeps (burn-in 4,000, every 20th)", "ε = 2", "raw counts"),
              ("papers-private-eps5", "the raw counts released at ε = 5 (α = e⁻¹)", "ε = 5", "raw counts"),
              ("papers-private-model", "counts drawn from the non-private fit's mean rates", "ε = 2", "drawn counts")]
    lines = ["| check | release | R̂ log joint / total | chains' mean total rates | fitted total [90 %] | "
             "released total | true total | fitted / true | total check: (released − fitted) / sd |",
             "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: |"]
    for folder, label, release, truth in checks:
        fit, score = toml(f"own-data-fit/{folder}/fit.toml"), toml(f"own-data-fit/{folder}/score.toml")
        diag = {r["quantity"]: r for r in rows("own-data-fit", f"{folder}/diagnostics.csv")}
        totals = sorted(t for _, _, t in chain_means(folder))
        # (The folder's name keeps its hyphens: `minus` only for the numbers.)
        numbers = minus(f"{float(diag['ln_joint']['rhat']):.2f} / {float(diag['total_rate']['rhat']):.2f} | "
                        f"{totals[0]:,.0f}–{totals[-1]:,.0f} | {fit['fitted_total']:,.0f} "
                        f"[{fit['total_rate_q05']:,.0f}, {fit['total_rate_q95']:,.0f}] | {fit['released_total']:,.0f} | "
                        f"{score['raw_total']:,.0f} ({truth}) | {score['total_ratio']:.2f} | {fit['total_gap_sd']:+.1f}")
        lines.append(f"| {label} (`{folder}`) | {release} | {numbers} |")
    return "\n".join(lines)


def co_clustering_enron():
    """docs/model-checking.md, "Communities and their stability": the actors' mean co-clustering
    in the papers'-model (Poisson) private fit and the default (contaminated) one on the
    Enron release (docs/evidence/own-data-fit/{papers-private,private}/partition.csv)."""
    def summary(folder):
        members = rows("own-data-fit", f"{folder}/partition.csv")
        means = [(statistics.mean(float(m["co_clustering"]) for m in g), len(g)) for g in by_group(members).values()]
        best, size = max(means)
        return statistics.mean(float(m["co_clustering"]) for m in members), best, size

    poisson, default = summary("papers-private"), summary("private")
    k = toml("own-data-fit/private/fit.toml")["components"]
    return (f"On this release (K = {k}, seed 2; the private fits of docs/own-data.md, section 3, and docs/history/own-data.md): the papers'-model "
            f"(Poisson) fit's actors average co = {poisson[0]:.2f} (its most stable group, of {poisson[2]} actors, "
            f"{poisson[1]:.2f}); the default (contaminated) fit's average {default[0]:.2f} (most stable group "
            f"{default[1]:.2f}), against 1/K = {1 / k:.3f}.")
