//! Gamma variates with an integer shape (Erlang), the `λ | g` conditional of the private sampler.

use crate::error::{ParamError, check, positive};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use rand_distr::Exp1;

/// Shapes up to this are drawn as sums of `Exp(1)` variables; larger ones by `rand_distr::Gamma`.
const SUM_MAX_SHAPE: u64 = 4;

/// `Erlang(shape, rate) = Gamma(shape, rate)` with an integer `shape ≥ 1`: density
/// `rate^k x^{k−1} e^{−rate·x} / (k−1)!`, mean `k/rate`. Takes a **rate**.
///
/// Exact in both regimes: a sum of `k` independent `Exp(rate)` variables is `Gamma(k, rate)`, and
/// for `k ≤ 4` the sum is drawn as `(E₁ + … + E_k)/rate` with `E_i ~ Exp(1)` by `rand_distr`'s
/// ziggurat (no logarithm on its fast path); beyond that Marsaglia–Tsang via `rand_distr`. It serves the locally private sampler's
/// `λ_nl | g_nl ~ Gamma(1 + g_nl, 1/α)`, where `g_nl` is almost always 0, 1 or 2.
///
/// ```
/// use distributions::{Erlang, stream};
/// use rand::distr::Distribution;
/// let e = Erlang::new(3, 2.0).unwrap(); // mean 1.5
/// assert_eq!(e.mean(), 1.5);
/// assert!(e.sample(&mut stream(1, 0)) > 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Erlang {
    shape: u64,
    rate: f64,
    large: Option<rand_distr::Gamma<f64>>,
}

impl Erlang {
    /// `Erlang(shape, rate)`; errors unless `shape ≥ 1` and `rate` is finite and `> 0`.
    pub fn new(shape: u64, rate: f64) -> Result<Self, ParamError> {
        let rate = checked(shape, rate)?;
        let large = if shape > SUM_MAX_SHAPE {
            let gamma = rand_distr::Gamma::new(shape as f64, rate.recip()).map_err(|_| ParamError {
                distribution: "Erlang",
                parameter: "rate",
                value: rate,
                allowed: "1/rate finite",
            })?;
            Some(gamma)
        } else {
            None
        };
        Ok(Self { shape, rate, large })
    }

    /// One draw from `Erlang(shape, rate)`, the same as `Erlang::new(shape, rate)?.sample(rng)`
    /// bit for bit and with the same errors, without building the distribution (the private
    /// Gibbs step draws two per entry, almost all with `shape <= 3`).
    #[inline(always)]
    pub fn sample_once<R: Rng + ?Sized>(shape: u64, rate: f64, rng: &mut R) -> Result<f64, ParamError> {
        if shape > SUM_MAX_SHAPE {
            return Ok(Self::new(shape, rate)?.sample(rng));
        }
        Ok(sum_of_exponentials(shape, checked(shape, rate)?, rng))
    }

    /// `k / rate`.
    pub fn mean(&self) -> f64 {
        self.shape as f64 / self.rate
    }
}

impl Distribution<f64> for Erlang {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.large {
            Some(gamma) => gamma.sample(rng),
            None => sum_of_exponentials(self.shape, self.rate, rng),
        }
    }
}

/// The checks of [`Erlang::new`]: `shape >= 1`, then `rate` finite and `> 0` (returned).
#[inline(always)]
fn checked(shape: u64, rate: f64) -> Result<f64, ParamError> {
    check("Erlang", "shape", shape as f64, "an integer >= 1", shape >= 1)?;
    positive("Erlang", "rate", rate)
}

/// `(E₁ + … + E_k)/rate` with `E_i ~ Exp(1)`, summed in order.
#[inline(always)]
fn sum_of_exponentials<R: Rng + ?Sized>(shape: u64, rate: f64, rng: &mut R) -> f64 {
    (0..shape).map(|_| rng.sample::<f64, _>(Exp1)).sum::<f64>() / rate
}
