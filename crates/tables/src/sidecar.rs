//! `<release>.privacy.toml`: what a release states about itself — the mechanism, the noise level
//! and ε of every row, the precision, the grid, the randomness and the software — and nothing
//! computed from the raw counts (even a checksum of them would be a release).

use crate::error::TableError;
use crate::grid::Labels;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The sidecar of a release.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacySidecar {
    /// e.g. "two-sided geometric (discrete Laplace), exact integer sampler".
    pub mechanism: String,
    /// `false` for a seeded (demonstration) release.
    pub private: bool,
    /// Where the noise came from.
    pub randomness: String,
    /// The precision `N`: changes of up to `N` in one count are `ε`-indistinguishable.
    pub precision: f64,
    /// Grid size and whether both axes hold the same labels (a network).
    pub rows: usize,
    pub cols: usize,
    pub square: bool,
    /// One level for every row, when all rows share it: `α` and `ε = N ln(1/α)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Per-row levels otherwise (every row listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row: Vec<RowLevel>,
    /// e.g. "lppf 0.1.0".
    pub software: String,
}

/// One row's noise level and privacy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowLevel {
    pub label: String,
    pub alpha: f64,
    pub epsilon: f64,
}

/// `released.csv` → `released.csv.privacy.toml`.
pub fn sidecar_path(release: &Path) -> PathBuf {
    let mut name = release.as_os_str().to_owned();
    name.push(".privacy.toml");
    PathBuf::from(name)
}

impl PrivacySidecar {
    /// The levels as written: a scalar `alpha` for all rows, else one entry per row.
    pub fn set_levels(&mut self, labels: &Labels, alphas: &[f64]) {
        let n = self.precision;
        let eps = |a: f64| n * (1.0 / a).ln();
        match alphas.first() {
            Some(&a) if alphas.iter().all(|&b| b == a) => {
                (self.alpha, self.epsilon, self.row) = (Some(a), Some(eps(a)), Vec::new());
            }
            _ => {
                self.row = labels
                    .names
                    .iter()
                    .zip(alphas)
                    .map(|(l, &a)| RowLevel { label: l.clone(), alpha: a, epsilon: eps(a) })
                    .collect();
                (self.alpha, self.epsilon) = (None, None);
            }
        }
    }

    /// Reads and checks a sidecar (every α in (0, 1)).
    pub fn load(path: &Path) -> Result<Self, TableError> {
        let text = std::fs::read_to_string(path).map_err(|e| TableError::file(path, format!("cannot read: {e}")))?;
        let sidecar: Self = toml::from_str(&text).map_err(|e| TableError::file(path, e))?;
        let bad =
            sidecar.alpha.into_iter().chain(sidecar.row.iter().map(|r| r.alpha)).find(|a| !(*a > 0.0 && *a < 1.0));
        if let Some(a) = bad {
            return Err(TableError::file(path, format!("alpha = {a} is not allowed: it must be in (0, 1)")));
        }
        Ok(sidecar)
    }

    /// `α_d` for each of `rows` (in their order): the scalar level, or each row's own.
    pub fn alphas(&self, path: &Path, rows: &Labels) -> Result<Vec<f64>, TableError> {
        if let Some(a) = self.alpha {
            return Ok(vec![a; rows.len()]);
        }
        let by_label = Labels::from_names(self.row.iter().map(|r| r.label.clone()));
        rows.names
            .iter()
            .map(|name| {
                by_label.get(name).map(|i| self.row[i].alpha).ok_or_else(|| {
                    TableError::file(
                        path,
                        format!("no noise level for row {name:?} (the sidecar lists {} rows)", self.row.len()),
                    )
                })
            })
            .collect()
    }
}
