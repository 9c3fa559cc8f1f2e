//! Errors of the models: factor matrices of the wrong shape or with a value outside `(0, ∞)`.

use std::fmt;

/// A factor matrix that a model cannot take.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    /// `factor` has `len` values where the model needs `rows × cols`.
    FactorShape { factor: &'static str, len: usize, rows: usize, cols: usize },
    /// `got` factor matrices where the model has `expected`.
    FactorCount { expected: usize, got: usize },
    /// Entry `index` (row-major) of `factor` is `value`, not a finite number `> 0`.
    FactorValue { factor: &'static str, index: usize, value: f64 },
    /// An inverse temperature the model cannot take (replica exchange).
    Temperature(String),
    /// `factor` must be symmetric (the undirected block model's `π`) but entry `(row, col)` differs
    /// from `(col, row)`.
    Asymmetric { factor: &'static str, row: usize, col: usize },
    /// An option this model's form does not have (the message says which).
    Unsupported(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FactorShape { factor, len, rows, cols } => {
                write!(f, "factor `{factor}` has {len} values; expected {rows}×{cols} = {}", rows * cols)
            }
            Self::FactorCount { expected, got } => write!(f, "{got} factor matrices given; the model has {expected}"),
            Self::FactorValue { factor, index, value } => {
                write!(f, "factor `{factor}` entry {index} (row-major) is {value}; every value must be finite and > 0")
            }
            Self::Temperature(message) => write!(f, "temperature: {message}"),
            Self::Asymmetric { factor, row, col } => write!(
                f,
                "factor `{factor}` must be symmetric (an undirected network's community rates), but entry ({row}, {col}) \
                 differs from ({col}, {row})"
            ),
            Self::Unsupported(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// Checks that `values` is a `rows × cols` factor with every value finite and `> 0`.
pub(crate) fn check_factor(factor: &'static str, values: &[f64], rows: usize, cols: usize) -> Result<(), ModelError> {
    if values.len() != rows * cols {
        return Err(ModelError::FactorShape { factor, len: values.len(), rows, cols });
    }
    match values.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
        Some(index) => Err(ModelError::FactorValue { factor, index, value: values[index] }),
        None => Ok(()),
    }
}
