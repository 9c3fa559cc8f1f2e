//! Released values `row,col,value`: every cell of the grid once, or for an undirected network
//! (`lppf privatize --symmetric`) every unordered pair once; counts over time as
//! `row,col,time,value`, every cell of the grid `rows × cols·times` once.

use crate::cells::Cells;
use crate::error::TableError;
use crate::grid::{CountTable, Labels, check_grid};
use crate::records::{delimiter, for_each_record, is_parquet};
use crate::times::{Pairs, TimeAxes};
use results::Values;
use std::path::Path;

/// Released values on a labelled grid (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct ReleasedTable {
    pub rows: Labels,
    pub cols: Labels,
    /// Every cell's value; with [`Layout::Pairs`] the matrix is symmetric (each pair's one
    /// released value at `(i, j)` and `(j, i)`) and the diagonal 0 unless released.
    pub values: Vec<i64>,
    pub layout: Layout,
    /// Counts over time: the column and time labels behind `cols` ([`TimeAxes`]).
    pub axes: Option<TimeAxes>,
}

/// Which cells a release lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Every cell of the grid.
    #[default]
    Grid,
    /// An undirected network: each unordered pair `{i, j}` once, as `(i, j)` with `i` before `j`
    /// in the grid's order, and the diagonal `(i, i)` only if `diagonal`.
    Pairs { diagonal: bool },
}

impl Layout {
    /// The columns listed in row `i` of a `v`-row grid: every one, or those from `i + 1` (from
    /// `i` with the diagonal).
    pub fn columns(self, i: usize, v: usize) -> std::ops::Range<usize> {
        match self {
            Layout::Grid => 0..v,
            Layout::Pairs { diagonal } => (if diagonal { i } else { i + 1 })..v,
        }
    }
}

impl ReleasedTable {
    /// A release of every cell of the grid.
    pub fn grid(rows: Labels, cols: Labels, values: Vec<i64>) -> Self {
        Self { rows, cols, values, layout: Layout::Grid, axes: None }
    }

    /// `(rows, columns, times)` as a sidecar states them: for counts over time the column and
    /// time labels, else the grid's columns and one time.
    pub fn axis_sizes(&self) -> (usize, usize, usize) {
        crate::times::modes(&self.rows, &self.cols, self.axes.as_ref())
    }

    /// Whether both axes hold the same labels (a network), in any order.
    /// Over time, whether the column labels behind the grid's columns are the row labels.
    pub fn is_square(&self) -> bool {
        let cols = self.axes.as_ref().map_or(&self.cols, |a| &a.cols);
        cols.len() == self.rows.len() && self.rows.names.iter().all(|r| cols.get(r).is_some())
    }

    /// The same table with its columns in the order of its rows, when both axes hold the same
    /// labels (a network); `None` otherwise. Already in that order (as `lppf privatize --square`
    /// writes it), the values are not copied.
    pub fn into_square(self) -> Option<ReleasedTable> {
        if !self.is_square() {
            return None;
        }
        if self.rows == self.cols {
            return Some(self);
        }
        let n = self.rows.len();
        let order: Vec<usize> = self.rows.names.iter().filter_map(|r| self.cols.get(r)).collect();
        let mut values = Vec::with_capacity(n * n);
        for i in 0..n {
            values.extend(order.iter().map(|&j| self.values[i * n + j]));
        }
        Some(ReleasedTable { cols: self.rows.clone(), rows: self.rows, values, layout: self.layout, axes: None })
    }
}

/// Writes the cells of its layout as `row,col,value` (Parquet when the name ends in `.parquet`),
/// atomically, in row-major order.
pub fn write_released(path: &Path, table: &ReleasedTable) -> Result<(), TableError> {
    Ok(results::persist(write_released_pending(path, table)?, path)?)
}

/// [`write_released`] into a complete pending file beside `path` (created exclusively:
/// [`results::pending_file`]), which the caller puts in place and which is removed when dropped.
pub fn write_released_pending(path: &Path, table: &ReleasedTable) -> Result<results::TempPath, TableError> {
    let (rows, cols, layout) = (table.rows.len(), table.cols.len(), table.layout);
    let cells = (0..rows).flat_map(|i| layout.columns(i, cols).map(move |j| (i, j)));
    let cells = cells.map(|(i, j)| (i, j, table.values[i * cols + j]));
    write_cells(path, (&table.rows, &table.cols, table.axes.as_ref()), "value", cells)
}

/// Writes the non-zero cells of `table` as `row,col,count` (Parquet when the name ends in
/// `.parquet`), atomically: what [`crate::read_counts`] reads back (for a network, with
/// `square`, provided every label has a non-zero cell).
pub fn write_counts(path: &Path, table: &CountTable) -> Result<(), TableError> {
    let cols = table.cols.len();
    let cells = table.counts.iter().enumerate().filter(|(_, c)| **c > 0);
    let cells = cells.map(|(n, &c)| (n / cols, n % cols, i64::try_from(c).unwrap_or(i64::MAX)));
    Ok(results::persist(write_cells(path, (&table.rows, &table.cols, table.axes.as_ref()), "count", cells)?, path)?)
}

/// Writes `(row index, col index, value)` cells as `row,col,<value_name>` with their labels
/// (`row,col,time,<value_name>` with time axes), streaming (a release of 10⁸ cells is never held
/// as text or as one Parquet batch), into a complete pending file for `path`.
fn write_cells(
    path: &Path,
    (rows, cols, axes): (&Labels, &Labels, Option<&TimeAxes>),
    value_name: &str,
    mut cells: impl Iterator<Item = (usize, usize, i64)>,
) -> Result<results::TempPath, TableError> {
    if is_parquet(path) {
        // Parts of 2¹⁸ cells; part 0 always (a table without cells still has its columns).
        const PART: usize = 1 << 18;
        let part = |i: usize| {
            let (mut r, mut c, mut t, mut v) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (i, j, value) in cells.by_ref().take(PART) {
                r.push(rows.names[i].clone());
                match axes {
                    Some(a) => {
                        let (j, time) = a.split(j);
                        c.push(a.cols.names[j].clone());
                        t.push(a.times.names[time].clone());
                    }
                    None => c.push(cols.names[j].clone()),
                }
                v.push(value);
            }
            let empty = v.is_empty();
            let mut columns = vec![("row", Values::Text(r)), ("col", Values::Text(c))];
            if axes.is_some() {
                columns.push(("time", Values::Text(t)));
            }
            columns.push((value_name, Values::Int(v)));
            Ok((i == 0 || !empty).then_some(columns))
        };
        return Ok(results::write_table_parts_pending(path, &[], part)?);
    }
    Ok(results::write_pending_with(path, |file| {
        let mut writer = csv::WriterBuilder::new().delimiter(delimiter(path, None)).from_writer(file);
        let csv_error = |e: csv::Error| results::ResultsError::new(path, e);
        let mut value = itoa::Buffer::new();
        match axes {
            None => {
                writer.write_record(["row", "col", value_name]).map_err(csv_error)?;
                for (i, j, v) in cells {
                    writer
                        .write_record([rows.names[i].as_str(), cols.names[j].as_str(), value.format(v)])
                        .map_err(csv_error)?;
                }
            }
            Some(a) => {
                writer.write_record(["row", "col", "time", value_name]).map_err(csv_error)?;
                for (i, j, v) in cells {
                    let (j, t) = a.split(j);
                    let labels = [rows.names[i].as_str(), a.cols.names[j].as_str(), a.times.names[t].as_str()];
                    writer.write_record([labels[0], labels[1], labels[2], value.format(v)]).map_err(csv_error)?;
                }
            }
        }
        writer.flush().map_err(|e| results::ResultsError::new(path, e))
    })?)
}

/// A released value as written: an integer, or the error naming its place.
fn released_value(path: &Path, place: crate::records::Place, text: &str) -> Result<i64, TableError> {
    text.parse()
        .map_err(|_| TableError::at(path, place, format!("value {text:?} is not allowed: it must be an integer")))
}

/// Reads `row,col,value`: labels in order of first appearance; every cell of the grid must
/// appear exactly once (a missing cell or one listed twice is an error naming it). Streams the
/// file: memory is the grid's values, plus 8 bytes a cell when the lines are not in row-major
/// order ([`write_released`] writes them in order).
pub fn read_released(path: &Path) -> Result<ReleasedTable, TableError> {
    let (mut rows, mut cols) = (Labels::default(), Labels::default());
    let mut cells = Cells::<i64>::new();
    for_each_record(path, &["row", "col", "value"], None, |place, record| {
        let value = released_value(path, place, record[2])?;
        let (r, c) = (record[0], record[1]);
        cells
            .push((rows.intern(r), cols.intern(c)), value)
            .map_err(|_| TableError::at(path, place, format!("the cell ({r}, {c}) is listed twice")))?;
        // Refused as soon as the labels pass the bound, before the grid is allocated.
        check_grid(path, rows.len(), cols.len())?;
        Ok(())
    })?;
    if cells.len() == 0 {
        return Err(TableError::file(path, "no cells: expected a header row,col,value and one line per cell"));
    }
    let n = check_grid(path, rows.len(), cols.len())?;
    if let Some((i, j)) = cells.first_missing(rows.len(), cols.len()) {
        let (r, c) = (&rows.names[i], &cols.names[j]);
        return Err(TableError::file(
            path,
            format!(
                "{} cells of the {} × {} grid are missing, e.g. ({r}, {c}); a release lists every cell",
                n - cells.len(),
                rows.len(),
                cols.len()
            ),
        ));
    }
    let values = cells.into_grid((rows.len(), cols.len()), None);
    Ok(ReleasedTable::grid(rows, cols, values))
}

/// Reads an undirected network's release (`lppf privatize --symmetric`): `row,col,value` with
/// each unordered pair once, in either orientation, and the diagonal only if `diagonal`. The
/// labels of both axes are one set, in order of first appearance; a pair listed twice (also as
/// `(a, b)` and `(b, a)`), a pair missing, or a diagonal cell that was not released is an error
/// naming it. The values come back as a symmetric matrix ([`Layout::Pairs`]).
pub fn read_released_pairs(path: &Path, diagonal: bool) -> Result<ReleasedTable, TableError> {
    let mut labels = Labels::default();
    let mut cells = Cells::<i64>::new();
    for_each_record(path, &["row", "col", "value"], None, |place, record| {
        let value = released_value(path, place, record[2])?;
        let (r, c) = (record[0], record[1]);
        let (i, j) = (labels.intern(r), labels.intern(c));
        if i == j && !diagonal {
            return Err(TableError::at(
                path,
                place,
                format!("the self-pair ({r}, {c}) is listed, but the sidecar says the diagonal was not released"),
            ));
        }
        cells.push((i.min(j), i.max(j)), value).map_err(|_| {
            TableError::at(
                path,
                place,
                format!("the pair {{{r}, {c}}} is listed twice (an undirected release lists each once)"),
            )
        })?;
        check_grid(path, labels.len(), labels.len())?;
        Ok(())
    })?;
    let v = labels.len();
    if v < 2 {
        return Err(TableError::file(path, "an undirected release needs at least two labels (one pair)"));
    }
    let layout = Layout::Pairs { diagonal };
    if let Some((i, j)) = cells.first_missing_of(v, |i| layout.columns(i, v)) {
        return Err(TableError::file(
            path,
            format!(
                "the pair {{{}, {}}} is missing; an undirected release lists every pair of its {v} labels once",
                labels.names[i], labels.names[j]
            ),
        ));
    }
    let mut values = cells.into_grid((v, v), None);
    for i in 0..v {
        for j in i + 1..v {
            values[j * v + i] = values[i * v + j];
        }
    }
    Ok(ReleasedTable { rows: labels.clone(), cols: labels, values, layout, axes: None })
}

/// Reads a release of counts over time, `row,col,time,value`: labels in order of first
/// appearance, every cell of the `rows × cols × times` grid exactly once (a missing cell or one
/// listed twice is an error naming it), on the grid `rows × cols·times` ([`TimeAxes`]).
pub fn read_released_over_time(path: &Path) -> Result<ReleasedTable, TableError> {
    let (mut rows, mut cols, mut times) = (Labels::default(), Labels::default(), Labels::default());
    let mut pairs = Pairs::default();
    let mut cells = Cells::<i64>::new();
    for_each_record(path, &["row", "col", "time", "value"], None, |place, record| {
        let value = released_value(path, place, record[3])?;
        let (r, c, t) = (record[0], record[1], record[2]);
        let j = pairs.intern((cols.intern(c), times.intern(t)));
        cells
            .push((rows.intern(r), j), value)
            .map_err(|_| TableError::at(path, place, format!("the cell ({r}, {c}, {t}) is listed twice")))?;
        check_grid(path, rows.len(), cols.len().saturating_mul(times.len()))?;
        Ok(())
    })?;
    if cells.len() == 0 {
        return Err(TableError::file(path, "no cells: expected a header row,col,time,value and one line per cell"));
    }
    let (i_count, j_count, t_count) = (rows.len(), cols.len(), times.len());
    let n = check_grid(path, i_count, j_count * t_count)?;
    if cells.len() < n {
        // The first missing cell: a pair that never appears, else a row's missing pair.
        let missing = (0..j_count * t_count)
            .map(|c| (c / t_count, c % t_count))
            .find(|&p| !pairs.contains(p))
            .map(|(j, t)| (0, j, t))
            .or_else(|| cells.first_missing(i_count, pairs.len()).map(|(i, p)| (i, pairs.get(p).0, pairs.get(p).1)));
        let (i, j, t) = missing.unwrap_or_default();
        return Err(TableError::file(
            path,
            format!(
                "{} cells of the {i_count} × {j_count} × {t_count} grid are missing, e.g. ({}, {}, {}); a release \
                 lists every cell",
                n - cells.len(),
                rows.names[i],
                cols.names[j],
                times.names[t]
            ),
        ));
    }
    let rows_in_place: Vec<usize> = (0..i_count).collect();
    let pair_moved = pairs.grid_columns(|j| j, |t| t, t_count);
    let values = cells.into_grid((i_count, j_count * t_count), Some((&rows_in_place, &pair_moved)));
    let axes = TimeAxes { cols, times };
    Ok(ReleasedTable { cols: axes.grid_labels(path)?, rows, values, layout: Layout::Grid, axes: Some(axes) })
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
        let counts = CountTable {
            rows: labels.clone(),
            cols: labels.clone(),
            counts: vec![0, 2, 0, 1, 0, 7, 3, 0, 0],
            axes: None,
        };
        let released = ReleasedTable::grid(labels.clone(), labels, vec![-1, 2, 0, 1, -5, 7, 3, 0, 4]);
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

    /// A release read in any line order gives the same table; a cell listed twice names its line
    /// (CSV) or row (Parquet); a missing cell is named by its labels.
    #[test]
    fn releases_read_in_any_order_and_name_bad_lines() {
        let dir = std::env::temp_dir().join(format!("lppf-released-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let ordered = write("ordered.csv", "row,col,value\na,x,1\na,y,-2\nb,x,3\nb,y,0\n");
        let shuffled = write("shuffled.csv", "row,col,value\nb,y,0\na,x,1\nb,x,3\na,y,-2\n");
        let (a, b) = (read_released(&ordered).unwrap(), read_released(&shuffled).unwrap());
        assert_eq!(a.values, vec![1, -2, 3, 0]);
        // Labels in order of first appearance: b, a and y, x.
        assert_eq!(
            (b.rows.names.clone(), b.values.clone()),
            (vec!["b".to_string(), "a".to_string()], vec![0, 3, -2, 1])
        );
        let twice = write("twice.csv", "row,col,value\na,x,1\na,y,2\nb,x,3\na,x,4\nb,y,0\n");
        let e = read_released(&twice).unwrap_err();
        assert_eq!((e.place.as_str(), e.message.as_str()), ("line 5", "the cell (a, x) is listed twice"));
        let missing = write("missing.csv", "row,col,value\na,x,1\nb,y,0\na,y,2\n");
        let e = read_released(&missing).unwrap_err();
        assert!(e.message.starts_with("1 cells of the 2 × 2 grid are missing, e.g. (b, x)"), "{}", e.message);
        let parquet = dir.join("twice.parquet");
        let labels = |v: &[&str]| Values::Text(v.iter().map(|s| s.to_string()).collect());
        let columns = [
            ("row", labels(&["a", "a", "a"])),
            ("col", labels(&["x", "y", "x"])),
            ("value", Values::Int(vec![1, 2, 3])),
        ];
        results::write_table(&parquet, &columns, &[]).unwrap();
        assert_eq!(read_released(&parquet).unwrap_err().place, "row 3");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Tables larger than one written part (2¹⁸ cells) round-trip in both formats.
    #[test]
    fn tables_of_several_parts_round_trip() {
        let (n_rows, n_cols) = (800, 500);
        let rows = Labels::from_names((0..n_rows).map(|i| format!("r{i:03}")));
        let cols = Labels::from_names((0..n_cols).map(|j| format!("c{j:03}")));
        // 400,000 cells, 285,714 of them non-zero counts: both above a part.
        let values: Vec<i64> = (0..n_rows * n_cols).map(|n| (n as i64 % 7) - 1).collect();
        let released = ReleasedTable::grid(rows.clone(), cols.clone(), values);
        let counts =
            CountTable { rows, cols, counts: released.values.iter().map(|&v| v.max(0) as u64).collect(), axes: None };
        let dir = std::env::temp_dir().join(format!("lppf-tables-parts-{}", std::process::id()));
        for ext in ["csv", "parquet"] {
            let path = dir.join(format!("released.{ext}"));
            write_released(&path, &released).unwrap();
            assert_eq!(read_released(&path).unwrap(), released, "{ext}");
            let path = dir.join(format!("counts.{ext}"));
            write_counts(&path, &counts).unwrap();
            assert_eq!(read_counts(&path, false, &crate::GridLabels::default()).unwrap(), counts, "{ext}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Counts on stated labels land on the stated grid, whether the lines are sparse and out of
    /// order or list the grid in its own order (kept without remapping).
    #[test]
    fn counts_on_stated_labels_land_in_place() {
        let dir = std::env::temp_dir().join(format!("lppf-tables-stated-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let given = crate::GridLabels {
            rows: Some(Labels::from_names(["b".to_string(), "a".to_string()])),
            cols: Some(Labels::from_names(["y".to_string(), "x".to_string()])),
            times: None,
        };
        for (name, text) in [
            ("sparse.csv", "row,col,count\na,x,1\nb,y,2\n"),
            ("dense.csv", "row,col,count\nb,y,2\nb,x,0\na,y,0\na,x,1\n"),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            let table = read_counts(&path, false, &given).unwrap();
            assert_eq!(table.counts, vec![2, 0, 0, 1], "{name}");
            assert_eq!(table.rows.names, vec!["b", "a"], "{name}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An undirected release lists each pair once; it reads back symmetric, in CSV and Parquet,
    /// with the diagonal when released; a pair twice (either way), a missing pair or an
    /// unreleased self-pair are refused by name.
    #[test]
    fn undirected_releases_list_each_pair_once() {
        let labels = Labels::from_names(["a".to_string(), "b".to_string(), "c".to_string()]);
        let dir = std::env::temp_dir().join(format!("lppf-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for diagonal in [false, true] {
            let d = if diagonal { 9 } else { 0 };
            let values = vec![d, 2, -1, 2, d, 5, -1, 5, d];
            let table = ReleasedTable {
                rows: labels.clone(),
                cols: labels.clone(),
                values,
                layout: Layout::Pairs { diagonal },
                axes: None,
            };
            for ext in ["csv", "parquet"] {
                let path = dir.join(format!("pairs-{diagonal}.{ext}"));
                write_released(&path, &table).unwrap();
                assert_eq!(read_released_pairs(&path, diagonal).unwrap(), table, "{ext}");
            }
            let text = std::fs::read_to_string(dir.join(format!("pairs-{diagonal}.csv"))).unwrap();
            assert_eq!(text.lines().count(), 1 + if diagonal { 6 } else { 3 }, "{text}");
        }
        let refused = |text: &str, diagonal: bool| {
            let path = dir.join("bad.csv");
            std::fs::write(&path, text).unwrap();
            read_released_pairs(&path, diagonal).unwrap_err().to_string()
        };
        let twice = refused("row,col,value\na,b,1\nb,a,1\na,c,0\nb,c,2\n", false);
        assert!(twice.contains("{b, a} is listed twice"), "{twice}");
        let missing = refused("row,col,value\na,b,1\na,c,0\n", false);
        assert!(missing.contains("{b, c} is missing"), "{missing}");
        let diagonal = refused("row,col,value\na,a,1\na,b,1\na,c,0\nb,c,2\n", false);
        assert!(diagonal.contains("self-pair (a, a)"), "{diagonal}");
        // Either orientation of a pair is read as the pair.
        let path = dir.join("either.csv");
        std::fs::write(&path, "row,col,value\nb,a,1\na,c,0\nc,b,2\n").unwrap();
        let read = read_released_pairs(&path, false).unwrap();
        assert_eq!(read.rows.names, ["b", "a", "c"]);
        assert_eq!(read.values, vec![0, 1, 2, 1, 0, 0, 2, 0, 0]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Counts over time: `row,col,time,count` lands on the grid `rows × cols·times` (column
    /// `j·T + t`, labels sorted or stated, a stated time without counts kept), and a release of it
    /// (`row,col,time,value`) reads back as written, in CSV and Parquet, in any line order; a
    /// cell twice, a missing cell and a time outside the stated ones are refused by name.
    #[test]
    fn counts_over_time_round_trip_on_the_flattened_grid() {
        let dir = std::env::temp_dir().join(format!("lppf-tables-times-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let format = crate::CountsFormat { time: Some("month".into()), ..crate::CountsFormat::default() };
        let counts = write("counts.csv", "row,col,month,count\nb,x,m2,3\na,y,m1,2\na,x,m2,1\n");
        let table = crate::read_counts_as(&counts, false, &crate::GridLabels::default(), &format).unwrap();
        let axes = table.axes.clone().unwrap();
        assert_eq!(
            (axes.cols.names.clone(), axes.times.names.clone()),
            (vec!["x".into(), "y".into()], vec!["m1".into(), "m2".into()])
        );
        // Row a: (x, m1) (x, m2) (y, m1) (y, m2); row b likewise.
        assert_eq!(table.counts, vec![0, 1, 2, 0, 0, 3, 0, 0]);
        assert_eq!(table.cols.names[1], "x @ m2");
        let stated = crate::GridLabels {
            times: Some(Labels::from_names(["m0", "m1", "m2"].map(String::from))),
            ..crate::GridLabels::default()
        };
        let on_stated = crate::read_counts_as(&counts, false, &stated, &format).unwrap();
        assert_eq!(on_stated.counts, vec![0, 0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
        let outside = write("outside.csv", "row,col,month,count\na,x,m9,1\n");
        let e = crate::read_counts_as(&outside, false, &stated, &format).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("the time label \"m9\" is not in the stated time labels"), "{e}");
        let empty = write("empty.csv", "row,col,month,count\na,x,,1\n");
        let e = crate::read_counts_as(&empty, false, &stated, &format).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("empty `month` label"), "{e}");
        let twice = write("twice.csv", "row,col,month,count\na,x,m1,1\na,x,m1,2\n");
        let e = crate::read_counts_as(&twice, false, &stated, &format).unwrap_err().to_string();
        assert!(e.contains("the cell (a, x, m1) is listed twice"), "{e}");
        let released = ReleasedTable {
            values: vec![-1, 1, 2, 0, 4, 3, -2, 0],
            ..ReleasedTable::grid(table.rows.clone(), table.cols.clone(), Vec::new())
        };
        let released = ReleasedTable { axes: Some(axes), ..released };
        for ext in ["csv", "parquet"] {
            let path = dir.join(format!("released.{ext}"));
            write_released(&path, &released).unwrap();
            assert_eq!(read_released_over_time(&path).unwrap(), released, "{ext}");
            let path = dir.join(format!("counts-out.{ext}"));
            write_counts(&path, &table).unwrap();
            assert_eq!(
                crate::read_counts_as(
                    &path,
                    false,
                    &crate::GridLabels::default(),
                    &crate::CountsFormat { time: Some("time".into()), ..format.clone() }
                )
                .unwrap(),
                table,
                "{ext}"
            );
        }
        let text = std::fs::read_to_string(dir.join("released.csv")).unwrap();
        assert!(text.starts_with("row,col,time,value\na,x,m1,-1\na,x,m2,1\n"), "{text}");
        // Shuffled lines read to the same grid (labels in order of first appearance).
        let lines: Vec<&str> = text.lines().collect();
        let mut shuffled = vec![lines[0]];
        shuffled.extend(lines[1..].iter().rev());
        let path = write("shuffled.csv", &(shuffled.join("\n") + "\n"));
        let read = read_released_over_time(&path).unwrap();
        assert_eq!(read.axis_sizes(), (2, 2, 2));
        assert_eq!(read.rows.names, ["b", "a"]);
        let missing = write("missing.csv", &(lines[..lines.len() - 1].join("\n") + "\n"));
        let e = read_released_over_time(&missing).unwrap_err().to_string();
        assert!(e.contains("1 cells of the 2 × 2 × 2 grid are missing, e.g. (b, y, m2)"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
