"""Generated tables of docs/model-checking.md, "Planted designs": the candidate models on data
with known structure (docs/evidence/planted-designs/results.csv, written by
tools/planted/study.py)."""

import math

from docstats import binomial_test_p, interval, minus, p_text, paired_t
from sources import rows

RUN = "planted-designs"
CANDIDATES = ["papers", "hierarchical-poisson", "negative-binomial", "no-warm-up", "nb-prior", "nb-r1",
              "contaminated"]
# The candidate `lppf fit` runs with no model flags.
DEFAULT = "contaminated"
NB = "negative-binomial"
NOISES = ["poisson", "cell-nb", "row-level", "outliers"]
# The candidates fitted to more replications, to choose the default between them.
DEEPER = ["papers", NB, DEFAULT]


def _table():
    """{(candidate, shape, noise, alpha, replication): row} of the study's results."""
    return {(r["candidate"], r["shape"], r["noise"], r["alpha"], r["replication"]): r for r in rows(RUN, "results.csv")}


def _fitted_by_all(table, candidates):
    """The data sets (shape, noise, alpha, replication) every one of `candidates` was fitted to,
    and their number of replications."""
    sets = sorted(s for s in {k[1:] for k in table} if all((c, *s) in table for c in candidates))
    return sets, len({s[3] for s in sets})


def _noise_groups():
    """(name, keep) per kind of noise, then the overdispersed kinds together, then all."""
    groups = [(n, lambda s, n=n: s[1] == n) for n in NOISES]
    groups.append(("overdispersed (the other three)", lambda s: s[1] != "poisson"))
    groups.append(("all", lambda s: True))
    return groups


def _opening(sets, reps, by, means, differences, designs=24):
    """The sentence and the header of a table by noise: columns `data sets`, then `means`
    (right-aligned), then `differences`."""
    header = ["noise", "data sets", *means, *differences]
    align = ["---", "---:", *["---:"] * len(means), *["---"] * len(differences)]
    return [f"{len(sets)} data sets ({reps} replications of each of the {designs} designs), each fitted by {by}.", "",
            "| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]


def _wilson(k, n, z=1.959964):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def planted_summary():
    """Each candidate's mean adjusted Rand index (ARI) with the planted groups, paired differences
    from the papers' model and the default (the contaminated form) over the same data sets (mean
    [95 % t-interval]), and
    how often the 90 % interval of the total covers the true counts' total (95 % Wilson interval)."""
    table = _table()
    # The data sets every candidate was fitted to (later replications fit only DEEPER's three).
    sets = sorted(s for s in {k[1:] for k in table} if all((c, *s) in table for c in CANDIDATES))
    present = CANDIDATES
    ari = {c: [float(table[(c, *s)]["ari"]) for s in sets] for c in present}
    lines = [f"{len(sets)} data sets, each fitted by every candidate.", "",
             "| candidate | mean ARI | ARI − papers' model | ARI − contaminated (the default) | "
             "total inside the 90 % interval |",
             "| --- | --- | --- | --- | --- |"]
    for c in present:
        cells = [f"{sum(ari[c]) / len(sets):.3f}"]
        for other in ("papers", DEFAULT):
            if c == other or other not in ari:
                cells.append("—")
            else:
                _, _, mean, low, high, _ = paired_t(ari[c], ari[other])
                cells.append(interval(mean, low, high, "+.3f"))
        k = sum(int(table[(c, *s)]["total_covered"]) for s in sets)
        low, high = _wilson(k, len(sets))
        cells.append(f"{k}/{len(sets)} ({low:.2f}–{high:.2f})")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    lines += ["", "| noise | " + " | ".join(present) + " |", "| --- |" + " --- |" * len(present)]
    for noise in NOISES:
        mine = [i for i, s in enumerate(sets) if s[1] == noise]
        if not mine:
            continue
        means = [sum(ari[c][i] for i in mine) / len(mine) for c in present]
        covered = [sum(int(table[(c, *sets[i])]["total_covered"]) for i in mine) for c in present]
        lines.append(f"| {noise}: ARI (total covered of {len(mine)}) | "
                     + " | ".join(f"{m:.2f} ({k})" for m, k in zip(means, covered)) + " |")
    return minus("\n".join(lines))


def planted_deeper():
    """The three candidates fitted to every replication: mean ARI and KL per noise, and the paired
    differences (mean [95 % t-interval]) of the contaminated likelihood from the negative binomial
    and from the papers' model, per noise and over the overdispersed kinds together."""
    table = _table()
    sets, reps = _fitted_by_all(table, DEEPER)

    def values(c, field, keep):
        return [float(table[(c, *s)][field]) for s in sets if keep(s)]

    groups = _noise_groups()
    lines = _opening(sets, reps, "the three", ["ARI: papers", "negative binomial", "contaminated"],
                     ["contaminated − NB", "contaminated − papers", "NB − papers"])
    for name, keep in groups:
        ari = {c: values(c, "ari", keep) for c in DEEPER}
        n = len(ari["papers"])
        cells = [f"{sum(ari[c]) / n:.3f}" for c in DEEPER]
        for a, b in ((DEFAULT, NB), (DEFAULT, "papers"), (NB, "papers")):
            _, _, mean, low, high, _ = paired_t(ari[a], ari[b])
            cells.append(interval(mean, low, high, "+.3f"))
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    lines += ["", "| noise | KL: papers | negative binomial | contaminated | contaminated − NB |",
              "| --- | ---: | ---: | ---: | --- |"]
    for name, keep in groups:
        kl = {c: values(c, "kl", keep) for c in DEEPER}
        n = len(kl["papers"])
        _, _, mean, low, high, _ = paired_t(kl[DEFAULT], kl[NB])
        lines.append(f"| {name} | " + " | ".join(f"{sum(kl[c]) / n:.3f}" for c in DEEPER)
                     + f" | {interval(mean, low, high, '+.3f')} |")
    return minus("\n".join(lines))


def planted_current():
    """The papers' model and the default re-fitted with the current code (each row's group by its
    expected count; docs/evidence/planted-designs-current/results.csv): mean ARI per noise, the
    default's paired difference (mean [95 % t-interval]), and how often each Σμ interval holds the
    true total."""
    table = {(r["candidate"], r["shape"], r["noise"], r["alpha"], r["replication"]): r
             for r in rows("planted-designs-current", "results.csv")}
    pair = ["papers", DEFAULT]
    sets, reps = _fitted_by_all(table, pair)
    lines = _opening(sets, reps, "both", ["ARI: papers", "contaminated"],
                     ["contaminated − papers"])
    lines[2] += " Σμ holds the true total: papers | contaminated |"
    lines[3] += " ---: | ---: |"
    for name, keep in _noise_groups():
        mine = [s for s in sets if keep(s)]
        ari = {c: [float(table[(c, *s)]["ari"]) for s in mine] for c in pair}
        _, _, mean, low, high, _ = paired_t(ari[DEFAULT], ari["papers"])
        covered = [sum(int(table[(c, *s)]["total_covered"]) for s in mine) for c in pair]
        lines.append(f"| {name} | {len(mine)} | " + " | ".join(f"{sum(ari[c]) / len(mine):.3f}" for c in pair)
                     + f" | {interval(mean, low, high, '+.3f')} | "
                     + " | ".join(f"{k}/{len(mine)}" for k in covered) + " |")
    return minus("\n".join(lines))


def planted_move():
    """The block model's Hamiltonian move on the planted networks (docs/evidence/planted-move/,
    tools/planted/study.py --shapes network, one binary for all three candidates): mean ARI per
    noise of the papers' model, the default and the default with the move, the move's paired
    differences (mean [95 % t-interval]), and how often each Σμ interval of the default and the
    move holds the true total."""
    table = {(r["candidate"], r["shape"], r["noise"], r["alpha"], r["replication"]): r
             for r in rows("planted-move", "results.csv")}
    three = ["papers", DEFAULT, "hamiltonian-move"]
    sets, reps = _fitted_by_all(table, three)
    lines = _opening(sets, reps, "all three", ["ARI: papers", "default", "default + move"],
                     ["move − default", "move − papers"], designs=12)
    lines[2] += " Σμ holds the true total: default | move |"
    lines[3] += " ---: | ---: |"
    for name, keep in _noise_groups():
        mine = [s for s in sets if keep(s)]
        ari = {c: [float(table[(c, *s)]["ari"]) for s in mine] for c in three}
        differences = []
        for other in (DEFAULT, "papers"):
            _, _, mean, low, high, _ = paired_t(ari["hamiltonian-move"], ari[other])
            differences.append(interval(mean, low, high, "+.3f"))
        covered = [sum(int(table[(c, *s)]["total_covered"]) for s in mine) for c in three[1:]]
        lines.append(f"| {name} | {len(mine)} | " + " | ".join(f"{sum(ari[c]) / len(mine):.3f}" for c in three)
                     + " | " + " | ".join(differences) + " | "
                     + " | ".join(f"{k}/{len(mine)}" for k in covered) + " |")
    return minus("\n".join(lines))


def planted_enron_size(run=RUN):
    """The Enron-sized network with eight planted communities (docs/evidence/RUN/enron-size.csv):
    each candidate's ARI, total and whether its interval holds the true total."""
    fits = rows(run, "enron-size.csv")
    lines = ["Enron-sized network (120 actors, 8 planted communities of 15, `B` 12 within and 1.2 between, "
             "cell-nb noise, α = 0.5, one data set, `tools/planted/study.py --shapes network-large`):", "",
             "| candidate | ARI | total error | true total inside the 90 % interval | chains |",
             "| --- | --- | --- | --- | --- |"]
    for r in fits:
        lines.append(f"| {r['candidate']} | {float(r['ari']):.2f} | {100 * float(r['total_error']):+.0f} % | "
                     f"{'yes' if r['total_covered'] == '1' else 'no'} | {r['convergence']} |")
    return minus("\n".join(lines))


def planted_enron_size_current():
    """[`planted_enron_size`] of the papers' model and the default re-fitted with the current code."""
    return planted_enron_size("planted-designs-current")


def release_total():
    """How often the release's own 90 % interval for the true total holds it
    (docs/evidence/release-total/results.csv, tools/planted/release_total.py), by noise and α over
    both shapes (95 % Wilson intervals), and on the study's data sets beside the three models'
    intervals of Σμ and the negative binomial's of Σy."""
    release = {(r["shape"], r["noise"], r["alpha"], r["replication"]): int(r["covered"])
               for r in rows("release-total", "results.csv")}
    alphas = sorted({k[2] for k in release}, key=float)
    reps = len({k[3] for k in release})
    lines = [f"{len(release)} releases: {reps} replications of each design (both shapes).", "",
             "| noise | " + " | ".join(f"α = {a}" for a in alphas) + " | all |",
             "| --- |" + " --- |" * (len(alphas) + 1)]

    def cell(keys):
        k, n = sum(release[x] for x in keys), len(keys)
        low, high = _wilson(k, n)
        return f"{k}/{n} ({low:.2f}–{high:.2f})"

    for noise in NOISES:
        keys = [x for x in release if x[1] == noise]
        lines.append(f"| {noise} | " + " | ".join(cell([x for x in keys if x[2] == a]) for a in alphas)
                     + f" | {cell(keys)} |")
    lines.append("| all | " + " | ".join(cell([x for x in release if x[2] == a]) for a in alphas)
                 + f" | {cell(list(release))} |")
    table = _table()
    sets = sorted(s for s in {k[1:] for k in table} if all((c, *s) in table for c in DEEPER))
    paired = [s for s in sets if s in release]
    realized = {(r["shape"], r["noise"], r["alpha"], r["replication"]): r
                for r in rows(RUN, "realized-total.csv") if r["candidate"] == NB}
    lines += ["", f"On the study's {len(paired)} data sets (the same releases):", "",
              "| interval of the total | holds the true total |", "| --- | --- |",
              f"| the release alone | {cell(paired)} |"]
    discordant = []
    for c in (DEFAULT, NB, "papers"):
        covered = {s: int(table[(c, *s)]["total_covered"]) for s in paired}
        k = sum(covered.values())
        low, high = _wilson(k, len(paired))
        lines.append(f"| {c}: Σμ | {k}/{len(paired)} ({low:.2f}–{high:.2f}) |")
        only_release = sum(release[s] and not covered[s] for s in paired)
        only_model = sum(covered[s] and not release[s] for s in paired)
        p = binomial_test_p(only_release, only_release + only_model, 0.5)
        shown = p_text(p)
        discordant.append(f"{c} {only_release} against {only_model} (p {shown if shown.startswith('<') else '= ' + shown})")
    lines += ["", "Paired over the same releases (exact sign test on the data sets where exactly one interval "
              "holds the true total; the release's alone first): " + "; ".join(discordant) + "."]
    both = [s for s in realized if s in release]
    k, n = sum(int(realized[s]["count_covered"]) for s in both), len(both)
    low, high = _wilson(k, n)
    lines += ["", f"On the {n} data sets of the first replication (realized-total.csv):", "",
              "| interval of the total | holds the true total |", "| --- | --- |",
              f"| the release alone | {cell(both)} |",
              f"| negative binomial: Σy given the release | {k}/{n} ({low:.2f}–{high:.2f}) |"]
    return minus("\n".join(lines))


def cavi_start_planted():
    """docs/inference.md, "Where the chains start": the default model started from CAVI against
    from the prior, private fits at alpha 0.5 of the same planted releases (3 per shape and noise;
    docs/evidence/cavi-start-planted/): paired differences (CAVI start − prior start, mean [95 %
    t-interval]) of the adjusted Rand index and the per-cell KL, the fits whose verdict is `mixed`,
    and the mean seconds."""
    fits = {(r["candidate"], r["shape"], r["noise"], r["replication"]): r for r in rows("cavi-start-planted",
                                                                                      "results.csv")}
    sets = sorted({k[1:] for k in fits})
    pairs = [(fits["cavi-start", *s], fits[DEFAULT, *s]) for s in sets]
    lines = ["| data | pairs | ARI, CAVI start − prior start | KL, CAVI start − prior start | mixed (CAVI / prior) | "
             "seconds (CAVI / prior) |", "| --- | ---: | --- | --- | --- | --- |"]
    groups = [(f"{shape}, {noise}", [p for s, p in zip(sets, pairs) if s[:2] == (shape, noise)])
              for shape, noise in sorted({s[:2] for s in sets})] + [("all", pairs)]
    for label, mine in groups:
        cells = []
        for column, spec in (("ari", "+.2f"), ("kl", "+.3f")):
            first, second = [float(a[column]) for a, _ in mine], [float(b[column]) for _, b in mine]
            differences = {x - y for x, y in zip(first, second)}
            if len(differences) == 1:
                cells.append(f"{differences.pop():{spec}} in every pair")
            else:
                _, _, mean, low, high, _ = paired_t(first, second)
                cells.append(interval(mean, low, high, spec))
        mixed = [sum(r["convergence"] == "mixed" for r in side) for side in zip(*mine)]
        seconds = [sum(float(r["seconds"]) for r in side) / len(mine) for side in zip(*mine)]
        lines.append(f"| {label} | {len(mine)} | {cells[0]} | {cells[1]} | {mixed[0]} / {mixed[1]} | "
                     f"{seconds[0]:.0f} / {seconds[1]:.0f} |")
    return minus("\n".join(lines))
