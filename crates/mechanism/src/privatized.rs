//! The privatized count matrix and the geometric mechanism that makes it.

use crate::noise::{Noise, NoiseError};
use distributions::TwoSidedGeometric;
use rand::Rng;
use rand::distr::Distribution;

/// A `rows × cols` matrix of privatized counts `ỹ_n = y_n + τ_n`, `τ_n ~ 2Geo(α_n)` (eq. 4 of
/// Schein et al. 2019), row-major, with the noise levels that produced it and an optional set of
/// missing entries (never released; their stored value is 0 and carries no information).
///
/// There is deliberately no constructor from raw counts other than [`privatize`]: the type is
/// the boundary between what a person holds and what an analyst sees.
#[derive(Clone, Debug, PartialEq)]
pub struct Privatized {
    rows: usize,
    cols: usize,
    values: Vec<i32>,
    noise: Noise,
    missing: Vec<bool>,
}

/// Applies the geometric mechanism to the row-major `rows × cols` matrix `counts`: each entry gets
/// independent `2Geo(α_n)` noise; entries with `α_n = 0` are released exactly. Errors on invalid
/// noise levels or a length mismatch; consumes randomness from `rng` in row-major order.
///
/// ```
/// use mechanism::{Noise, privatize};
/// let y = [0u32, 3, 1, 7];
/// let released = privatize(&y, 2, 2, Noise::Scalar(0.5), &mut distributions::stream(1, 0)).unwrap();
/// assert_eq!(released.values().len(), 4);
/// ```
pub fn privatize<R: Rng + ?Sized>(
    counts: &[u32],
    rows: usize,
    cols: usize,
    noise: Noise,
    rng: &mut R,
) -> Result<Privatized, NoiseError> {
    noise.validate(rows, cols)?;
    check_len("counts", rows * cols, counts.len())?;
    let mut values = Vec::with_capacity(counts.len());
    let mut geometric = None::<TwoSidedGeometric>;
    for (n, &y) in counts.iter().enumerate() {
        let alpha = noise.alpha(n, cols);
        let tau: i64 = if alpha == 0.0 {
            0
        } else {
            let g = match geometric {
                Some(g) if g.alpha() == alpha => g,
                _ => TwoSidedGeometric::new(alpha).expect("alpha validated above"),
            };
            geometric = Some(g);
            g.sample(rng)
        };
        let value = i64::from(y) + tau;
        values.push(i32::try_from(value).map_err(|_| NoiseError::TooLarge { index: n, value })?);
    }
    Ok(Privatized { rows, cols, values, noise, missing: vec![false; rows * cols] })
}

fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), NoiseError> {
    if expected == found { Ok(()) } else { Err(NoiseError::Length { what, expected, found }) }
}

impl Privatized {
    /// Wraps counts that were privatized elsewhere (loaded from a file, say) with the noise levels
    /// that were used. The caller vouches that `values` are mechanism outputs; what can be checked
    /// is: valid `α`, lengths, and no negative value where `α = 0`.
    pub fn from_released(rows: usize, cols: usize, values: Vec<i64>, noise: Noise) -> Result<Self, NoiseError> {
        noise.validate(rows, cols)?;
        check_len("released values", rows * cols, values.len())?;
        let mut stored = Vec::with_capacity(values.len());
        for (n, &value) in values.iter().enumerate() {
            if value < 0 && noise.alpha(n, cols) == 0.0 {
                return Err(NoiseError::NegativeExact { index: n, value });
            }
            stored.push(i32::try_from(value).map_err(|_| NoiseError::TooLarge { index: n, value })?);
        }
        Ok(Self { rows, cols, values: stored, noise, missing: vec![false; rows * cols] })
    }

    /// Marks entries as missing (`mask[n] = true`): never released, excluded from the likelihood.
    /// Their stored values are zeroed so nothing can read them.
    pub fn with_missing(mut self, mask: Vec<bool>) -> Result<Self, NoiseError> {
        check_len("missing mask", self.rows * self.cols, mask.len())?;
        for (value, &missing) in self.values.iter_mut().zip(&mask) {
            if missing {
                *value = 0;
            }
        }
        self.missing = mask;
        Ok(self)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The released values `ỹ_n`, row-major (0 at missing entries).
    pub fn values(&self) -> &[i32] {
        &self.values
    }

    /// The noise levels.
    pub fn noise(&self) -> &Noise {
        &self.noise
    }

    /// `α_n` of entry `n`.
    pub fn alpha(&self, n: usize) -> f64 {
        self.noise.alpha(n, self.cols)
    }

    /// `true` where the entry is missing.
    pub fn missing(&self) -> &[bool] {
        &self.missing
    }

    /// The input of the naïve method (footnote 2 of Schein et al. 2019): negative values truncated
    /// to 0 — the truncated geometric mechanism. Missing entries stay 0.
    pub fn truncated(&self) -> Vec<u32> {
        self.values.iter().map(|&v| v.max(0).unsigned_abs()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::stream;

    #[test]
    fn alpha_zero_entries_are_exact_and_others_are_noised() {
        let y = vec![5u32; 200];
        let mut alphas = vec![0.0; 200];
        alphas[100..].fill(0.9);
        let p = privatize(&y, 10, 20, Noise::PerEntry(alphas), &mut stream(3, 0)).unwrap();
        assert!(p.values()[..100].iter().all(|&v| v == 5));
        assert!(p.values()[100..].iter().filter(|&&v| v != 5).count() > 50);
    }

    #[test]
    fn per_row_noise_uses_the_row_level() {
        let y = vec![0u32; 2 * 500];
        let p = privatize(&y, 2, 500, Noise::PerRow(vec![0.0, 0.8]), &mut stream(4, 0)).unwrap();
        assert!(p.values()[..500].iter().all(|&v| v == 0));
        assert!(p.values()[500..].iter().any(|&v| v < 0));
        assert_eq!(p.alpha(499), 0.0);
        assert_eq!(p.alpha(500), 0.8);
    }

    #[test]
    fn bad_inputs_are_named() {
        let err = privatize(&[1, 2], 1, 2, Noise::Scalar(1.0), &mut stream(1, 0)).unwrap_err();
        assert_eq!(err, NoiseError::Alpha { index: 0, value: 1.0 });
        assert!(err.to_string().contains("[0, 1)"));
        let err = privatize(&[1, 2], 1, 2, Noise::PerRow(vec![0.1, 0.2]), &mut stream(1, 0)).unwrap_err();
        assert_eq!(err, NoiseError::Length { what: "per-row alpha", expected: 1, found: 2 });
        let err = Privatized::from_released(1, 2, vec![3, -1], Noise::PerEntry(vec![0.5, 0.0])).unwrap_err();
        assert_eq!(err, NoiseError::NegativeExact { index: 1, value: -1 });
        let err = Privatized::from_released(1, 1, vec![1 << 40], Noise::Scalar(0.5)).unwrap_err();
        assert!(matches!(err, NoiseError::TooLarge { .. }));
        let ok = Privatized::from_released(1, 2, vec![3, -1], Noise::Scalar(0.5)).unwrap();
        assert!(ok.with_missing(vec![true]).is_err());
    }

    #[test]
    fn missing_entries_carry_no_value_and_truncation_clips_at_zero() {
        let p = Privatized::from_released(1, 3, vec![4, -2, 7], Noise::Scalar(0.5)).unwrap();
        let p = p.with_missing(vec![false, false, true]).unwrap();
        assert_eq!(p.values(), &[4, -2, 0]);
        assert_eq!(p.truncated(), vec![4, 0, 0]);
    }

    /// The noise added is 2Geo(α): its empirical mean of |τ| matches 2α/(1−α²).
    #[test]
    fn noise_has_the_two_sided_geometric_scale() {
        let y = vec![10u32; 40_000];
        let alpha = 0.6;
        let p = privatize(&y, 200, 200, Noise::Scalar(alpha), &mut stream(5, 0)).unwrap();
        let mean_abs: f64 = p.values().iter().map(|&v| f64::from((v - 10).abs())).sum::<f64>() / 40_000.0;
        let exact = 2.0 * alpha / (1.0 - alpha * alpha);
        // sd of |τ| ≈ 2.2 here, so the standard error of the mean is ≈ 0.011: 6 standard errors.
        assert!((mean_abs - exact).abs() < 0.07, "{mean_abs} vs {exact}");
    }
}
