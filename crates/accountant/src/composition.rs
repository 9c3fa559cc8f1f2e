//! The classical accounting of Jälkö et al. 2017, §2.1 (eq. numbers of that paper):
//! the Gaussian mechanism (eq. 1), privacy amplification by subsampling (eqs. 4–5, Li et al.
//! 2012) and the advanced composition theorem (eqs. 2–3, Dwork & Roth 2014, Thm 3.20).

use crate::{AccountantError, check};

/// Eq. 1 inverted: noise of standard deviation `sigma × Δ₂` makes the Gaussian mechanism
/// (ε₀, δ₀)-DP with ε₀ = √(2 ln(1.25/δ₀)) / σ. The theorem holds for ε₀ < 1 only: larger values
/// return `f64::INFINITY` (no guarantee established).
pub fn gaussian_mechanism_epsilon(sigma: f64, delta: f64) -> Result<f64, AccountantError> {
    check(sigma >= 0.0 && !sigma.is_nan(), "noise multiplier sigma", sigma, ">= 0")?;
    check(delta > 0.0 && delta < 1.0, "delta", delta, "in (0, 1)")?;
    let eps = (2.0 * (1.25 / delta).ln()).sqrt() / sigma;
    Ok(if eps < 1.0 { eps } else { f64::INFINITY })
}

/// Eqs. 4–5: an (ε, δ)-DP mechanism run on a subsample that contains each example with
/// probability `q` is (ln(1 + q(e^ε − 1)), qδ)-DP.
pub fn amplify_by_subsampling(epsilon: f64, delta: f64, q: f64) -> Result<(f64, f64), AccountantError> {
    check(q > 0.0 && q <= 1.0, "sampling rate q", q, "in (0, 1]")?;
    Ok(((q * epsilon.exp_m1()).ln_1p(), q * delta))
}

/// Eqs. 2–3: the `steps`-fold composition of an (ε, δ)-DP mechanism is (ε', kδ + δ')-DP with
/// ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1).
pub fn advanced_composition(epsilon: f64, delta: f64, steps: u64, delta_slack: f64) -> (f64, f64) {
    let k = steps as f64;
    let eps = (2.0 * k * (1.0 / delta_slack).ln()).sqrt() * epsilon + k * epsilon * epsilon.exp_m1();
    (eps, k * delta + delta_slack)
}

/// The total ε of `steps` steps of the subsampled Gaussian by eqs. 1–5, for a total `delta`
/// split evenly: δ' = δ/2 for the composition slack and δ₀ = δ / (2 T q) per Gaussian step
/// (so T·q·δ₀ + δ' = δ exactly).
pub(crate) fn subsampled_gaussian_epsilon(q: f64, sigma: f64, steps: u64, delta: f64) -> Result<f64, AccountantError> {
    check(delta > 0.0 && delta < 1.0, "delta", delta, "in (0, 1)")?;
    check(steps >= 1, "number of steps", steps as f64, "an integer >= 1")?;
    check(q > 0.0 && q <= 1.0, "sampling rate q", q, "in (0, 1]")?;
    let delta0 = delta / (2.0 * steps as f64 * q);
    let eps0 = gaussian_mechanism_epsilon(sigma, delta0.min(0.5))?;
    if !eps0.is_finite() {
        return Ok(f64::INFINITY);
    }
    let (eps1, delta1) = amplify_by_subsampling(eps0, delta0, q)?;
    let (eps, total_delta) = advanced_composition(eps1, delta1, steps, delta / 2.0);
    debug_assert!((total_delta - delta).abs() <= 1e-12 * delta);
    Ok(eps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_mechanism_matches_eq_1() {
        // σ = √(2 ln(1.25/δ)) / ε at ε = 0.5, δ = 1e-5.
        let sigma = (2.0 * (1.25e5f64).ln()).sqrt() / 0.5;
        assert!((gaussian_mechanism_epsilon(sigma, 1e-5).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(gaussian_mechanism_epsilon(1.0, 1e-5).unwrap(), f64::INFINITY);
    }

    #[test]
    fn amplification_and_composition_formulas() {
        let (e, d) = amplify_by_subsampling(1.0, 1e-6, 0.01).unwrap();
        assert!((e - (1.0 + 0.01 * (1f64.exp() - 1.0)).ln()).abs() < 1e-15 && d == 1e-8);
        assert_eq!(amplify_by_subsampling(1.0, 1e-6, 1.0).unwrap().0, 1.0);
        let (e, d) = advanced_composition(0.01, 1e-8, 100, 1e-5);
        let expected = (200.0 * 1e5f64.ln()).sqrt() * 0.01 + 100.0 * 0.01 * 0.01f64.exp_m1();
        assert!((e - expected).abs() < 1e-15 && (d - (1e-6 + 1e-5)).abs() < 1e-20);
    }
}
