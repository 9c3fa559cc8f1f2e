//! Named columns of a CSV (with a header) or Parquet file as text, each value with its place.

use crate::error::TableError;
use results::Values;
use std::path::Path;

/// The requested columns, row by row, with each row's place (`line N` / `row N`).
pub(crate) struct Records {
    pub places: Vec<String>,
    /// `rows[i][j]`: column `j` of the request in record `i`.
    pub rows: Vec<Vec<String>>,
}

/// Whether `path` is read and written as Parquet (its name ends in `.parquet`).
pub(crate) fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Reads the columns `wanted` (by header name, case-sensitive) of `path`. A missing column is an
/// error naming the columns the file has.
pub(crate) fn read_records(path: &Path, wanted: &[&str]) -> Result<Records, TableError> {
    if is_parquet(path) { read_parquet(path, wanted) } else { read_csv(path, wanted) }
}

/// A header that names a column twice (`row,col,count,count`): which one is meant is not for lppf
/// to guess.
fn check_unique(path: &Path, header: &[String]) -> Result<(), TableError> {
    for (i, name) in header.iter().enumerate() {
        if header[..i].contains(name) {
            return Err(TableError::file(
                path,
                format!(
                    "the header names the column `{name}` twice (header: {}); name each column once",
                    header.join(",")
                ),
            ));
        }
    }
    Ok(())
}

fn missing(path: &Path, column: &str, found: &[String]) -> TableError {
    TableError::file(
        path,
        format!(
            "no column `{column}` (the header has: {}); expected columns {column} and the others of the format",
            found.join(", ")
        ),
    )
}

fn read_csv(path: &Path, wanted: &[&str]) -> Result<Records, TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| TableError::file(path, format!("cannot read: {e}")))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| TableError::file(path, format!("cannot read the header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    check_unique(path, &header)?;
    let index: Vec<usize> = wanted
        .iter()
        .map(|w| header.iter().position(|h| h == w).ok_or_else(|| missing(path, w, &header)))
        .collect::<Result<_, _>>()?;
    let (mut places, mut rows) = (Vec::new(), Vec::new());
    for record in reader.records() {
        let record = record.map_err(|e| {
            let place = e.position().map(|p| format!("line {}", p.line())).unwrap_or_default();
            TableError::at(path, &place, e)
        })?;
        let place = format!("line {}", record.position().map_or(0, |p| p.line()));
        rows.push(index.iter().map(|&i| record.get(i).unwrap_or_default().to_string()).collect());
        places.push(place);
    }
    Ok(Records { places, rows })
}

fn read_parquet(path: &Path, wanted: &[&str]) -> Result<Records, TableError> {
    let columns = results::read_table(path)?;
    let names: Vec<String> = columns.iter().map(|(n, _)| n.clone()).collect();
    check_unique(path, &names)?;
    let mut picked = Vec::with_capacity(wanted.len());
    for w in wanted {
        let (_, values) = columns.iter().find(|(n, _)| n == w).ok_or_else(|| missing(path, w, &names))?;
        let text: Vec<String> = match values {
            Values::Text(v) => v.clone(),
            Values::Int(v) => v.iter().map(i64::to_string).collect(),
            Values::Float(v) => v.iter().map(|x| x.map_or(String::new(), |x| x.to_string())).collect(),
        };
        picked.push(text);
    }
    let n = picked.first().map_or(0, Vec::len);
    let rows = (0..n).map(|i| picked.iter().map(|c| c[i].clone()).collect()).collect();
    Ok(Records { places: (1..=n).map(|i| format!("row {i}")).collect(), rows })
}
