//! Stored base parameters of a semi-synthetic design (§5.1, §5.2 of Schein et al. 2019): point
//! estimates of a model's factors fitted to real data — `θ*` and `π*` (block model) or `θ*` and
//! `φ*` (topic model) — kept as a TOML file (e.g. `data/enron/base.toml`, written by
//! `lppf prepare-enron`).
//!
//! The file is model-agnostic: `model` names a registered [`ModelKind`], and the file holds one
//! matrix (a list of rows) per factor of that kind's [`ModelKind::factors`], under the factor's
//! name, in that order. Shapes are checked against the layout, so a new model needs no code here.
//!
//! Each data set of a semi-synthetic sweep re-scales the rows of `θ*`:
//! `θ_ic = γ_i θ*_ic` with `γ_i ~ Gamma(e₀ f₀, rate f₀)` (so `E[γ_i] = e₀`), keeps the other
//! factors, and draws `y ~ Pois(μ)` from the re-scaled rates.

use crate::error::PrepareError;
use models::{Axis, ModelKind};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::Path;

/// A matrix as a list of rows.
pub type Rows = Vec<Vec<f64>>;

/// The file's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseParameters {
    /// The model the parameters belong to.
    pub model: ModelKind,
    /// A label per row (actor or document), in row order.
    pub row_labels: Vec<String>,
    /// A label per column (word) of a non-square model, in column order; empty when the file
    /// has none (and always for a square model, whose columns are its rows).
    pub col_labels: Vec<String>,
    /// One matrix per factor of `model.factors()`, in that order (for both registered models the
    /// first is `θ*`, rows × components).
    pub factors: Vec<Rows>,
    /// Where the parameters come from (input file and checksum, fit settings); free-form,
    /// carried along for the record and not interpreted.
    pub provenance: toml::Table,
}

impl Serialize for BaseParameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let layouts = self.model.factors();
        let labels = usize::from(!self.col_labels.is_empty());
        let mut map = serializer.serialize_map(Some(3 + labels + layouts.len()))?;
        map.serialize_entry("model", &self.model)?;
        map.serialize_entry("row_labels", &self.row_labels)?;
        if !self.col_labels.is_empty() {
            map.serialize_entry("col_labels", &self.col_labels)?;
        }
        for (layout, matrix) in layouts.iter().zip(&self.factors) {
            map.serialize_entry(layout.name, matrix)?;
        }
        map.serialize_entry("provenance", &self.provenance)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for BaseParameters {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(deserializer)?;
        let mut take = |key: &str| table.remove(key);
        let model: ModelKind =
            take("model").ok_or_else(|| D::Error::missing_field("model"))?.try_into().map_err(D::Error::custom)?;
        let row_labels = take("row_labels")
            .ok_or_else(|| D::Error::missing_field("row_labels"))?
            .try_into()
            .map_err(|e| D::Error::custom(format!("row_labels: {e}")))?;
        let col_labels = match take("col_labels") {
            Some(v) => v.try_into().map_err(|e| D::Error::custom(format!("col_labels: {e}")))?,
            None => Vec::new(),
        };
        let provenance = match take("provenance") {
            Some(v) => v.try_into().map_err(|e| D::Error::custom(format!("provenance: {e}")))?,
            None => toml::Table::new(),
        };
        let names: Vec<&str> = model.factors().iter().map(|l| l.name).collect();
        let mut factors = Vec::with_capacity(names.len());
        for name in &names {
            let value = take(name).ok_or_else(|| {
                D::Error::custom(format!("missing `{name}`: a {} base file holds {}", model.name(), names.join(", ")))
            })?;
            factors.push(value.try_into().map_err(|e| D::Error::custom(format!("`{name}`: {e}")))?);
        }
        if let Some(key) = table.keys().next() {
            return Err(D::Error::custom(format!(
                "unknown field `{key}`: a {} base file holds model, row_labels, col_labels (optional), {}, provenance",
                model.name(),
                names.join(", ")
            )));
        }
        Ok(Self { model, row_labels, col_labels, factors, provenance })
    }
}

impl BaseParameters {
    /// Reads and checks a base-parameter file.
    pub fn load(path: &Path) -> Result<Self, PrepareError> {
        let at = |message: String| PrepareError::File { path: path.to_path_buf(), message };
        let text = std::fs::read_to_string(path).map_err(|e| at(format!("cannot read: {e}")))?;
        let base: Self = toml::from_str(&text).map_err(|e| at(e.to_string()))?;
        base.check().map_err(at)?;
        Ok(base)
    }

    /// The size of `axis` as the first factor that has it says (0 when none does).
    fn size(&self, axis: Axis) -> usize {
        let layouts = self.model.factors();
        layouts
            .iter()
            .zip(&self.factors)
            .find_map(|(l, m)| {
                if l.rows == axis {
                    Some(m.len())
                } else if l.cols == axis {
                    Some(m.first().map_or(0, Vec::len))
                } else {
                    None
                }
            })
            .unwrap_or(0)
    }

    /// Number of rows (actors or documents).
    pub fn rows(&self) -> usize {
        self.size(Axis::Rows)
    }

    /// Number of components (communities or topics).
    pub fn components(&self) -> usize {
        self.size(Axis::Components)
    }

    /// Number of columns of the count matrix (rows for a square model such as the block model,
    /// words for the topic model).
    pub fn cols(&self) -> usize {
        if self.model.square() { self.rows() } else { self.size(Axis::Cols) }
    }

    /// Number of times (a tensor's third mode; 1 for the matrix models).
    pub fn times(&self) -> usize {
        if self.model.has_times() { self.size(Axis::Times) } else { 1 }
    }

    /// Each factor flattened row-major, in `model.factors()` order.
    pub fn factors_flat(&self) -> Vec<Vec<f64>> {
        self.factors.iter().map(|m| m.concat()).collect()
    }

    /// The index of the factor whose rows are the count matrix's rows (`θ*`).
    pub fn row_factor(&self) -> Option<usize> {
        self.model.factors().iter().position(|l| l.rows == Axis::Rows)
    }

    /// The index of the factor whose columns are the count matrix's columns (`φ*`, `K × V`).
    pub fn col_factor(&self) -> Option<usize> {
        self.model.factors().iter().position(|l| l.cols == Axis::Cols)
    }

    /// Shapes agree with the model's layout, every value is finite and `> 0`, and there is one
    /// label per row.
    pub fn check(&self) -> Result<(), String> {
        let layouts = self.model.factors();
        if self.factors.len() != layouts.len() {
            return Err(format!(
                "{} factor matrices; a {} model has {}",
                self.factors.len(),
                self.model.name(),
                layouts.len()
            ));
        }
        let (rows, k, cols) = (self.rows(), self.components(), self.cols());
        if rows < 2 || k == 0 || cols == 0 {
            return Err(format!(
                "the factors give {rows} rows, {cols} columns, {k} components; expected at least 2 rows, 1 column and 1 component"
            ));
        }
        if self.row_labels.len() != rows {
            return Err(format!("{} row_labels for {rows} rows", self.row_labels.len()));
        }
        let labels = self.col_labels.len();
        if labels != 0 && (self.model.square() || labels != cols) {
            let expected = if self.model.square() {
                "none (a square model's columns are its rows)".into()
            } else {
                format!("none or {cols}")
            };
            return Err(format!("{labels} col_labels; expected {expected}"));
        }
        let size = |axis| match axis {
            Axis::Rows => rows,
            Axis::Cols => cols,
            Axis::Times => self.times(),
            Axis::Components => k,
        };
        for (layout, matrix) in layouts.iter().zip(&self.factors) {
            let (name, want_rows, want_cols) = (layout.name, size(layout.rows), size(layout.cols));
            if matrix.len() != want_rows {
                return Err(format!("`{name}` has {} rows; expected {want_rows}", matrix.len()));
            }
            for (i, row) in matrix.iter().enumerate() {
                if row.len() != want_cols {
                    return Err(format!("`{name}` row {i} has {} values; expected {want_cols}", row.len()));
                }
                if let Some(x) = row.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
                    return Err(format!("`{name}` row {i} holds {x}; every value must be finite and > 0"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic() -> BaseParameters {
        BaseParameters {
            model: ModelKind::Topic,
            row_labels: vec!["d0".into(), "d1".into()],
            col_labels: vec!["gas".into(), "power".into(), "legal".into()],
            factors: vec![vec![vec![1.0], vec![2.0]], vec![vec![0.2, 0.3, 0.5]]],
            provenance: toml::Table::new(),
        }
    }

    /// Column labels (words) survive a round trip and are checked against the columns; a file
    /// without them reads as none, and a square model may not have them.
    #[test]
    fn column_labels_round_trip_and_are_checked() {
        let base = topic();
        let text = toml::to_string(&base).unwrap();
        assert!(text.contains("col_labels = [\"gas\", \"power\", \"legal\"]"), "{text}");
        let back: BaseParameters = toml::from_str(&text).unwrap();
        assert_eq!(back, base);
        back.check().unwrap();
        let without: BaseParameters =
            toml::from_str(&text.lines().filter(|l| !l.starts_with("col_labels")).collect::<Vec<_>>().join("\n"))
                .unwrap();
        assert!(without.col_labels.is_empty() && !toml::to_string(&without).unwrap().contains("col_labels"));
        let mut short = topic();
        short.col_labels.pop();
        assert_eq!(short.check().unwrap_err(), "2 col_labels; expected none or 3");
        let square = BaseParameters {
            model: ModelKind::Block,
            row_labels: vec!["a".into(), "b".into()],
            col_labels: vec!["a".into(), "b".into()],
            factors: vec![vec![vec![1.0], vec![2.0]], vec![vec![0.5]]],
            provenance: toml::Table::new(),
        };
        assert!(square.check().unwrap_err().contains("a square model's columns are its rows"));
    }
}
