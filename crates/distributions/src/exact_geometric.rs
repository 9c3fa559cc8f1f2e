//! An exact sampler of the two-sided geometric distribution (the discrete Laplace distribution):
//! integer and rational arithmetic only, after Canonne, Kamath & Steinke (2020), "The Discrete
//! Gaussian for Differential Privacy", Algorithms 1 and 2. This is the noise a person's own
//! release uses (`mechanism::privatize_release`); simulations keep the faster
//! [`TwoSidedGeometric`](crate::TwoSidedGeometric) sampler.
//!
//! `2Geo(α)`: `P(τ) ∝ α^{|τ|} = exp(−λ|τ|)` with `λ = ln(1/α) = ε/N`. The decay `λ` is taken as
//! the exact rational value of its double, `λ = s/t` with integers `s, t` (a double is
//! `m·2^e` exactly), and then every step is exact:
//!
//! 1. `U ~ Uniform{0, …, t−1}`; accept with probability `exp(−U/t)` (else restart);
//! 2. `V ~ Geometric` by repeated `Bernoulli(exp(−1))` (count the successes);
//! 3. `X = U + t·V` is geometric with decay `1/t`; `Y = ⌊X/s⌋` is geometric with decay `s/t = λ`;
//! 4. a fair sign `B`; restart if `B` is negative and `Y = 0` (so 0 is not counted twice);
//!    return `±Y`.
//!
//! `Bernoulli(exp(−γ))` for a rational `γ = a/b ∈ [0, 1]` (Algorithm 1): draw
//! `A_k ~ Bernoulli(γ/k)` for `k = 1, 2, …` until the first failure `K`; return `K` odd. Each
//! `Bernoulli(a/(b·k))` is one uniform integer in `[0, b·k)` compared with `a`. Uniform integers come
//! from rand's unbiased range sampling, so the output law is exactly `2Geo(exp(−s/t))` given
//! uniform random bits; `alpha()` reports that `α` (equal to the requested one to within an ulp
//! of `λ`).

use crate::error::ParamError;
use rand::distr::Distribution;
use rand::{Rng, RngExt};

/// The smallest and largest decay `λ = ln(1/α)` accepted: below `2^-24` (α above
/// `exp(−6·10⁻⁸)`) the noise's scale exceeds 1.6·10⁷ and released values could leave the 32-bit
/// range the inference code stores; above 708 the level `α = exp(−λ)` is no longer a normal
/// positive double (it would round to a subnormal or to 0, and a sidecar would state `α = 0`,
/// `ε = ∞`), so such a level is refused rather than recorded wrongly (issue 31). At `λ = 708`
/// the noise is zero with probability `1 − 2e^{−708}`: a release there protects nothing
/// in practice, but what it states is exact.
pub const MIN_DECAY: f64 = 1.0 / 16_777_216.0;
/// See [`MIN_DECAY`]: `exp(−708) ≈ 3.3·10⁻³⁰⁸ ≥ f64::MIN_POSITIVE`.
pub const MAX_DECAY: f64 = 708.0;

/// `2Geo(α)` sampled exactly (see the module documentation). `α` is the noise level, neither a
/// rate nor a scale; the decay `λ = ln(1/α)` is a rate per unit of `|τ|`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactTwoSidedGeometric {
    /// Numerator `s` of `λ = s/t`.
    s: u128,
    /// Denominator `t` of `λ = s/t`.
    t: u128,
}

impl ExactTwoSidedGeometric {
    /// The noise of level `alpha ∈ (0, 1)`, through `λ = −ln α` (rounded once, to a double).
    pub fn from_alpha(alpha: f64) -> Result<Self, ParamError> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(ParamError {
                distribution: "ExactTwoSidedGeometric",
                parameter: "alpha",
                value: alpha,
                allowed: "a number in (0, 1); alpha = 0 (no noise) is not a release",
            });
        }
        if -alpha.ln() > MAX_DECAY {
            return Err(ParamError {
                distribution: "ExactTwoSidedGeometric",
                parameter: "alpha",
                value: alpha,
                allowed: "at least about exp(-708) = 3.3e-308 (ln(1/alpha) <= 708: a normal positive double), and below 1",
            });
        }
        Self::from_decay(-alpha.ln())
    }

    /// The noise with decay `λ = ln(1/α) = ε/N`, taken exactly as the double given; `λ` must lie
    /// in [[`MIN_DECAY`], [`MAX_DECAY`]].
    pub fn from_decay(decay: f64) -> Result<Self, ParamError> {
        if !(MIN_DECAY..=MAX_DECAY).contains(&decay) {
            return Err(ParamError {
                distribution: "ExactTwoSidedGeometric",
                parameter: "decay ln(1/alpha) = epsilon/N",
                value: decay,
                allowed: "a number in [2^-24, 708] (alpha = exp(-decay) in [3.3e-308, 0.99999994], a normal positive double)",
            });
        }
        // A normal double is m·2^e with a 53-bit m; strip m's trailing zeros to keep t small.
        let bits = decay.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
        let mut mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
        let mut exponent = exponent;
        while mantissa & 1 == 0 {
            mantissa >>= 1;
            exponent += 1;
        }
        let (s, t) = if exponent >= 0 {
            (u128::from(mantissa) << exponent, 1)
        } else {
            (u128::from(mantissa), 1u128 << (-exponent))
        };
        Ok(Self { s, t })
    }

    /// The decay `λ = s/t` this sampler draws with.
    pub fn decay(&self) -> f64 {
        self.s as f64 / self.t as f64
    }

    /// The noise level `α = exp(−λ)` this sampler draws with.
    pub fn alpha(&self) -> f64 {
        (-self.decay()).exp()
    }
}

/// `Bernoulli(exp(−a/b))` for `0 <= a <= b`, `b >= 1` (CKS Algorithm 1). `None` only if `b·k`
/// overflows, which needs `k > 2^50` consecutive successes (probability below `1/(2^50)!`).
fn bernoulli_exp<R: Rng + ?Sized>(a: u128, b: u128, rng: &mut R) -> Option<bool> {
    let mut k: u128 = 1;
    loop {
        let range = b.checked_mul(k)?;
        if rng.random_range(0..range) >= a {
            return Some(k % 2 == 1);
        }
        k += 1;
    }
}

impl Distribution<i64> for ExactTwoSidedGeometric {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        let (s, t) = (self.s, self.t);
        loop {
            let u = rng.random_range(0..t);
            if bernoulli_exp(u, t, rng) != Some(true) {
                continue;
            }
            let mut v: u128 = 0;
            while bernoulli_exp(1, 1, rng) == Some(true) {
                v += 1;
            }
            // Overflow needs v > 2^52 (probability exp(−2^52)): restart, as for a rejection.
            let Some(x) = t.checked_mul(v).and_then(|tv| tv.checked_add(u)) else { continue };
            let Ok(y) = i64::try_from(x / s) else { continue };
            let negative: bool = rng.random();
            if negative && y == 0 {
                continue;
            }
            return if negative { -y } else { y };
        }
    }
}

#[cfg(test)]
mod tests {
    /// The sampling path uses no floating point, by construction: the source of `bernoulli_exp`
    /// and of the `Distribution` impl (from its `impl` line to the end of the file's code) has no
    /// float type, float literal or conversion to one. Floats appear only where `α` is turned
    /// into the exact rational `s/t` (constructors) and in the reporting accessors.
    #[test]
    fn the_sampling_path_has_no_floating_point() {
        let source = include_str!("exact_geometric.rs");
        let start = source.find("fn bernoulli_exp").expect("bernoulli_exp");
        let end = source.find("#[cfg(test)]").expect("tests");
        let path = &source[start..end];
        assert!(path.contains("impl Distribution<i64> for ExactTwoSidedGeometric"));
        for banned in ["f64", "f32", "as f", ".exp()", ".ln()", "powf", "sqrt"] {
            let code: String =
                path.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            assert!(!code.contains(banned), "floating point ({banned:?}) in the sampling path");
        }
    }
}
