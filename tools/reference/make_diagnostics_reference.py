"""Reference split-R̂ and ESS values (Vehtari et al. 2021) from ArviZ, for the inference crate's
diagnostics tests, and reference paired-t values from SciPy for the results crate's summary.

Made offline, once; the output is committed as crates/inference/tests/data/diagnostics_reference.csv
and read by crates/inference/tests/it/diagnostics.rs. Reproduce with:

    python3 -m venv /tmp/az && /tmp/az/bin/pip install arviz==0.23.4 numpy==2.4.6 scipy==1.17.1
    /tmp/az/bin/python tools/reference/make_diagnostics_reference.py crates/inference/tests/data

Each case is 4 chains x 100 draws made here with numpy (seeded; the draws are written to the file,
so the Rust test does not depend on numpy's generator), and ArviZ's az.rhat(method="rank") (the
larger of bulk and tail R̂), az.ess(method="bulk") and az.ess(method="tail"). One line per case:
name, rhat, ess_bulk, ess_tail, then the 400 draws chain by chain.
"""

import sys

import arviz as az
import numpy as np

rng = np.random.default_rng(20211)


def ar1(rho, shifts, scales, n=100):
    out = np.empty((len(shifts), n))
    for m, (shift, scale) in enumerate(zip(shifts, scales)):
        x = rng.standard_normal()
        for t in range(n):
            x = rho * x + np.sqrt(1 - rho * rho) * rng.standard_normal()
            out[m, t] = shift + scale * x
    return out


cases = {
    "iid": ar1(0.0, [0, 0, 0, 0], [1, 1, 1, 1]),
    "ar1-0.7": ar1(0.7, [0, 0, 0, 0], [1, 1, 1, 1]),
    "ar1-0.95": ar1(0.95, [0, 0, 0, 0], [1, 1, 1, 1]),
    # Not converged: one chain elsewhere (R̂ must be large), different spreads, a trend.
    "shifted-chain": ar1(0.5, [0, 0, 0, 3], [1, 1, 1, 1]),
    "different-spreads": ar1(0.3, [0, 0, 0, 0], [1, 1, 1, 4]),
    "trend": ar1(0.5, [0, 0, 0, 0], [1, 1, 1, 1]) + np.linspace(0, 4, 100),
    "heavy-tails": rng.standard_t(2, size=(4, 100)),
}

with open(f"{sys.argv[1]}/diagnostics_reference.csv", "w") as f:
    f.write(f"# ArviZ {az.__version__}, numpy {np.__version__}: tools/reference/make_diagnostics_reference.py\n")
    for name, draws in cases.items():
        rhat = float(az.rhat(draws, method="rank"))
        bulk = float(az.ess(draws, method="bulk"))
        tail = float(az.ess(draws, method="tail"))
        values = ",".join(repr(float(x)) for x in draws.ravel())
        f.write(f"{name},{rhat!r},{bulk!r},{tail!r},{values}\n")
        print(f"{name}: rhat {rhat:.6f} bulk {bulk:.3f} tail {tail:.3f}")
