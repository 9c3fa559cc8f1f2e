//! The table's total, from the release: the model-free interval for the true total, and the
//! plug-in check of a fit's total against it.

use crate::chains::FitResult;
use crate::data::{FitData, Input};
use distributions::{NoiseTotal, TwoSidedGeometric};

/// The level of the release's interval for the true total (the level of every interval a fit
/// reports).
pub const TOTAL_LEVEL: f64 = 0.9;

/// The true total of a released table, estimated from the release alone: `T̃ = Σ ỹ_n` over the
/// modelled cells (held-out cells included: they are part of the table), and the interval
/// `[T̃ − s, T̃ + s]`, `s` the 95 % quantile of the noise's total ([`NoiseTotal`]). The noise has
/// mean 0 and a public law, so the interval holds the true total `Σ y_n` with probability at least
/// [`TOTAL_LEVEL`] whatever the counts' law: it needs no model, and a model that misfits cannot
/// move it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReleaseTotal {
    /// `T̃ = Σ ỹ_n`.
    pub released: f64,
    /// The modelled cells summed.
    pub cells: u64,
    /// The [`TOTAL_LEVEL`] interval for the true total.
    pub interval: (f64, f64),
}

/// [`ReleaseTotal`] of released data; `None` for raw counts (whose total is known).
pub fn release_total(data: &FitData) -> Option<ReleaseTotal> {
    let Input::Released { alphas, privatized, heldout_values } = &data.input else { return None };
    let (values, cols) = (privatized.values(), data.cols.len());
    let mut released: f64 = heldout_values.iter().map(|&v| v as f64).sum();
    let mut per_row = vec![0u64; alphas.len()];
    let mut cells = 0u64;
    for n in (0..values.len()).filter(|&n| data.is_modelled(n)) {
        per_row[n / cols] += 1;
        cells += 1;
        if data.heldout.binary_search(&n).is_err() {
            released += f64::from(values[n]);
        }
    }
    // The levels were checked when the release was read (each in [0, 1)), so this cannot fail.
    let noise = NoiseTotal::new(alphas.iter().copied().zip(per_row)).ok()?;
    let interval = noise.total_interval(released, TOTAL_LEVEL).ok()?;
    Some(ReleaseTotal { released, cells, interval })
}

/// The total check of a fit to released data: the released total over the fitted cells,
/// `T̃ = Σ ỹ_n`, is an unbiased estimate of the true total (the noise has mean 0), so under the
/// model `T̃ − Σ μ̂_n` has sd ≈ `√(Σ μ̂_n + Σ_n 2α_n/(1−α_n)²)` (Poisson plus 2Geo variance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TotalCheck {
    pub released_total: f64,
    pub fitted_total: f64,
    pub sd: f64,
}

/// Gaps beyond this many sd are reported (a normal gap would pass 99.994 % of the time; a prior
/// that pulls the total also trips it — docs/own-data.md).
pub(crate) const TOTAL_CHECK_SDS: f64 = 4.0;

impl TotalCheck {
    /// `(T̃ − Σ μ̂) / sd`.
    pub fn gap(&self) -> f64 {
        (self.released_total - self.fitted_total) / self.sd
    }
}

/// [`TotalCheck`] over the modelled, not held-out cells of released data; `None` for raw counts.
pub fn total_check(data: &FitData, result: &FitResult) -> Option<TotalCheck> {
    let Input::Released { alphas, privatized, .. } = &data.input else { return None };
    let values = privatized.values();
    let cols = data.cols.len();
    // Each row's noise variance 2α/(1−α)²; the levels were checked when the release was read.
    let variance: Vec<f64> =
        alphas.iter().map(|&a| TwoSidedGeometric::new(a).map(|g| g.variance()).ok()).collect::<Option<_>>()?;
    let (mut released_total, mut fitted_total, mut noise) = (0.0, 0.0, 0.0);
    for n in (0..values.len()).filter(|&n| data.is_modelled(n) && data.heldout.binary_search(&n).is_err()) {
        released_total += f64::from(values[n]);
        fitted_total += result.mean_rates[n];
        noise += variance[n / cols];
    }
    Some(TotalCheck { released_total, fitted_total, sd: (fitted_total.max(0.0) + noise).sqrt() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The release's total sums the modelled cells (off the diagonal of a network) with their
    /// own levels (two rows at α = 0.8), held-out cells included; raw counts have none.
    #[test]
    fn the_release_total_sums_every_modelled_cell_at_its_level() {
        let n = 8;
        let counts: Vec<u32> = (0..n * n).map(|c| (c % 5) as u32).collect();
        let alphas: Vec<f64> = (0..n).map(|i| if i < 2 { 0.8 } else { 0.4 }).collect();
        let mut rng = distributions::Streams::new(5).rng();
        let privatized =
            mechanism::privatize(&counts, n, n, mechanism::Noise::PerRow(alphas.clone()), &mut rng).unwrap();
        let values: Vec<i32> = privatized.values().to_vec();
        let labels = tables::Labels::from_names((0..n).map(|i| format!("a{i}")));
        let mut data = FitData {
            file: "simulated".into(),
            axes: None,
            rows: labels.clone(),
            cols: labels,
            input: Input::Released { privatized, alphas, heldout_values: Vec::new() },
            levels: None,
            overrides_sidecar: None,
            modelled: models::ModelledCells::OffDiagonal,
            heldout: Vec::new(),
        };
        let expected: f64 = (0..n * n).filter(|c| c / n != c % n).map(|c| f64::from(values[c])).sum();
        let noise = NoiseTotal::new([(0.8, 14), (0.4, 42)]).unwrap();
        let whole = release_total(&data).unwrap();
        assert_eq!(whole.released, expected);
        assert_eq!(whole.cells, 56);
        assert_eq!(whole.interval, noise.total_interval(expected, TOTAL_LEVEL).unwrap());
        crate::hold_out(&mut data, 0.25, distributions::Streams::new(9)).unwrap();
        assert!(!data.heldout.is_empty());
        assert_eq!(release_total(&data).unwrap(), whole);
        data.input = Input::Counts { counts, missing: Vec::new() };
        assert_eq!(release_total(&data), None);
    }
}
