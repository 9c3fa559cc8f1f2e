//! The experiment kinds, in one table ([`KINDS`]): `lppf validate`, `run`, `summarize` and
//! `plot` find a manifest's kind here (by `[experiment] kind`) and work through
//! [`crate::Loaded`], so a new kind is its own file (its manifest, a `runner::Experiment` and a
//! `Loaded`) plus one line in the table.

use crate::kinds::Loaded;
use crate::manifest::{EXPERIMENT_KINDS, ManifestError, invalid};
use std::path::Path;

/// A kind's manifest parser: manifest text and the file that labels errors.
pub type ParseManifest = fn(&str, &Path) -> Result<Box<dyn Loaded>, ManifestError>;

/// One row of the table: a kind's name and its manifest parser.
pub struct Kind {
    pub name: &'static str,
    pub parse: ParseManifest,
}

/// Every experiment kind. `[experiment] kind` absent means the first.
pub const KINDS: &[Kind] = &[
    Kind { name: "factorization", parse: crate::sweep::parse_loaded },
    Kind { name: "dpvi", parse: crate::dpvi_run::parse_loaded },
    Kind { name: "dp-sep", parse: crate::dpsep::parse_loaded },
    Kind { name: "held-out", parse: crate::heldout::parse_loaded },
];

/// Reads and validates a manifest of any kind, dispatching on `experiment.kind`.
pub fn load_experiment(path: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ManifestError::Io { file: path.to_path_buf(), message: e.to_string() })?;
    parse_experiment(&text, path)
}

/// [`load_experiment`] of manifest text; `file` labels errors.
pub fn parse_experiment(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    let kind = toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|t| t.get("experiment")?.get("kind")?.as_str().map(str::to_string));
    let name = kind.as_deref().unwrap_or(KINDS[0].name);
    match KINDS.iter().find(|k| k.name == name) {
        Some(k) => (k.parse)(text, file),
        None => Err(invalid(file, "experiment.kind", format!("{name:?}"), EXPERIMENT_KINDS)),
    }
}
