//! Exponential variates in the **rate** parameterisation, over `rand_distr::Exp`.

use crate::error::{ParamError, positive};
use rand::Rng;
use rand::distr::Distribution;

/// `Exp(rate)`: density `rate·e^{−rate·x}`, `x >= 0`; mean `1/rate`.
///
/// Note: Schein et al. write `Exp(α/(1−α))` meaning the *mean* `α/(1−α)`; as a rate that is
/// `(1−α)/α` (see [`crate::TwoSidedGeometric::augmentation_mean`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exponential {
    rate: f64,
    inner: rand_distr::Exp<f64>,
}

impl Exponential {
    /// `Exp(rate)`; errors unless `rate` is finite and `> 0`.
    pub fn new(rate: f64) -> Result<Self, ParamError> {
        let rate = positive("Exponential", "rate", rate)?;
        let inner = rand_distr::Exp::new(rate).map_err(|_| ParamError {
            distribution: "Exponential",
            parameter: "rate",
            value: rate,
            allowed: "a finite number > 0",
        })?;
        Ok(Self { rate, inner })
    }

    /// The rate.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// `1 / rate`.
    pub fn mean(&self) -> f64 {
        self.rate.recip()
    }

    /// The mode, `0`.
    pub fn mode(&self) -> f64 {
        0.0
    }

    /// `1 / rate²`.
    pub fn variance(&self) -> f64 {
        (self.rate * self.rate).recip()
    }

    /// `ln(rate) − rate·x` for `x >= 0`.
    pub fn ln_pdf(&self, x: f64) -> f64 {
        if x < 0.0 { f64::NEG_INFINITY } else { self.rate.ln() - self.rate * x }
    }

    /// `1 − e^{−rate·x}`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 { 0.0 } else { -(-self.rate * x).exp_m1() }
    }
}

impl Distribution<f64> for Exponential {
    /// Ziggurat, via `rand_distr`.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.inner.sample(rng)
    }
}
