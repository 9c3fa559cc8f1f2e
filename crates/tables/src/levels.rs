//! Per-row privacy levels: each person chooses their own (heterogeneous α_d, §4 of Schein et al.).

use crate::error::TableError;
use crate::records::{Place, read_records};
use std::path::Path;

/// One row's level, as written in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    /// The noise level `α ∈ (0, 1)`.
    Alpha(f64),
    /// The privacy level `ε > 0` (converted with the precision `N`: `α = exp(−ε/N)`).
    Epsilon(f64),
}

/// Reads `row,alpha` or `row,epsilon` (one of the two columns); every value checked (`α ∈ (0, 1)`,
/// `ε` finite and `> 0`), each row once.
pub fn read_levels(path: &Path) -> Result<Vec<(String, Level)>, TableError> {
    let (records, epsilon) = match read_records(path, &["row", "alpha"]) {
        Ok(r) => (r, false),
        Err(_) => (
            read_records(path, &["row", "epsilon"])
                .map_err(|_| TableError::file(path, "expected the columns row,alpha or row,epsilon"))?,
            true,
        ),
    };
    levels_of_records(path, &records, epsilon)
}

/// [`read_levels`] of levels held in memory (a Python dict): each row's `α` (or, with
/// `epsilon`, its `ε`); `name` stands for them in messages.
pub fn levels_from_list(
    name: &Path,
    levels: &[(String, f64)],
    epsilon: bool,
) -> Result<Vec<(String, Level)>, TableError> {
    let records: Vec<(Place, Vec<String>)> = levels
        .iter()
        .enumerate()
        .map(|(i, (row, value))| (Place::Row(i + 1), vec![row.clone(), format!("{value:?}")]))
        .collect();
    levels_of_records(name, &records, epsilon)
}

fn levels_of_records(
    path: &Path,
    records: &[(Place, Vec<String>)],
    epsilon: bool,
) -> Result<Vec<(String, Level)>, TableError> {
    let mut seen = crate::Labels::default();
    let mut levels = Vec::with_capacity(records.len());
    for (place, record) in records {
        let (row, text) = (&record[0], &record[1]);
        let value: f64 = text.parse().unwrap_or(f64::NAN);
        let level = if epsilon {
            if !(value.is_finite() && value > 0.0) {
                return Err(TableError::at(
                    path,
                    place,
                    format!("row {row:?}: epsilon {text:?} is not allowed: it must be a finite number > 0"),
                ));
            }
            Level::Epsilon(value)
        } else {
            if !(value > 0.0 && value < 1.0) {
                return Err(TableError::at(
                    path,
                    place,
                    format!("row {row:?}: alpha {text:?} is not allowed: it must be a number in (0, 1)"),
                ));
            }
            Level::Alpha(value)
        };
        if seen.insert_new(row) {
            levels.push((row.clone(), level));
        } else {
            return Err(TableError::at(path, place, format!("row {row:?} has a level already; give each row once")));
        }
    }
    Ok(levels)
}
