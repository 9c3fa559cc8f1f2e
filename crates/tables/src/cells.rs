//! The cells of a table as they are read, in little memory: a value per cell, and the cell's
//! place on the grid only when the file does not list the grid in row-major order.
//!
//! A release of a `10⁴ × 10⁴` grid lists 10⁸ cells. Held as text records (two labels and a value
//! each, as before issue 34) that is about 200 bytes a cell; here it is the value (8 bytes), one
//! bit for "seen", and 8 bytes more for the place only if the lines are out of order.

/// Cells `(row index, column index, value)` in the order read.
pub(crate) struct Cells<T> {
    values: Vec<T>,
    /// The place of every value, once the order stopped being row-major; empty until then.
    at: Vec<(u32, u32)>,
    /// While the order is row-major: the grid's width, known once the second row starts.
    width: Option<usize>,
    in_order: bool,
    /// Per row, one bit per column index: which cells were listed.
    seen: Vec<Vec<u64>>,
}

/// A cell listed twice.
pub(crate) struct Twice;

impl<T: Copy + Default> Cells<T> {
    pub(crate) fn new() -> Self {
        Self { values: Vec::new(), at: Vec::new(), width: None, in_order: true, seen: Vec::new() }
    }

    /// Number of cells read.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Adds the value of cell `(i, j)`; [`Twice`] if that cell was read before.
    pub(crate) fn push(&mut self, (i, j): (usize, usize), value: T) -> Result<(), Twice> {
        if self.seen.len() <= i {
            self.seen.resize_with(i + 1, Vec::new);
        }
        let bits = &mut self.seen[i];
        if bits.len() <= j / 64 {
            bits.resize(j / 64 + 1, 0);
        }
        if bits[j / 64] >> (j % 64) & 1 == 1 {
            return Err(Twice);
        }
        bits[j / 64] |= 1 << (j % 64);
        let k = self.values.len();
        if self.in_order {
            let expected = match self.width {
                None if i == 1 && j == 0 && k > 0 => {
                    self.width = Some(k);
                    (1, 0)
                }
                None => (0, k),
                Some(w) => (k / w, k % w),
            };
            if expected != (i, j) {
                self.in_order = false;
                self.at = (0..k).map(|m| self.place_in_order(m)).collect();
            }
        }
        if !self.in_order {
            // Indices are below the grid's bound (10⁸ cells), so they fit in 32 bits.
            self.at.push((i as u32, j as u32));
        }
        self.values.push(value);
        Ok(())
    }

    fn place_in_order(&self, k: usize) -> (u32, u32) {
        let w = self.width.unwrap_or(usize::MAX);
        ((k / w) as u32, (k % w) as u32)
    }

    /// The first cell of the `rows × cols` grid that was not read, if any.
    pub(crate) fn first_missing(&self, rows: usize, cols: usize) -> Option<(usize, usize)> {
        self.first_missing_of(rows, |_| 0..cols)
    }

    /// The first cell not read among columns `columns(i)` of each row `i < rows` (an undirected
    /// network's upper triangle: `i + 1..rows`).
    pub(crate) fn first_missing_of(
        &self,
        rows: usize,
        columns: impl Fn(usize) -> std::ops::Range<usize>,
    ) -> Option<(usize, usize)> {
        (0..rows).find_map(|i| {
            let bits = self.seen.get(i).map_or(&[][..], Vec::as_slice);
            columns(i).find(|&j| bits.get(j / 64).is_none_or(|b| b >> (j % 64) & 1 == 0)).map(|j| (i, j))
        })
    }

    /// The row-major `rows × cols` grid (unread cells `T::default()`), row index `i` read as
    /// `row_at[i]` and column index `j` as `col_at[j]` (the identity when `None`). Reuses the
    /// values' memory when they were read in the grid's own order.
    pub(crate) fn into_grid(self, (rows, cols): (usize, usize), remap: Option<(&[usize], &[usize])>) -> Vec<T> {
        let n = rows * cols;
        let width_fits = self.width.map_or(rows <= 1, |w| w == cols);
        if self.in_order && remap.is_none() && width_fits && self.values.len() == n {
            return self.values;
        }
        let mut grid = vec![T::default(); n];
        for (k, &value) in self.values.iter().enumerate() {
            let (i, j) = if self.in_order { self.place_in_order(k) } else { self.at[k] };
            let (i, j) = match remap {
                Some((r, c)) => (r[i as usize], c[j as usize]),
                None => (i as usize, j as usize),
            };
            grid[i * cols + j] = value;
        }
        grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In row-major order the values become the grid as they are; out of order, or remapped,
    /// they are placed; a cell read twice is refused; missing cells are found.
    #[test]
    fn cells_are_placed_in_any_order() {
        let grid: Vec<i64> = (0..6).collect();
        let mut in_order = Cells::new();
        for k in 0..6 {
            assert!(in_order.push((k / 3, k % 3), k as i64).is_ok());
        }
        assert!(in_order.push((1, 2), 9).is_err());
        assert_eq!(in_order.first_missing(2, 3), None);
        assert_eq!(in_order.into_grid((2, 3), None), grid);
        let mut shuffled = Cells::new();
        for k in [4, 0, 5, 1, 3] {
            assert!(shuffled.push((k / 3, k % 3), k as i64).is_ok());
        }
        assert_eq!(shuffled.first_missing(2, 3), Some((0, 2)));
        assert!(shuffled.push((0, 2), 2).is_ok());
        assert_eq!(shuffled.into_grid((2, 3), None), grid);
        // A row listed in order but cut short: not the grid's width.
        let mut short = Cells::new();
        for (k, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)].into_iter().enumerate() {
            assert!(short.push((i, j), k as i64).is_ok());
        }
        assert_eq!(short.into_grid((2, 3), None), vec![0, 1, 0, 2, 3, 4]);
        // Swapped rows and reversed columns.
        let mut remapped = Cells::new();
        for k in 0..6 {
            assert!(remapped.push((k / 3, k % 3), k as i64).is_ok());
        }
        let (rows, cols) = ([1, 0], [2, 1, 0]);
        assert_eq!(remapped.into_grid((2, 3), Some((&rows, &cols))), vec![5, 4, 3, 2, 1, 0]);
    }
}
