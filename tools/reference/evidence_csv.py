"""What the evidence writers of tools/reference share: a per-fit CSV written with every float in
full (`repr`), and the paired t statistics of two aligned series. Needs pandas, numpy and scipy."""

import numpy as np
from scipy import stats


def write_fits(df, columns, path):
    """`fits.csv`: the `columns` of `df`, one line per fit, floats written exactly."""
    df[columns].to_csv(path, index=False, lineterminator="\n", float_format=lambda x: repr(float(x)))


def paired_t(a, b):
    """First − second over the index both series share: the differences, their mean, its 95 %
    t-interval and the paired t-test's two-sided p (SciPy's `ttest_rel`)."""
    a, b = a.align(b, join="inner")
    d = (a - b).to_numpy()
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return d, d.mean(), d.mean() - half, d.mean() + half, stats.ttest_rel(a, b).pvalue
