//! Poisson counts: `rand_distr::Poisson` for sampling, Loader's saddle-point form for the log-pmf.

use crate::error::{ParamError, check};
use crate::ln_gamma::{bd0, stirling_correction};
use rand::Rng;
use rand::distr::Distribution;

/// `Pois(rate)`: `P(k) = rate^k e^{−rate} / k!`; the **rate** is the mean. `rate = 0` is the point
/// mass at 0 (it arises for empty factors and exact, noise-free entries).
///
/// ```
/// use distributions::{Poisson, stream};
/// use rand::distr::Distribution;
/// let k: u64 = Poisson::new(4.5).unwrap().sample(&mut stream(3, 0));
/// # let _ = k;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Poisson {
    rate: f64,
    inner: Option<rand_distr::Poisson<f64>>,
}

impl Poisson {
    /// `Pois(rate)`; errors unless `0 <= rate <= 1.8e19` (the sampler's limit).
    pub fn new(rate: f64) -> Result<Self, ParamError> {
        let ok = rate.is_finite() && (0.0..=rand_distr::Poisson::<f64>::MAX_LAMBDA).contains(&rate);
        let rate = check("Poisson", "rate", rate, "a finite number in [0, 1.8e19]", ok)?;
        Ok(Self { rate, inner: rand_distr::Poisson::new(rate).ok() })
    }

    /// The rate (mean).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// `ln P(k) = k ln(rate) − rate − ln k!`, in Loader's (2000) saddle-point form (the crate's
    /// `poisson_ln_pmf`), accurate to a few ulps of the result even at rates of `1e6` and more.
    pub fn ln_pmf(&self, k: u64) -> f64 {
        poisson_ln_pmf(k, self.rate)
    }

    /// `P(k)`.
    pub fn pmf(&self, k: u64) -> f64 {
        self.ln_pmf(k).exp()
    }

    /// The mean, `rate`.
    pub fn mean(&self) -> f64 {
        self.rate
    }

    /// The mode `⌊rate⌋` (when `rate` is a positive integer, `rate − 1` is a mode too).
    pub fn mode(&self) -> u64 {
        self.rate.floor() as u64
    }

    /// The variance, `rate`.
    pub fn variance(&self) -> f64 {
        self.rate
    }
}

impl Distribution<u64> for Poisson {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        // rand_distr's Poisson returns the count as a float holding an integer value.
        self.inner.map_or(0, |p| p.sample(rng) as u64)
    }
}

/// `ln Pois(k; rate)` as `−c(k) − bd0(k, rate) − ½ ln(2πk)` (Loader 2000, "Fast and accurate
/// computation of binomial probabilities"), with `c` the Stirling remainder. The textbook form adds
/// and cancels terms of size `k ln rate`, losing `log10(k ln rate)` digits; this one has no large
/// terms to cancel.
pub(crate) fn poisson_ln_pmf(k: u64, rate: f64) -> f64 {
    if k == 0 {
        return -rate;
    }
    let k = k as f64;
    -stirling_correction(k) - bd0(k, rate) - 0.5 * (std::f64::consts::TAU * k).ln()
}
