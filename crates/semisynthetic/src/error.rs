//! Why base parameters could not be prepared or read.

use std::fmt;
use std::path::PathBuf;

/// Why `prepare_enron` failed, or a base file could not be read.
#[derive(Debug)]
pub enum PrepareError {
    /// The input could not be read.
    Io { path: PathBuf, message: String },
    /// A base file is unreadable, not TOML of the base-file schema, or fails its checks.
    File { path: PathBuf, message: String },
    /// An option is out of range (a prior, a schedule, no candidate `C`).
    Options(String),
    /// The corpus yields no usable network, or the result does not check out.
    Data(String),
    /// A fit failed.
    Inference(inference::InferenceError),
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, message } | Self::File { path, message } => write!(f, "{}: {message}", path.display()),
            Self::Options(m) | Self::Data(m) => f.write_str(m),
            Self::Inference(e) => write!(f, "fitting the base parameters: {e}"),
        }
    }
}

impl std::error::Error for PrepareError {}

impl From<inference::InferenceError> for PrepareError {
    fn from(e: inference::InferenceError) -> Self {
        Self::Inference(e)
    }
}

impl From<inference::ScheduleError> for PrepareError {
    fn from(e: inference::ScheduleError) -> Self {
        Self::Options(e.to_string())
    }
}

impl From<models::PriorError> for PrepareError {
    fn from(e: models::PriorError) -> Self {
        Self::Options(e.to_string())
    }
}

impl From<distributions::ParamError> for PrepareError {
    fn from(e: distributions::ParamError) -> Self {
        Self::Data(e.to_string())
    }
}
