//! The gamma prior `Gamma(a₀, b₀)` (shape, **rate**) on every factor.

use distributions::Gamma;
use rand::Rng;
use rand::distr::Distribution;
use std::fmt;

/// `Gamma(a₀, b₀)` with shape `a₀` and **rate** `b₀` (mean `a₀/b₀`), the prior of every factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GammaPrior {
    shape: f64,
    rate: f64,
}

/// The range allowed for `a₀` and `b₀`: every prior mean `a₀/b₀` (1e-12 … 1e12), scale `1/b₀` and
/// conjugate update stays finite and representable, which `(0, ∞)` alone does not guarantee
/// (`b₀ = 5e-324` has an infinite scale; `a₀ = 1e308` overflows the rates).
pub const HYPERPARAMETER_RANGE: (f64, f64) = (1e-6, 1e6);

/// A prior hyperparameter outside [`HYPERPARAMETER_RANGE`].
#[derive(Clone, Debug, PartialEq)]
pub struct PriorError {
    /// `"a0 (shape)"` or `"b0 (rate)"`.
    pub parameter: &'static str,
    /// The rejected value.
    pub value: f64,
}

impl fmt::Display for PriorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = HYPERPARAMETER_RANGE;
        write!(
            f,
            "gamma prior {} = {} is not allowed: it must be a number from {lo:e} to {hi:e}",
            self.parameter, self.value
        )
    }
}

impl std::error::Error for PriorError {}

/// Every `(parameter, value)` in [`HYPERPARAMETER_RANGE`], else the first that is not.
fn check_range(parameters: [(&'static str, f64); 2]) -> Result<(), PriorError> {
    let (lo, hi) = HYPERPARAMETER_RANGE;
    match parameters.into_iter().find(|(_, value)| !(lo..=hi).contains(value)) {
        Some((parameter, value)) => Err(PriorError { parameter, value }),
        None => Ok(()),
    }
}

/// A `Gamma(shape, rate)` draw floored at the smallest positive normal number (see
/// [`GammaPrior::draw`]; an invalid shape or rate, which the callers' checks rule out, gives the
/// floor).
fn floored_draw<R: Rng + ?Sized>(shape: f64, rate: f64, rng: &mut R) -> f64 {
    Gamma::new(shape, rate).map_or(f64::MIN_POSITIVE, |g| g.sample(rng)).max(f64::MIN_POSITIVE)
}

impl GammaPrior {
    /// `Gamma(shape a₀, rate b₀)`; both in [`HYPERPARAMETER_RANGE`].
    pub fn new(shape: f64, rate: f64) -> Result<Self, PriorError> {
        check_range([("a0 (shape)", shape), ("b0 (rate)", rate)])?;
        Ok(Self { shape, rate })
    }

    /// `a₀`.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// `b₀` (a rate).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// `ln Gamma(x; a₀, b₀)`.
    pub fn ln_pdf(&self, x: f64) -> f64 {
        self.conditional(0.0, 0.0).ln_pdf(x)
    }

    /// The conjugate conditional `Gamma(a₀ + count, b₀ + exposure)` of a factor whose Poisson
    /// likelihood has total count `count` and total exposure (sum of the rates it multiplies)
    /// `exposure`.
    pub fn conditional(&self, count: f64, exposure: f64) -> Gamma {
        Gamma::new(self.shape + count, self.rate + exposure.max(0.0)).expect("shape, rate > 0 by construction")
    }

    /// `ln Gamma(x; a₀, rate)`: the factor prior with its rate given (a hierarchical prior's row
    /// or column rate, [`ScalePrior`]).
    pub fn ln_pdf_at_rate(&self, x: f64, rate: f64) -> f64 {
        Gamma::new(self.shape, rate).map_or(f64::NEG_INFINITY, |g| g.ln_pdf(x))
    }

    /// A draw from `Gamma(a₀ + count, rate + exposure)`: [`GammaPrior::draw`] with the factor's
    /// rate given (a hierarchical prior's row or column rate), floored the same way.
    pub fn draw_at_rate<R: Rng + ?Sized>(&self, count: f64, rate: f64, exposure: f64, rng: &mut R) -> f64 {
        floored_draw(self.shape + count, rate + exposure.max(0.0), rng)
    }

    /// A draw from [`GammaPrior::conditional`], floored at the smallest positive normal number:
    /// with `a₀ ≪ 1` a gamma draw underflows to 0 with non-negligible probability (`P(x < 1e-300)
    /// ≈ 1e-3` at `a₀ = 0.01`), and an exact 0 would make a log-density infinite. The floor moves
    /// less than `1e-300` of probability.
    pub fn draw<R: Rng + ?Sized>(&self, count: f64, exposure: f64, rng: &mut R) -> f64 {
        self.conditional(count, exposure).sample(rng).max(f64::MIN_POSITIVE)
    }
}

/// The prior of the rate `ξ` shared by one row's (or one column's) factors in a hierarchical
/// gamma prior (hierarchical Poisson factorization, Gopalan, Hofman & Blei 2015, §2):
/// `θ_dk ~ Gamma(a₀, ξ_d)` (shape, **rate**), `ξ_d ~ Gamma(a', κ)` (shape `a'`, **rate** `κ`).
/// The scale of each row's factors is then learned from its counts instead of being fixed by `b₀`.
/// Given the row's `K` factors the rate is conjugate: `ξ_d | θ_d ~ Gamma(a' + K a₀, κ + Σ_k θ_dk)`.
///
/// The rates' own rate `κ` is either fixed at `a'/b'` (so `E[ξ_d] = b'`, as in that paper), or
/// **learned** ([`ScalePrior::with_learned_mean`]) with the prior `κ ~ Gamma(c, rate c b'/a')` (mean
/// `a'/b'`; `lppf fit` uses `c = 1`, an exponential), conjugate given the `G` rates:
/// `κ | ξ ~ Gamma(c + G a', c b'/a' + Σ_g ξ_g)`.
/// A learned `κ` moves every row's scale together, which the per-row rates alone cannot do cheaply:
/// with `b'` fixed, a table whose counts are 30 times smaller than `b'` implies needs every `ξ_d`
/// thirty times its prior mean (docs/model-checking.md, "A learned scale").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalePrior {
    shape: f64,
    mean: f64,
    /// The shape `c` of a learned `κ`'s prior; `None`: `κ = a'/b'`.
    learned: Option<f64>,
}

impl ScalePrior {
    /// `ξ ~ Gamma(a', rate a'/b')`: shape `a'` and mean `b'`, both in [`HYPERPARAMETER_RANGE`].
    pub fn new(shape: f64, mean: f64) -> Result<Self, PriorError> {
        check_range([("a' (shape of the row and column rates)", shape), ("b' (their mean)", mean)])?;
        Ok(Self { shape, mean, learned: None })
    }

    /// The same prior with the rates' rate `κ` learned, `κ ~ Gamma(c, rate c b'/a')` with `c` =
    /// `kappa_shape` in [`HYPERPARAMETER_RANGE`]: `b'` is then the prior guess of the rates' mean,
    /// not their mean, and `c` says how firmly (`c = 1`, an exponential, is vague; a large `c`
    /// pins `κ` near `a'/b'`).
    pub fn with_learned_mean(self, kappa_shape: f64) -> Result<Self, PriorError> {
        check_range([("c (shape of the rates' rate)", kappa_shape), ("b' (their mean)", self.mean)])?;
        Ok(Self { learned: Some(kappa_shape), ..self })
    }

    /// `true` if `κ` is learned.
    pub fn learns_mean(&self) -> bool {
        self.learned.is_some()
    }

    /// `a'`.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// `b'`, the prior mean of a rate (with a learned `κ`: its prior guess).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// `a'/b'`: the fixed rate `κ` of the rates' gamma prior, or the prior mean of a learned one.
    pub fn rate(&self) -> f64 {
        self.shape / self.mean
    }

    /// `ln Gamma(ξ; a', κ)`.
    pub fn ln_pdf(&self, xi: f64, kappa: f64) -> f64 {
        Gamma::new(self.shape, kappa).map_or(f64::NEG_INFINITY, |g| g.ln_pdf(xi))
    }

    /// A draw of `ξ | factors ~ Gamma(a' + K a₀, κ + Σ_k factors_k)` (`factors` empty: the prior
    /// `Gamma(a', κ)`), floored at the smallest positive normal number.
    pub fn draw<R: Rng + ?Sized>(&self, kappa: f64, factor_shape: f64, factors: &[f64], rng: &mut R) -> f64 {
        let shape = self.shape + factors.len() as f64 * factor_shape;
        floored_draw(shape, kappa + factors.iter().sum::<f64>(), rng)
    }

    /// The learned `κ`'s prior `Gamma(c, c b'/a')` given the rates `rates` (empty: the prior), as
    /// `(shape, rate)`: `(c + G a', c b'/a' + Σ_g ξ_g)` (`c = 1` if `κ` is not learned).
    pub fn kappa_conditional(&self, rates: &[f64]) -> (f64, f64) {
        let c = self.learned.unwrap_or(1.0);
        (c + rates.len() as f64 * self.shape, c / self.rate() + rates.iter().sum::<f64>())
    }

    /// A draw of the learned `κ` from [`ScalePrior::kappa_conditional`], floored like [`ScalePrior::draw`].
    pub fn draw_kappa<R: Rng + ?Sized>(&self, rates: &[f64], rng: &mut R) -> f64 {
        let (shape, rate) = self.kappa_conditional(rates);
        floored_draw(shape, rate, rng)
    }

    /// `ln Gamma(κ; c, c b'/a')`, the learned `κ`'s prior.
    pub fn ln_kappa_pdf(&self, kappa: f64) -> f64 {
        let (shape, rate) = self.kappa_conditional(&[]);
        Gamma::new(shape, rate).map_or(f64::NEG_INFINITY, |g| g.ln_pdf(kappa))
    }
}
