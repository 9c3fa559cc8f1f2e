//! Pure-ε bookkeeping of the local randomizer (the two-sided geometric mechanism).
//!
//! Each count is released as `y + τ` with τ two-sided geometric with `α = exp(−ε/N)` (Schein et
//! al. 2019, §2): for counts that differ by at most `N` (N-neighbouring) the release is ε-DP, and
//! more generally a change of `d` in one count costs `ε·d/N` (the geometric mechanism's privacy
//! loss is `|d|·ln(1/α)`). The counts of a row (a document, a sender's row of the network) are
//! noised independently, so by basic composition a change of L1 size `D` across a row costs
//! `ε·D/N`. The guarantee is per person and pure (δ = 0); no trusted curator is involved.

use crate::{AccountantError, check};

/// The local guarantee of the geometric mechanism with privacy level `epsilon` at precision `N`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalGuarantee {
    epsilon: f64,
    precision: f64,
}

impl LocalGuarantee {
    /// `epsilon > 0` protects changes of up to `precision = N > 0` in any one count.
    pub fn new(epsilon: f64, precision: f64) -> Result<Self, AccountantError> {
        check(epsilon > 0.0 && epsilon.is_finite(), "epsilon", epsilon, "a finite number > 0")?;
        check(precision > 0.0 && precision.is_finite(), "precision N", precision, "a finite number > 0")?;
        Ok(Self { epsilon, precision })
    }

    /// The guarantee of noise level `alpha ∈ (0, 1)` at precision `N`: ε = N·ln(1/α).
    pub fn from_alpha(alpha: f64, precision: f64) -> Result<Self, AccountantError> {
        check(alpha > 0.0 && alpha < 1.0, "alpha", alpha, "in (0, 1)")?;
        Self::new(-precision * alpha.ln(), precision)
    }

    /// The geometric noise level `α = exp(−ε/N)`.
    pub fn alpha(&self) -> f64 {
        (-self.epsilon / self.precision).exp()
    }

    /// ε for count vectors (one count, a row, a document) that differ by `l1` in total.
    pub fn epsilon_for_change(&self, l1: f64) -> f64 {
        self.epsilon * l1 / self.precision
    }

    /// ε protecting a whole row of `cols` counts, each of which may change by up to `N`
    /// (e.g. a person's entire row of the network): `cols × ε` by basic composition.
    pub fn epsilon_for_row(&self, cols: usize) -> f64 {
        self.epsilon * cols as f64
    }

    /// ε at precision N (one count changing by up to N).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    pub fn precision(&self) -> f64 {
        self.precision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_round_trips_and_changes_scale_linearly() {
        let g = LocalGuarantee::new(2.0, 4.0).unwrap();
        assert!((g.alpha() - (-0.5f64).exp()).abs() < 1e-15);
        let back = LocalGuarantee::from_alpha(g.alpha(), 4.0).unwrap();
        assert!((back.epsilon() - 2.0).abs() < 1e-12);
        assert_eq!(g.epsilon_for_change(4.0), 2.0);
        assert_eq!(g.epsilon_for_change(1.0), 0.5);
        assert_eq!(g.epsilon_for_row(10), 20.0);
        assert!(LocalGuarantee::new(0.0, 1.0).is_err() && LocalGuarantee::from_alpha(1.0, 1.0).is_err());
    }

    /// The privacy loss of the two-sided geometric pmf ∝ α^|τ| between counts y and y + d is at
    /// most |d|·ln(1/α) for every output: the bookkeeping's premise, checked on the pmf.
    #[test]
    fn geometric_privacy_loss_is_bounded_by_the_bookkeeping() {
        let g = LocalGuarantee::new(1.0, 3.0).unwrap();
        let ln_pmf = |tau: i64| tau.unsigned_abs() as f64 * g.alpha().ln(); // up to a constant
        for d in 0..=3i64 {
            let worst = (-40..40).map(|out| (ln_pmf(out) - ln_pmf(out - d)).abs()).fold(0.0, f64::max);
            assert!((worst - g.epsilon_for_change(d as f64)).abs() < 1e-12, "d = {d}");
        }
    }
}
