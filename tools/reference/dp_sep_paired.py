# Paired comparisons of the DP-SEP study (docs/dp-sep.md): run in results/dp-sep-mog after
# `lppf run experiments/dp-sep-mog.toml`; needs pandas, pyarrow and scipy.
import pandas as pd, numpy as np
from scipy import stats
df = pd.read_parquet('results.parquet')
def paired(a, b, label):
    a=np.asarray(a); b=np.asarray(b); d=a-b
    t=stats.ttest_rel(a,b); w=stats.wilcoxon(a,b)
    lo,hi = d.mean()+np.array([-1,1])*stats.t.ppf(.975,len(d)-1)*d.std(ddof=1)/np.sqrt(len(d))
    print(f'{label}: n={len(d)} wins(first lower)={(d<0).sum()} mean diff={d.mean():.3f} [{lo:.3f},{hi:.3f}] t p={t.pvalue:.3g} wilcoxon p={w.pvalue:.3g} median diff={np.median(d):.3f}')
def get(method, **kw):
    x = df[df.method==method]
    for k,v in kw.items(): x = x[x[k]==v]
    return x.sort_values('replication').f_norm_average.values
for eps in [50.,5.,1.]:
    paired(get('dp-em',epsilon=eps), get('dp-sep',epsilon=eps), f'eps={eps} DP-EM - DP-SEP')
paired(get('dp-sep',epsilon=50.), get('dp-sep',epsilon=5.), 'DP-SEP eps50 - eps5')
paired(get('dp-sep',epsilon=5.), get('dp-sep',epsilon=1.), 'DP-SEP eps5 - eps1')
paired(get('dp-sep',epsilon=50.), get('dp-sep',epsilon=1.), 'DP-SEP eps50 - eps1')
for c in [20.,10.,1.]:
    paired(get('sep'), get('clipped-sep',clip=c), f'SEP - clipped C={c}')
paired(get('clipped-sep',clip=20.), get('clipped-sep',clip=10.), 'C20 - C10')
paired(get('clipped-sep',clip=10.), get('clipped-sep',clip=1.), 'C10 - C1')
