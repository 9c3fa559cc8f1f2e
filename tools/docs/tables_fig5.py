"""Generated blocks of docs/fig5.md: the base topics (from data/enron/topics-base.toml) and the
run with 10 data sets per cell and the e₀ = 50 check with longer chains (docs/evidence/)."""

import statistics

from docstats import holm, mean_sd, minus, p_text, row_interval
from sources import rows, topics_base

RUN = "fig5-enron-topics-10"


def fig5_base():
    """The base's size and its topics: each topic's share of the expected tokens
    (Σ_d θ*_dk · Σ_v φ*_kv over the total) and its ten words with the largest φ*_kv."""
    b = topics_base()
    theta, phi, words, prov = b["theta"], b["phi"], b["col_labels"], b["provenance"]
    shares = [sum(row[k] for row in theta) * sum(phi[k]) for k in range(len(phi))]
    total = sum(shares)
    lines = [f"The base has **D = {len(theta):,} documents and V = {len(words):,} words**, K = {len(phi)} topics "
             f"(CAVI: {prov['cavi_iterations']} iterations, {prov['fit_topics']} topics fitted to "
             f"{prov['documents']:,} documents and {prov['tokens_fitted']:,} tokens).", "",
             "| topic | share % | top words |", "| ---: | ---: | --- |"]
    for k, (row, share) in enumerate(zip(phi, shares)):
        top = sorted(range(len(words)), key=lambda v: -row[v])[:10]
        lines.append(f"| {k} | {100 * share / total:.1f} | {' '.join(words[v] for v in top)} |")
    return "\n".join(lines)


def fig5_table():
    """Private against naïve in every cell, for the mean KL of μ̂ and the topics' L1 distance
    (`topic_error` × V), each family of 15 cells Holm-adjusted."""
    words = len(topics_base()["col_labels"])
    fits = rows(RUN, "fits.csv")
    paired = {(r["e0"], r["level"], r["metric"]): r for r in rows(RUN, "paired.csv")
              if r["method"] == "private" and r["versus"] == "naive"}
    cells = list(dict.fromkeys((f["e0"], f["level"]) for f in fits if f["level"]))
    adjusted = {m: dict(zip(cells, holm([float(paired[(e, lv, m)]["p"]) for e, lv in cells])))
                for m in ("mean_kl", "topic_error")}

    def values(e0, level, method, metric, scale=1.0):
        return [scale * float(f[metric]) for f in fits if f["e0"] == e0 and f["level"] == level and f["method"] == method]

    def mean(e0, level, method, metric):
        m, sd = mean_sd(values(e0, level, method, metric))
        return f"{m:.3f} ({sd:.3f})"

    lines = ["| e₀ | α | non-private KL (sd) | naïve KL (sd) | private KL (sd) | private − naïve [95 % CI] | private lower "
             "| Holm p | topic L1: non-private / naïve / private | L1, private − naïve [95 % CI] | private lower | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    counts = {m: [0, 0] for m in adjusted}
    for e0, lv in cells:
        kl, l1 = paired[(e0, lv, "mean_kl")], paired[(e0, lv, "topic_error")]
        for metric, r in (("mean_kl", kl), ("topic_error", l1)):
            significant = adjusted[metric][(e0, lv)] < 0.05
            counts[metric][0] += significant and float(r["mean"]) < 0
            counts[metric][1] += significant and float(r["mean"]) > 0
        l1_means = " / ".join(f"{mean_sd(values(e0, level, method, 'topic_error', words))[0]:.2f}"
                              for level, method in (("", "non-private"), (lv, "naive"), (lv, "private")))
        l1_diff = row_interval(l1, "+.3f", words)
        lines.append(f"| {e0} | {lv} | {mean(e0, '', 'non-private', 'mean_kl')} | {mean(e0, lv, 'naive', 'mean_kl')} | "
                     f"{mean(e0, lv, 'private', 'mean_kl')} | {row_interval(kl, '+.3f')} | {kl['wins']}/{kl['n']} | "
                     f"{p_text(adjusted['mean_kl'][(e0, lv)])} | {l1_means} | {l1_diff} | {l1['wins']}/{l1['n']} | "
                     f"{p_text(adjusted['topic_error'][(e0, lv)])} |")
    n = len([f for f in fits if f["method"] == "non-private"]) // len({e for e, _ in cells})
    flagged = sum(f["flagged"] == "true" for f in fits)
    (kl_lower, kl_higher), (l1_lower, l1_higher) = counts["mean_kl"], counts["topic_error"]
    lines += ["", f"{n} data sets per cell, one chain per fit; Holm over the {len(cells)} cells of each metric. "
              f"At Holm-adjusted p < 0.05 the private KL is lower than the naïve one in **{kl_lower} of {len(cells)}** "
              f"cells and higher in {kl_higher}; the private topics are closer to the truth in **{l1_lower}** and "
              f"further in {l1_higher}. The R̂/ESS rule flags {flagged} of {len(fits)} fits."]
    return minus("\n".join(lines))


E50 = "fig5-enron-topics-e50"


def e50_private_vs_naive():
    """The e₀ = 50 check's paired private − naïve rows (`paired.csv`) by (level, metric), its
    levels in increasing order, and each metric's p-values Holm-adjusted over the levels."""
    paired = {(r["level"], r["metric"]): r for r in rows(E50, "paired.csv")
              if r["method"] == "private" and r["versus"] == "naive"}
    levels = sorted({lv for lv, _ in paired}, key=float)
    adjusted = {m: dict(zip(levels, holm([float(paired[(lv, m)]["p"]) for lv in levels])))
                for m in ("mean_kl", "topic_error")}
    return levels, paired, adjusted


def fig5_e50():
    """The e₀ = 50 check with 1,000 iterations (docs/evidence/fig5-enron-topics-e50/): per data set,
    the KL of μ̂ and (in brackets) the topics' L1 distance of every fit, then private − naïve
    paired over the data sets at each α."""
    words = len(topics_base()["col_labels"])
    fits = rows(E50, "fits.csv")
    levels = list(dict.fromkeys(f["level"] for f in fits if f["level"]))
    columns = [("", "non-private")] + [(lv, m) for lv in levels for m in ("naive", "private")]
    names = {"naive": "naïve", "private": "private", "non-private": "non-private"}
    lines = ["| data set | " + " | ".join(names[m] + (f", α = {lv}" if lv else "") for lv, m in columns) + " |",
             "| --- | " + " | ".join("---" for _ in columns) + " |"]
    replications = sorted({int(f["replication"]) for f in fits})

    def fit(rep, level, method):
        return next(f for f in fits if int(f["replication"]) == rep and f["level"] == level and f["method"] == method)

    for rep in replications:
        cells = [fit(rep, lv, m) for lv, m in columns]
        lines.append(f"| {rep} | " + " | ".join(f"{float(c['mean_kl']):.3f} ({words * float(c['topic_error']):.2f})"
                                                   for c in cells) + " |")
    means = [statistics.mean(float(fit(r, lv, m)["mean_kl"]) for r in replications) for lv, m in columns]
    lines.append("| mean | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    # `wins` counts the data sets where the first method's value is the lower.
    paired_levels, paired, adjusted = e50_private_vs_naive()
    reference = sorted(float(fit(r, "", "non-private")["mean_kl"]) for r in replications)
    lines += ["", f"{len(replications)} data sets, one chain per fit. The non-private reference's KL runs from "
              f"{reference[0]:.2f} to {reference[-1]:.2f} (median {statistics.median(reference):.2f}); "
              f"on {sum(k > 0.3 for k in reference)} of {len(reference)} data sets it is above 0.3."]
    for metric, what, scale, closer in (("mean_kl", "KL of μ̂", 1.0, "lower"),
                                        ("topic_error", "topics' L1 distance", words, "closer to the truth")):
        parts = []
        for lv in paired_levels:
            r = paired[(lv, metric)]
            parts.append(f"α = {lv}, {row_interval(r, '+.2f', scale)}, private {closer} on {r['wins']}/{r['n']}, "
                         f"p = {p_text(float(r['p']))} (Holm {p_text(adjusted[metric][lv])})")
        lines += ["", f"Paired private − naïve over the data sets ({what}; Holm over the {len(paired_levels)} levels): "
                  + "; ".join(parts) + "."]
    return minus("\n".join(lines))


def fig5_e50_paper():
    """docs/fig5.md, "Compared with the paper": the e₀ = 50 check against the paper's "private
    better than naïve, most at high noise", per level: the paired KL difference with its Holm p
    (over the levels) and, where they differ, the topics' L1 difference."""
    words = len(topics_base()["col_labels"])
    levels, paired, adjusted = e50_private_vs_naive()

    def verdict(metric, lv):
        r, p = paired[(lv, metric)], adjusted[metric][lv]
        if p >= 0.05:
            return "no significant difference"
        return "private better" if float(r["mean"]) < 0 else "**private worse**"

    parts = []
    for lv in levels:
        kl, l1 = paired[(lv, "mean_kl")], paired[(lv, "topic_error")]
        l1_diff = row_interval(l1, "+.2f", words)
        parts.append(f"at α = {lv}, {verdict('mean_kl', lv)} in KL ({row_interval(kl, '+.2f')}, private lower on "
                     f"{kl['wins']}/{kl['n']}, Holm p = {p_text(adjusted['mean_kl'][lv])}) and "
                     f"{verdict('topic_error', lv)} in the topics' L1 ({l1_diff}, closer on {l1['wins']}/{l1['n']}, "
                     f"Holm p = {p_text(adjusted['topic_error'][lv])})")
    n = paired[(levels[0], "mean_kl")]["n"]
    return minus(f"- *The same at e₀ = 50 with 1,000 iterations* ({n} data sets, one chain per fit, Holm over the "
                 f"{len(levels)} levels of each metric): " + "; ".join(parts) + ".")
