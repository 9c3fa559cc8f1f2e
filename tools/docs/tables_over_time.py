"""Generated tables of docs/counts-over-time.md: K chosen by held-out score, the worked example's
fits scored against the raw counts (docs/evidence/counts-over-time/), and the tensor sweep
private against naïve (docs/evidence/tensor-enron/)."""

import statistics

from docstats import binomial_test_p, interval, minus, p_text, paired_t
from sources import EVIDENCE, rows, toml

RUN = "counts-over-time"
CANDIDATES = (4, 8, 16, 24)


def over_time_k():
    """Section 2: the held-out log predictive of every candidate K, on the release (private) and on
    the raw counts (non-private), with the chains' spread; the best of each is the K used."""
    lines = ["| K | release: held-out log predictive per cell (chains' range) | raw counts: held-out log predictive per "
             "cell (chains' range) |", "| ---: | ---: | ---: |"]
    best = {}
    for k in CANDIDATES:
        cells = []
        for data in ("private", "non-private"):
            fit = toml(f"{RUN}/heldout-{data}-{k}/fit.toml")
            n = fit["heldout_cells"]
            per_chain = [x / n for x in fit["heldout_log_predictive_per_chain"]]
            score = fit["heldout_log_predictive"] / n
            if data not in best or score > best[data][1]:
                best[data] = (k, score)
            cells.append(f"{score:.4f} ({min(per_chain):.4f} to {max(per_chain):.4f})")
        lines.append(f"| {k} | {cells[0]} | {cells[1]} |")
    release, raw = best["private"][0], best["non-private"][0]
    fit = toml(f"{RUN}/heldout-private-{release}/fit.toml")
    lines += ["", f"The best on the release is **K = {release}**, on the raw counts **K = {raw}** "
              f"({fit['heldout_cells']:,} cells held out, one mask, seed 1; the pooled score averages the chains' "
              "predictive densities, so it is above each chain's)."]
    return minus("\n".join(lines))


def over_time_example():
    """Section 3: the private and naïve fits of the release and the non-private fit of the raw
    counts, scored against the raw counts (`lppf score`), with their convergence."""
    fits = ("private", "naive", "non-private")
    raw = toml(f"{RUN}/non-private/score.toml")["raw_total"]
    lines = [f"| fit | K | fitted total (raw {raw:,.0f}) | Poisson log-lik. of the raw counts per cell | "
             "R̂ of ln_lik | convergence | chains' groups (by log-likelihood and partition) |", "| --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for f in fits:
        s, fit = toml(f"{RUN}/{f}/score.toml"), toml(f"{RUN}/{f}/fit.toml")
        rhat = next(float(r["rhat"]) for r in rows(f"{RUN}/{f}", "diagnostics.csv") if r["quantity"] == "ln_lik")
        modes = " ".join("{" + ", ".join(map(str, m)) + "}" for m in fit.get("modes", []))
        lines.append(f"| {f} | {fit['components']} | {s['fitted_total']:,.0f} ({100 * s['total_ratio']:.0f} %) | "
                     f"{s['log_likelihood_per_cell']:.4f} | {rhat:.2f} | {fit['convergence']} | {modes or '—'} |")
    private, naive = (toml(f"{RUN}/{f}/score.toml") for f in ("private", "naive"))
    fit = toml(f"{RUN}/private/fit.toml")
    (lo, hi), (t_lo, t_hi) = (fit["total_count_q05"], fit["total_count_q95"]), (fit["true_total_q05"], fit["true_total_q95"])
    where = "lies inside" if t_lo <= lo and hi <= t_hi else ("overlaps" if lo <= t_hi and t_lo <= hi else "lies outside")
    lines += ["", f"The private fit describes the raw counts better than the naïve fit of the same release "
              f"({private['log_likelihood_per_cell']:.4f} against {naive['log_likelihood_per_cell']:.4f} per cell; one "
              f"release, so an example, not a comparison: section 4 has the paired one). Its total count, 90 % interval "
              f"[{lo:,.0f}, {hi:,.0f}], {where} the interval the release alone gives for the true total "
              f"([{t_lo:,.0f}, {t_hi:,.0f}]); the naïve fit's total is {total_words(naive)} the raw total."]
    verdict = toml(f"{RUN}/heldout-private-{fit['components']}/fit.toml")
    lines += ["", f"**The verdict.** The test of the release finds structure beyond row activity × column popularity "
              f"(T = {fit['structure_test_statistic']:,.0f}, p = {fit['structure_test_p']} with "
              f"{fit['structure_test_replicates']} tables, its smallest possible p), and the held-out private fit of "
              f"section 2 at the same K predicts its {verdict['heldout_cells']:,} held-out cells better than the "
              f"independence model of the grid by {verdict['structure_difference']:,.0f} ± "
              f"{verdict['structure_difference_se']:,.0f} nats (se; each fit's `summary.txt` states its verdict)."]
    return minus("\n".join(lines))


def total_words(score):
    """A fitted total against the raw one, in words."""
    ratio = score["total_ratio"]
    return f"{ratio:.1f} times" if ratio >= 1.5 else f"{100 * ratio:.0f} % of"


def tensor_sweep():
    """Section 4: private against naïve in the tensor sweep, per α (the sweep's own paired
    statistics) and over every (data set, α) pair."""
    summary = rows("tensor-enron", "summary.csv")
    kl = {(r["level"], r["method"]): r for r in summary}
    lines = ["| α | naïve KL (sd) | private KL (sd) | Δ private − naïve [95 % CI] | private wins |",
             "| --- | --- | --- | --- | --- |"]
    for r in summary:
        if r["method"] != "private" or r["paired_vs"] != "naive":
            continue
        naive = kl[(r["level"], "naive")]
        d, lo, hi = (float(r[k]) for k in ("paired_kl_difference", "paired_kl_difference_low", "paired_kl_difference_high"))
        lines.append(f"| {r['level']} | {float(naive['mean_kl']):.3f} ({float(naive['sd_kl']):.3f}) | "
                     f"{float(r['mean_kl']):.3f} ({float(r['sd_kl']):.3f}) | {interval(d, lo, hi, '.3f')} | "
                     f"{r['paired_wins']}/{r['paired_n']} |")
    fits = rows("tensor-enron", "fits.csv")
    by = {(r["replication"], r["level"], r["method"]): float(r["mean_kl"]) for r in fits}
    pairs = [(by[(rep, lvl, "naive")], by[(rep, lvl, "private")])
             for (rep, lvl, m) in by if m == "private" and (rep, lvl, "naive") in by]
    diffs = [p - n for n, p in pairs]
    wins = sum(d < 0 for d in diffs)
    n, _, mean, low, high, p_t = paired_t([p for _, p in pairs], [n for n, _ in pairs])
    ratio = statistics.geometric_mean([p / n for n, p in pairs])
    flagged = sum(r["flagged"] == "true" for r in fits)
    reference = next(r for r in summary if r["method"] == "non-private")
    lines += ["", f"Over all {len(pairs)} (data set, α) pairs the private fit is closer to the true rates in "
              f"**{wins} of {len(pairs)}** (sign test p = {p_text(binomial_test_p(wins, len(pairs), 0.5))}); the mean "
              f"difference private − naïve is {interval(mean, low, high, '.3f')} (paired t, p = {p_text(p_t)}); its KL is {ratio:.2f}× the naïve one (geometric mean of the "
              f"ratios); the non-private fits of the same data sets reach {float(reference['mean_kl']):.3f} "
              f"(sd {float(reference['sd_kl']):.3f}). {flagged} of {len(fits)} fits are flagged as not mixed (two chains "
              "of 1,000 sweeps)."]
    return minus("\n".join(lines))


def over_time_components():
    """Section 3: the private fit's three largest components as its summary.txt names them (top
    senders, the first five recipients, peak months), and the checks it flags."""
    text = (EVIDENCE / RUN / "private" / "summary.txt").read_text()
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("components (from"))
    out = ["| share | top senders (θ) | top recipients (φ) | peak months (ψ) |", "| ---: | --- | --- | --- |"]
    for line in lines[start + 1:start + 4]:
        share = line.split("(component ")[1].split(", ")[1].split(")")[0]
        rows_part, cols_part, times_part = line.split("): rows ")[1].split("  — ")
        cols = ", ".join(cols_part.removeprefix("columns ").split(", ")[:5])
        out.append(f"| {share} | {rows_part} | {cols}, … | {times_part.removeprefix('peak times ')} |")
    flagged = [line.split("check ")[1].split(":")[0] for line in lines
               if line.strip().startswith("WARNING posterior predictive check")]
    out += ["", f"Its posterior predictive checks flag {len(flagged)} of 9 statistics ({', '.join(flagged)})."]
    return "\n".join(out)
