//! Why a fit could not be done.

use std::fmt;

/// A fit's error: the user's input or settings (exit code 2 in the CLI), or a failure while
/// running or writing (exit code 1).
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    /// A table, sidecar or level file that cannot be used (names the file and place).
    Input(String),
    /// A setting out of range: the setting, the value and what is allowed.
    Setting { setting: &'static str, value: String, allowed: String },
    /// Inference failed.
    Inference(String),
    /// An output could not be written.
    Output(String),
}

impl FitError {
    /// Whether the user can fix it by changing the input or the settings.
    pub fn is_user_error(&self) -> bool {
        matches!(self, Self::Input(_) | Self::Setting { .. })
    }

    pub(crate) fn setting(setting: &'static str, value: impl fmt::Display, allowed: impl fmt::Display) -> Self {
        Self::Setting { setting, value: value.to_string(), allowed: allowed.to_string() }
    }
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Input(m) | Self::Inference(m) | Self::Output(m) => f.write_str(m),
            Self::Setting { setting, value, allowed } => write!(f, "{setting} = {value} is not allowed: {allowed}"),
        }
    }
}

impl std::error::Error for FitError {}

impl From<tables::TableError> for FitError {
    fn from(e: tables::TableError) -> Self {
        Self::Input(e.to_string())
    }
}

impl From<inference::InferenceError> for FitError {
    fn from(e: inference::InferenceError) -> Self {
        Self::Inference(e.to_string())
    }
}

impl From<results::ResultsError> for FitError {
    fn from(e: results::ResultsError) -> Self {
        Self::Output(e.to_string())
    }
}
