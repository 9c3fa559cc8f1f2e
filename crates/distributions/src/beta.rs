//! Beta variates, over `rand_distr::Beta` (sampling) and `statrs` (density, cdf).

use crate::error::{ParamError, positive};
use rand::Rng;
use rand::distr::Distribution;
use statrs::distribution::{Continuous, ContinuousCDF};

/// `Beta(a, b)`: density `x^{a−1}(1−x)^{b−1} / B(a, b)` on `(0, 1)`, both shapes `> 0`; mean
/// `a/(a+b)`. Used for per-row noise levels `α_d ~ Beta` (§5.2 of Schein et al.).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beta {
    a: f64,
    b: f64,
    inner: rand_distr::Beta<f64>,
}

impl Beta {
    /// `Beta(a, b)`; errors unless both shapes are finite and `> 0`.
    pub fn new(a: f64, b: f64) -> Result<Self, ParamError> {
        let a = positive("Beta", "a", a)?;
        let b = positive("Beta", "b", b)?;
        let inner = rand_distr::Beta::new(a, b).map_err(|_| ParamError {
            distribution: "Beta",
            parameter: "a",
            value: a,
            allowed: "a finite number > 0",
        })?;
        Ok(Self { a, b, inner })
    }

    /// `a / (a + b)`.
    pub fn mean(&self) -> f64 {
        self.a / (self.a + self.b)
    }

    /// The mode `(a−1)/(a+b−2)` when `a, b > 1`; `None` otherwise (the density is then unbounded at
    /// an end, U-shaped, or flat).
    pub fn mode(&self) -> Option<f64> {
        (self.a > 1.0 && self.b > 1.0).then(|| (self.a - 1.0) / (self.a + self.b - 2.0))
    }

    /// `ab / ((a+b)²(a+b+1))`.
    pub fn variance(&self) -> f64 {
        let s = self.a + self.b;
        self.a * self.b / (s * s * (s + 1.0))
    }

    fn exact(&self) -> statrs::distribution::Beta {
        match statrs::distribution::Beta::new(self.a, self.b) {
            Ok(d) => d,
            Err(_) => unreachable!("shapes were validated finite and > 0"),
        }
    }

    /// The log-density (statrs).
    pub fn ln_pdf(&self, x: f64) -> f64 {
        self.exact().ln_pdf(x)
    }

    /// The cumulative distribution function (statrs).
    pub fn cdf(&self, x: f64) -> f64 {
        self.exact().cdf(x)
    }
}

impl Distribution<f64> for Beta {
    /// Cheng (1978), via `rand_distr`.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.inner.sample(rng)
    }
}
