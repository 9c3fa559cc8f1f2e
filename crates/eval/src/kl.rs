//! The Poisson KL divergence, the paper's loss for estimated rates.

use crate::EvalError;

/// `KL(Pois(μ*) ‖ Pois(μ̂)) = μ* ln(μ*/μ̂) − μ* + μ̂` (§5 of Schein et al. 2019), with its limit
/// `μ̂` at `μ* = 0`. Errors if `μ̂ = 0 < μ*` (the divergence is infinite) or a rate is negative or
/// not finite. `index` only labels the error.
pub fn poisson_kl(truth: f64, estimate: f64, index: usize) -> Result<f64, EvalError> {
    for value in [truth, estimate] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(EvalError::Invalid { index, value });
        }
    }
    if truth == 0.0 {
        return Ok(estimate);
    }
    if estimate == 0.0 {
        return Err(EvalError::ZeroEstimate { index, truth });
    }
    // Loader's deviance term: the same quantity, computed without cancellation.
    Ok(distributions::bd0(truth, estimate))
}

/// `(1/N) Σ_n KL(Pois(μ*_n) ‖ Pois(μ̂_n))` over the given `(truth, estimate)` pairs (pass only
/// the entries the model covers, e.g. without the block model's diagonal).
///
/// ```
/// let kl = eval::mean_poisson_kl([(1.0, 1.0), (0.0, 0.5)]).unwrap();
/// assert!((kl - 0.25).abs() < 1e-15);
/// ```
pub fn mean_poisson_kl(pairs: impl IntoIterator<Item = (f64, f64)>) -> Result<f64, EvalError> {
    let (mut total, mut n) = (0.0, 0usize);
    for (index, (truth, estimate)) in pairs.into_iter().enumerate() {
        total += poisson_kl(truth, estimate, index)?;
        n += 1;
    }
    if n == 0 {
        return Err(EvalError::Shape("mean Poisson KL of no entries".into()));
    }
    Ok(total / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subnormal true rate (a semi-synthetic `γ` that underflowed, floored at the smallest
    /// double) gives the limit `μ̂`, not NaN.
    #[test]
    fn a_subnormal_truth_gives_the_estimate() {
        for truth in [5e-324, 1e-320, 2.2e-308] {
            let kl = poisson_kl(truth, 0.5, 0).unwrap();
            assert!((kl - 0.5).abs() < 1e-12, "{truth}: {kl}");
        }
        let kl = poisson_kl(1e-310, 1e-3, 0).unwrap();
        assert!((kl - 1e-3).abs() < 1e-15, "{kl}");
    }

    /// Against the direct sum Σ_k Pois(k; μ*) ln(Pois(k; μ*)/Pois(k; μ̂)).
    #[test]
    fn matches_the_defining_sum() {
        for (truth, estimate) in [(0.3f64, 0.7f64), (2.0, 1.5), (10.0, 12.0), (1.0, 1e-3)] {
            let mut direct = 0.0;
            let (mut p, mut ln_fact) = ((-truth).exp(), 0.0f64);
            for k in 0..400 {
                if k > 0 {
                    ln_fact += (k as f64).ln();
                    p = (k as f64 * truth.ln() - truth - ln_fact).exp();
                }
                let kf = k as f64;
                direct += p * (kf * (truth / estimate).ln() - truth + estimate);
            }
            let kl = poisson_kl(truth, estimate, 0).unwrap();
            assert!((kl - direct).abs() < 1e-12 * direct.max(1.0), "{truth} {estimate}: {kl} vs {direct}");
        }
    }

    #[test]
    fn limits_and_errors() {
        assert_eq!(poisson_kl(0.0, 0.0, 0), Ok(0.0));
        assert_eq!(poisson_kl(0.0, 2.5, 0), Ok(2.5));
        assert_eq!(poisson_kl(3.0, 3.0, 0), Ok(0.0));
        assert_eq!(poisson_kl(1.0, 0.0, 4), Err(EvalError::ZeroEstimate { index: 4, truth: 1.0 }));
        assert!(matches!(poisson_kl(-1.0, 1.0, 0), Err(EvalError::Invalid { .. })));
        assert!(matches!(poisson_kl(1.0, f64::NAN, 0), Err(EvalError::Invalid { .. })));
        assert!(mean_poisson_kl(std::iter::empty()).is_err());
        let err = mean_poisson_kl([(1.0, 1.0), (2.0, 0.0)]).unwrap_err();
        assert!(err.to_string().contains("entry 1"));
    }

    /// Nearly equal rates: no cancellation (KL ≈ (Δ²)/(2μ)).
    #[test]
    fn no_cancellation_near_equality() {
        let (truth, estimate) = (1e6, 1e6 * (1.0 + 1e-9));
        let kl = poisson_kl(truth, estimate, 0).unwrap();
        let approx = (estimate - truth).powi(2) / (2.0 * truth);
        assert!((kl - approx).abs() < 1e-3 * approx, "{kl} vs {approx}");
    }
}
