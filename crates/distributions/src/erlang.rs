//! Gamma variates with an integer shape (Erlang), the `λ | g` conditional of the private sampler.

use crate::error::{ParamError, check, positive};
use rand::distr::{Distribution, OpenClosed01};
use rand::{Rng, RngExt};

/// Shapes up to this are drawn as `−ln(U₁⋯U_k)/rate`; larger ones by `rand_distr::Gamma`.
const PRODUCT_MAX_SHAPE: u64 = 4;

/// `Erlang(shape, rate) = Gamma(shape, rate)` with an integer `shape ≥ 1`: density
/// `rate^k x^{k−1} e^{−rate·x} / (k−1)!`, mean `k/rate`. Takes a **rate**.
///
/// Exact in both regimes: a sum of `k` independent `Exp(rate)` variables is `Gamma(k, rate)`, and
/// for `k ≤ 4` the sum is drawn as `−ln(U₁⋯U_k)/rate` with `U_i ∈ (0, 1]` (one logarithm); beyond
/// that Marsaglia–Tsang via `rand_distr`. It serves the locally private sampler's
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
        check("Erlang", "shape", shape as f64, "an integer >= 1", shape >= 1)?;
        let rate = positive("Erlang", "rate", rate)?;
        let large = if shape > PRODUCT_MAX_SHAPE {
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

    /// `k / rate`.
    pub fn mean(&self) -> f64 {
        self.shape as f64 / self.rate
    }
}

impl Distribution<f64> for Erlang {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.large {
            Some(gamma) => gamma.sample(rng),
            None => {
                let mut product: f64 = rng.sample(OpenClosed01);
                for _ in 1..self.shape {
                    product *= rng.sample::<f64, _>(OpenClosed01);
                }
                -product.ln() / self.rate
            }
        }
    }
}
