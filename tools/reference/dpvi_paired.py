# Paired comparisons of the DPVI study (docs/dpvi.md): the moments accountant against advanced
# composition, and DPVI at each epsilon against the non-private fit, on the same replications
# (data split and start). Run from the repository root after `just dpvi`; needs pandas, pyarrow
# and scipy.
import numpy as np
import pandas as pd
from scipy import stats

for name in ["abalone", "adult"]:
    df = pd.read_parquet(f"results/dpvi-{name}/results.parquet")
    get = lambda m, e=None: df[(df.method == m) & ((df.target_epsilon == e) if e is not None else True)].sort_values("replication").accuracy.values
    ref = get("non-private")
    for e in sorted(df.target_epsilon.dropna().unique()):
        ma, ac = get("dpvi-moments-accountant", e), get("dpvi-advanced-composition", e)
        d = ma - ac
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        dn = ma - ref
        halfn = stats.t.ppf(0.975, len(dn) - 1) * dn.std(ddof=1) / np.sqrt(len(dn))
        print(f"{name} eps={e:g}: MA-AC wins {(d > 0).sum()}/{len(d)} mean {d.mean():+.4f} [{d.mean()-half:+.4f}, {d.mean()+half:+.4f}] "
              f"t p={stats.ttest_rel(ma, ac).pvalue:.2g} | MA-nonprivate {dn.mean():+.4f} [{dn.mean()-halfn:+.4f}, {dn.mean()+halfn:+.4f}] p={stats.ttest_rel(ma, ref).pvalue:.2g}")

# The Gaussian mixture: test log-likelihood per point of DPVI against the non-private fit.
df = pd.read_parquet("results/dpvi-gmm/results.parquet")
ref = df[df.method == "non-private"].sort_values("replication").test_log_likelihood.values
for e in sorted(df.target_epsilon.dropna().unique()):
    x = df[(df.method == "dpvi-moments-accountant") & (df.target_epsilon == e)].sort_values("replication").test_log_likelihood.values
    d = x - ref
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    print(f"gmm eps={e:g}: DPVI-nonprivate {d.mean():+.3f} [{d.mean()-half:+.3f}, {d.mean()+half:+.3f}] p={stats.ttest_rel(x, ref).pvalue:.2g}")
