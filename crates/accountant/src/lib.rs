//! Privacy accounting for the central-DP baselines (DPVI, DP-SEP) and the local mechanism.
//!
//! - [`rdp`]: the Rényi-DP ("moments accountant") analysis of the **subsampled Gaussian
//!   mechanism** — Poisson subsampling at rate `q`, Gaussian noise of standard deviation `σ·c` on a
//!   sum of per-example contributions clipped to norm `c`, `T` steps — computed exactly at each
//!   order (Mironov, Talwar & Zhang 2019), converted to (ε, δ), and inverted for σ.
//! - [`composition`]: the Gaussian mechanism's (ε₀, δ₀) (eq. 1 of Jälkö et al. 2017), privacy
//!   amplification by subsampling (eqs. 4–5) and the advanced composition theorem (eqs. 2–3): the
//!   looser accounting the DPVI paper reports beside the moments accountant.
//! - [`local`]: pure-ε bookkeeping of the two-sided geometric mechanism of the local methods.
//!
//! # The neighbouring relation
//! Every central function takes a [`Neighbouring`]:
//! - [`Neighbouring::AddRemove`] ("unbounded DP"): data sets differ by adding or removing one
//!   example. A clipped sum changes by at most `c`, so noise `σ·c` is a Gaussian mechanism with
//!   noise multiplier `σ`. This is what the RDP analysis of the subsampled Gaussian (and Abadi et
//!   al. 2016) assume.
//! - [`Neighbouring::ReplaceOne`] ("bounded DP"): data sets of equal size differ in one example.
//!   A replacement is a removal followed by an addition, so the clipped sum changes by at most
//!   `2c`; following Theorem 2 of Jälkö et al. 2017 we account it as the add/remove mechanism with
//!   **half** the noise multiplier, `σ/2` (noise `2σc` under replace-one is as private as `σc`
//!   under add/remove).

pub mod composition;
pub mod local;
pub mod rdp;

pub use composition::{advanced_composition, amplify_by_subsampling, gaussian_mechanism_epsilon};
pub use local::LocalGuarantee;
pub use rdp::{DEFAULT_ORDERS, RdpAccountant, rdp_subsampled_gaussian};

use std::fmt;

/// Which data sets count as neighbours (see the crate documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbouring {
    /// Add or remove one example (unbounded DP).
    AddRemove,
    /// Replace one example (bounded DP): accounted at half the noise multiplier.
    ReplaceOne,
}

impl Neighbouring {
    /// The noise multiplier (noise standard deviation over the add/remove sensitivity `c`) of
    /// the equivalent add/remove mechanism.
    pub fn effective_noise(self, noise_multiplier: f64) -> f64 {
        match self {
            Neighbouring::AddRemove => noise_multiplier,
            Neighbouring::ReplaceOne => noise_multiplier / 2.0,
        }
    }

    /// `"add-remove"` or `"replace-one"` (as in manifests and results).
    pub fn name(self) -> &'static str {
        match self {
            Neighbouring::AddRemove => "add-remove",
            Neighbouring::ReplaceOne => "replace-one",
        }
    }
}

/// Which accounting turns (q, σ, T, δ) into ε.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accounting {
    /// Rényi DP of the subsampled Gaussian ([`RdpAccountant`]).
    MomentsAccountant,
    /// Gaussian mechanism (eq. 1) + amplification (eqs. 4–5) + advanced composition (eqs. 2–3).
    AdvancedComposition,
}

impl Accounting {
    /// `"moments-accountant"` or `"advanced-composition"`.
    pub fn name(self) -> &'static str {
        match self {
            Accounting::MomentsAccountant => "moments-accountant",
            Accounting::AdvancedComposition => "advanced-composition",
        }
    }
}

/// Why an accounting request failed.
#[derive(Clone, Debug, PartialEq)]
pub enum AccountantError {
    /// A parameter outside its range: its name, the value and what is allowed.
    Parameter { parameter: &'static str, value: f64, allowed: &'static str },
    /// No noise multiplier below `limit` reaches `target_epsilon` (calibration).
    Unreachable { target_epsilon: f64, limit: f64 },
    /// The fractional-order series of `A_α` lost its precision (cancellation) at these values.
    Precision { q: f64, sigma: f64, alpha: f64 },
}

impl fmt::Display for AccountantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parameter { parameter, value, allowed } => {
                write!(f, "{parameter} = {value} is not allowed: it must be {allowed}")
            }
            Self::Unreachable { target_epsilon, limit } => {
                write!(f, "no noise multiplier below {limit:e} reaches target epsilon = {target_epsilon}")
            }
            Self::Precision { q, sigma, alpha } => {
                write!(f, "the A_α series lost precision at α = {alpha}, σ = {sigma}, q = {q}")
            }
        }
    }
}

impl std::error::Error for AccountantError {}

/// `Ok` when `ok`, otherwise the error naming `parameter`, its `value` and what is `allowed`.
pub(crate) fn check(
    ok: bool,
    parameter: &'static str,
    value: f64,
    allowed: &'static str,
) -> Result<(), AccountantError> {
    if ok { Ok(()) } else { Err(AccountantError::Parameter { parameter, value, allowed }) }
}

/// The (ε, δ) guarantee of `steps` steps of the subsampled Gaussian mechanism (rate `q`, noise
/// multiplier `sigma`) under `neighbouring`, by `accounting`. `f64::INFINITY` when no finite ε
/// is established (σ = 0, or an advanced-composition step outside eq. 1's range ε₀ < 1).
pub fn epsilon(
    accounting: Accounting,
    neighbouring: Neighbouring,
    q: f64,
    sigma: f64,
    steps: u64,
    delta: f64,
) -> Result<f64, AccountantError> {
    let sigma = neighbouring.effective_noise(sigma);
    match accounting {
        Accounting::MomentsAccountant => {
            let mut a = RdpAccountant::default();
            a.compose_subsampled_gaussian(q, sigma, steps)?;
            Ok(a.epsilon(delta)?.0)
        }
        Accounting::AdvancedComposition => composition::subsampled_gaussian_epsilon(q, sigma, steps, delta),
    }
}

/// The smallest δ for which `steps` steps of the subsampled Gaussian mechanism (rate `q`, noise
/// multiplier `sigma`) under `neighbouring` are (`epsilon`, δ)-DP by the RDP accountant
/// ([`RdpAccountant::delta`]); 1 when nothing better is established.
pub fn delta(neighbouring: Neighbouring, q: f64, sigma: f64, steps: u64, epsilon: f64) -> Result<f64, AccountantError> {
    check(epsilon >= 0.0 && epsilon.is_finite(), "epsilon", epsilon, "a finite number >= 0")?;
    let mut a = RdpAccountant::default();
    a.compose_subsampled_gaussian(q, neighbouring.effective_noise(sigma), steps)?;
    Ok(a.delta(epsilon))
}

/// The smallest noise multiplier σ (to relative precision 1e-6) for which `steps` steps at rate
/// `q` are (`target_epsilon`, `delta`)-DP under `neighbouring` by `accounting`: bisection on the
/// monotone map σ ↦ ε (ε shrinks as σ grows).
pub fn calibrate_noise(
    accounting: Accounting,
    neighbouring: Neighbouring,
    q: f64,
    steps: u64,
    target_epsilon: f64,
    delta: f64,
) -> Result<f64, AccountantError> {
    check(target_epsilon > 0.0 && target_epsilon.is_finite(), "target epsilon", target_epsilon, "a finite number > 0")?;
    let eps = |s: f64| epsilon(accounting, neighbouring, q, s, steps, delta);
    let (mut lo, mut hi) = (1e-3, 1.0);
    while eps(hi)? > target_epsilon {
        lo = hi;
        hi *= 2.0;
        if hi >= 1e7 {
            return Err(AccountantError::Unreachable { target_epsilon, limit: 1e7 });
        }
    }
    if eps(lo)? <= target_epsilon {
        return Ok(lo);
    }
    while (hi - lo) > 1e-6 * hi {
        let mid = 0.5 * (lo + hi);
        if eps(mid)? > target_epsilon { lo = mid } else { hi = mid }
    }
    Ok(hi)
}
