//! A third key for counts over time (who × whom × when): counts `row,col,time,count` and
//! releases `row,col,time,value`, held on the grid `rows × cols·times` whose column `j·T + t` is
//! the pair (column label `j`, time label `t`) — the layout of `models::TensorModel`. The time
//! labels are public, as the other labels are: stated (`--times`) or the sorted labels found.

use crate::error::TableError;
use crate::grid::Labels;
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
