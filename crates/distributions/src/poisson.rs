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
        let rate = check("Poisson", "rate", rate, "a finite number in [0, 1.8e19]", Self::accepts(rate))?;
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

    /// Whether [`Poisson::new`] accepts `rate`: finite and in `[0, 1.8e19]` (the sampler's limit).
    pub fn accepts(rate: f64) -> bool {
        rate.is_finite() && (0.0..=rand_distr::Poisson::<f64>::MAX_LAMBDA).contains(&rate)
    }

    /// `ln P(k)` of `Pois(rate)` without building a sampler (whose set-up costs an `exp` or a
    /// `ln` per rate): for a likelihood summed over many cells. `−∞` where [`Poisson::new`] would
    /// refuse the rate, as a likelihood that rules it out.
    pub fn ln_pmf_at(rate: f64, k: u64) -> f64 {
        if Self::accepts(rate) { poisson_ln_pmf(k, rate) } else { f64::NEG_INFINITY }
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

#[cfg(test)]
mod tests {
    use super::Poisson;

    /// `ln_pmf_at` is `new(rate)?.ln_pmf(k)` where the rate is valid and `−∞` where it is not.
    #[test]
    fn ln_pmf_at_agrees_with_a_built_poisson_and_refuses_what_new_refuses() {
        for rate in [0.0, 1e-12, 0.7, 12.0, 3e5, 1.8e19] {
            for k in [0, 1, 5, 40, 2000] {
                let built = Poisson::new(rate).map(|p| p.ln_pmf(k));
                assert_eq!(built.map(f64::to_bits).ok(), Some(Poisson::ln_pmf_at(rate, k).to_bits()), "{rate} {k}");
            }
        }
        for rate in [-1e-300, -1.0, f64::NAN, f64::INFINITY, 2e19] {
            assert!(Poisson::new(rate).is_err());
            assert_eq!(Poisson::ln_pmf_at(rate, 3), f64::NEG_INFINITY, "{rate}");
        }
    }
}
