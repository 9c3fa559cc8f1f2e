"""R-hat and bulk ESS (arviz: rank-normalized split R-hat, bulk ESS) of the monitored quantities of
one `lppf fit` over the first N sweeps of its chains, for several N: a fit of N sweeps with the
same seed, burn-in and thinning keeps exactly these draws (each sweep's random stream depends on
the seed, the chain and the sweep, not on the schedule's length), so this tells at which length the
convergence criterion was first met without re-running (BENCHMARKS.md, "A 3·10⁶-cell release in
ten minutes"):

    target/study-python/bin/python tools/mixing/large_table_prefixes.py FIT/trace.parquet \\
        1800 1900 2000 2100 2200 2400 > docs/evidence/large-table/prefixes.csv
"""

import sys

import arviz
import numpy as np
import pyarrow.parquet as pq


def main():
    trace = pq.read_table(sys.argv[1]).to_pandas()
    quantities = ["ln_lik", "total_rate", "structure"]
    print("sweeps," + ",".join(f"{q}_rhat,{q}_ess_bulk" for q in quantities))
    for n in map(int, sys.argv[2:]):
        kept = trace[trace.iteration <= n]
        cells = []
        for q in quantities:
            draws = np.array([g[q].to_numpy() for _, g in kept.groupby("chain")])
            cells += [f"{arviz.rhat(draws):.4f}", f"{arviz.ess(draws, method='bulk'):.1f}"]
        print(f"{n}," + ",".join(cells))


if __name__ == "__main__":
    main()
