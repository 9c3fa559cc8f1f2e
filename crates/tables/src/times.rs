//! A third key for counts over time (who × whom × when): counts `row,col,time,count` and
//! releases `row,col,time,value`, held on the grid `rows × cols·times` whose column `j·T + t` is
//! the pair (column label `j`, time label `t`) — the layout of `models::TensorModel`. The time
//! labels are public, as the other labels are: stated (`--times`) or the sorted labels found.

use crate::error::TableError;
use crate::grid::Labels;
use std::collections::HashMap;
use std::path::Path;

/// The two axes behind a grid's columns when they are `(column, time)` pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeAxes {
    /// The column labels `j` (the tensor's second mode).
    pub cols: Labels,
    /// The time labels `t` (the third mode).
    pub times: Labels,
}

impl TimeAxes {
    /// `(j, t)` of grid column `column = j·T + t`.
    pub fn split(&self, column: usize) -> (usize, usize) {
        let t = self.times.len().max(1);
        (column / t, column % t)
    }

    /// The grid's column labels, `"<column> @ <time>"` in grid order: what messages and the
    /// matrix-shaped outputs name a grid column by. Two pairs that would read the same (labels
    /// that themselves contain `" @ "`) are refused, naming them.
    pub fn grid_labels(&self, path: &Path) -> Result<Labels, TableError> {
        let mut labels = Labels::default();
        for c in &self.cols.names {
            for t in &self.times.names {
                let name = pair_label(c, t);
                if !labels.insert_new(&name) {
                    return Err(TableError::file(
                        path,
                        format!(
                            "the column and time labels give the pair {name:?} twice (a label contains \" @ \"); \
                             rename the labels so that no column or time label contains \" @ \""
                        ),
                    ));
                }
            }
        }
        Ok(labels)
    }
}

/// `(rows, cols, times)` of a grid whose columns are `cols`, with `axes` behind them for counts
/// over time: the three modes, else the grid's columns and one time.
pub fn modes(rows: &Labels, cols: &Labels, axes: Option<&TimeAxes>) -> (usize, usize, usize) {
    match axes {
        Some(a) => (rows.len(), a.cols.len(), a.times.len()),
        None => (rows.len(), cols.len(), 1),
    }
}

/// The `(column index, time index)` pairs of a table being read, numbered in order of first
/// appearance: a cell's provisional grid column until the labels' final order is known.
#[derive(Default)]
pub(crate) struct Pairs {
    order: Vec<(usize, usize)>,
    index: HashMap<(usize, usize), usize>,
}

impl Pairs {
    /// The number of `pair`, adding it if new.
    pub(crate) fn intern(&mut self, pair: (usize, usize)) -> usize {
        *self.index.entry(pair).or_insert_with(|| {
            self.order.push(pair);
            self.order.len() - 1
        })
    }

    pub(crate) fn contains(&self, pair: (usize, usize)) -> bool {
        self.index.contains_key(&pair)
    }

    /// The pair numbered `p`.
    pub(crate) fn get(&self, p: usize) -> (usize, usize) {
        self.order[p]
    }

    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// Each pair's grid column `col_at[j]·T + time_at[t]`, in the pairs' numbering (the remap of
    /// `Cells::into_grid`).
    pub(crate) fn grid_columns(
        &self,
        col_at: impl Fn(usize) -> usize,
        time_at: impl Fn(usize) -> usize,
        times: usize,
    ) -> Vec<usize> {
        self.order.iter().map(|&(j, t)| col_at(j) * times + time_at(t)).collect()
    }
}

/// How a grid column of a `(column, time)` pair is named: `"alice @ 2001-05"`.
pub fn pair_label(col: &str, time: &str) -> String {
    format!("{col} @ {time}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_columns_are_column_major_pairs() {
        let names = |v: &[&str]| Labels::from_names(v.iter().map(|s| s.to_string()));
        let axes = TimeAxes { cols: names(&["a", "b"]), times: names(&["t1", "t2", "t3"]) };
        let labels = axes.grid_labels(Path::new("x")).unwrap();
        assert_eq!(labels.names[4], "b @ t2");
        assert_eq!(axes.split(4), (1, 1));
        let clash = TimeAxes { cols: names(&["a @ b", "a"]), times: names(&["c", "b @ c"]) };
        let e = clash.grid_labels(Path::new("x")).unwrap_err().to_string();
        assert!(e.contains("\"a @ b @ c\" twice"), "{e}");
    }
}
