//! Why a unit of work or the writing of its outputs failed: one typed error for the experiment
//! kinds, each case keeping the error of the crate it came from.

use std::fmt;
use std::path::PathBuf;

/// Why a unit of work, or the writing of a kind's outputs, failed.
#[derive(Debug)]
pub enum RunError {
    /// A parameter derived from the manifest left its range (a prior, a noise level, a
    /// schedule): the manifest passed validation, so this names what validation missed.
    Parameter(String),
    /// The data could not be generated or read (e.g. no prior draw met `mean_count_range`).
    Data(String),
    /// Base factors a model cannot take (shape, or a value outside `(0, ∞)`).
    Model(models::ModelError),
    /// The local randomizer refused its input.
    Noise(mechanism::NoiseError),
    /// A sampler or CAVI failed.
    Inference(inference::InferenceError),
    /// Scoring a fit failed.
    Eval(eval::EvalError),
    /// Privacy accounting failed (DPVI, DP-SEP).
    Accounting(accountant::AccountantError),
    /// A central-DP baseline failed (DPVI fit, EP/SEP moments).
    Baseline(String),
    /// A results file or figure could not be written; the error names the file.
    Results(results::ResultsError),
    /// A file could not be read or written.
    Io { path: PathBuf, message: String },
    /// A request that does not fit the manifest (no such noise level; not a topic model).
    Request(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parameter(m) => write!(f, "a parameter derived from the manifest is out of range: {m}"),
            Self::Data(m) | Self::Baseline(m) | Self::Request(m) => f.write_str(m),
            Self::Model(e) => write!(f, "setting the model's factors: {e}"),
            Self::Noise(e) => write!(f, "privatizing: {e}"),
            Self::Inference(e) => write!(f, "inference: {e}"),
            Self::Eval(e) => write!(f, "scoring: {e}"),
            Self::Accounting(e) => write!(f, "privacy accounting: {e}"),
            Self::Results(e) => e.fmt(f),
            Self::Io { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for RunError {}

macro_rules! from {
    ($source:ty => $case:ident) => {
        impl From<$source> for RunError {
            fn from(e: $source) -> Self {
                Self::$case(e)
            }
        }
    };
}

from!(models::ModelError => Model);
from!(mechanism::NoiseError => Noise);
from!(inference::InferenceError => Inference);
from!(eval::EvalError => Eval);
from!(accountant::AccountantError => Accounting);
from!(results::ResultsError => Results);

impl From<distributions::ParamError> for RunError {
    fn from(e: distributions::ParamError) -> Self {
        Self::Parameter(e.to_string())
    }
}

impl From<models::PriorError> for RunError {
    fn from(e: models::PriorError) -> Self {
        Self::Parameter(e.to_string())
    }
}

impl From<inference::ScheduleError> for RunError {
    fn from(e: inference::ScheduleError) -> Self {
        Self::Parameter(e.to_string())
    }
}

impl From<runner::RunnerError> for RunError {
    fn from(e: runner::RunnerError) -> Self {
        match e {
            runner::RunnerError::Io { path, message } => Self::Io { path, message },
            other => Self::Data(other.to_string()),
        }
    }
}
