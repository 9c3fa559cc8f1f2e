"""Hamiltonian Monte Carlo on the block model's factors with the allocations integrated out, on one
network of a Fig. 4-size SBC (docs/history/mixing.md, "Tried" 10): does a kernel that moves every
factor at once reach the posterior's bulk where the default's Gibbs chains climb for thousands of
sweeps?

    cargo build --release -p pipeline --example sweep_data
    target/study-python/bin/python tools/mixing/marginal_hmc.py --replication 4 \
        --manifest experiments/calibration-contaminated-block-fig4-size-light.toml \
        --out docs/evidence/marginal-hmc

The target is the default model's posterior of `x = (ln θ, ln π)` given the hierarchical rates,
with the contaminated likelihood's shape `r` and share held at their true values:

    ln p(x | ξ, λ, y) = Σ_{i≠j} ln[(1 − s) Pois(y_ij; μ_ij) + s NB(y_ij; r, μ_ij)]
                        + Σ_ic (a₀ ln θ_ic − ξ_i θ_ic) + Σ_cd (a₀ ln π_cd − λ π_cd) + const,

`μ_ij = Σ_cd θ_ic π_cd θ_jd`, `θ_ic ~ Gamma(a₀, rate ξ_i)`, `π_cd ~ Gamma(a₀, rate λ)` (the
Gamma's Jacobian in log space gives `a₀ ln θ`). Each iteration is one HMC trajectory (leapfrog,
diagonal mass, its length jittered) followed by the conjugate Gibbs draws of the rates `ξ_i`,
`λ` and their rates `κ` (ScalePrior, `a' = 10`, `κ ~ Gamma(1, rate 0.1)`), so the chain targets
the posterior of `(θ, π, ξ, λ, κ)`. Warm-up adapts the step size (dual averaging to an
acceptance of 0.8) and the mass (the variances of the draws of each warm-up window).

`--start prior` draws the factors from Gamma(1, 1) (as Gibbs from the prior); `--start map`
starts at an L-BFGS maximum of the same target with the rates at their prior means. Writes
trace.csv: per iteration and chain the log-likelihood of every modelled cell under the true `r`
and share, the acceptance, the step size and the KL of the rates from the truth; and
summary.csv: the truth's log-likelihood and the kept draws' quantiles.
"""

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
from heavy_network import C, MANIFEST, contaminated, network  # noqa: E402

A0 = 1.0
SCALE_SHAPE, SCALE_MEAN, KAPPA_SHAPE = 10.0, 1.0, 1.0


class Target:
    """The log posterior of `x = (ln θ, ln π)` and its gradient (each cell's term by
    heavy_network.contaminated)."""

    def __init__(self, y, r, share):
        self.n = len(y)
        self.mask = ~np.eye(self.n, dtype=bool)
        self.y, self.r, self.share = y[self.mask], r, share

    def cells(self, m):
        """Per-cell log-likelihood at rates `m` (the modelled cells) and its derivative in `m`."""
        return contaminated(self.y, m, self.r, self.share)

    def unpack(self, x):
        n = self.n
        return np.exp(x[: n * C]).reshape(n, C), np.exp(x[n * C:]).reshape(C, C)

    def rates(self, theta, pi):
        return np.maximum(theta @ pi @ theta.T, 1e-300)

    def ln_lik(self, x):
        theta, pi = self.unpack(x)
        return float(self.cells(self.rates(theta, pi)[self.mask])[0].sum())

    def __call__(self, x, xi, lam):
        theta, pi = self.unpack(x)
        value, slope = self.cells(self.rates(theta, pi)[self.mask])
        w = np.zeros((self.n, self.n))
        w[self.mask] = slope
        g_theta = (w @ theta @ pi.T + w.T @ theta @ pi) * theta + A0 - xi[:, None] * theta
        g_pi = (theta.T @ w @ theta) * pi + A0 - lam * pi
        lp = value.sum() + (A0 * x[: self.n * C] - (xi[:, None] * theta).ravel()).sum() + (A0 * x[self.n * C:] - lam * pi.ravel()).sum()
        return float(lp), np.concatenate([g_theta.ravel(), g_pi.ravel()])


def draw_rates(theta, pi, kappa, rng):
    """The conjugate draws of `ξ_i`, `λ` and their rates `κ` (ScalePrior with a learned mean)."""
    xi = rng.gamma(SCALE_SHAPE + C * A0, 1.0 / (kappa[0] + theta.sum(axis=1)))
    lam = rng.gamma(SCALE_SHAPE + C * C * A0, 1.0 / (kappa[1] + pi.sum()))
    prior_rate = KAPPA_SHAPE * SCALE_MEAN / SCALE_SHAPE
    kappa = np.array([rng.gamma(KAPPA_SHAPE + len(xi) * SCALE_SHAPE, 1.0 / (prior_rate + xi.sum())),
                      rng.gamma(KAPPA_SHAPE + SCALE_SHAPE, 1.0 / (prior_rate + lam))])
    return xi, np.array(lam), kappa


def hmc_chain(target, x, iterations, warm_up, rng, truth_rates, out, chain, steps=32):
    n = target.n
    theta, pi = target.unpack(x)
    kappa = np.array([SCALE_SHAPE / SCALE_MEAN, SCALE_SHAPE / SCALE_MEAN])
    xi, lam, kappa = draw_rates(theta, pi, kappa, rng)
    mass = np.ones_like(x)
    eps, log_eps_bar, h_bar, mu_da, t0, gamma, kappa_da = 0.01, 0.0, 0.0, np.log(0.1), 10, 0.05, 0.75
    windows = {75, 150, 300, 600} | {w for w in range(1200, warm_up + 1, 600)}
    window = []
    lp, grad = target(x, xi, lam)
    rate_sum = np.zeros((n, n))
    started = time.time()
    for it in range(1, iterations + 1):
        p0 = rng.normal(size=x.size) * np.sqrt(mass)
        length = max(1, int(steps * rng.uniform(0.5, 1.5)))
        xn, pn, gn = x.copy(), p0 + 0.5 * eps * grad, None
        ok = True
        for step in range(length):
            xn = xn + eps * pn / mass
            lpn, gn = target(xn, xi, lam)
            if not np.isfinite(lpn):
                ok = False
                break
            if step + 1 < length:
                pn = pn + eps * gn
        if ok:
            pn = pn + 0.5 * eps * gn
            log_a = lpn - 0.5 * np.sum(pn * pn / mass) - (lp - 0.5 * np.sum(p0 * p0 / mass))
            accept = float(min(1.0, np.exp(log_a))) if np.isfinite(log_a) else 0.0
        else:
            accept = 0.0
        if rng.uniform() < accept:
            x, lp, grad = xn, lpn, gn
        theta, pi = target.unpack(x)
        xi, lam, kappa = draw_rates(theta, pi, kappa, rng)
        lp, grad = target(x, xi, lam)
        if it <= warm_up:
            h_bar = (1 - 1 / (it + t0)) * h_bar + (0.8 - accept) / (it + t0)
            log_eps = mu_da - np.sqrt(it) / gamma * h_bar
            eps = float(np.exp(log_eps))
            weight = it ** -kappa_da
            log_eps_bar = weight * log_eps + (1 - weight) * log_eps_bar
            window.append(x.copy())
            if it in windows:
                var = np.var(np.array(window), axis=0)
                mass = 1.0 / np.maximum((len(window) * var + 1e-3 * 5) / (len(window) + 5), 1e-8)
                window = []
                mu_da, h_bar = np.log(10 * eps), 0.0
            if it == warm_up:
                eps = float(np.exp(log_eps_bar))
        rates = target.rates(theta, pi)
        if it > warm_up:
            rate_sum += rates
        m = rates[target.mask]
        t = truth_rates[target.mask]
        kl = float(np.mean(np.where(t > 0, t * np.log(t / m), 0.0) - t + m))
        out.writerow([chain, it, f"{target.ln_lik(x):.2f}", f"{accept:.3f}", f"{eps:.5f}", length, f"{kl:.5f}",
                      f"{time.time() - started:.1f}"])
        if it % 100 == 0:
            print(f"chain {chain} iteration {it}: ln lik {target.ln_lik(x):.1f}, accept {accept:.2f}, step {eps:.4f}, "
                  f"KL {kl:.4f}, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return rate_sum / (iterations - warm_up)


def map_start(target, rng):
    """An L-BFGS maximum of the target with the rates at their prior means."""
    xi, lam = np.full(target.n, SCALE_MEAN), SCALE_MEAN

    def negative(x):
        lp, g = target(x, xi, lam)
        return -lp, -g

    found = minimize(negative, np.log(rng.gamma(1.0, 1.0, target.n * C + C * C)), jac=True, method="L-BFGS-B",
                     options=dict(maxiter=20000, maxfun=40000))
    print(f"L-BFGS: {found.nit} iterations, ln p {-found.fun:.1f}, ln lik {target.ln_lik(found.x):.1f}", file=sys.stderr)
    return found.x


@np.errstate(all="ignore")
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replication", type=int, default=4)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--start", choices=["prior", "map"], default="prior")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--warm-up", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=32, help="mean leapfrog steps per trajectory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        y, mu, r, share, _ = network(args.manifest, args.replication, Path(tmp))
    target = Target(y, r, share)
    truth = float(target.cells(mu[target.mask])[0].sum())
    print(f"{target.n} actors, {int(y.sum())} counts; truth's ln lik {truth:.1f}", file=sys.stderr)
    variant = f"{args.replication}-{args.start}"
    name = f"trace-{variant}.csv"
    means = []
    with open(args.out / name, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["chain", "iteration", "ln_lik", "accept", "step", "leapfrog", "kl_from_truth", "seconds"])
        for chain in range(args.chains):
            rng = np.random.default_rng([args.seed, chain])
            x = map_start(target, rng) if args.start == "map" else np.log(rng.gamma(1.0, 1.0, target.n * C + C * C))
            means.append(hmc_chain(target, x, args.iterations, args.warm_up, rng, mu, out, chain, args.steps))
    rows = [row for row in csv.DictReader(open(args.out / name)) if int(row["iteration"]) > args.warm_up]
    t = mu[target.mask]
    with open(args.out / f"summary-{variant}.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["replication", "start", "chain", "truth_ln_lik", "ln_lik_5", "ln_lik_50", "ln_lik_95",
                      "share_below_truth", "mean_rates_ln_lik", "mean_rates_kl", "seconds"])
        for chain, mean in enumerate(means):
            values = np.array([float(row["ln_lik"]) for row in rows if int(row["chain"]) == chain])
            seconds = max(float(row["seconds"]) for row in rows if int(row["chain"]) == chain)
            m = np.maximum(mean[target.mask], 1e-300)
            kl = float(np.mean(np.where(t > 0, t * np.log(t / m), 0.0) - t + m))
            q = np.percentile(values, [5, 50, 95])
            line = [args.replication, args.start, chain, f"{truth:.1f}", *(f"{v:.1f}" for v in q),
                    f"{(values < truth).mean():.3f}", f"{target.cells(m)[0].sum():.1f}", f"{kl:.4f}", f"{seconds:.0f}"]
            out.writerow(line)
            print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
