//! Released values `row,col,value`: every cell of the grid, once.

use crate::error::TableError;
use crate::grid::{CountTable, Labels, check_grid};
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
    let cells = table.values.iter().enumerate().map(|(n, &v)| (n / cols, n % cols, v));
    write_cells(path, (&table.rows, &table.cols), "value", cells)
}

/// Writes the non-zero cells of `table` as `row,col,count` (Parquet when the name ends in
/// `.parquet`), atomically: what [`crate::read_counts`] reads back (for a network, with
/// `square`, provided every label has a non-zero cell).
pub fn write_counts(path: &Path, table: &CountTable) -> Result<(), TableError> {
    let cols = table.cols.len();
    let cells = table.counts.iter().enumerate().filter(|(_, c)| **c > 0);
    let cells = cells.map(|(n, &c)| (n / cols, n % cols, i64::try_from(c).unwrap_or(i64::MAX)));
    write_cells(path, (&table.rows, &table.cols), "count", cells)
}

/// Writes `(row index, col index, value)` cells as `row,col,<value_name>` with their labels.
fn write_cells(
    path: &Path,
    (rows, cols): (&Labels, &Labels),
    value_name: &str,
    cells: impl Iterator<Item = (usize, usize, i64)>,
) -> Result<(), TableError> {
    if is_parquet(path) {
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for (i, j, value) in cells {
            r.push(rows.names[i].clone());
            c.push(cols.names[j].clone());
            v.push(value);
        }
        let columns = [("row", Values::Text(r)), ("col", Values::Text(c)), (value_name, Values::Int(v))];
        return Ok(write_table(path, &columns, &[])?);
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    let csv_error = |e: csv::Error| TableError::file(path, e);
    writer.write_record(["row", "col", value_name]).map_err(csv_error)?;
    for (i, j, value) in cells {
        let value = value.to_string();
        writer.write_record([rows.names[i].as_str(), cols.names[j].as_str(), value.as_str()]).map_err(csv_error)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read_counts;

    /// A network written by [`write_counts`] reads back as the same table, in CSV and Parquet;
    /// a release written by [`write_released`] reads back as the same release.
    #[test]
    fn tables_round_trip_in_both_formats() {
        let labels = Labels::from_names(["a, the first".to_string(), "b".to_string(), "c".to_string()]);
        let counts = CountTable { rows: labels.clone(), cols: labels.clone(), counts: vec![0, 2, 0, 1, 0, 7, 3, 0, 0] };
        let released = ReleasedTable { rows: labels.clone(), cols: labels, values: vec![-1, 2, 0, 1, -5, 7, 3, 0, 4] };
        let dir = std::env::temp_dir().join(format!("lppf-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for ext in ["csv", "parquet"] {
            let path = dir.join(format!("counts.{ext}"));
            write_counts(&path, &counts).unwrap();
            assert_eq!(read_counts(&path, true, &crate::GridLabels::default()).unwrap(), counts, "{ext}");
            let path = dir.join(format!("released.{ext}"));
            write_released(&path, &released).unwrap();
            assert_eq!(read_released(&path).unwrap(), released, "{ext}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
