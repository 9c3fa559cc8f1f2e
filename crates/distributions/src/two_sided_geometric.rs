//! The two-sided geometric distribution `2Geo(α)`: the noise of the geometric mechanism.

use crate::error::{ParamError, check, positive};
use crate::{Exponential, Skellam};
use rand::Rng;
use rand::distr::Distribution;
use rand_distr::Geometric;

/// `2Geo(α)`: `P(τ) = (1−α)/(1+α) · α^{|τ|}`, `τ ∈ ℤ`, for `α ∈ [0, 1)` (eq. 4 of Schein et al.
/// 2019). `α` is the mechanism's noise level — neither a rate nor a scale; `α = 0` is no noise.
/// Adding `2Geo(α)` noise to each count is `(N, ε)`-private with `ε = N ln(1/α)` (Theorem 2.4;
/// see [`epsilon_from_alpha`]).
///
/// ```
/// use distributions::{TwoSidedGeometric, stream};
/// use rand::distr::Distribution;
/// let noise = TwoSidedGeometric::new(0.5).unwrap();
/// assert!((noise.pmf(0) - 1.0 / 3.0).abs() < 1e-15);
/// let tau: i64 = noise.sample(&mut stream(1, 0));
/// # let _ = tau;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoSidedGeometric {
    alpha: f64,
    geometric: Geometric,
}

impl TwoSidedGeometric {
    /// `2Geo(alpha)`; errors unless `0 <= alpha < 1`.
    pub fn new(alpha: f64) -> Result<Self, ParamError> {
        let alpha = check("TwoSidedGeometric", "alpha", alpha, "a number in [0, 1)", (0.0..1.0).contains(&alpha))?;
        // Geometric(p) counts failures before the first success: P(k) = (1−p)^k p, so p = 1 − α.
        let geometric = Geometric::new(1.0 - alpha).map_err(|_| ParamError {
            distribution: "TwoSidedGeometric",
            parameter: "alpha",
            value: alpha,
            allowed: "a number in [0, 1)",
        })?;
        Ok(Self { alpha, geometric })
    }

    /// The noise level `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// `ln P(τ) = ln(1−α) − ln(1+α) + |τ| ln α` (with `0^0 = 1` when `α = 0`).
    pub fn ln_pmf(&self, tau: i64) -> f64 {
        let k = tau.unsigned_abs() as f64;
        let tail = if k == 0.0 { 0.0 } else { k * self.alpha.ln() };
        (-self.alpha).ln_1p() - self.alpha.ln_1p() + tail
    }

    /// `P(τ)`.
    pub fn pmf(&self, tau: i64) -> f64 {
        self.ln_pmf(tau).exp()
    }

    /// `0` (symmetric).
    pub fn mean(&self) -> f64 {
        0.0
    }

    /// `2α / (1−α)²`, twice the variance of a geometric count.
    pub fn variance(&self) -> f64 {
        2.0 * self.alpha / (1.0 - self.alpha).powi(2)
    }

    /// `0`.
    pub fn mode(&self) -> i64 {
        0
    }

    /// The mean `α/(1−α)` of the exponential rates `λ₁, λ₂` of Theorem 3.1 (their **rate** is
    /// `(1−α)/α`).
    pub fn augmentation_mean(&self) -> f64 {
        self.alpha / (1.0 - self.alpha)
    }

    /// The augmented sampler of Theorem 3.1 (eq. 10): `λ₁, λ₂ ~ Exp(mean α/(1−α))`,
    /// `τ = Pois(λ₁) − Pois(λ₂)`. Same law as [`Distribution::sample`]; returns `(τ, λ₁, λ₂)`.
    pub fn sample_augmented<R: Rng + ?Sized>(&self, rng: &mut R) -> (i64, f64, f64) {
        if self.alpha == 0.0 {
            return (0, 0.0, 0.0);
        }
        // α ∈ (0, 1) here, so the rate (1−α)/α is finite and positive.
        let Ok(exp) = Exponential::new((1.0 - self.alpha) / self.alpha) else {
            unreachable!("alpha in (0, 1) gives a finite positive rate")
        };
        let (l1, l2) = (exp.sample(rng), exp.sample(rng));
        // λ is a finite draw from an exponential with mean α/(1−α) < 1.8e19: always a valid rate.
        let Ok(skellam) = Skellam::new(l1, l2) else { unreachable!("exponential draws are finite and >= 0") };
        (skellam.sample(rng), l1, l2)
    }
}

impl Distribution<i64> for TwoSidedGeometric {
    /// The difference of two independent geometric counts `g₁ − g₂`, `P(g) = (1−α) α^g`
    /// (eq. 28 of Schein et al. 2019): exact.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        let g1 = self.geometric.sample(rng);
        let g2 = self.geometric.sample(rng);
        g1 as i64 - g2 as i64
    }
}

/// `ε = N ln(1/α)`: the privacy level of the geometric mechanism with noise level `α` for
/// observations that differ by at most `N` in L1 norm (Theorem 2.4, eq. 6). Errors unless
/// `α ∈ (0, 1)` and `N > 0`; `α = 0` would be `ε = ∞` (no privacy).
pub fn epsilon_from_alpha(alpha: f64, precision_n: f64) -> Result<f64, ParamError> {
    let alpha = check("geometric mechanism", "alpha", alpha, "a number in (0, 1)", alpha > 0.0 && alpha < 1.0)?;
    let n = positive("geometric mechanism", "N", precision_n)?;
    Ok(-n * alpha.ln())
}

/// `α = exp(−ε/N)`: the noise level that gives `(N, ε)`-limited-precision local privacy
/// (inverse of eq. 6). Errors unless `ε > 0` and `N > 0` are finite.
pub fn alpha_from_epsilon(epsilon: f64, precision_n: f64) -> Result<f64, ParamError> {
    let epsilon = positive("geometric mechanism", "epsilon", epsilon)?;
    let n = positive("geometric mechanism", "N", precision_n)?;
    Ok((-epsilon / n).exp())
}
