"""Generated blocks of BENCHMARKS.md: the collapsed against the augmented private step, ESS per
second paired fit by fit (docs/data/private-step-*-ess.csv, written by the `ess_per_second`
example)."""

import math

from docstats import interval, mean_sd, minus, p_text, paired_t, t_quantile
from sources import data_rows


def log_ratio(values):
    """Geometric mean of positive ratios with its 95 % t-interval on the log scale."""
    logs = [math.log(v) for v in values]
    mean, sd = mean_sd(logs)
    half = t_quantile(0.975, len(logs) - 1) * sd / math.sqrt(len(logs))
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
