"""Reference (ε, δ) values of the Poisson-subsampled Gaussian mechanism from Google's
dp-accounting library (its RDP accountant, default orders, add/remove neighbouring).

Made offline, once; the outputs are committed under crates/accountant/tests/data/ and read by
the accountant's tests. Reproduce with:

    python3 -m venv /tmp/dpacc && /tmp/dpacc/bin/pip install dp-accounting==0.6.0
    /tmp/dpacc/bin/python tools/reference/make_accountant_reference.py crates/accountant/tests/data

Two files:
- dp_accounting_reference.csv: q, sigma, steps, delta, epsilon (ε at that δ), epsilon_query,
  delta_at (δ at ε = epsilon_query, so the δ(ε) direction is checked too);
- dp_accounting_rdp.csv: q, sigma, then the RDP of ONE step at each default order (dp-accounting's
  DEFAULT_RDP_ORDERS, in order; "inf" where its fractional-order series did not converge and it
  excluded the order), so the conversion and the per-order RDP can be checked separately.
"""

import itertools
import sys

import dp_accounting
from dp_accounting.rdp import rdp_privacy_accountant as rdp

QS = [0.004, 0.01, 0.05, 0.2, 0.6, 1.0]
SIGMAS = [0.8, 1.0, 1.5, 3.0, 10.0]
STEPS = [100, 1000, 10_000, 50_000]
DELTAS = [1e-5, 1e-6]

out = sys.argv[1]
with open(f"{out}/dp_accounting_reference.csv", "w") as f:
    f.write("# dp-accounting 0.6.0, RdpAccountant(default orders, add/remove), "
            "PoissonSampledDpEvent(q, GaussianDpEvent(sigma)) x steps\n")
    f.write("q,sigma,steps,delta,epsilon,epsilon_query,delta_at\n")
    for q, sigma, steps, delta in itertools.product(QS, SIGMAS, STEPS, DELTAS):
        acc = rdp.RdpAccountant()
        event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
        acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
        eps = acc.get_epsilon(delta)
        eps_query = 1.0
        d = acc.get_delta(eps_query)
        f.write(f"{q!r},{sigma!r},{steps},{delta!r},{float(eps)!r},{eps_query!r},{float(d)!r}\n")

with open(f"{out}/dp_accounting_rdp.csv", "w") as f:
    f.write("# dp-accounting 0.6.0: RDP of one step of PoissonSampledDpEvent(q, GaussianDpEvent(sigma)) "
            "at each of DEFAULT_RDP_ORDERS\n")
    f.write("q,sigma," + ",".join(repr(float(a)) for a in rdp.DEFAULT_RDP_ORDERS) + "\n")
    for q, sigma in itertools.product(QS, SIGMAS):
        acc = rdp.RdpAccountant()
        acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)))
        f.write(f"{q!r},{sigma!r}," + ",".join(repr(float(r)) for r in acc._rdp) + "\n")
