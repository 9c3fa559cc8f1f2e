//! The one error type of this crate: a distribution parameter outside its domain.

use std::fmt;

/// A parameter given to a distribution's constructor is outside its domain.
///
/// It names the distribution, the parameter, the offending value and the allowed range, so the
/// message alone tells a user what to fix, e.g.
/// `Bessel: parameter a = -1 is invalid (allowed: a finite number >= 0)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The distribution being constructed, e.g. `"Gamma"`.
    pub distribution: &'static str,
    /// The parameter's name as the documentation spells it, e.g. `"rate"`.
    pub parameter: &'static str,
    /// The value that was rejected.
    pub value: f64,
    /// The allowed range in words, e.g. `"a finite number > 0"`.
    pub allowed: &'static str,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: parameter {} = {:?} is invalid (allowed: {})",
            self.distribution, self.parameter, self.value, self.allowed
        )
    }
}

impl std::error::Error for ParamError {}

/// Checks `value` against `ok`; on failure returns the [`ParamError`] built from the other fields.
pub(crate) fn check(
    distribution: &'static str,
    parameter: &'static str,
    value: f64,
    allowed: &'static str,
    ok: bool,
) -> Result<f64, ParamError> {
    if ok && !value.is_nan() { Ok(value) } else { Err(ParamError { distribution, parameter, value, allowed }) }
}

/// `value` must be finite and `>= 0`.
pub(crate) fn non_negative(distribution: &'static str, parameter: &'static str, value: f64) -> Result<f64, ParamError> {
    check(distribution, parameter, value, "a finite number >= 0", value.is_finite() && value >= 0.0)
}

/// `value` must be finite and `> 0`.
pub(crate) fn positive(distribution: &'static str, parameter: &'static str, value: f64) -> Result<f64, ParamError> {
    check(distribution, parameter, value, "a finite number > 0", value.is_finite() && value > 0.0)
}

/// `value` must be a probability in `[0, 1]`.
pub(crate) fn probability(distribution: &'static str, parameter: &'static str, value: f64) -> Result<f64, ParamError> {
    check(distribution, parameter, value, "a number in [0, 1]", (0.0..=1.0).contains(&value))
}
