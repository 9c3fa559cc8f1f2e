//! A manifest that cannot be read or is invalid: the error, and the field a TOML or schema error
//! is about.

use std::fmt;
use std::path::{Path, PathBuf};

/// A manifest that cannot be read or is invalid.
#[derive(Clone, Debug, PartialEq)]
pub enum ManifestError {
    /// The file cannot be read.
    Io { file: PathBuf, message: String },
    /// TOML syntax, a missing or unknown field, or a value of the wrong type (the message of the
    /// TOML parser names the field, its line, and for unknown fields the allowed ones).
    Parse { file: PathBuf, message: String },
    /// A value out of range.
    Invalid { file: PathBuf, field: &'static str, value: String, allowed: String },
    /// A data file the manifest needs is not where `field` says; `help` says where to get it.
    MissingData { file: PathBuf, field: &'static str, path: PathBuf, help: String },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { file, message } => write!(f, "{}: cannot read the manifest: {message}", file.display()),
            Self::Parse { file, message } => write!(f, "{}: {message}", file.display()),
            Self::Invalid { file, field, value, allowed } => {
                write!(f, "{}: field `{field}` = {value} is not allowed: {allowed}", file.display())
            }
            Self::MissingData { file, field, path, help } => write!(
                f,
                "{}: the data file {} (from field `{field}`) is missing. {help}",
                file.display(),
                path.display()
            ),
        }
    }
}

impl std::error::Error for ManifestError {}

/// A TOML or schema error of manifest `text`, naming the field it is about: the key on the line
/// the parser points at, qualified by its table (`model.kind`), or the table itself for a
/// missing field.
pub(crate) fn parse_error(file: &Path, text: &str, e: &toml::de::Error) -> ManifestError {
    let message = e.message().trim().to_string();
    let field = e.span().and_then(|span| field_at(text, span.start));
    let message = match field {
        Some(field) => format!("field `{field}`: {message}"),
        None => e.to_string(),
    };
    ManifestError::Parse { file: file.to_path_buf(), message }
}

/// The dotted key of the line holding byte `offset` of `text` (`table.key`), or the table of a
/// header line.
fn field_at(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset.min(text.len()))?;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("").trim();
    let header = |l: &str| -> Option<String> {
        let l = l.trim();
        l.starts_with('[').then(|| l.trim_matches(|c| c == '[' || c == ']').trim().to_string())
    };
    if let Some(table) = header(line) {
        return Some(table);
    }
    let table = text[..start].lines().rev().find_map(header);
    let key = line.split('=').next().map(str::trim).filter(|k| !k.is_empty() && !k.starts_with('#'));
    match (table, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (None, Some(k)) => Some(k.to_string()),
        (t, None) => t,
    }
}
