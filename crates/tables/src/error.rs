//! A table that cannot be read or written, with the file and the place in it.

use std::fmt;
use std::path::{Path, PathBuf};

/// What is wrong, where.
#[derive(Clone, Debug, PartialEq)]
pub struct TableError {
    pub file: PathBuf,
    /// `"line 7"` (CSV, counting the header as line 1) or `"row 7"` (Parquet); empty for the
    /// file as a whole.
    pub place: String,
    pub message: String,
}

impl TableError {
    pub(crate) fn file(file: &Path, message: impl fmt::Display) -> Self {
        Self { file: file.to_path_buf(), place: String::new(), message: message.to_string() }
    }

    /// The same error, said of `file` (a pending file's error said of the output it was for).
    pub(crate) fn on(self, file: &Path) -> Self {
        Self { file: file.to_path_buf(), ..self }
    }

    pub(crate) fn at(file: &Path, place: impl fmt::Display, message: impl fmt::Display) -> Self {
        Self { file: file.to_path_buf(), place: place.to_string(), message: message.to_string() }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}, {}: {}", self.file.display(), self.place, self.message)
        }
    }
}

impl std::error::Error for TableError {}

impl From<results::ResultsError> for TableError {
    fn from(e: results::ResultsError) -> Self {
        Self { file: e.file, place: String::new(), message: e.message }
    }
}
