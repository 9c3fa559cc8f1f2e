# The Fig. 4 runs with several chains per fit (docs/fig4.md): per (e0, alpha) cell, private
# against naive on the same data sets — with the pooled chains, and with chain 0 alone (the
# single-chain analysis of earlier versions) — plus the chains' spread and the diagnostics.
# Usage: python3 tools/reference/fig4_chains.py results/fig4-enron-quick/results.parquet
# Needs pandas, pyarrow and scipy.
import sys

import numpy as np
import pandas as pd
from scipy import stats


def paired(a, b):
    d = np.asarray(a) - np.asarray(b)
    n = len(d)
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    p = stats.ttest_rel(a, b).pvalue
    return (d < 0).sum(), n, d.mean(), d.mean() - half, d.mean() + half, p


df = pd.read_parquet(sys.argv[1])
df["chain0"] = [c[0] for c in df.chain_mean_kl]
df["chain_sd"] = [np.std(c, ddof=1) if len(c) > 1 else np.nan for c in df.chain_mean_kl]
df["flagged"] = df.warning.fillna("") != ""
print("cell | naive | private | MC se (private) | pooled: wins, diff [95% CI], p | chain 0: wins, diff, p | flagged n/p")
significant = {"pooled": 0, "chain0": 0}
cells = 0
for (e0, alpha), cell in df[df.alpha.notna()].groupby(["e0", "alpha"]):
    n = cell[cell.method == "naive"].sort_values("replication")
    p = cell[cell.method == "private"].sort_values("replication")
    w, k, m, lo, hi, pv = paired(p.mean_kl.values, n.mean_kl.values)
    w0, _, m0, _, _, pv0 = paired(p.chain0.values, n.chain0.values)
    mc = np.sqrt((p.chain_sd**2 / p.chains).sum()) / len(p)
    cells += 1
    significant["pooled"] += (pv < 0.05) and m < 0
    significant["chain0"] += (pv0 < 0.05) and m0 < 0
    print(
        f"e0={e0} a={alpha}: {n.mean_kl.mean():.3f} | {p.mean_kl.mean():.3f} | {mc:.3f} | "
        f"{w}/{k} {m:+.3f} [{lo:+.3f}, {hi:+.3f}] p={pv:.3g} | {w0}/{k} {m0:+.3f} p={pv0:.3g} | "
        f"{n.flagged.sum()}/{p.flagged.sum()}"
    )
print(f"cells with private better at p < .05: pooled {significant['pooled']}/{cells}, chain 0 {significant['chain0']}/{cells}")
ref = df[df.method == "non-private"]
for e0, r in ref.groupby("e0"):
    print(f"non-private e0={e0}: mean {r.mean_kl.mean():.3f}, chain KLs by replication:",
          "; ".join(", ".join(f"{x:.3f}" for x in c) for c in r.sort_values("replication").chain_mean_kl))
for (e0, alpha) in [(1.5, 0.4), (1.5, 0.7)]:
    c = df[(df.e0 == e0) & (df.alpha == alpha) & (df.method == "private")].sort_values("replication")
    if len(c):
        print(f"private e0={e0} a={alpha} chain KLs by replication:",
              "; ".join(", ".join(f"{x:.2f}" for x in k) for k in c.chain_mean_kl), "| pooled:", ", ".join(f"{x:.2f}" for x in c.mean_kl))
print("max R-hat by method:", df.groupby("method")[["rhat_ln_joint", "rhat_total_rate", "rhat_kl"]].max().round(3).to_dict("index"))
print("flagged fits by method:", df.groupby("method").flagged.sum().to_dict(), "of", df.groupby("method").size().to_dict())
