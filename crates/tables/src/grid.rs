//! A data holder's counts as a labelled grid.

use crate::cells::Cells;
use crate::error::TableError;
use crate::records::{Place, for_each_record, read_records};
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
    pub cols: Labels,
    pub counts: Vec<u64>,
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
}

impl GridLabels {
    /// Whether every axis of the grid is stated (a network needs only `rows`).
    pub fn complete(&self, square: bool) -> bool {
        self.rows.is_some() && (square || self.cols.is_some())
    }
}

/// Reads a list of labels: a CSV with the header `label` (or Parquet with a `label` column), one
/// label per line, in the order the grid lists them. Empty and repeated labels are errors.
pub fn read_labels(path: &Path) -> Result<Labels, TableError> {
    let records = read_records(path, &["label"])?;
    let mut labels = Labels::default();
    for (place, record) in &records {
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

/// How a counts file is laid out: its CSV delimiter and the names of its three columns.
#[derive(Clone, Debug, PartialEq)]
pub struct CountsFormat {
    /// The CSV field delimiter; `None`: a tab for `.tsv`/`.tab` files, else a comma.
    pub delimiter: Option<u8>,
    /// The columns holding the row label, the column label and the count.
    pub columns: [String; 3],
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

impl Default for CountsFormat {
    /// `row,col,count`, delimiter by extension.
    fn default() -> Self {
        Self { delimiter: None, columns: ["row".into(), "col".into(), "count".into()] }
    }
}

/// A count as written: an integer (`3`), or an integer-valued decimal (`3.0`, `3e2`, as
/// spreadsheets and pandas write them) up to 2⁵³, where every integer is exact; `None` otherwise.
fn parse_count(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().or_else(|| {
        let x: f64 = text.parse().ok()?;
        (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 2f64.powi(53)).then_some(x as u64)
    })
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
    let (mut rows, fixed_rows) = (given.rows.clone().unwrap_or_default(), given.rows.is_some());
    let given_cols = if square { None } else { given.cols.as_ref() };
    let (mut cols, fixed_cols) = (given_cols.cloned().unwrap_or_default(), given_cols.is_some());
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
    let wanted = [row_name.as_str(), col_name.as_str(), count_name.as_str()];
    for_each_record(path, &wanted, format.delimiter, |place, record| {
        let (r, c, count) = (record[0], record[1], record[2]);
        for (field, label) in [(row_name, r), (col_name, c)] {
            if label.is_empty() {
                return Err(TableError::at(path, place, format!("empty `{field}` label")));
            }
        }
        let count = parse_count(count).filter(|&n| n <= MAX_COUNT).ok_or_else(|| {
            TableError::at(
                path,
                place,
                format!(
                    "({r}, {c}): {count_name} {count:?} is not allowed: it must be an integer from 0 to {MAX_COUNT} \
                     (3 or 3.0)"
                ),
            )
        })?;
        let i = place_label(&mut rows, fixed_rows, "row", r, place)?;
        let j = if square {
            place_label(&mut rows, fixed_rows, "row", c, place)?
        } else {
            place_label(&mut cols, fixed_cols, "column", c, place)?
        };
        cells.push((i, j), count).map_err(|_| {
            TableError::at(path, place, format!("the cell ({r}, {c}) is listed twice; list each cell once"))
        })?;
        // A grid above the bound is refused as soon as its labels pass it, before it is allocated.
        let width = if square { rows.len() } else { cols.len() };
        check_grid(path, rows.len(), width)?;
        Ok(())
    })?;
    if cells.len() == 0 && !given.complete(square) {
        return Err(TableError::file(path, "no cells: expected a header row,col,count and at least one line"));
    }
    let (rows, row_moved) = if fixed_rows {
        let n = rows.len();
        (rows, (0..n).collect())
    } else {
        sorted(rows)
    };
    let (cols, col_moved) = match (square, fixed_cols) {
        (true, _) => (rows.clone(), row_moved.clone()),
        (false, true) => {
            let n = cols.len();
            (cols, (0..n).collect())
        }
        (false, false) => sorted(cols),
    };
    check_grid(path, rows.len(), cols.len())?;
    // Stated labels on both axes keep their indices: no remapping (and, listed in grid order, no
    // copy of the values).
    let identity = fixed_rows && (square || fixed_cols);
    let remap = (!identity).then_some((row_moved.as_slice(), col_moved.as_slice()));
    let counts = cells.into_grid((rows.len(), cols.len()), remap);
    Ok(CountTable { rows, cols, counts })
}
