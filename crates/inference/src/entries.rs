//! How each entry of a privatized matrix enters a private step (missing, exact or noisy with its
//! level), stored compactly.

use crate::InferenceError;
use mechanism::Privatized;
use std::collections::HashMap;

/// How an entry enters the private step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Entry {
    /// Missing or excluded by the model: imputed `y ~ Pois(μ)` (0 where excluded).
    Missing,
    /// Released with `α = 0`: `y = ỹ`, no noise auxiliaries.
    Exact,
    /// Released with noise level `α > 0`; holds `α` and the rate of `λ | g`.
    Noisy { alpha: f64, lambda_rate: f64 },
}

/// The [`Entry`] of every entry of a matrix, as one `u32` class per entry indexing a table of the
/// distinct values: three at most for a scalar `α`, at most `rows + 2` for per-row levels.
///
/// Four bytes an entry instead of the 24 of an `Entry`: the private sweep streams this once per
/// sweep beside the released values, the rates and the noise auxiliaries, and the 24-byte form
/// cost 5 % of a private topic sweep at 10⁶ entries (issue 21, BENCHMARKS.md).
#[derive(Clone, Debug)]
pub(crate) struct Entries {
    class: Vec<u32>,
    table: Vec<Entry>,
}

impl Entries {
    /// How each entry of `data` enters a private step: missing or excluded (`is_excluded`), exact
    /// (`α = 0`) or noisy, with the rate `lambda_rate(α)` of `λ | g` (Gibbs) or of `Q(λ)` (CAVI).
    /// Errors only beyond `2³²` distinct levels (per-entry levels on more entries than that).
    pub(crate) fn classify(
        data: &Privatized,
        is_excluded: impl Fn(usize) -> bool,
        lambda_rate: fn(f64) -> f64,
    ) -> Result<Self, InferenceError> {
        let n_entries = data.values().len();
        let mut class = Vec::with_capacity(n_entries);
        let mut table = Vec::new();
        // Keyed by the entry's kind and α's bits; consecutive entries mostly share a class, so
        // the last one is checked before the map.
        let mut index: HashMap<(u8, u64), u32> = HashMap::new();
        let mut last: Option<((u8, u64), u32)> = None;
        for n in 0..n_entries {
            let alpha = data.alpha(n);
            let key = if data.missing()[n] || is_excluded(n) {
                (0, 0)
            } else if alpha == 0.0 {
                (1, 0)
            } else {
                (2, alpha.to_bits())
            };
            let c = match last {
                Some((k, c)) if k == key => c,
                _ => {
                    let next = u32::try_from(table.len()).map_err(|_| {
                        InferenceError::Numerical(format!("more than {} distinct noise levels", u32::MAX))
                    })?;
                    let c = *index.entry(key).or_insert_with(|| {
                        table.push(match key.0 {
                            0 => Entry::Missing,
                            1 => Entry::Exact,
                            _ => Entry::Noisy { alpha, lambda_rate: lambda_rate(alpha) },
                        });
                        next
                    });
                    last = Some((key, c));
                    c
                }
            };
            class.push(c);
        }
        Ok(Self { class, table })
    }

    /// The entry `n`.
    pub(crate) fn get(&self, n: usize) -> Entry {
        self.table[self.class[n] as usize]
    }

    /// Every entry in row-major order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        self.class.iter().map(|&c| self.table[c as usize])
    }

    /// The class of every entry (an index into [`Entries::table`]), for loops split into chunks.
    pub(crate) fn classes(&self) -> &[u32] {
        &self.class
    }

    /// The distinct entries.
    pub(crate) fn table(&self) -> &[Entry] {
        &self.table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mechanism::Noise;

    /// Every entry reads back as the kind and level it was classified with, for scalar, per-row
    /// and per-entry levels, with missing, excluded and exact entries mixed in; the table holds
    /// each distinct value once.
    #[test]
    fn entries_read_back_as_classified() {
        let (rows, cols) = (4, 5);
        let per_row = vec![0.0, 0.5, 0.25, 0.5];
        let per_entry: Vec<f64> = (0..rows * cols).map(|n| [0.0, 0.1, 0.2][n % 3]).collect();
        for noise in [Noise::Scalar(0.5), Noise::PerRow(per_row), Noise::PerEntry(per_entry)] {
            let data = Privatized::from_released(rows, cols, vec![1; rows * cols], noise.clone()).unwrap();
            let mut missing = vec![false; rows * cols];
            missing[7] = true;
            let data = data.with_missing(missing).unwrap();
            let excluded = |n: usize| n % cols == n / cols;
            let entries = Entries::classify(&data, excluded, |a| 1.0 / a).unwrap();
            for n in 0..rows * cols {
                let alpha = data.alpha(n);
                let expected = if n == 7 || excluded(n) {
                    Entry::Missing
                } else if alpha == 0.0 {
                    Entry::Exact
                } else {
                    Entry::Noisy { alpha, lambda_rate: 1.0 / alpha }
                };
                assert_eq!(entries.get(n), expected, "{noise:?}, entry {n}");
            }
            assert!(entries.iter().eq((0..rows * cols).map(|n| entries.get(n))));
            let table = entries.table();
            assert!(table.iter().enumerate().all(|(i, e)| !table[..i].contains(e)), "{table:?}");
        }
    }
}
