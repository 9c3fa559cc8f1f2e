"""Statistics for the docs' generated tables (tools/docs/generate.py): Holm's adjustment, paired
t-tests with Student's t from the incomplete beta function (equal to SciPy's ttest_rel to about
1e-12), the exact nominal coverage of an interval among kept samples, and number formatting.
Standard library only.
"""

import math
import re


def p_text(p):
    return "< 1e-9" if p < 1e-9 else f"{p:.3g}"


def minus(text):
    """A typeset minus sign (U+2212) before every negative number of `text`."""
    return re.sub(r"-(?=\d)", "\u2212", text)


def percent(x):
    return f"{x:+.0f} %".replace("+0 %", "0 %").replace("-0 %", "0 %")


def interval(mean, low, high, spec):
    """`mean [low, high]`, each number in the format `spec` (e.g. "+.3f")."""
    return f"{mean:{spec}} [{low:{spec}}, {high:{spec}}]"


def row_interval(r, spec, scale=1.0):
    """[`interval`] of a CSV row with `mean`, `low` and `high` columns, each times `scale` (e.g. a
    per-word topic error × V)."""
    return interval(*(scale * float(r[c]) for c in ("mean", "low", "high")), spec)


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


def binomial_test_p(k, n, p0):
    """Two-sided exact binomial test of k successes in n at probability p0: the total probability
    of the outcomes no more likely than k (as SciPy's `binomtest(k, n, p0).pvalue`). At p0 = 1/2
    it is the exact sign test."""
    pmf = [math.comb(n, i) * p0 ** i * (1 - p0) ** (n - i) for i in range(n + 1)]
    return min(1.0, sum(q for q in pmf if q <= pmf[k] * (1 + 1e-7)))


def beta_quantile(q, a, b):
    """The `q` quantile of Beta(a, b), by bisection on the incomplete beta function."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if incomplete_beta(a, b, mid) < q else (lo, mid)
    return (lo + hi) / 2


def binomial_bounds(k, n, level=0.95):
    """One-sided Clopper–Pearson bounds of a proportion from k successes in n: the `level` lower
    bound (0 when k = 0) and the `level` upper bound (1 when k = n), each exact on its side."""
    lower = 0.0 if k == 0 else beta_quantile(1 - level, k, n - k + 1)
    upper = 1.0 if k == n else beta_quantile(level, k + 1, n - k)
    return lower, upper


def self_check():
    """Fails loudly if the t distribution, Holm's adjustment or the binomial test drifts from
    reference values (SciPy 1.17.1: `2·t.sf(3, 4)`, `2·t.sf(0.5, 30)`, `t.ppf(0.975, 9)`,
    `binomtest`); generate.py runs it before every table."""
    for got, want in [(t_two_sided_p(3.0, 4), 0.03994196807171883), (t_two_sided_p(0.5, 30), 0.6207230048851272),
                      (t_quantile(0.975, 9), 2.262157162798205)]:
        assert abs(got - want) < 1e-9 * want, (got, want)
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06], holm([0.01, 0.04, 0.03])
    # SciPy 1.17.1: binomtest(15, 50, 2/21).pvalue, binomtest(3, 50, 2/21).pvalue, and the sign
    # test binomtest(2, 10).pvalue, binomtest(7, 9).pvalue.
    for got, want in [(binomial_test_p(15, 50, 2 / 21), 4.2054982537264386e-05),
                      (binomial_test_p(3, 50, 2 / 21), 0.6265496859408252)]:
        assert abs(got - want) < 1e-9 * want, (got, want)
    for got, want in [(binomial_test_p(2, 10, 0.5), 0.109375), (binomial_test_p(7, 9, 0.5), 0.1796875)]:
        assert abs(got - want) < 1e-12, (got, want)
    # SciPy 1.17.1: beta.ppf(0.95, 1, 60), beta.ppf(0.95, 4, 57), beta.ppf(0.05, 3, 58).
    for got, want in [(binomial_bounds(0, 60)[1], 0.04870291331009749), (binomial_bounds(3, 60)[1], 0.12418721047743608),
                      (binomial_bounds(3, 60)[0], 0.01376515756828304)]:
        assert abs(got - want) < 1e-9 * want, (got, want)
