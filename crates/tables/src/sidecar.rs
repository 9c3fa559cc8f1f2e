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
    /// Counts over time (`row,col,time,value`): the number of time labels; the release lists
    /// every cell of `rows × cols × times`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<usize>,
    /// An undirected network (`lppf privatize --symmetric`): each unordered pair released once,
    /// listed with the first of its two labels in the grid's order, at the one level of all rows.
    #[serde(default, skip_serializing_if = "is_false")]
    pub symmetric: bool,
    /// With `symmetric`: whether the diagonal (self-pairs) was released too.
    #[serde(default, skip_serializing_if = "is_false")]
    pub diagonal: bool,
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

fn is_false(b: &bool) -> bool {
    !*b
}

/// `released.csv` → `released.csv.privacy.toml`.
pub fn sidecar_path(release: &Path) -> PathBuf {
    let mut name = release.as_os_str().to_owned();
    name.push(".privacy.toml");
    PathBuf::from(name)
}

/// The ε a release states for a mechanism of decay `λ = ln(1/α)` at precision `N`: `N·λ`
/// rounded **up** (two ulps above the rounded product, which covers the rounding of `λ` and of
/// the product), so that a sidecar never states less privacy loss than the noise gives. Deriving
/// it from the rounded `α` instead understated it by up to 6·10⁻¹⁰ relative near `α = 1`.
pub fn stated_epsilon(precision: f64, decay: f64) -> f64 {
    (precision * decay).next_up().next_up()
}

/// A row's noise level as a sidecar states it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StatedLevel {
    pub alpha: f64,
    pub epsilon: f64,
}

impl PrivacySidecar {
    /// The levels as written: a scalar `alpha` and `epsilon` for all rows, else one entry per row.
    pub fn set_levels(&mut self, labels: &Labels, levels: &[StatedLevel]) {
        match levels.first() {
            Some(&l) if levels.iter().all(|&m| m == l) => {
                (self.alpha, self.epsilon, self.row) = (Some(l.alpha), Some(l.epsilon), Vec::new());
            }
            _ => {
                self.row = labels
                    .names
                    .iter()
                    .zip(levels)
                    .map(|(name, l)| RowLevel { label: name.clone(), alpha: l.alpha, epsilon: l.epsilon })
                    .collect();
                (self.alpha, self.epsilon) = (None, None);
            }
        }
    }

    /// Reads and checks a sidecar: every field in range and the fields consistent with each other
    /// (issue 31) — the precision finite and > 0; a grid of at least one cell, square only if it
    /// has as many rows as columns, symmetric only if square, a diagonal only if symmetric; either one level for all rows (`alpha` with `epsilon`) or a
    /// table of every row (`[[row]]`, each label once), never both; every `α` a normal double in
    /// (0, 1) and every `ε` finite, > 0 and equal to `N ln(1/α)` to within rounding (relative
    /// 1e-9). Errors name the file, the field, the value and what is allowed.
    pub fn load(path: &Path) -> Result<Self, TableError> {
        let text = std::fs::read_to_string(path).map_err(|e| TableError::file(path, format!("cannot read: {e}")))?;
        let sidecar: Self = toml::from_str(&text).map_err(|e| TableError::file(path, e))?;
        sidecar.check().map_err(|m| TableError::file(path, m))?;
        Ok(sidecar)
    }

    /// The checks of [`PrivacySidecar::load`]; the message names the field, value and range.
    fn check(&self) -> Result<(), String> {
        let n = self.precision;
        if !(n.is_finite() && n > 0.0) {
            return Err(format!("precision = {n} is not allowed: it must be a finite number > 0"));
        }
        if self.rows == 0 || self.cols == 0 {
            return Err(format!(
                "rows = {}, cols = {}: a release has at least one row and one column",
                self.rows, self.cols
            ));
        }
        if self.square && self.rows != self.cols {
            return Err(format!(
                "square = true with rows = {} and cols = {}: a network has the same labels on both axes",
                self.rows, self.cols
            ));
        }
        match self.times {
            Some(0) => return Err("times = 0: a release over time has at least one time".into()),
            Some(_) if self.symmetric => {
                return Err(
                    "times with symmetric = true: a release over time lists every cell of a directed grid".into()
                );
            }
            _ => {}
        }
        if self.symmetric && !self.square {
            return Err("symmetric = true with square = false: an undirected network is square".into());
        }
        if self.diagonal && !self.symmetric {
            return Err("diagonal = true without symmetric = true: only a symmetric release states its diagonal".into());
        }
        let level = |what: &str, alpha: f64, epsilon: f64| -> Result<(), String> {
            if !(alpha > 0.0 && alpha < 1.0 && alpha.is_normal()) {
                return Err(format!("{what}alpha = {alpha} is not allowed: it must be a normal number in (0, 1)"));
            }
            if !(epsilon.is_finite() && epsilon > 0.0) {
                return Err(format!("{what}epsilon = {epsilon} is not allowed: it must be a finite number > 0"));
            }
            // The stated ε is N·λ of the mechanism, rounded up, and α = e^{−λ} rounded to a double:
            // ln(1/α) may differ from λ by the rounding of α, up to 2⁻⁵² absolute.
            let implied = n * (1.0 / alpha).ln();
            if (epsilon - implied).abs() > 1e-9 * implied + 4.0 * f64::EPSILON * n {
                return Err(format!(
                    "{what}epsilon = {epsilon} does not match alpha = {alpha} at precision = {n}: \
                     epsilon = precision × ln(1/alpha) = {implied}"
                ));
            }
            Ok(())
        };
        match (self.alpha, self.epsilon, self.row.is_empty()) {
            (Some(alpha), Some(epsilon), true) => level("", alpha, epsilon),
            (None, None, false) => {
                if self.row.len() != self.rows {
                    return Err(format!(
                        "{} [[row]] levels for rows = {}: list every row once",
                        self.row.len(),
                        self.rows
                    ));
                }
                let mut seen = Labels::default();
                for r in &self.row {
                    if r.label.is_empty() || !seen.insert_new(&r.label) {
                        return Err(format!("[[row]] label {:?} is empty or listed twice", r.label));
                    }
                    level(&format!("[[row]] {:?}: ", r.label), r.alpha, r.epsilon)?;
                }
                Ok(())
            }
            (Some(_), None, _) | (None, Some(_), _) => {
                Err("alpha and epsilon go together: a release with one level for all rows states both".into())
            }
            (Some(_), Some(_), false) => Err(
                "both a level for every row (alpha, epsilon) and a [[row]] table: a release states one or the other"
                    .into(),
            ),
            (None, None, true) => Err("no noise level: expected alpha and epsilon, or a [[row]] table".into()),
        }
    }

    /// `(rows, cols, times)` as stated (one time for a matrix): compare with
    /// `ReleasedTable::axis_sizes`.
    pub fn axis_sizes(&self) -> (usize, usize, usize) {
        (self.rows, self.cols, self.times.unwrap_or(1))
    }

    /// `α_d` for each of `rows` (in their order): the scalar level, or each row's own.
    pub fn alphas(&self, path: &Path, rows: &Labels) -> Result<Vec<f64>, TableError> {
        Ok(self.levels(path, rows)?.into_iter().map(|l| l.alpha).collect())
    }

    /// Each row's stated level (α and ε) in the order of `rows`; an error names a row without one.
    pub fn levels(&self, path: &Path, rows: &Labels) -> Result<Vec<StatedLevel>, TableError> {
        if let (Some(alpha), Some(epsilon)) = (self.alpha, self.epsilon) {
            return Ok(vec![StatedLevel { alpha, epsilon }; rows.len()]);
        }
        let by_label = Labels::from_names(self.row.iter().map(|r| r.label.clone()));
        rows.names
            .iter()
            .map(|name| {
                let level = |i: usize| StatedLevel { alpha: self.row[i].alpha, epsilon: self.row[i].epsilon };
                by_label.get(name).map(level).ok_or_else(|| {
                    TableError::file(
                        path,
                        format!("no noise level for row {name:?} (the sidecar lists {} rows)", self.row.len()),
                    )
                })
            })
            .collect()
    }
}

/// Reads a release as its sidecar says it lists its cells: every cell of the grid
/// ([`crate::read_released`]), for a symmetric release each pair once
/// ([`crate::read_released_pairs`]), for a release over time every cell with its time
/// ([`crate::read_released_over_time`]); every cell of a matrix when there is no sidecar.
pub fn read_release_as_stated(path: &Path) -> Result<crate::ReleasedTable, TableError> {
    let sidecar = sidecar_path(path);
    let stated = if sidecar.exists() { Some(PrivacySidecar::load(&sidecar)?) } else { None };
    match stated {
        Some(s) if s.symmetric => crate::read_released_pairs(path, s.diagonal),
        Some(s) if s.times.is_some() => crate::read_released_over_time(path),
        _ => crate::read_released(path),
    }
}
