//! How a cell's count spreads about its mean: the multiplier of the overdispersed likelihoods.

use crate::Gamma;
use rand::Rng;
use rand::distr::Distribution;

/// The law of a cell's multiplier `δ` in `y ~ Pois(μ δ)`: with probability `share` (`π`)
/// `δ ~ Gamma(shape, rate shape)` (`r`; mean 1), else `δ = 1`. So the count is
///
/// `p(y | μ) = (1 − π) Pois(y; μ) + π NB(y; r, μ)`,
///
/// mean `μ` and variance `μ + π μ²/r`. `π = 1` is the negative binomial `NB(r, μ)` (Zhou & Carin
/// 2015, §2); `π < 1` is the contaminated form, where only some cells are overdispersed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellDispersion {
    /// `r > 0`, the gamma multiplier's shape (and rate).
    pub shape: f64,
    /// `π ∈ [0, 1]`, the probability that a cell is overdispersed.
    pub share: f64,
}

impl CellDispersion {
    /// The negative binomial `NB(r, μ)`: every cell overdispersed (`π = 1`).
    pub fn negative_binomial(shape: f64) -> Self {
        Self { shape, share: 1.0 }
    }

    /// The variance of a count with mean `μ`: `μ + π μ²/r`.
    pub fn variance(&self, mean: f64) -> f64 {
        mean + self.share * mean * mean / self.shape
    }

    /// One multiplier `δ`. With `π = 1` it draws only the gamma variate, so the negative binomial
    /// consumes its stream as it always has; an invalid shape gives `None`.
    pub fn draw_multiplier<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<f64> {
        if self.share < 1.0 {
            let u: f64 = rand::RngExt::sample(rng, rand::distr::StandardUniform);
            if u >= self.share {
                return Some(1.0);
            }
        }
        Gamma::new(self.shape, self.shape).ok().map(|g| g.sample(rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Streams;

    /// The multipliers' share of exact ones and their mean and variance match the law's
    /// (fixed seed; 200,000 draws, tolerances of 5 standard errors).
    #[test]
    fn multipliers_follow_the_mixture() {
        let law = CellDispersion { shape: 2.0, share: 0.3 };
        let mut rng = Streams::new(3).rng();
        let draws: Vec<f64> = (0..200_000).map(|_| law.draw_multiplier(&mut rng).unwrap()).collect();
        let n = draws.len() as f64;
        let ones = draws.iter().filter(|&&d| d == 1.0).count() as f64 / n;
        assert!((ones - 0.7).abs() < 5.0 * (0.7f64 * 0.3 / n).sqrt(), "{ones}");
        let mean = draws.iter().sum::<f64>() / n;
        // Var δ = π/r = 0.15 (the count's extra variance μ² Var δ).
        let var = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n;
        assert!((mean - 1.0).abs() < 5.0 * (0.15f64 / n).sqrt(), "{mean}");
        assert!((var - 0.15).abs() < 0.01, "{var}");
        assert_eq!(law.variance(2.0), 2.0 + 0.3 * 4.0 / 2.0);
    }

    /// With `π = 1` a multiplier is the gamma draw and nothing else: the same stream as before.
    #[test]
    fn the_negative_binomial_draws_only_the_gamma() {
        let law = CellDispersion::negative_binomial(0.5);
        let (mut a, mut b) = (Streams::new(9).rng(), Streams::new(9).rng());
        let gamma = Gamma::new(0.5, 0.5).unwrap();
        for _ in 0..100 {
            assert_eq!(law.draw_multiplier(&mut a), Some(gamma.sample(&mut b)));
        }
    }
}
