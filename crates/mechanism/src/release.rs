//! A person's own release: the randomizer that runs on real data, as opposed to the simulation
//! randomizer [`privatize`](crate::privatize) that experiments use with seeded streams.
//!
//! Every cell of the grid is noised, zeros included (noising only the non-zero cells would
//! reveal which cells are non-zero), with the exact two-sided geometric sampler
//! ([`ExactTwoSidedGeometric`]: integer and rational arithmetic only) at the row's level
//! `α_d = exp(−λ_d)`, `λ_d = ε_d/N` (heterogeneous `α_d`, §4 of Schein et al. 2019). The bits
//! come from ChaCha20 keyed by fresh operating-system entropy for each release; a seed exists
//! only for demonstrations and tests, and such a release is not private (the seed regenerates
//! the noise).

use distributions::ExactTwoSidedGeometric;
use rand::SeedableRng;
use rand::distr::Distribution;
use rand_chacha::ChaCha20Rng;
use std::fmt;

/// Where the noise of a release comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Randomness {
    /// ChaCha20 keyed from the operating system's entropy source, new for each release.
    OsEntropy,
    /// ChaCha20 from a seed: reproducible, and therefore **not private**. Demos and tests only.
    Seeded(u64),
}

impl Randomness {
    /// Whether a release made with this randomness protects the counts.
    pub fn is_private(&self) -> bool {
        matches!(self, Self::OsEntropy)
    }

    /// One line for the record (the privacy sidecar, the terminal).
    pub fn describe(&self) -> String {
        match self {
            Self::OsEntropy => "operating-system entropy (ChaCha20 keyed by getrandom, fresh for this release)".into(),
            Self::Seeded(seed) => {
                format!("seed {seed} (ChaCha20): NOT PRIVATE — anyone with the seed can remove the noise")
            }
        }
    }
}

/// Why a release could not be made. Nothing is released when any of these occurs.
#[derive(Clone, Debug, PartialEq)]
pub enum ReleaseError {
    /// `counts` does not hold `rows × cols` values, or `levels` not one per row.
    Length { what: &'static str, expected: usize, found: usize },
    /// The operating system's entropy source failed.
    Entropy(String),
    /// A count plus its noise leaves the 64-bit range.
    TooLarge { row: usize, col: usize },
}

impl fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { what, expected, found } => write!(f, "{what} has {found} values, expected {expected}"),
            Self::Entropy(e) => write!(f, "the operating system's entropy source failed: {e}"),
            Self::TooLarge { row, col } => {
                write!(f, "the count at row {row}, column {col} plus its noise leaves the 64-bit range")
            }
        }
    }
}

impl std::error::Error for ReleaseError {}

/// Releases the row-major `rows × cols` matrix `counts`: `ỹ_dv = y_dv + τ_dv`, `τ_dv ~ 2Geo(α_d)`
/// exactly, with `levels[d]` the noise of row `d`. Cells are drawn in row-major order from one
/// generator (so a seeded release is the same on every machine).
pub fn release(
    counts: &[u64],
    rows: usize,
    cols: usize,
    levels: &[ExactTwoSidedGeometric],
    randomness: Randomness,
) -> Result<Vec<i64>, ReleaseError> {
    let length = |what, expected: usize, found: usize| {
        if expected == found { Ok(()) } else { Err(ReleaseError::Length { what, expected, found }) }
    };
    length("counts", rows.saturating_mul(cols), counts.len())?;
    let cells = counts.iter().enumerate().map(|(n, &y)| (n / cols, n % cols, y));
    release_cells(cells, rows, levels, randomness)
}

/// Releases the cells `(row, col, y)` in the order given: `ỹ = y + τ`, `τ ~ 2Geo(α_row)` exactly,
/// one generator for all (an undirected network's pairs, each once: `lppf privatize
/// --symmetric`). [`release`] is this over every cell of a grid in row-major order.
pub fn release_cells(
    cells: impl Iterator<Item = (usize, usize, u64)>,
    rows: usize,
    levels: &[ExactTwoSidedGeometric],
    randomness: Randomness,
) -> Result<Vec<i64>, ReleaseError> {
    if levels.len() != rows {
        return Err(ReleaseError::Length { what: "noise levels (one per row)", expected: rows, found: levels.len() });
    }
    let mut rng = match randomness {
        Randomness::OsEntropy => {
            ChaCha20Rng::try_from_rng(&mut rand::rngs::SysRng).map_err(|e| ReleaseError::Entropy(e.to_string()))?
        }
        Randomness::Seeded(seed) => ChaCha20Rng::seed_from_u64(seed),
    };
    let mut values = Vec::with_capacity(cells.size_hint().0);
    for (row, col, y) in cells {
        let level = levels.get(row).ok_or(ReleaseError::Length {
            what: "noise levels (one per row)",
            expected: row + 1,
            found: levels.len(),
        })?;
        let tau = level.sample(&mut rng);
        let value =
            i64::try_from(y).ok().and_then(|y| y.checked_add(tau)).ok_or(ReleaseError::TooLarge { row, col })?;
        values.push(value);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(rows: usize, alpha: f64) -> Vec<ExactTwoSidedGeometric> {
        vec![ExactTwoSidedGeometric::from_alpha(alpha).unwrap(); rows]
    }

    #[test]
    fn seeded_releases_repeat_and_entropy_releases_differ() {
        let counts = vec![3u64; 400];
        let a = release(&counts, 20, 20, &levels(20, 0.7), Randomness::Seeded(9)).unwrap();
        let b = release(&counts, 20, 20, &levels(20, 0.7), Randomness::Seeded(9)).unwrap();
        assert_eq!(a, b);
        let c = release(&counts, 20, 20, &levels(20, 0.7), Randomness::OsEntropy).unwrap();
        let d = release(&counts, 20, 20, &levels(20, 0.7), Randomness::OsEntropy).unwrap();
        // Two entropy releases agree everywhere with probability P(τ = τ')^400 < 0.2^400.
        assert_ne!(c, d);
        assert!(!Randomness::Seeded(9).is_private() && Randomness::OsEntropy.is_private());
        assert!(Randomness::Seeded(9).describe().contains("NOT PRIVATE"));
    }

    #[test]
    fn zeros_are_noised_and_rows_use_their_own_level() {
        let counts = vec![0u64; 2 * 2000];
        let rows =
            [ExactTwoSidedGeometric::from_alpha(0.05).unwrap(), ExactTwoSidedGeometric::from_alpha(0.9).unwrap()];
        let v = release(&counts, 2, 2000, &rows, Randomness::Seeded(1)).unwrap();
        let mean_abs = |r: &[i64]| r.iter().map(|x| x.unsigned_abs() as f64).sum::<f64>() / r.len() as f64;
        // E|τ| = 2α/(1−α²): 0.100 and 9.47; the sd of each mean is below 0.01 and 0.25.
        assert!((mean_abs(&v[..2000]) - 0.1003).abs() < 0.05, "{}", mean_abs(&v[..2000]));
        assert!((mean_abs(&v[2000..]) - 9.474).abs() < 1.25, "{}", mean_abs(&v[2000..]));
        assert!(v.iter().any(|&x| x < 0));
    }

    #[test]
    fn bad_shapes_and_overflow_are_errors() {
        let e = release(&[1, 2, 3], 2, 2, &levels(2, 0.5), Randomness::Seeded(1)).unwrap_err();
        assert_eq!(e, ReleaseError::Length { what: "counts", expected: 4, found: 3 });
        let e = release(&[1, 2], 1, 2, &levels(2, 0.5), Randomness::Seeded(1)).unwrap_err();
        assert!(matches!(e, ReleaseError::Length { what: "noise levels (one per row)", .. }));
        let e = release(&[u64::MAX], 1, 1, &levels(1, 0.5), Randomness::Seeded(1)).unwrap_err();
        assert_eq!(e, ReleaseError::TooLarge { row: 0, col: 0 });
    }

    /// The cells of a grid in row-major order release as the grid does (one generator, the same
    /// order); a subset (the upper triangle) draws the noise of just those cells, and a row with
    /// no level is an error, not a panic.
    #[test]
    fn released_cells_are_the_grids_in_the_same_order() {
        let counts: Vec<u64> = (0..12).collect();
        let grid = release(&counts, 3, 4, &levels(3, 0.6), Randomness::Seeded(4)).unwrap();
        let cells = counts.iter().enumerate().map(|(n, &y)| (n / 4, n % 4, y));
        assert_eq!(release_cells(cells, 3, &levels(3, 0.6), Randomness::Seeded(4)).unwrap(), grid);
        let upper = [(0, 1, 5u64), (0, 2, 0), (1, 2, 7)];
        let v = release_cells(upper.into_iter(), 3, &levels(3, 0.6), Randomness::Seeded(4)).unwrap();
        assert_eq!(v.len(), 3);
        let e = release_cells([(3, 0, 1u64)].into_iter(), 3, &levels(3, 0.6), Randomness::Seeded(4)).unwrap_err();
        assert!(matches!(e, ReleaseError::Length { what: "noise levels (one per row)", .. }));
    }
}
