//! Value-by-value comparison of two results files of any kind (`lppf diff`): the check that a
//! rerun, another thread count, another machine or a refactor reproduced the same numbers.
//!
//! Columns are matched by name; floats are compared **bit for bit** (NaN equals NaN of the same
//! bits), integers, booleans and strings exactly, nulls as nulls. Columns that measure time
//! (`seconds`, `*_per_second`) differ between any two runs and are skipped unless asked for.

use crate::ResultsError;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::Path;

/// Whether a column measures wall-clock time (differs between runs by nature).
pub fn is_timing_column(name: &str) -> bool {
    name == "seconds" || name.ends_with("_per_second")
}

/// What [`compare_files`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Rows of each file.
    pub rows: (usize, usize),
    /// Columns compared.
    pub compared: Vec<String>,
    /// Columns skipped as timings.
    pub skipped: Vec<String>,
    /// Columns of only one file (name, which file: 0 or 1).
    pub unmatched: Vec<(String, usize)>,
    /// The first differences: (column, row, left value, right value), at most `limit`.
    pub differences: Vec<(String, usize, String, String)>,
    /// All differing cells.
    pub differing_cells: usize,
}

impl Comparison {
    /// Same rows, same columns, every compared value identical.
    pub fn identical(&self) -> bool {
        self.rows.0 == self.rows.1 && self.unmatched.is_empty() && self.differing_cells == 0
    }

    /// [`Comparison::identical`] except that the right file may have columns the left lacks (a
    /// newer version's file that added columns to the same numbers).
    pub fn identical_with_added_columns(&self) -> bool {
        self.rows.0 == self.rows.1 && self.unmatched.iter().all(|(_, file)| *file == 1) && self.differing_cells == 0
    }
}

fn read_all(path: &Path) -> Result<RecordBatch, ResultsError> {
    let file = std::fs::File::open(path).map_err(|e| ResultsError::new(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| ResultsError::new(path, e))?;
    let schema = builder.schema().clone();
    // One batch holding every row (lppf's files are small; the size comes from the file's footer).
    let rows = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0).max(1);
    let reader = builder.with_batch_size(rows).build().map_err(|e| ResultsError::new(path, e))?;
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().map_err(|e| ResultsError::new(path, e))?;
    match batches.as_slice() {
        [] => Ok(RecordBatch::new_empty(schema)),
        [one] => Ok(one.clone()),
        _ => Err(ResultsError::new(path, "more than one record batch: not a results file written by lppf")),
    }
}

/// Cell `row` of `array` as text, and bits for floats (for exact comparison).
fn cell(array: &ArrayRef, row: usize) -> Result<(String, Option<u64>), String> {
    if array.is_null(row) {
        return Ok(("null".into(), None));
    }
    Ok(match array.data_type() {
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(row);
            (format!("{v:?}"), Some(v.to_bits()))
        }
        DataType::Int64 => (array.as_primitive::<Int64Type>().value(row).to_string(), None),
        DataType::UInt64 => (array.as_primitive::<UInt64Type>().value(row).to_string(), None),
        DataType::Boolean => (array.as_boolean().value(row).to_string(), None),
        DataType::Utf8 => (array.as_string::<i32>().value(row).to_string(), None),
        // A list of floats (per-chain values), compared by its shortest round-trip text.
        DataType::List(field) if field.data_type() == &DataType::Float64 => {
            let values = array.as_list::<i32>().value(row);
            let text = values.as_primitive::<Float64Type>().iter().map(|v| format!("{v:?}")).collect::<Vec<_>>();
            (format!("[{}]", text.join(", ")), None)
        }
        other => return Err(format!("a column of type {other}, which lppf does not write")),
    })
}

/// Compares `left` and `right` value by value (see the module documentation), recording at most
/// `limit` differences. `with_timings` compares the timing columns too.
pub fn compare_files(left: &Path, right: &Path, with_timings: bool, limit: usize) -> Result<Comparison, ResultsError> {
    let (a, b) = (read_all(left)?, read_all(right)?);
    let mut out = Comparison { rows: (a.num_rows(), b.num_rows()), ..Comparison::default() };
    for field in a.schema().fields() {
        if b.schema().field_with_name(field.name()).is_err() {
            out.unmatched.push((field.name().clone(), 0));
        }
    }
    for field in b.schema().fields() {
        if a.schema().field_with_name(field.name()).is_err() {
            out.unmatched.push((field.name().clone(), 1));
        }
    }
    for field in a.schema().fields() {
        let name = field.name();
        let Some(right_column) = b.column_by_name(name) else { continue };
        if !with_timings && is_timing_column(name) {
            out.skipped.push(name.clone());
            continue;
        }
        let left_column = a.column_by_name(name).expect("a field of its own schema");
        for row in 0..a.num_rows().min(b.num_rows()) {
            let (l, lb) = cell(left_column, row).map_err(|e| ResultsError::new(left, format!("column {name}: {e}")))?;
            let (r, rb) =
                cell(right_column, row).map_err(|e| ResultsError::new(right, format!("column {name}: {e}")))?;
            let same = match (lb, rb) {
                (Some(x), Some(y)) => x == y,
                _ => l == r,
            };
            if !same {
                out.differing_cells += 1;
                if out.differences.len() < limit {
                    out.differences.push((name.clone(), row, l, r));
                }
            }
        }
        out.compared.push(name.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Values, write_table};

    #[test]
    fn identical_files_and_each_kind_of_difference() {
        let dir = std::env::temp_dir().join(format!("compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, x: Vec<Option<f64>>, method: &str, seconds: f64| {
            let path = dir.join(name);
            let columns = [
                ("method", Values::Text(vec![method.to_string(); 2])),
                ("x", Values::Float(x)),
                ("seconds", Values::Float(vec![Some(seconds); 2])),
            ];
            write_table(&path, &columns, &[]).unwrap();
            path
        };
        let a = write("a.parquet", vec![Some(0.1), None], "private", 1.0);
        let same = write("b.parquet", vec![Some(0.1), None], "private", 2.0);
        let c = compare_files(&a, &same, false, 10).unwrap();
        assert!(c.identical(), "{c:?}");
        assert_eq!(c.skipped, vec!["seconds".to_string()]);
        assert!(!compare_files(&a, &same, true, 10).unwrap().identical());
        // One ulp is a difference; a null where a value was is a difference; a string too.
        let ulp = write("c.parquet", vec![Some(f64::from_bits(0.1f64.to_bits() + 1)), Some(2.0)], "naive", 1.0);
        let c = compare_files(&a, &ulp, false, 10).unwrap();
        assert_eq!(c.differing_cells, 4, "{c:?}");
        assert_eq!(c.differences[0].0, "method");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
