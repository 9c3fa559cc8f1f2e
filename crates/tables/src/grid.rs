//! A data holder's counts as a labelled grid.

use crate::error::TableError;
use crate::records::read_records;
use std::collections::HashMap;
use std::path::Path;

/// The largest grid accepted (rows × columns): 10⁸ cells, 0.8 GB of counts. A release noises and
/// writes every cell, so a larger grid is refused before anything is allocated for it.
pub const MAX_CELLS: usize = 100_000_000;

/// Labels in order of first appearance, with their index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Labels {
    /// The index of `name`, adding it at the end if new.
    pub fn intern(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// The index of `name`, if present.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Labels from a list (the first of duplicates wins).
    pub fn from_names(names: impl IntoIterator<Item = String>) -> Self {
        let mut labels = Self::default();
        for n in names {
            labels.intern(&n);
        }
        labels
    }
}

/// Counts on the grid of every row label × every column label (row-major), unlisted cells 0.
#[derive(Clone, Debug, PartialEq)]
pub struct CountTable {
    pub rows: Labels,
    pub cols: Labels,
    pub counts: Vec<u64>,
}

/// Checks `rows × cols` against [`MAX_CELLS`].
pub(crate) fn check_grid(path: &Path, rows: usize, cols: usize) -> Result<usize, TableError> {
    match rows.checked_mul(cols) {
        Some(cells) if cells <= MAX_CELLS => Ok(cells),
        _ => Err(TableError::file(
            path,
            format!(
                "the grid has {rows} row labels × {cols} column labels, more than the {MAX_CELLS} cells lppf releases or fits"
            ),
        )),
    }
}

/// Reads `row,col,count` from `path`. The grid is every distinct `row` × every distinct `col` in
/// order of first appearance, or with `square` (a network) the union of all labels on both axes.
/// Errors: a missing column, an empty label, a count that is not a non-negative integer, a cell
/// listed twice, an empty table, a grid above [`MAX_CELLS`].
pub fn read_counts(path: &Path, square: bool) -> Result<CountTable, TableError> {
    let records = read_records(path, &["row", "col", "count"])?;
    let (mut rows, mut cols) = (Labels::default(), Labels::default());
    let mut cells: Vec<(usize, usize, u64)> = Vec::with_capacity(records.rows.len());
    for (place, record) in records.places.iter().zip(&records.rows) {
        let (r, c, count) = (&record[0], &record[1], &record[2]);
        for (field, label) in [("row", r), ("col", c)] {
            if label.is_empty() {
                return Err(TableError::at(path, place, format!("empty `{field}` label")));
            }
        }
        let count: u64 = count.parse().map_err(|_| {
            TableError::at(path, place, format!("count {count:?} is not allowed: it must be a non-negative integer"))
        })?;
        let i = rows.intern(r);
        let j = if square { rows.intern(c) } else { cols.intern(c) };
        cells.push((i, j, count));
    }
    if square {
        cols = rows.clone();
    }
    if cells.is_empty() {
        return Err(TableError::file(path, "no cells: expected a header row,col,count and at least one line"));
    }
    let n = check_grid(path, rows.len(), cols.len())?;
    let mut counts = vec![0u64; n];
    let mut seen = vec![false; n];
    for ((i, j, count), place) in cells.into_iter().zip(&records.places) {
        let cell = i * cols.len() + j;
        if std::mem::replace(&mut seen[cell], true) {
            let (r, c) = (&rows.names[i], &cols.names[j]);
            return Err(TableError::at(
                path,
                place,
                format!("the cell ({r}, {c}) is listed twice; list each cell once"),
            ));
        }
        counts[cell] = count;
    }
    Ok(CountTable { rows, cols, counts })
}
