//! The per-entry step of the locally private sampler: resample the true count `y_n` and the
//! noise auxiliaries given the released `ỹ_n`, the rate `μ_n` and `λ_n` (eqs. 12–16 of Schein et
//! al. 2019).

use distributions::{Bessel, Binomial, Erlang, ParamError};
use rand::Rng;

/// One entry's auxiliary state: the exponential rates `λ_n1, λ_n2` of the two geometric noise
/// halves and the Poisson counts `g_n1, g_n2` they generated (`τ_n = g_n1 − g_n2`, Theorem 3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseAux {
    pub lambda: [f64; 2],
    pub g: [u64; 2],
}

/// The rate of the conditional `λ_nl | g_nl ~ Gamma(1 + g_nl, rate)`.
///
/// Prior: `λ ~ Exp` with **mean** `α/(1−α)`, i.e. `Gamma(shape 1, rate (1−α)/α)` (Theorem 3.1).
/// Likelihood: `g ~ Pois(λ)`, a factor `λ^g e^{−λ}`. Posterior:
/// `λ^{g} e^{−λ((1−α)/α + 1)}`, i.e. `Gamma(1 + g, rate (1−α)/α + 1 = 1/α)`.
/// (The typeset eq. 16 prints `α/(1−α) + 1`, which agrees only at `α = 1/2`; the Geweke test of
/// the private samplers rejects it — see `wrong_lambda_rate_is_rejected` in `src/geweke/tests.rs` of this crate.)
pub fn lambda_posterior_rate(alpha: f64) -> f64 {
    1.0 / alpha
}

/// Resamples one entry with noise level `α > 0`, in the paper's order:
/// 1. `m ~ Bes(|ỹ|, 2√((λ₁ + μ) λ₂))` (eq. 12), the minimum of `ỹ⁺ = y + g₁` and `g₂`;
/// 2. the deterministic split (eqs. 13–14): if `ỹ ≤ 0`, `ỹ⁺ = m`, `g₂ = m − ỹ`; else `g₂ = m`,
///    `ỹ⁺ = m + ỹ`;
/// 3. `y ~ Binom(ỹ⁺, μ/(μ + λ₁))` (eq. 15), `g₁ = ỹ⁺ − y`;
/// 4. `λ_l ~ Gamma(1 + g_l, rate)` with `rate = lambda_rate(α)` ([`lambda_posterior_rate`]).
///
/// Returns the new `y`; `aux` is updated in place. Errors only if a parameter leaves the range
/// the samplers accept (a Bessel argument beyond 1e15: counts and rates around 1e29).
///
/// Always inlined, as are the one-off draws it makes: in binaries with many callers of these
/// generic functions (the benchmarks, `lppf`) the compiler kept them out of line, and the calls'
/// register spills cost about 6 % of a private topic sweep (issue 21, BENCHMARKS.md).
#[inline(always)]
pub fn resample_entry<R: Rng + ?Sized>(
    released: i64,
    mu: f64,
    lambda_rate: f64,
    aux: &mut NoiseAux,
    rng: &mut R,
) -> Result<u64, ParamError> {
    let [lambda1, lambda2] = aux.lambda;
    // (a/2)² = (λ₁ + μ)λ₂; a = 0 gives m = 0 (as does a NaN, which rates of finite factors never are).
    let half_a_squared = (lambda1 + mu) * lambda2;
    let m = if half_a_squared > 0.0 {
        Bessel::sample_once_squared(released.unsigned_abs() as f64, half_a_squared, rng)?
    } else {
        0
    };
    let (plus, g2) = if released <= 0 { (m, m + released.unsigned_abs()) } else { (m + released as u64, m) };
    let denominator = mu + lambda1;
    let p = if denominator > 0.0 { (mu / denominator).min(1.0) } else { 0.0 };
    let y = if plus == 0 { 0 } else { Binomial::sample_once(plus, p, rng)? };
    let g = [plus - y, g2];
    for (lambda, &g_l) in aux.lambda.iter_mut().zip(&g) {
        *lambda = Erlang::sample_once(1 + g_l, lambda_rate, rng)?;
    }
    aux.g = g;
    Ok(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::stream;

    fn run(released: i64, mu: f64, alpha: f64, lambda: [f64; 2], draws: usize) -> Vec<(u64, NoiseAux)> {
        let mut rng = stream(77, released.unsigned_abs());
        (0..draws)
            .map(|_| {
                let mut aux = NoiseAux { lambda, g: [0, 0] };
                let y = resample_entry(released, mu, lambda_posterior_rate(alpha), &mut aux, &mut rng).unwrap();
                (y, aux)
            })
            .collect()
    }

    /// Every draw satisfies the deterministic identity `ỹ = y + g₁ − g₂` and all values are valid.
    #[test]
    fn identity_holds_in_edge_cases() {
        let cases = [
            (-1_000_000, 1.0, 0.5, [0.5, 0.5]), // ỹ very negative
            (1_000_000, 1e6, 0.5, [0.5, 0.5]),  // ỹ very large
            (5, 1e-300, 0.5, [0.5, 0.5]),       // μ → 0
            (5, 0.0, 0.5, [0.5, 0.5]),          // μ = 0
            (-3, 2.0, 0.5, [1e-300, 1e-300]),   // λ → 0
            (3, 2.0, 0.5, [0.0, 0.0]),          // λ = 0 exactly
            (0, 0.0, 0.9, [0.0, 0.0]),          // nothing at all
        ];
        for (released, mu, alpha, lambda) in cases {
            for (y, aux) in run(released, mu, alpha, lambda, 200) {
                assert_eq!(y as i64 + aux.g[0] as i64 - aux.g[1] as i64, released, "case {released} {mu}");
                assert!(aux.lambda.iter().all(|l| l.is_finite() && *l >= 0.0));
            }
        }
    }

    /// With `μ → 0` no count can be attributed to the data: `y = 0`.
    #[test]
    fn zero_rate_means_zero_count() {
        assert!(run(7, 0.0, 0.5, [0.5, 0.5], 500).iter().all(|(y, _)| *y == 0));
    }

    /// With `λ₁ = λ₂ = 0` there is no noise: `m = 0` and `y = ỹ` for `ỹ ≥ 0`.
    #[test]
    fn no_noise_rates_mean_exact_counts() {
        assert!(run(9, 2.0, 0.5, [0.0, 0.0], 100).iter().all(|(y, aux)| *y == 9 && aux.g == [0, 0]));
    }

    /// Very negative ỹ: the minimum is `ỹ⁺`, which stays small (`≈ Pois(μ + λ₁)`), and `g₂`
    /// absorbs the rest.
    #[test]
    fn very_negative_release_gives_small_counts() {
        let draws = run(-1_000_000, 1.0, 0.5, [0.5, 0.5], 2000);
        let mean_y = draws.iter().map(|(y, _)| *y as f64).sum::<f64>() / 2000.0;
        // With λ₂ = 0.5 fixed, m | ỹ is near a²/(4|ỹ|) = (λ₁+μ)λ₂/|ỹ| ≈ 0: y is nearly always 0.
        assert!(mean_y < 0.01, "{mean_y}");
        assert!(draws.iter().all(|(_, aux)| aux.g[1] >= 1_000_000));
    }

    /// Very large ỹ with a matching rate: the count is ỹ up to the noise, and `λ₂`'s posterior is
    /// driven by `g₂ = m`.
    #[test]
    fn very_large_release_gives_large_counts() {
        let draws = run(1_000_000, 1e6, 0.5, [0.5, 0.5], 500);
        let mean_y = draws.iter().map(|(y, _)| *y as f64).sum::<f64>() / 500.0;
        assert!((mean_y - 1e6).abs() < 10.0, "{mean_y}");
    }
}
