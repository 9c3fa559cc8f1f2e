//! Released values `row,col,value`: every cell of the grid, once.

use crate::error::TableError;
use crate::grid::{Labels, check_grid};
use crate::records::{is_parquet, read_records};
use results::{Values, write_table};
use std::path::Path;

/// Released values on a labelled grid (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct ReleasedTable {
    pub rows: Labels,
    pub cols: Labels,
    pub values: Vec<i64>,
}

impl ReleasedTable {
    /// The same table with its columns in the order of its rows, when both axes hold the same
    /// labels (a network); `None` otherwise.
    pub fn as_square(&self) -> Option<ReleasedTable> {
        let n = self.rows.len();
        if self.cols.len() != n {
            return None;
        }
        let order: Vec<usize> = self.rows.names.iter().map(|r| self.cols.get(r)).collect::<Option<_>>()?;
        let mut values = Vec::with_capacity(n * n);
        for i in 0..n {
            values.extend(order.iter().map(|&j| self.values[i * n + j]));
        }
        Some(ReleasedTable { rows: self.rows.clone(), cols: self.rows.clone(), values })
    }
}

/// Writes every cell as `row,col,value` (Parquet when the name ends in `.parquet`), atomically.
pub fn write_released(path: &Path, table: &ReleasedTable) -> Result<(), TableError> {
    let cols = table.cols.len();
    let cell = |n: usize| (&table.rows.names[n / cols], &table.cols.names[n % cols]);
    if is_parquet(path) {
        let n = table.values.len();
        let columns = [
            ("row", Values::Text((0..n).map(|k| cell(k).0.clone()).collect())),
            ("col", Values::Text((0..n).map(|k| cell(k).1.clone()).collect())),
            ("value", Values::Int(table.values.clone())),
        ];
        return Ok(write_table(path, &columns, &[])?);
    }
    let mut writer = csv::Writer::from_writer(Vec::with_capacity(table.values.len() * 16));
    let csv_error = |e: csv::Error| TableError::file(path, e);
    writer.write_record(["row", "col", "value"]).map_err(csv_error)?;
    for (n, &value) in table.values.iter().enumerate() {
        let (r, c) = cell(n);
        writer.write_record([r.as_str(), c.as_str(), value.to_string().as_str()]).map_err(csv_error)?;
    }
    let bytes = writer.into_inner().map_err(|e| TableError::file(path, e))?;
    Ok(results::write_atomic(path, &bytes)?)
}

/// Reads `row,col,value`: labels in order of first appearance; every cell of the grid must
/// appear exactly once (a missing cell or one listed twice is an error naming it).
pub fn read_released(path: &Path) -> Result<ReleasedTable, TableError> {
    let records = read_records(path, &["row", "col", "value"])?;
    let (mut rows, mut cols) = (Labels::default(), Labels::default());
    let mut cells = Vec::with_capacity(records.rows.len());
    for (place, record) in records.places.iter().zip(&records.rows) {
        let value: i64 = record[2].parse().map_err(|_| {
            TableError::at(path, place, format!("value {:?} is not allowed: it must be an integer", record[2]))
        })?;
        cells.push((rows.intern(&record[0]), cols.intern(&record[1]), value));
    }
    if cells.is_empty() {
        return Err(TableError::file(path, "no cells: expected a header row,col,value and one line per cell"));
    }
    let n = check_grid(path, rows.len(), cols.len())?;
    let mut values = vec![0i64; n];
    let mut seen = vec![false; n];
    for ((i, j, value), place) in cells.into_iter().zip(&records.places) {
        let cell = i * cols.len() + j;
        if std::mem::replace(&mut seen[cell], true) {
            let (r, c) = (&rows.names[i], &cols.names[j]);
            return Err(TableError::at(path, place, format!("the cell ({r}, {c}) is listed twice")));
        }
        values[cell] = value;
    }
    if let Some(cell) = seen.iter().position(|s| !s) {
        let (r, c) = (&rows.names[cell / cols.len()], &cols.names[cell % cols.len()]);
        let missing = seen.iter().filter(|s| !**s).count();
        return Err(TableError::file(
            path,
            format!(
                "{missing} cells of the {} × {} grid are missing, e.g. ({r}, {c}); a release lists every cell",
                rows.len(),
                cols.len()
            ),
        ));
    }
    Ok(ReleasedTable { rows, cols, values })
}
