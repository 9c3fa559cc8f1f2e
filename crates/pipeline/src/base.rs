//! Stored base parameters of a semi-synthetic design (§5.1, §5.2 of Schein et al. 2019): point
//! estimates `θ*` and `π*` (block model) or `θ*` and `φ*` (topic model) fitted to real data, kept
//! as a TOML file (e.g. `data/enron/base.toml`, written by `lppf prepare-enron`).
//!
//! Each data set of a semi-synthetic sweep re-scales the rows of `θ*`:
//! `θ_ic = γ_i θ*_ic` with `γ_i ~ Gamma(e₀ f₀, rate f₀)` (so `E[γ_i] = e₀`), keeps `π*` / `φ*`,
//! and draws `y ~ Pois(μ)` from the re-scaled rates.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The model family.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Poisson matrix factorization (`rows × cols`, `components` topics).
    Topic,
    /// Overlapping-community block model (`rows × rows`, `components` communities).
    Block,
}

/// The file's contents. Matrices are lists of rows.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BaseParameters {
    /// The model the parameters belong to.
    pub model: ModelKind,
    /// A label per row (actor or document), in row order.
    pub row_labels: Vec<String>,
    /// `θ*`, rows × components.
    pub theta: Vec<Vec<f64>>,
    /// Block model: `π*`, components × components.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi: Option<Vec<Vec<f64>>>,
    /// Topic model: `φ*`, components × columns (topic-major).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi: Option<Vec<Vec<f64>>>,
    /// Where the parameters come from (input file and checksum, fit settings); free-form,
    /// carried along for the record and not interpreted.
    #[serde(default)]
    pub provenance: toml::Table,
}

impl BaseParameters {
    /// Reads and checks a base-parameter file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let base: Self = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        base.check().map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(base)
    }

    /// Number of rows (actors or documents).
    pub fn rows(&self) -> usize {
        self.theta.len()
    }

    /// Number of components (communities or topics).
    pub fn components(&self) -> usize {
        self.theta.first().map_or(0, Vec::len)
    }

    /// Number of columns of the count matrix (rows for the block model, words for the topic model).
    pub fn cols(&self) -> usize {
        match self.model {
            ModelKind::Block => self.rows(),
            ModelKind::Topic => self.phi.as_ref().and_then(|p| p.first()).map_or(0, Vec::len),
        }
    }

    /// `θ*` flattened row-major.
    pub fn theta_flat(&self) -> Vec<f64> {
        self.theta.concat()
    }

    /// `π*` (block) or `φ*` (topic) flattened row-major.
    pub fn second_factor_flat(&self) -> Vec<f64> {
        match self.model {
            ModelKind::Block => self.pi.as_deref().map(<[Vec<f64>]>::concat),
            ModelKind::Topic => self.phi.as_deref().map(<[Vec<f64>]>::concat),
        }
        .unwrap_or_default()
    }

    /// Shapes agree, every value is finite and `> 0`, and the factor the model needs is there
    /// (and only that one).
    pub fn check(&self) -> Result<(), String> {
        let (rows, k) = (self.rows(), self.components());
        if rows < 2 || k == 0 {
            return Err(format!("theta is {rows}×{k}; expected at least 2 rows and 1 component"));
        }
        if self.row_labels.len() != rows {
            return Err(format!("{} row_labels for {rows} rows of theta", self.row_labels.len()));
        }
        let (name, second, other) = match self.model {
            ModelKind::Block => ("pi", &self.pi, self.phi.is_some().then_some("phi")),
            ModelKind::Topic => ("phi", &self.phi, self.pi.is_some().then_some("pi")),
        };
        if let Some(other) = other {
            return Err(format!("`{other}` does not belong to a {:?} model (it needs `{name}`)", self.model));
        }
        let second = second.as_ref().ok_or_else(|| format!("missing `{name}`"))?;
        let width = match self.model {
            ModelKind::Block => k,
            ModelKind::Topic => self.cols(),
        };
        if second.len() != k || width == 0 {
            return Err(format!("`{name}` has {} rows; expected {k} (one per component)", second.len()));
        }
        for (label, matrix, cols) in [("theta", &self.theta, k), (name, second, width)] {
            for (i, row) in matrix.iter().enumerate() {
                if row.len() != cols {
                    return Err(format!("`{label}` row {i} has {} values; expected {cols}", row.len()));
                }
                if let Some(x) = row.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
                    return Err(format!("`{label}` row {i} holds {x}; every value must be finite and > 0"));
                }
            }
        }
        Ok(())
    }
}
