//! Noise levels `α` of the geometric mechanism: one for all entries, one per row, or one per entry.

use std::fmt;

/// The noise level(s) `α ∈ [0, 1)` of the geometric mechanism for a `rows × cols` matrix.
/// `α = 0` means the entry is released exactly. Per-row levels are the heterogeneous
/// document-specific `α_d` of §5.2; `(N, ε)` converts to `α = exp(−ε/N)`
/// ([`distributions::alpha_from_epsilon`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Noise {
    /// One `α` for every entry.
    Scalar(f64),
    /// `α_d` for every entry of row `d` (length = rows).
    PerRow(Vec<f64>),
    /// `α_n` for entry `n` in row-major order (length = rows × cols).
    PerEntry(Vec<f64>),
}

/// Why noise levels or released data were rejected.
#[derive(Clone, Debug, PartialEq)]
pub enum NoiseError {
    /// An `α` outside `[0, 1)`.
    Alpha { index: usize, value: f64 },
    /// A per-row or per-entry vector, or a value vector, of the wrong length.
    Length { what: &'static str, expected: usize, found: usize },
    /// A released value that cannot come from the mechanism: negative where `α = 0`.
    NegativeExact { index: usize, value: i64 },
    /// A count too large for the 32-bit storage.
    TooLarge { index: usize, value: i64 },
}

impl fmt::Display for NoiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Alpha { index, value } => {
                write!(f, "noise level alpha[{index}] = {value} is not allowed: alpha must be in [0, 1)")
            }
            Self::Length { what, expected, found } => {
                write!(f, "{what} has {found} values, expected {expected}")
            }
            Self::NegativeExact { index, value } => write!(
                f,
                "released value {value} at entry {index} is negative but its noise level is alpha = 0 \
                 (exact release): no mechanism output can be negative there"
            ),
            Self::TooLarge { index, value } => {
                write!(f, "value {value} at entry {index} does not fit in 32 bits")
            }
        }
    }
}

impl std::error::Error for NoiseError {}

impl Noise {
    /// Checks every `α ∈ [0, 1)` and the vector lengths for a `rows × cols` matrix.
    pub fn validate(&self, rows: usize, cols: usize) -> Result<(), NoiseError> {
        let (values, expected, what): (&[f64], usize, &'static str) = match self {
            Self::Scalar(a) => (std::slice::from_ref(a), 1, "scalar alpha"),
            Self::PerRow(v) => (v, rows, "per-row alpha"),
            Self::PerEntry(v) => (v, rows * cols, "per-entry alpha"),
        };
        if values.len() != expected {
            return Err(NoiseError::Length { what, expected, found: values.len() });
        }
        match values.iter().position(|a| !(0.0..1.0).contains(a)) {
            Some(index) => Err(NoiseError::Alpha { index, value: values[index] }),
            None => Ok(()),
        }
    }

    /// `α` of entry `n = row · cols + col`.
    pub fn alpha(&self, n: usize, cols: usize) -> f64 {
        match self {
            Self::Scalar(a) => *a,
            Self::PerRow(v) => v[n / cols],
            Self::PerEntry(v) => v[n],
        }
    }
}
