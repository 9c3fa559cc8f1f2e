//! Named columns of a CSV (with a header) or Parquet file as text, each value with its place.

use crate::error::TableError;
use results::Values;
use std::fmt;
use std::path::Path;

/// Where a record is, for messages: `line N` of a CSV (the header is line 1) or `row N` of a
/// Parquet file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Place {
    Line(u64),
    Row(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Row(n) => write!(f, "row {n}"),
        }
    }
}

/// The most columns a caller asks for (`row,col,time,count`).
const MAX_WANTED: usize = 4;

/// The field delimiter of a CSV file: `given`, else a tab for names ending in `.tsv` or `.tab`,
/// else a comma.
pub(crate) fn delimiter(path: &Path, given: Option<u8>) -> u8 {
    let tab = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"));
    given.unwrap_or(if tab { b'\t' } else { b',' })
}

/// Whether `path` is read and written as Parquet (its name ends in `.parquet`).
pub(crate) fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Calls `visit` with the place and the columns `wanted` (by header name, case-sensitive) of
/// every record of `path`, streaming: memory stays one record (CSV) or one batch (Parquet)
/// however large the file. A CSV's fields are split at `delimiter` ([`delimiter`] when `None`).
/// A missing column is an error naming the columns the file has.
pub(crate) fn for_each_record(
    path: &Path,
    wanted: &[&str],
    delimiter: Option<u8>,
    visit: impl FnMut(Place, &[&str]) -> Result<(), TableError>,
) -> Result<(), TableError> {
    if wanted.len() > MAX_WANTED {
        return Err(TableError::file(path, format!("at most {MAX_WANTED} columns can be read at once")));
    }
    if is_parquet(path) {
        parquet_records(path, wanted, visit)
    } else {
        csv_records(path, wanted, self::delimiter(path, delimiter), visit)
    }
}

/// The columns `wanted` of every record of a small file (labels, levels): [`for_each_record`]
/// collected.
pub(crate) fn read_records(path: &Path, wanted: &[&str]) -> Result<Vec<(Place, Vec<String>)>, TableError> {
    let mut records = Vec::new();
    for_each_record(path, wanted, None, |place, fields| {
        records.push((place, fields.iter().map(|f| f.to_string()).collect()));
        Ok(())
    })?;
    Ok(records)
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
    // A release's noised column is `value`; a table with `count` instead is most likely the raw
    // counts, given where a release was expected (`lppf fit --method private`, say).
    let hint = if column == "value" && found.iter().any(|f| f == "count") {
        "; this looks like a table of raw counts, not a release: privatize it first (lppf privatize), \
         or fit the raw counts with --method non-private"
    } else {
        ""
    };
    TableError::file(
        path,
        format!(
            "no column `{column}` (the header has: {}); expected columns {column} and the others of the format{hint}",
            found.join(", ")
        ),
    )
}

fn csv_records(
    path: &Path,
    wanted: &[&str],
    delimiter: u8,
    mut visit: impl FnMut(Place, &[&str]) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .delimiter(delimiter)
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
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => {
                let place = e.position().map(|p| Place::Line(p.line()).to_string()).unwrap_or_default();
                return Err(TableError::at(path, &place, e));
            }
        }
        let place = Place::Line(record.position().map_or(0, |p| p.line()));
        let mut fields = [""; MAX_WANTED];
        for (f, &i) in fields.iter_mut().zip(&index) {
            *f = record.get(i).unwrap_or_default();
        }
        visit(place, &fields[..index.len()])?;
    }
}

fn parquet_records(
    path: &Path,
    wanted: &[&str],
    mut visit: impl FnMut(Place, &[&str]) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let mut text: Vec<Vec<String>> = Vec::with_capacity(wanted.len());
    let mut any = false;
    let null = |row: usize, column: &str| TableError::at(path, Place::Row(row + 1), format!("{column}: null value"));
    results::for_each_batch(path, |offset, mut columns| {
        let names: Vec<String> = columns.iter().map(|(n, _)| n.clone()).collect();
        if !any {
            check_unique(path, &names)?;
            any = true;
        }
        text.clear();
        for w in wanted {
            let i = names.iter().position(|n| n == w).ok_or_else(|| missing(path, w, &names))?;
            text.push(match std::mem::replace(&mut columns[i].1, Values::Int(Vec::new())) {
                Values::Text(v) => v,
                Values::Int(v) => v.iter().map(i64::to_string).collect(),
                Values::OptionalText(v) => match v.iter().position(Option::is_none) {
                    Some(i) => return Err(null(offset + i, w)),
                    None => v.into_iter().flatten().collect(),
                },
                Values::OptionalInt(v) => match v.iter().position(Option::is_none) {
                    Some(i) => return Err(null(offset + i, w)),
                    None => v.iter().flatten().map(i64::to_string).collect(),
                },
                Values::Float(v) => v.iter().map(|x| x.map_or(String::new(), |x| x.to_string())).collect(),
                Values::Bool(v) => v.iter().map(|x| x.map_or(String::new(), |x| x.to_string())).collect(),
                Values::FloatList(_) => {
                    return Err(TableError::at(
                        path,
                        Place::Row(offset + 1),
                        format!("{w}: a column of lists; it must hold single labels or counts"),
                    ));
                }
            });
        }
        let n = text.first().map_or(0, Vec::len);
        for i in 0..n {
            let mut fields = [""; MAX_WANTED];
            for (f, column) in fields.iter_mut().zip(&text) {
                *f = column[i].as_str();
            }
            visit(Place::Row(offset + i + 1), &fields[..wanted.len()])?;
        }
        Ok::<(), TableError>(())
    })?;
    // A file without rows: its columns are not read, as before (the first wanted one is named).
    match wanted.first() {
        Some(w) if !any => Err(missing(path, w, &[])),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use results::Values;

    /// A null where a label or count belongs is refused with its row, in text and integer columns.
    #[test]
    fn a_null_in_a_parquet_counts_file_is_refused_with_its_row() {
        let dir = std::env::temp_dir().join(format!("records-null-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("counts.parquet");
        let text = |v: &[&str]| Values::Text(v.iter().map(|s| s.to_string()).collect());
        let read = || {
            crate::read_counts_as(&path, false, &crate::GridLabels::default(), &crate::CountsFormat::default())
                .unwrap_err()
                .to_string()
        };
        let counts = Values::OptionalInt(vec![Some(1), None]);
        results::write_table(&path, &[("row", text(&["a", "b"])), ("col", text(&["x", "y"])), ("count", counts)], &[])
            .unwrap();
        let message = read();
        assert!(message.contains("row 2") && message.contains("count: null value"), "{message}");
        let rows = Values::OptionalText(vec![Some("a".into()), None]);
        let counts = Values::Int(vec![1, 2]);
        results::write_table(&path, &[("row", rows), ("col", text(&["x", "y"])), ("count", counts)], &[]).unwrap();
        let message = read();
        assert!(message.contains("row 2") && message.contains("row: null value"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
