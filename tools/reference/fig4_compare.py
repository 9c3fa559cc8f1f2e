# Issue 21: does the Fig. 4 quick run (4 chains per fit) with the new streams (xoshiro256++,
# inversion binomial; new data sets, releases and chains) reach the conclusions of the run with
# the ChaCha8 streams (tools/reference/fig4-quick-chacha8.csv, the table of docs/fig4.md)?
# Per (e0, alpha) cell: the paired private - naive difference over the 5 data sets in each run;
# the two runs are independent, so the change in the mean difference is tested with Welch's
# t on the per-run standard errors (from the 95 % t-intervals, 4 df). Also: significant cells
# (p < 0.05, private better), wins, and the cells whose sign of significance changed.
# Usage: python3 tools/reference/fig4_compare.py results/fig4-enron-quick/results.parquet
import sys

import numpy as np
import pandas as pd
from scipy import stats

old = pd.read_csv("tools/reference/fig4-quick-chacha8.csv", comment="#")
old["p"] = old.p.astype(str).str.replace("<", "").astype(float)
t4 = stats.t.ppf(0.975, 4)
old["se"] = (old.hi - old.lo) / 2 / t4

df = pd.read_parquet(sys.argv[1])
rows = []
for (e0, alpha), cell in df[df.alpha.notna()].groupby(["e0", "alpha"]):
    n = cell[cell.method == "naive"].sort_values("replication").mean_kl.values
    p = cell[cell.method == "private"].sort_values("replication").mean_kl.values
    d = p - n
    se = d.std(ddof=1) / np.sqrt(len(d))
    pv = stats.ttest_rel(p, n).pvalue
    rows.append(dict(e0=e0, alpha=round(alpha, 6), naive=n.mean(), private=p.mean(), diff=d.mean(), se=se,
                     wins=int((d < 0).sum()), p=pv))
new = pd.DataFrame(rows)
old["alpha"] = old.alpha.round(6)
m = new.merge(old, on=["e0", "alpha"], suffixes=("_new", "_old"))
se = np.sqrt(m.se_new**2 + m.se_old**2)
dof = se**4 / (m.se_new**4 / 4 + m.se_old**4 / 4)
m["change"] = m.diff_new - m.diff_old
m["p_change"] = 2 * stats.t.sf(np.abs(m.change / se), dof)
print("e0 | alpha | diff old | diff new | change [p] | wins old/new | p old | p new")
for r in m.itertuples():
    print(f"{r.e0} | {r.alpha} | {r.diff_old:+.3f} | {r.diff_new:+.3f} | {r.change:+.3f} [{r.p_change:.2g}] | "
          f"{r.wins_old}/{r.wins_new} | {r.p_old:.2g} | {r.p_new:.2g}")
sig_old = (m.p_old < 0.05) & (m.diff_old < 0)
sig_new = (m.p_new < 0.05) & (m.diff_new < 0)
print(f"cells: {len(m)}; private better at p < 0.05: old {sig_old.sum()}, new {sig_new.sum()}, both {(sig_old & sig_new).sum()}")
print(f"cells where naive is better in the mean: old {(m.diff_old > 0).sum()}, new {(m.diff_new > 0).sum()}")
print(f"cells whose mean difference changed at p < 0.05 (Welch): {(m.p_change < 0.05).sum()} of {len(m)} "
      f"(expected by chance: {0.05 * len(m):.1f}); Bonferroni (p < {0.05 / len(m):.4f}): {(m.p_change < 0.05 / len(m)).sum()}")
print(f"wins summed over cells: old {m.wins_old.sum()}, new {m.wins_new.sum()} of {5 * len(m)}")
print(f"mean naive KL: old {m.naive_old.mean():.3f}, new {m.naive_new.mean():.3f}; mean private KL: old {m.private_old.mean():.3f}, new {m.private_new.mean():.3f}")
