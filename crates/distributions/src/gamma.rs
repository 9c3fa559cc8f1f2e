//! Gamma variates in the **shape–rate** parameterisation, over `rand_distr::Gamma` (which takes a
//! scale) and `statrs::distribution::Gamma` (which takes a rate).

use crate::error::{ParamError, positive};
use rand::Rng;
use rand::distr::Distribution;
use statrs::distribution::{Continuous, ContinuousCDF};

/// `Gamma(shape, rate)`: density `rate^shape x^{shape−1} e^{−rate·x} / Γ(shape)`, `x > 0`;
/// mean `shape/rate`. This is the `Γ(a₀, b₀)` of the Poisson-factorization priors (`b₀` a rate).
///
/// ```
/// use distributions::{Gamma, stream};
/// use rand::distr::Distribution;
/// let g = Gamma::new(2.0, 4.0).unwrap(); // mean 0.5
/// assert_eq!(g.mean(), 0.5);
/// let x: f64 = g.sample(&mut stream(5, 0));
/// assert!(x > 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gamma {
    shape: f64,
    rate: f64,
    inner: rand_distr::Gamma<f64>,
}

impl Gamma {
    /// `Gamma(shape, rate)`; errors unless both are finite and `> 0`.
    pub fn new(shape: f64, rate: f64) -> Result<Self, ParamError> {
        let shape = positive("Gamma", "shape", shape)?;
        let rate = positive("Gamma", "rate", rate)?;
        let scale = rate.recip();
        let inner = rand_distr::Gamma::new(shape, scale).map_err(|_| ParamError {
            distribution: "Gamma",
            parameter: "rate",
            value: rate,
            allowed: "1/rate finite",
        })?;
        Ok(Self { shape, rate, inner })
    }

    /// The shape.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// The rate (inverse scale).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// `shape / rate`.
    pub fn mean(&self) -> f64 {
        self.shape / self.rate
    }

    /// The mode `(shape − 1)/rate` when `shape >= 1`; `None` for `shape < 1`, where the density
    /// is unbounded at 0.
    pub fn mode(&self) -> Option<f64> {
        (self.shape >= 1.0).then(|| (self.shape - 1.0) / self.rate)
    }

    /// `shape / rate²`.
    pub fn variance(&self) -> f64 {
        self.shape / (self.rate * self.rate)
    }

    fn exact(&self) -> statrs::distribution::Gamma {
        match statrs::distribution::Gamma::new(self.shape, self.rate) {
            Ok(g) => g,
            Err(_) => unreachable!("shape and rate were validated finite and > 0"),
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

impl Distribution<f64> for Gamma {
    /// Marsaglia & Tsang (2000), via `rand_distr`.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.inner.sample(rng)
    }
}
