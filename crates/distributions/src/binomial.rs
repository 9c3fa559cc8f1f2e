//! Binomial counts, over `rand_distr::Binomial`.

use crate::error::{ParamError, probability};
use rand::Rng;
use rand::distr::Distribution;
use statrs::function::factorial::ln_binomial;

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

    /// `np(1−p)`.
    pub fn variance(&self) -> f64 {
        self.n as f64 * self.p * (1.0 - self.p)
    }

    /// `ln P(k)`; `−∞` outside `0..=n`.
    pub fn ln_pmf(&self, k: u64) -> f64 {
        if k > self.n {
            return f64::NEG_INFINITY;
        }
        let term = |count: u64, prob: f64| if count == 0 { 0.0 } else { count as f64 * prob.ln() };
        ln_binomial(self.n, k) + term(k, self.p) + term(self.n - k, 1.0 - self.p)
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
