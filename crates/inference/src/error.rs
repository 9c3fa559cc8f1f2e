//! Errors of inference.

use std::fmt;

/// Why a sampler could not be built or could not continue.
#[derive(Clone, Debug, PartialEq)]
pub enum InferenceError {
    /// Data and model disagree on the matrix shape.
    Shape { data: (usize, usize), model: (usize, usize) },
    /// A mask or count vector of the wrong length.
    Length { what: &'static str, expected: usize, found: usize },
    /// A sampler parameter left its valid range (e.g. a Bessel argument above 1e15 from
    /// astronomically large counts).
    Numerical(String),
    /// A combination of model and algorithm that does not exist (CAVI of the undirected block
    /// model).
    Unsupported(String),
}

impl fmt::Display for InferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Shape { data, model } => {
                write!(f, "data are {}×{} but the model expects {}×{}", data.0, data.1, model.0, model.1)
            }
            Self::Length { what, expected, found } => write!(f, "{what} has {found} values, expected {expected}"),
            Self::Numerical(msg) => write!(f, "numerical range exceeded: {msg}"),
            Self::Unsupported(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for InferenceError {}

impl From<distributions::ParamError> for InferenceError {
    fn from(e: distributions::ParamError) -> Self {
        Self::Numerical(e.to_string())
    }
}
