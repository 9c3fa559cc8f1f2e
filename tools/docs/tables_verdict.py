"""Generated table of docs/model-checking.md, "How often the verdict is right": the "no structure"
verdict on networks with none and with planted communities (docs/evidence/verdict-error-rates/
results.csv, written by tools/planted/verdict.py)."""

from docstats import binomial_bounds, binomial_test_p, minus, p_text

# lppf's rule (analysis::Verdict::structure): Δ > 2 se and Δ > 4 nats.
SES, MIN_NATS = 2.0, 4.0


def _says(difference, se, min_nats=MIN_NATS):
    return float(difference) > max(SES * float(se), min_nats)
from sources import rows

RUN = "verdict-error-rates"
STRENGTHS = ["null", "weak", "strong"]
NOISES = ["poisson", "cell-nb"]


def _rate(k, n, null):
    """"k/n (bound)": under the null the false-positive rate with its one-sided 95 % upper bound,
    else the power with its one-sided 95 % lower bound."""
    low, high = binomial_bounds(k, n)
    return f"{k}/{n} (≤ {100 * high:.1f} %)" if null else f"{k}/{n} (≥ {100 * low:.0f} %)"


def _header(*columns):
    """The first two lines of a markdown table with these columns."""
    return ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]


def _by_data_set(run=RUN):
    """The rows of `run`'s results.csv (the negative binomial's by default) by (strength, noise,
    alpha, replication)."""
    return {(r["strength"], r["noise"], r["alpha"], r["replication"]): r for r in rows(run, "results.csv")}


def _designs(table):
    """(strength, noise, alpha, its rows) of every design in `table`, in the tables' order."""
    for strength in STRENGTHS:
        for noise in NOISES:
            for alpha in sorted({r["alpha"] for r in table}, key=float):
                mine = [r for r in table if (r["strength"], r["noise"], r["alpha"]) == (strength, noise, alpha)]
                if mine:
                    yield strength, noise, alpha, mine


def verdict_error_rates():
    """Per design: how often each rule says structure, with its bound, and the mean of Δ/se over
    the data sets (near 0 under the null for an unbiased comparison); the oracle beside it. The
    rules are applied to the recorded Δ and se, so the fits do not depend on the rule."""
    table = rows(RUN, "results.csv")
    lines = _header("design", "α", "data sets", "the verdict: Δ > 2 se and > 4 nats", "Δ > 2 se alone", "mean Δ/se",
                    "with the PSIS-LOO cells: Δ > 2 se", "mean Δ/se", "oracle (true rates; the verdict's rule)")
    for strength, noise, alpha, mine in _designs(table):
        n, null = len(mine), strength == "null"
        verdict = sum(_says(r["difference"], r["se"]) for r in mine)
        ses = sum(_says(r["difference"], r["se"], 0.0) for r in mine)
        pooled = sum(_says(r["with_loo_difference"], r["with_loo_se"], 0.0) for r in mine)
        oracle = sum(_says(r["oracle_difference"], r["oracle_se"]) for r in mine)
        z = [sum(float(r[d]) / float(r[e]) for r in mine) / n
             for d, e in (("difference", "se"), ("with_loo_difference", "with_loo_se"))]
        lines.append(f"| {strength}, {noise} | {alpha} | {n} | {_rate(verdict, n, null)} | {_rate(ses, n, null)} | "
                     f"{z[0]:+.2f} | {_rate(pooled, n, null)} | {z[1]:+.2f} | "
                     f"{'—' if null else _rate(oracle, n, False)} |")
    return minus("\n".join(lines))


def verdict_contaminated():
    """The verdict of fits with the contaminated likelihood (docs/evidence/verdict-contaminated,
    `verdict.py --likelihood contaminated`) beside the negative binomial's on the same data sets,
    releases and seeds."""
    return _verdict_beside("verdict-contaminated", "contaminated (the default's likelihood)", RUN,
                           "negative binomial")


def verdict_move():
    """The verdict of the default's fits with the Hamiltonian move (docs/evidence/verdict-move,
    `verdict.py --likelihood contaminated --move`) beside the sweep alone's on the same data sets,
    releases and seeds."""
    return _verdict_beside("verdict-move", "the default (with the move)", "verdict-contaminated", "the sweep alone")


def _verdict_beside(run, label, other_run, other_label):
    """The verdict of `run`'s fits beside `other_run`'s on the same data sets: per design, how
    often each says structure, with its bound, and the mean of Δ/se."""
    other = _by_data_set(other_run)
    table = rows(run, "results.csv")
    lines = _header("design", "α", "data sets", f"{label}: the verdict", "mean Δ/se",
                    f"{other_label}, the same data sets", "mean Δ/se")
    for strength, noise, alpha, mine in _designs(table):
        theirs = [other[(strength, noise, alpha, r["replication"])] for r in mine]
        n, null = len(mine), strength == "null"
        cells = []
        for group in (mine, theirs):
            k = sum(_says(r["difference"], r["se"]) for r in group)
            z = sum(float(r["difference"]) / float(r["se"]) for r in group) / n
            cells += [_rate(k, n, null), f"{z:+.2f}"]
        lines.append(f"| {strength}, {noise} | {alpha} | {n} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def verdict_oracles():
    """The oracle's bounds on overdispersed networks (docs/evidence/verdict-error-rates/
    oracles.csv, tools/planted/oracles.py) beside the verdict of the default fit on the same data
    sets: how often each says structure by the verdict's rule (Δ > 2 se and > 4 nats), and the
    median learned r of the independence model."""
    default = _by_data_set()
    table = rows(RUN, "oracles.csv")
    lines = _header("design", "α", "data sets", "the fit's verdict", "oracle: held out, r = 0.3 for both",
                    "held out, independence with its own r", "every cell, r = 0.3", "every cell, its own r",
                    "its r (median)")
    for strength, noise, alpha, mine in _designs(table):
        n, null = len(mine), strength == "null"
        fits = [default[(strength, noise, alpha, r["replication"])] for r in mine]
        cells = [_rate(sum(_says(r["difference"], r["se"]) for r in fits), n, null)]
        for prefix in ("", "all_"):
            for kind in ("fixed", "learned"):
                k = sum(_says(r[f"{prefix}{kind}_difference"], r[f"{prefix}{kind}_se"]) for r in mine)
                cells.append(_rate(k, n, null))
        rs = sorted(float(r["learned_r"]) for r in mine)
        cells.append(f"{rs[len(rs) // 2]:.2f}")
        lines.append(f"| {strength}, {noise} | {alpha} | {n} | " + " | ".join(cells) + " |")
    return minus("\n".join(lines))


def structure_test_rates():
    """The test of structure on the release (docs/evidence/structure-test/results.csv,
    tools/planted/structure_test.py): per design, how often it says structure (p ≤ 0.01), with its
    bound, and its median p; beside it, on the data sets the verdict study also fitted (the same
    data sets and releases), the fit's held-out verdict and the oracle, and the paired count of
    data sets where exactly one of the test and the held-out verdict says structure (exact sign
    test)."""
    default = _by_data_set()
    table = rows("structure-test", "results.csv")
    lines = _header("design", "α", "data sets", "the test: p ≤ 0.01", "median p", "paired data sets",
                    "the test on them", "the held-out verdict", "oracle (held out)", "only the test / only the verdict (p)")
    for strength, noise, alpha, mine in _designs(table):
        n, null = len(mine), strength == "null"
        says = {r["replication"]: float(r["p"]) <= 0.01 for r in mine}
        ps = sorted(float(r["p"]) for r in mine)
        paired = [default[key] for rep in says if (key := (strength, noise, alpha, rep)) in default]
        m = len(paired)
        test = sum(says[r["replication"]] for r in paired)
        verdict = sum(_says(r["difference"], r["se"]) for r in paired)
        oracle = "—" if null else _rate(sum(_says(r["oracle_difference"], r["oracle_se"]) for r in paired), m, False)
        only = sum(says[r["replication"]] and not _says(r["difference"], r["se"]) for r in paired)
        other = sum(_says(r["difference"], r["se"]) and not says[r["replication"]] for r in paired)
        sign = f"{only} / {other} ({p_text(binomial_test_p(only, only + other, 0.5))})" if only + other else "0 / 0"
        lines.append(f"| {strength}, {noise} | {alpha} | {n} | {_rate(sum(says.values()), n, null)} | "
                     f"{ps[len(ps) // 2]:.3f} | {m} | {_rate(test, m, null)} | {_rate(verdict, m, null)} | {oracle} | "
                     f"{sign} |")
    enron = rows("structure-test", "enron-size.csv")[0]
    lines += ["", f"Enron-sized planted network (120 actors, 8 communities, NB(0.3), α = 0.5): p = {float(enron['p']):.3f} "
              f"(T = {float(enron['statistic']):.1f}, the null's r = {float(enron['dispersion']):.2f})."]
    return minus("\n".join(lines))


def structure_test_enron():
    """The test of the Enron release of docs/own-data.md at each K
    (docs/evidence/structure-test/enron-release.csv)."""
    table = rows("structure-test", "enron-release.csv")
    ks = [r["components"] for r in table]
    found = [r for r in table if r["structure"] == "1"]
    ps = sorted({float(r["p"]) for r in table})
    rs = sorted({float(r["dispersion"]) for r in table})
    verdict = "finds structure" if len(found) == len(table) else f"finds structure at K = {', '.join(r['components'] for r in found) or 'none'}"
    return (f"On this release the test {verdict} at K = {', '.join(ks[:-1])} and {ks[-1]} "
            f"(p = {', '.join(f'{p:.3f}' for p in ps)}; 0.005 is the smallest 199 bootstrap tables can give; "
            f"the null's fitted r is {', '.join(f'{r:.2f}' for r in rs)}).")


def structure_test_variants():
    """The test's statistic with plain clipped residuals (x = z, w = 1; plain-residuals.csv, the
    first version) against the score weights of today (results.csv), paired over the same 1,800
    data sets: the designs where they differ, with the discordant pairs and an exact sign test."""
    plain = {(r["strength"], r["noise"], r["alpha"], r["replication"]): r["structure"] == "1"
             for r in rows("structure-test", "plain-residuals.csv")}
    table = rows("structure-test", "results.csv")
    lines = _header("design", "α", "data sets", "plain residuals", "score weights (today)",
                    "only plain / only score weights (p)")
    for strength, noise, alpha, mine in _designs(table):
        now = {r["replication"]: r["structure"] == "1" for r in mine}
        before = {rep: plain[(strength, noise, alpha, rep)] for rep in now}
        if now == before:
            continue
        only_before = sum(before[r] and not now[r] for r in now)
        only_now = sum(now[r] and not before[r] for r in now)
        p = p_text(binomial_test_p(only_before, only_before + only_now, 0.5))
        lines.append(f"| {strength}, {noise} | {alpha} | {len(now)} | {sum(before.values())} | {sum(now.values())} | "
                     f"{only_before} / {only_now} ({p}) |")
    return minus("\n".join(lines))
