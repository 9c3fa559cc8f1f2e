//! The experiment kinds, in one table ([`KINDS`]): `lppf validate`, `run`, `summarize` and
//! `plot` find a manifest's kind here (by `[experiment] kind`) and work through
//! [`crate::Loaded`], so a new kind is its own file (its manifest, a `runner::Experiment` and a
//! `Loaded`) plus one line in the table.

use crate::kinds::Loaded;
use crate::manifest::{EXPERIMENT_KINDS, ManifestError, invalid};
use std::path::Path;

/// A kind's manifest parser: manifest text and the file that labels errors.
pub type ParseManifest = fn(&str, &Path) -> Result<Box<dyn Loaded>, ManifestError>;

/// One row of the table: a kind's name, the top-level table only its manifests have (to tell
/// a manifest that forgot its `kind` from a factorization one), and its manifest parser.
pub struct Kind {
    pub name: &'static str,
    pub table: Option<&'static str>,
    pub parse: ParseManifest,
}

/// Every experiment kind. `[experiment] kind` absent means the first.
pub const KINDS: &[Kind] = &[
    Kind { name: "factorization", table: None, parse: crate::sweep::parse_loaded },
    Kind { name: "dpvi", table: Some("dpvi"), parse: crate::dpvi_run::parse_loaded },
    Kind { name: "dp-sep", table: Some("dpsep"), parse: crate::dpsep::parse_loaded },
    Kind { name: "held-out", table: Some("fit"), parse: crate::heldout::parse_loaded },
];

/// Reads and validates a manifest of any kind, dispatching on `experiment.kind`.
pub fn load_experiment(path: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ManifestError::Io { file: path.to_path_buf(), message: e.to_string() })?;
    parse_experiment(&text, path)
}

/// [`load_experiment`] of manifest text; `file` labels errors. A `kind` that is not a string,
/// or a missing `kind` in a manifest with another kind's table (`[dpvi]`, `[dpsep]`, `[fit]`), is
/// an error naming `experiment.kind` (not the other kind's table as an unknown field).
pub fn parse_experiment(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    // Text that is not TOML is refused here, naming the field on the line the parser points at
    // (an integer beyond 2⁶³ − 1, say: TOML's integers are 64-bit, and the kind's own parser would
    // otherwise blame an unrelated field).
    let table = match toml::from_str::<toml::Table>(text) {
        Ok(table) => Some(table),
        Err(e) => return Err(crate::manifest::parse_error(file, text, &e)),
    };
    let kind = table.as_ref().and_then(|t| t.get("experiment")?.get("kind"));
    let name = match kind {
        Some(toml::Value::String(name)) => name.as_str(),
        Some(other) => return Err(invalid(file, "experiment.kind", other.to_string(), EXPERIMENT_KINDS)),
        None => {
            let has = |name: &str| table.as_ref().is_some_and(|t| t.contains_key(name));
            if let Some(k) = KINDS.iter().find(|k| k.table.is_some_and(has)) {
                let (name, table) = (k.name, k.table.unwrap_or_default());
                return Err(invalid(
                    file,
                    "experiment.kind",
                    "missing".into(),
                    &format!(
                        "kind = {name:?} in [experiment] for a manifest with a [{table}] table ({EXPERIMENT_KINDS})"
                    ),
                ));
            }
            KINDS[0].name
        }
    };
    match KINDS.iter().find(|k| k.name == name) {
        Some(k) => (k.parse)(text, file),
        None => Err(invalid(file, "experiment.kind", format!("{name:?}"), EXPERIMENT_KINDS)),
    }
}
