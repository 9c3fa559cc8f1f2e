//! Binomial counts, over `rand_distr::Binomial`.

use crate::error::{ParamError, probability};
use crate::ln_gamma::{bd0, stirling_correction};
use rand::distr::{Distribution, StandardUniform};
use rand::{Rng, RngExt};

/// `Binom(n, p)`: `P(k) = C(n,k) p^k (1−p)^{n−k}`, `k = 0..=n`, `p ∈ [0, 1]`. The thinning step
/// `y ~ Binom(ỹ⁺, μ/(μ+λ₁))` (eq. 15 of Schein et al. 2019).
///
/// For `n ≤ 64` construction costs nothing beyond the check of `p`; larger totals set up
/// `rand_distr`'s sampler once, here. See [`Binomial::sample`] for the two samplers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Binomial {
    n: u64,
    p: f64,
    /// `rand_distr`'s BINV/BTPE sampler, for `n > 64` only.
    large: Option<rand_distr::Binomial>,
}

/// Totals up to this are drawn by inversion ([`Binomial::sample`]): with `p ≤ ½` after the flip,
/// `qⁿ ≥ 2⁻⁶⁴`, far from underflow, and `powi` is a handful of multiplications.
const INVERSION_MAX_N: u64 = 64;

impl Binomial {
    /// `Binom(n, p)`; errors unless `p ∈ [0, 1]`.
    pub fn new(n: u64, p: f64) -> Result<Self, ParamError> {
        let p = probability("Binomial", "p", p)?;
        let large = if n > INVERSION_MAX_N {
            let inner = rand_distr::Binomial::new(n, p).map_err(|_| ParamError {
                distribution: "Binomial",
                parameter: "p",
                value: p,
                allowed: "a number in [0, 1]",
            })?;
            Some(inner)
        } else {
            None
        };
        Ok(Self { n, p, large })
    }

    /// One draw from `Binom(n, p)`, the same as `Binomial::new(n, p)?.sample(rng)` bit for bit
    /// and with the same errors, without building the distribution: for `n <= 64` nothing but
    /// the check of `p` comes before the inversion (the private Gibbs step draws one per entry).
    #[inline(always)]
    pub fn sample_once<R: Rng + ?Sized>(n: u64, p: f64, rng: &mut R) -> Result<u64, ParamError> {
        if n > INVERSION_MAX_N {
            return Ok(Self::new(n, p)?.sample(rng));
        }
        Ok(sample_inversion(n, probability("Binomial", "p", p)?, rng))
    }

    /// `np`.
    pub fn mean(&self) -> f64 {
        self.n as f64 * self.p
    }

    /// The mode `min(⌊(n+1)p⌋, n)` (when `(n+1)p` is an integer in `1..=n`, one less is a mode too).
    pub fn mode(&self) -> u64 {
        (((self.n + 1) as f64 * self.p).floor() as u64).min(self.n)
    }

    /// `np(1−p)`.
    pub fn variance(&self) -> f64 {
        self.n as f64 * self.p * (1.0 - self.p)
    }

    /// `ln P(k)`; `−∞` outside `0..=n`. Loader's (2000) saddle-point form
    /// `c(n) − c(k) − c(n−k) − bd0(k, np) − bd0(n−k, nq) − ½ ln(2πk(n−k)/n)`, with Stirling's
    /// remainder `c` and `bd0(x, μ) = x φ((μ−x)/x)`, `φ(t) = t − ln(1+t)`: no large terms cancel,
    /// so it stays accurate to a few ulps for `n` in the millions.
    pub fn ln_pmf(&self, k: u64) -> f64 {
        if k > self.n {
            return f64::NEG_INFINITY;
        }
        let (n, p, q) = (self.n as f64, self.p, 1.0 - self.p);
        if self.n == 0 {
            return 0.0; // k = 0 = n: the point mass
        }
        if k == 0 || k == self.n {
            return n * if k == 0 { q } else { p }.ln(); // all failures, or all successes
        }
        let (k, rest) = (k as f64, (self.n - k) as f64);
        stirling_correction(n)
            - stirling_correction(k)
            - stirling_correction(rest)
            - bd0(k, n * p)
            - bd0(rest, n * q)
            - 0.5 * (std::f64::consts::TAU * k * rest / n).ln()
    }

    /// `P(k)`.
    pub fn pmf(&self, k: u64) -> f64 {
        self.ln_pmf(k).exp()
    }
}

impl Distribution<u64> for Binomial {
    /// Small totals (`n ≤ 64`, the private Gibbs step's `ỹ⁺` almost always): inversion by
    /// sequential search (BINV of Kachitvichyanukul & Schmeiser 1988) on `p' = min(p, 1−p)`
    /// (drawing `n − k` when flipped): one uniform `u`, then `P(0) = q'ⁿ` by `powi` and the pmf
    /// recursion `P(k+1) = P(k) · (n−k)/(k+1) · p'/q'`, subtracting until `u` falls below; the
    /// expected number of steps is `1 + np'`. No set-up with `pow`/`exp`/`ln`. If rounding leaves
    /// `u` above the summed mass (probability about `1e-16`), the draw starts again with a new
    /// uniform, so the result is exactly a draw from the computed pmf.
    ///
    /// Larger totals: BINV / BTPE via `rand_distr`.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match &self.large {
            Some(inner) => inner.sample(rng),
            None => sample_inversion(self.n, self.p, rng),
        }
    }
}

/// The inversion sampler of [`Binomial::sample`] for `n <= 64`.
#[inline(always)]
fn sample_inversion<R: Rng + ?Sized>(n: u64, p: f64, rng: &mut R) -> u64 {
    let flipped = p > 0.5;
    let small = if flipped { 1.0 - p } else { p };
    let q = 1.0 - small;
    let ratio = small / q;
    let at_zero = q.powi(n as i32);
    loop {
        let mut u: f64 = rng.sample(StandardUniform);
        let (mut k, mut pk) = (0u64, at_zero);
        while u >= pk && k < n {
            u -= pk;
            pk *= (n - k) as f64 / (k + 1) as f64 * ratio;
            k += 1;
        }
        if u < pk {
            return if flipped { n - k } else { k };
        }
    }
}
