//! Binomial counts, over `rand_distr::Binomial`.

use crate::error::{ParamError, probability};
use crate::ln_gamma::{bd0, stirling_correction};
use rand::Rng;
use rand::distr::Distribution;

/// `Binom(n, p)`: `P(k) = C(n,k) p^k (1−p)^{n−k}`, `k = 0..=n`, `p ∈ [0, 1]`. The thinning step
/// `y ~ Binom(ỹ⁺, μ/(μ+λ₁))` (eq. 15 of Schein et al. 2019).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Binomial {
    n: u64,
    p: f64,
    inner: rand_distr::Binomial,
}

impl Binomial {
    /// `Binom(n, p)`; errors unless `p ∈ [0, 1]`.
    pub fn new(n: u64, p: f64) -> Result<Self, ParamError> {
        let p = probability("Binomial", "p", p)?;
        let inner = rand_distr::Binomial::new(n, p).map_err(|_| ParamError {
            distribution: "Binomial",
            parameter: "p",
            value: p,
            allowed: "a number in [0, 1]",
        })?;
        Ok(Self { n, p, inner })
    }

    /// `np`.
    pub fn mean(&self) -> f64 {
        self.n as f64 * self.p
    }

    /// The mode `min(⌊(n+1)p⌋, n)` (when `(n+1)p` is an integer in `1..=n`, one less is a mode too).
    pub fn mode(&self) -> u64 {
        (((self.n + 1) as f64 * self.p).floor() as u64).min(self.n)
    }

    /// `np(1−p)`.
    pub fn variance(&self) -> f64 {
        self.n as f64 * self.p * (1.0 - self.p)
    }

    /// `ln P(k)`; `−∞` outside `0..=n`. Loader's (2000) saddle-point form
    /// `c(n) − c(k) − c(n−k) − bd0(k, np) − bd0(n−k, nq) − ½ ln(2πk(n−k)/n)`, with Stirling's
    /// remainder `c` and `bd0(x, μ) = x φ((μ−x)/x)`, `φ(t) = t − ln(1+t)`: no large terms cancel,
    /// so it stays accurate to a few ulps for `n` in the millions.
    pub fn ln_pmf(&self, k: u64) -> f64 {
        if k > self.n {
            return f64::NEG_INFINITY;
        }
        let (n, p, q) = (self.n as f64, self.p, 1.0 - self.p);
        if self.n == 0 {
            return 0.0; // k = 0 = n: the point mass
        }
        if k == 0 || k == self.n {
            return n * if k == 0 { q } else { p }.ln(); // all failures, or all successes
        }
        let (k, rest) = (k as f64, (self.n - k) as f64);
        stirling_correction(n)
            - stirling_correction(k)
            - stirling_correction(rest)
            - bd0(k, n * p)
            - bd0(rest, n * q)
            - 0.5 * (std::f64::consts::TAU * k * rest / n).ln()
    }

    /// `P(k)`.
    pub fn pmf(&self, k: u64) -> f64 {
        self.ln_pmf(k).exp()
    }
}

impl Distribution<u64> for Binomial {
    /// BINV / BTPE (Kachitvichyanukul & Schmeiser 1988), via `rand_distr`.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        self.inner.sample(rng)
    }
}
