//! A data holder's counts as a labelled grid.

use crate::cells::Cells;
use crate::error::TableError;
use crate::records::{Place, for_each_record, read_records};
use crate::times::{Pairs, TimeAxes};
use std::collections::HashMap;
use std::path::Path;

/// The largest grid accepted (rows × columns): 10⁸ cells, 0.8 GB of counts. A release noises and
/// writes every cell, so a larger grid is refused before anything is allocated for it.
pub const MAX_CELLS: usize = 100_000_000;

/// The labels of one axis of a grid, in grid order, with their index.
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

    /// Adds `name` at the end; `false` (and nothing added) if it is there already.
    pub fn insert_new(&mut self, name: &str) -> bool {
        let before = self.len();
        self.intern(name) == before
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
    /// The grid's columns (for counts over time, the `(column, time)` pairs: [`TimeAxes`]).
    pub cols: Labels,
    pub counts: Vec<u64>,
    /// Counts over time: the column and time labels behind `cols`.
    pub axes: Option<TimeAxes>,
}

impl CountTable {
    /// An undirected network's counts from a square table that lists each pair in either
    /// orientation or both (as co-occurrence tables do): the pair `{i, j}` counts `y_ij` if
    /// `y_ji` is 0, `y_ji` if `y_ij` is 0, and either if they agree; the result is symmetric.
    /// Two different non-zero counts of one pair are an error naming both (`path` is the file
    /// they came from). The diagonal is left as it is.
    pub fn undirected(mut self, path: &Path) -> Result<CountTable, TableError> {
        let v = self.rows.len();
        if self.cols.len() != v {
            return Err(TableError::file(path, "an undirected network needs the same labels on both axes"));
        }
        for i in 0..v {
            for j in i + 1..v {
                let (a, b) = (self.counts[i * v + j], self.counts[j * v + i]);
                if a != 0 && b != 0 && a != b {
                    let (r, c) = (&self.rows.names[i], &self.rows.names[j]);
                    return Err(TableError::file(
                        path,
                        format!(
                            "({r}, {c}) counts {a} and ({c}, {r}) counts {b}: an undirected network has one count \
                             per pair; list it once, or the same both ways"
                        ),
                    ));
                }
                let y = a.max(b);
                (self.counts[i * v + j], self.counts[j * v + i]) = (y, y);
            }
        }
        Ok(self)
    }
}

/// Checks `rows × cols` (`cols` the grid's columns: columns × times for counts over time)
/// against [`MAX_CELLS`].
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

/// The largest count accepted: 2^62. A release adds noise to every count and stores the sum in
/// 64 bits; below 2^62 the sum cannot overflow unless the noise exceeds 2^62, which has
/// probability below `exp(−2^38)` at the smallest noise a release allows.
pub const MAX_COUNT: u64 = 1 << 62;

/// The labels of a grid's axes when the data holder states them (`--rows`, `--cols`, or for a
/// network `--labels`, read by [`read_labels`]): public input, kept in the order given. An axis
/// without them takes the labels found in the counts, **sorted** (byte order), so that the grid
/// and its order depend on nothing but the label set (issue 31: in order of first appearance, the
/// columns listed first for a row would be exactly its non-zero cells).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GridLabels {
    /// Row labels (for a network, the labels of both axes).
    pub rows: Option<Labels>,
    /// Column labels (not for a network).
    pub cols: Option<Labels>,
    /// Time labels (counts over time only).
    pub times: Option<Labels>,
}

impl GridLabels {
    /// Whether every axis of the grid is stated (a network needs only `rows`; counts over time,
    /// `timed`, need `times` too).
    pub fn complete(&self, square: bool, timed: bool) -> bool {
        self.rows.is_some() && (square || self.cols.is_some()) && (!timed || self.times.is_some())
    }

    /// The labels a user stated, from the options of a network (`labels`, both axes) or of a table
    /// (`rows`, `cols`), each read by `read` only when it applies. Stating the other shape's options
    /// is refused ([`LabelOptionMisuse`]), so that a label file is never silently ignored.
    pub fn from_options<S, E>(
        square: bool,
        labels: Option<&S>,
        rows: Option<&S>,
        cols: Option<&S>,
        read: impl Fn(&S) -> Result<Labels, E>,
    ) -> Result<GridLabels, LabelOptionError<E>> {
        if square && (rows.is_some() || cols.is_some()) {
            return Err(LabelOptionError::Misuse(LabelOptionMisuse::TableOptionsOnNetwork));
        }
        if !square && labels.is_some() {
            return Err(LabelOptionError::Misuse(LabelOptionMisuse::NetworkOptionOnTable));
        }
        let read = |s: Option<&S>| s.map(&read).transpose().map_err(LabelOptionError::Read);
        Ok(GridLabels { rows: read(if square { labels } else { rows })?, cols: read(cols)?, times: None })
    }
}

/// Label options stated for the other shape of grid ([`GridLabels::from_options`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelOptionMisuse {
    /// `--rows` or `--cols` given for a network.
    TableOptionsOnNetwork,
    /// `--labels` given for a rows × columns table.
    NetworkOptionOnTable,
}

/// Why [`GridLabels::from_options`] failed: options of the wrong shape, or a label file that
/// could not be read (the reader's own error).
#[derive(Debug)]
pub enum LabelOptionError<E> {
    Misuse(LabelOptionMisuse),
    Read(E),
}

/// Reads a list of labels: a CSV with the header `label` (or Parquet with a `label` column), one
/// label per line, in the order the grid lists them. Empty and repeated labels are errors.
pub fn read_labels(path: &Path) -> Result<Labels, TableError> {
    labels_of_records(path, &read_records(path, &["label"])?)
}

/// Writes `labels` as [`read_labels`] reads them (a CSV with the header `label`), atomically.
pub fn write_labels(path: &Path, labels: &Labels) -> Result<(), TableError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let error = |e: csv::Error| TableError::file(path, format!("cannot write: {e}"));
    writer.write_record(["label"]).map_err(error)?;
    for name in &labels.names {
        writer.write_record([name]).map_err(error)?;
    }
    let text = writer.into_inner().map_err(|e| TableError::file(path, format!("cannot write: {e}")))?;
    results::write_atomic(path, &text).map_err(|e| TableError::file(path, e))
}

/// [`read_labels`] of labels held in memory (a Python list): `name` stands for the list in
/// messages, and a place is the list's entry (`row 1` is its first).
pub fn labels_from_list(name: &Path, labels: &[String]) -> Result<Labels, TableError> {
    let records: Vec<(Place, Vec<String>)> =
        labels.iter().enumerate().map(|(i, l)| (Place::Row(i + 1), vec![l.clone()])).collect();
    labels_of_records(name, &records)
}

fn labels_of_records(path: &Path, records: &[(Place, Vec<String>)]) -> Result<Labels, TableError> {
    let mut labels = Labels::default();
    for (place, record) in records {
        let label = &record[0];
        if label.is_empty() {
            return Err(TableError::at(path, place, "empty `label`"));
        }
        if !labels.insert_new(label) {
            return Err(TableError::at(path, place, format!("the label {label:?} is listed twice; list each once")));
        }
    }
    if labels.is_empty() {
        return Err(TableError::file(path, "no labels: expected a header `label` and one label per line"));
    }
    Ok(labels)
}

/// `labels` sorted (byte order), and where each old index went.
fn sorted(labels: Labels) -> (Labels, Vec<usize>) {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_unstable_by(|&a, &b| labels.names[a].cmp(&labels.names[b]));
    let mut moved = vec![0; labels.len()];
    for (new, &old) in order.iter().enumerate() {
        moved[old] = new;
    }
    let mut names = labels.names;
    let sorted = Labels::from_names(order.iter().map(|&i| std::mem::take(&mut names[i])));
    (sorted, moved)
}

/// How a counts file is laid out: its CSV delimiter and the names of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct CountsFormat {
    /// The CSV field delimiter; `None`: a tab for `.tsv`/`.tab` files, else a comma.
    pub delimiter: Option<u8>,
    /// The columns holding the row label, the column label and the count.
    pub columns: [String; 3],
    /// The column holding the time label, for counts over time (`row,col,time,count`); `None`
    /// for a matrix.
    pub time: Option<String>,
}

/// A delimiter as a user writes it (`--delimiter`, `delimiter=` in Python): one ASCII character
/// other than a quote or a line break, or `tab`.
pub fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        _ => match text.as_bytes() {
            [b] if b.is_ascii() && !matches!(b, b'"' | b'\n' | b'\r') => Ok(*b),
            _ => Err(format!("{text:?} is not a delimiter: give one ASCII character (e.g. , ; |) or `tab`")),
        },
    }
}

impl CountsFormat {
    /// The format of counts over time: this one, its time column `time` unless it names one.
    pub fn over_time(&self) -> CountsFormat {
        CountsFormat { time: Some(self.time.clone().unwrap_or_else(|| "time".into())), ..self.clone() }
    }
}

impl Default for CountsFormat {
    /// `row,col,count`, delimiter by extension.
    fn default() -> Self {
        Self { delimiter: None, columns: ["row".into(), "col".into(), "count".into()], time: None }
    }
}

/// A count as written: an integer (`3`), or a decimal whose value is exactly an integer (`3.0`,
/// `3e2`, `3.50e1`, as spreadsheets and pandas write them); `None` otherwise. The text is read
/// as a decimal, not through a double: `2.9999999999999999` and `9007199254740993.0`, which
/// round to the integers 3 and 2⁵³, are refused, not rounded. A minus sign only on zero.
fn parse_count(text: &str) -> Option<u64> {
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    // value = digits × 10^shift
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let shift = i64::from(exponent) - fraction.len() as i64;
    let value = if digits.is_empty() {
        0
    } else if shift < 0 {
        let cut = usize::try_from(-shift).ok()?;
        let (kept, dropped) = digits.split_at_checked(digits.len().checked_sub(cut)?)?;
        if !dropped.bytes().all(|b| b == b'0') {
            return None;
        }
        if kept.is_empty() { 0 } else { kept.parse::<u64>().ok()? }
    } else {
        let scale = 10u64.checked_pow(u32::try_from(shift).ok()?)?;
        digits.parse::<u64>().ok()?.checked_mul(scale)?
    };
    (!negative || value == 0).then_some(value)
}

/// [`read_counts_as`] of a `row,col,count` file (delimiter by extension).
pub fn read_counts(path: &Path, square: bool, given: &GridLabels) -> Result<CountTable, TableError> {
    read_counts_as(path, square, given, &CountsFormat::default())
}

/// Reads `row,col,count` (the columns `format` names) from `path` onto a grid: the stated labels of `given` (a cell with a
/// label outside them is an error naming its line), else the distinct `row` × distinct `col`
/// labels of the file **sorted**, or with `square` (a network) the sorted union of all labels on
/// both axes. So the same counts give the same grid whatever the order of the lines and whether
/// zero cells are listed or implied (provided the label set is the same). Streams the file:
/// memory is the grid and 16 bytes per listed cell.
/// Errors: a missing column, an empty label, a count that is not an integer in [0, [`MAX_COUNT`]],
/// a cell listed twice, an empty table without stated labels, a grid above [`MAX_CELLS`].
pub fn read_counts_as(
    path: &Path,
    square: bool,
    given: &GridLabels,
    format: &CountsFormat,
) -> Result<CountTable, TableError> {
    let [row_name, col_name, count_name] = &format.columns;
    let mut wanted = vec![row_name.as_str(), col_name.as_str()];
    wanted.extend(format.time.as_deref());
    wanted.push(count_name.as_str());
    counts_of_records(path, square, given, format, |visit| for_each_record(path, &wanted, format.delimiter, visit))
}

/// Counts held in memory (a DataFrame handed over from Python): the cells' row labels, column
/// labels and counts as text (`3`, `3.0`), read exactly as a file's ([`read_counts_as`]): the
/// same checks, the same grid, the same messages. A message names a cell by `index` (the frame's
/// own row index, `index 7`) when it is given, else as `row k`, the k-th cell of the lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountRecords {
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    pub counts: Vec<String>,
    /// Each cell's label in the caller's frame, or empty.
    pub index: Vec<String>,
}

/// [`read_counts_as`] of [`CountRecords`]; `name` stands for them in messages.
pub fn counts_from_records(
    name: &Path,
    records: &CountRecords,
    square: bool,
    given: &GridLabels,
) -> Result<CountTable, TableError> {
    let n = records.rows.len();
    if records.cols.len() != n || records.counts.len() != n || !(records.index.is_empty() || records.index.len() == n) {
        return Err(TableError::file(
            name,
            format!(
                "{} row labels, {} column labels, {} counts and {} index labels: every cell needs the first three \
                 (and its index label when any is given)",
                n,
                records.cols.len(),
                records.counts.len(),
                records.index.len()
            ),
        ));
    }
    counts_of_records(name, square, given, &CountsFormat::default(), |visit| {
        for i in 0..n {
            let place = Place::Row(i + 1);
            visit(place, &[&records.rows[i], &records.cols[i], &records.counts[i]]).map_err(|mut e| {
                // The error is about this cell: name it by the frame's index.
                if let Some(label) = records.index.get(i).filter(|_| e.place == place.to_string()) {
                    e.place = format!("index {label}");
                }
                e
            })?;
        }
        Ok(())
    })
}

/// The grid of counts from records `each` hands to its visitor (`row`, `col`, [`time`,] `count`
/// text, in the columns `format` names): see [`read_counts_as`]. With a time column the grid's
/// columns are the `(column, time)` pairs, column `j·T + t` ([`TimeAxes`]).
fn counts_of_records(
    path: &Path,
    square: bool,
    given: &GridLabels,
    format: &CountsFormat,
    each: impl FnOnce(&mut dyn FnMut(Place, &[&str]) -> Result<(), TableError>) -> Result<(), TableError>,
) -> Result<CountTable, TableError> {
    let timed = format.time.is_some();
    let axis = |labels: &Option<Labels>| (labels.clone().unwrap_or_default(), labels.is_some());
    let (mut rows, fixed_rows) = axis(&given.rows);
    let (mut cols, fixed_cols) = axis(if square { &None } else { &given.cols });
    let (mut times, fixed_times) = axis(&given.times);
    // With a time column: the (column, time) pairs in order of first appearance.
    let mut pairs = Pairs::default();
    let mut cells = Cells::<u64>::new();
    // On a network both labels are looked up (and new ones added) on the one axis `rows`.
    let place_label = |labels: &mut Labels, fixed: bool, axis: &str, label: &str, place: Place| match labels.get(label)
    {
        Some(i) => Ok(i),
        None if fixed => {
            let axis = if square { "network" } else { axis };
            Err(TableError::at(path, place, format!("the {axis} label {label:?} is not in the stated {axis} labels")))
        }
        None => Ok(labels.intern(label)),
    };
    let [row_name, col_name, count_name] = &format.columns;
    let time_name = format.time.as_deref().unwrap_or("time");
    each(&mut |place, record| {
        let (r, c, t, count) = match record {
            [r, c, t, count] => (*r, *c, Some(*t), *count),
            [r, c, count, ..] => (*r, *c, None, *count),
            _ => return Err(TableError::at(path, place, "expected row, column and count fields")),
        };
        // The cell as messages name it (built only for a message: this runs once per listed cell).
        let cell = || match t {
            Some(t) => format!("({r}, {c}, {t})"),
            None => format!("({r}, {c})"),
        };
        for (field, label) in [(row_name.as_str(), Some(r)), (col_name, Some(c)), (time_name, t)] {
            if label == Some("") {
                return Err(TableError::at(path, place, format!("empty `{field}` label")));
            }
        }
        let count = parse_count(count).filter(|&n| n <= MAX_COUNT).ok_or_else(|| {
            TableError::at(
                path,
                place,
                format!(
                    "{}: {count_name} {count:?} is not allowed: it must be an integer from 0 to {MAX_COUNT} \
                     (3 or 3.0)",
                    cell()
                ),
            )
        })?;
        let i = place_label(&mut rows, fixed_rows, "row", r, place)?;
        let j = if square {
            place_label(&mut rows, fixed_rows, "row", c, place)?
        } else {
            place_label(&mut cols, fixed_cols, "column", c, place)?
        };
        let j = match t {
            Some(t) => pairs.intern((j, place_label(&mut times, fixed_times, "time", t, place)?)),
            None => j,
        };
        cells.push((i, j), count).map_err(|_| {
            TableError::at(path, place, format!("the cell {} is listed twice; list each cell once", cell()))
        })?;
        // A grid above the bound is refused as soon as its labels pass it, before it is allocated.
        let width = if square { rows.len() } else { cols.len() };
        check_grid(path, rows.len(), width.saturating_mul(if timed { times.len() } else { 1 }))?;
        Ok(())
    })?;
    if cells.len() == 0 && !given.complete(square, timed) {
        let header = match timed {
            true => "row,col,time,count",
            false => "row,col,count",
        };
        return Err(TableError::file(path, format!("no cells: expected a header {header} and at least one line")));
    }
    let in_order = |labels: Labels, fixed: bool| match fixed {
        true => {
            let n = labels.len();
            (labels, (0..n).collect::<Vec<_>>())
        }
        false => sorted(labels),
    };
    let (rows, row_moved) = in_order(rows, fixed_rows);
    let (cols, col_moved) = match square {
        true => (rows.clone(), row_moved.clone()),
        false => in_order(cols, fixed_cols),
    };
    let (cols, col_moved, axes) = match timed {
        false => (cols, col_moved, None),
        true => {
            let (times, time_moved) = in_order(times, fixed_times);
            let pair_moved = pairs.grid_columns(|j| col_moved[j], |t| time_moved[t], times.len());
            let axes = TimeAxes { cols, times };
            (axes.grid_labels(path)?, pair_moved, Some(axes))
        }
    };
    check_grid(path, rows.len(), cols.len())?;
    // Stated labels on both axes keep their indices: no remapping (and, listed in grid order, no
    // copy of the values).
    let identity = fixed_rows && (square || fixed_cols) && !timed;
    let remap = (!identity).then_some((row_moved.as_slice(), col_moved.as_slice()));
    let counts = cells.into_grid((rows.len(), cols.len()), remap);
    Ok(CountTable { rows, cols, counts, axes })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A network takes `labels` for both axes and a table `rows` and `cols`; the other shape's
    /// options are refused before anything is read, and a reader's error is passed on.
    #[test]
    fn label_options_follow_the_shape_of_the_grid() {
        let read = |s: &Vec<String>| labels_from_list(Path::new("labels"), s);
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (people, words) = (list(&["a", "b"]), list(&["x"]));
        let network = GridLabels::from_options(true, Some(&people), None, None, read).unwrap();
        assert_eq!(network.rows.as_ref().map(|l| l.names.len()), Some(2));
        assert!(
            network.cols.is_none()
                && network.complete(true, false)
                && !network.complete(false, false)
                && !network.complete(true, true)
        );
        let table = GridLabels::from_options(false, None, Some(&people), Some(&words), read).unwrap();
        assert_eq!(table.cols.as_ref().map(|l| l.names.len()), Some(1));
        let misuse = |r: Result<GridLabels, LabelOptionError<TableError>>| match r {
            Err(LabelOptionError::Misuse(m)) => Some(m),
            _ => None,
        };
        let on_network = GridLabels::from_options(true, None, None, Some(&words), read);
        assert_eq!(misuse(on_network), Some(LabelOptionMisuse::TableOptionsOnNetwork));
        let on_table = GridLabels::from_options(false, Some(&people), Some(&people), None, read);
        assert_eq!(misuse(on_table), Some(LabelOptionMisuse::NetworkOptionOnTable));
        let repeated = GridLabels::from_options(true, Some(&list(&["a", "a"])), None, None, read);
        assert!(matches!(repeated, Err(LabelOptionError::Read(_))), "a repeated label is the reader's error");
    }

    /// Counts held in memory make the same grid as the same cells in a file, with the same
    /// checks; a place is the entry of the lists.
    #[test]
    fn records_in_memory_read_as_a_file() {
        let dir = std::env::temp_dir().join(format!("tables-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("c.csv");
        std::fs::write(&file, "row,col,count\nb,x,3\na,y,2.0\n").unwrap();
        let from_file = read_counts(&file, false, &GridLabels::default()).unwrap();
        let text = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let records = CountRecords {
            rows: text(&["b", "a"]),
            cols: text(&["x", "y"]),
            counts: text(&["3", "2.0"]),
            index: vec![],
        };
        let name = Path::new("counts");
        assert_eq!(counts_from_records(name, &records, false, &GridLabels::default()).unwrap(), from_file);
        let bad = CountRecords { counts: text(&["3", "2.5"]), ..records.clone() };
        let e = counts_from_records(name, &bad, false, &GridLabels::default()).unwrap_err().to_string();
        assert!(e.starts_with("counts, row 2: (a, y)") && e.contains("\"2.5\""), "{e}");
        // With the frame's index, the cell is named by it.
        let indexed = CountRecords { index: text(&["10", "17"]), ..bad.clone() };
        let e = counts_from_records(name, &indexed, false, &GridLabels::default()).unwrap_err().to_string();
        assert!(e.starts_with("counts, index 17: (a, y)"), "{e}");
        let wrong_index = CountRecords { index: text(&["10"]), ..bad };
        assert!(counts_from_records(name, &wrong_index, false, &GridLabels::default()).is_err());
        let short = CountRecords { counts: text(&["3"]), ..records };
        assert!(counts_from_records(name, &short, false, &GridLabels::default()).is_err());
        let e = labels_from_list(Path::new("rows"), &text(&["a", "b", "a"])).unwrap_err().to_string();
        assert!(e.contains("rows, row 3") && e.contains("listed twice"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Counts are read as exact decimals: integer-valued forms pass, and text that a double would
    /// round to an integer is refused.
    #[test]
    fn counts_are_exact_integers_or_refused() {
        for (text, value) in [
            ("3", 3),
            ("3.0", 3),
            ("3.", 3),
            ("3e2", 300),
            ("3.50e1", 35),
            (".5e1", 5),
            ("0.000", 0),
            ("-0.0", 0),
            ("+7", 7),
            ("1E3", 1000),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(parse_count(text), Some(value), "{text}");
        }
        for text in [
            "2.9999999999999999",
            "9007199254740993.5",
            "0.5",
            "1e-1",
            "-1",
            "-0.5",
            "1e400",
            "18446744073709551616",
            "inf",
            "nan",
            "",
            ".",
            "e3",
            "1e",
            "3 ",
            "0x10",
        ] {
            assert_eq!(parse_count(text), None, "{text}");
        }
        // 2⁵³ + 1 is read exactly (a double would make it 2⁵³).
        assert_eq!(parse_count("9007199254740993.0"), Some(9_007_199_254_740_993));
    }
}
