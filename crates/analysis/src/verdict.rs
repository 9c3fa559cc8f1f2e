//! The "no structure" verdict: do the fit's `K` components predict held-out released cells
//! better than the **independence model** `μ_ij = a_i b_j` (a topic model with one component:
//! each row's activity times each column's popularity), fitted by the same method on the same
//! cells?
//!
//! Both fits are scored on the same held-out cells by the released-data log predictive
//! `ln p(ỹ_n | data)` ([`eval::heldout_log_predictive_cells`]). The comparison is paired over
//! cells: `Δ = Σ_n (ln p_K(ỹ_n) − ln p_1(ỹ_n))` with standard error `√n · sd_n(ln p_K − ln p_1)`,
//! as for pointwise predictive comparisons (Vehtari, Gelman & Gabry 2017, §5.2). The fit shows
//! structure beyond row and column totals when `Δ > 2 se` and `Δ > 4` nats; otherwise its
//! communities or topics are not findings, and the summary says so instead of listing them. Below
//! 4 nats the two models predict almost alike and the normal approximation behind `se` is poorly
//! calibrated (Sivula, Magnusson & Vehtari 2022's rule of thumb); on networks without structure
//! most false positives of the 2-se rule alone had `Δ` of 3–4 nats (docs/model-checking.md, "How
//! often the verdict is right").
//!
//! Beside the verdict, the same comparison with the PSIS-LOO cells of both fits added (up to
//! [`inference::loo::MAX_LOO_CELLS`] cells they saw, each scored by its leave-one-out predictive)
//! is recorded. It compares up to ten times the cells, but it is not the verdict: on networks
//! without structure it favours the `K` components (docs/model-checking.md, "How often the
//! verdict is right"), as PSIS-LOO does for the more flexible model when chains mix slowly.

use crate::chains::{FitSettings, fit_chains};
use crate::data::{FitData, Input};
use crate::error::FitError;
use models::ModelKind;

/// How many standard errors `Δ` must exceed for the verdict "structure".
pub const VERDICT_SES: f64 = 2.0;
/// How many nats `Δ` must exceed as well: below this the two models predict almost alike.
pub const VERDICT_MIN_NATS: f64 = 4.0;

/// The comparison with the independence model on the held-out cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Held-out cells compared.
    pub cells: usize,
    /// `Σ_n ln p_1(ỹ_n)`: the independence model's held-out log predictive.
    pub independence_log_predictive: f64,
    /// `Δ = Σ_n (ln p_K(ỹ_n) − ln p_1(ỹ_n))` (positive: the `K` components predict better).
    pub difference: f64,
    /// `√n · sd` of the per-cell differences.
    pub se: f64,
    /// The same comparison with the PSIS-LOO cells added: `(cells, Δ, se)` over the held-out and
    /// the LOO cells (module docs: recorded, not the verdict).
    pub with_loo: Option<(usize, f64, f64)>,
}

impl Verdict {
    /// Whether the `K` components beat the independence model: `Δ > 2 se` and `Δ > 4` nats.
    pub fn structure(&self) -> bool {
        self.difference > VERDICT_SES * self.se && self.difference > VERDICT_MIN_NATS
    }

    /// The paired comparison from the two fits' per-cell scores (same cells, same order).
    pub fn from_cells(fit: &[f64], independence: &[f64]) -> Option<Self> {
        let n = fit.len();
        if n < 2 || independence.len() != n {
            return None;
        }
        let d: Vec<f64> = fit.iter().zip(independence).map(|(a, b)| a - b).collect();
        let (_, sd) = results::mean_sd(&d);
        Some(Self {
            cells: n,
            independence_log_predictive: independence.iter().sum(),
            difference: d.iter().sum(),
            se: (n as f64).sqrt() * sd?,
            with_loo: None,
        })
    }

    /// The verdict on the held-out cells (`fit`, `independence`: their scores in the same order),
    /// with the comparison over those and the PSIS-LOO cells both fits scored (`(cell, score)`
    /// pairs of each fit, paired by cell) beside it when there are LOO cells.
    pub fn from_heldout_and_loo(
        fit: &[f64],
        independence: &[f64],
        fit_loo: &[(usize, f64)],
        independence_loo: &[(usize, f64)],
    ) -> Option<Self> {
        let mut verdict = Self::from_cells(fit, independence)?;
        let other: std::collections::HashMap<usize, f64> = independence_loo.iter().copied().collect();
        let (loo_fit, loo_independence): (Vec<f64>, Vec<f64>) =
            fit_loo.iter().filter_map(|(n, a)| other.get(n).map(|b| (*a, *b))).unzip();
        if !loo_fit.is_empty() {
            let all = Self::from_cells(&[fit, &loo_fit].concat(), &[independence, &loo_independence].concat())?;
            verdict.with_loo = Some((all.cells, all.difference, all.se));
        }
        Some(verdict)
    }
}

/// The independence model's stream: `Streams::new(seed of this)` is unrelated to the fit's own
/// chains (`Streams::new(seed).child(c)`).
const INDEPENDENCE_STREAM: u64 = 0x1de9_e4de_4ce0;

/// Fits the independence model (a topic model with one component, the same method, chains and
/// schedule; for a network the diagonal stays out of the model; for counts over time, of the grid
/// `rows × cols·times`) on `data` with its held-out cells,
/// and compares it with `result` on the held-out cells, and beside that on the held-out and the
/// PSIS-LOO cells ([`Verdict::from_heldout_and_loo`]). `None` when nothing is held out, or when the fit is
/// itself the independence model (a topic model with `K = 1`).
pub fn independence_verdict(
    settings: &FitSettings,
    data: &FitData,
    result: &crate::FitResult,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<Option<Verdict>, FitError> {
    let Some(scored) = &result.heldout else { return Ok(None) };
    if settings.model == ModelKind::Topic && settings.components == 1 {
        return Ok(None);
    }
    let mut baseline_data = data.clone();
    // Counts over time: the independence model of the flattened grid (row activity × the
    // popularity of each column at each time).
    baseline_data.axes = None;
    if data.modelled != models::ModelledCells::All {
        // The topic model models every cell: leave the cells outside the network's model (its
        // diagonal; undirected, the lower triangle too) out as missing.
        let (cols, modelled) = (data.cols.len(), data.modelled);
        let with_diagonal = |mask: &[bool]| -> Vec<bool> {
            mask.iter().enumerate().map(|(n, &m)| m || modelled.excludes(n, cols)).collect()
        };
        match &mut baseline_data.input {
            Input::Released { privatized, .. } => {
                let mask = with_diagonal(privatized.missing());
                *privatized = privatized.clone().with_missing(mask).map_err(|e| FitError::Inference(e.to_string()))?;
            }
            Input::Counts { missing, .. } => *missing = with_diagonal(missing),
        }
        baseline_data.modelled = models::ModelledCells::All;
    }
    let baseline = FitSettings {
        model: ModelKind::Topic,
        components: 1,
        seed: distributions::stream_id(&[settings.seed, INDEPENDENCE_STREAM]),
        ..settings.clone()
    };
    let independence = fit_chains(&baseline, &baseline_data, on_iteration)?;
    let Some(other) = &independence.heldout else { return Ok(None) };
    Ok(Verdict::from_heldout_and_loo(
        &scored.per_cell,
        &other.per_cell,
        &pooled_loo(result),
        &pooled_loo(&independence),
    ))
}

/// Each PSIS-LOO cell of a fit with its pooled score `ln Σ_k w_k p̂_k(ỹ_n | ỹ_{−n})` under the
/// fit's chain weights (empty without LOO, e.g. for CAVI).
fn pooled_loo(result: &crate::FitResult) -> Vec<(usize, f64)> {
    let Some(loo) = &result.loo else { return Vec::new() };
    let pooled = inference::stacking::mixture_log_densities(&loo.per_chain_cells, &result.weights);
    loo.at.iter().copied().zip(pooled).collect()
}

/// The posterior stability of a listed community, independent of the components' labels: for
/// each of its `members` (row indices), the co-clustering probability with the others,
/// `(1/S) Σ_s (1/(|M|−1)) Σ_{m' ≠ m} 1[a_s(m) = a_s(m')]` over the kept samples' assignments
/// `a_s` (each row's largest membership). Near 1: the member sits with the rest of the
/// community in almost every sample; near `1/K`: the community is a label, not a finding. `NaN`
/// without samples or with fewer than two members.
pub fn co_clustering(assignments: &[Vec<u16>], members: &[usize]) -> Vec<f64> {
    let others = members.len().saturating_sub(1) as f64;
    members
        .iter()
        .map(|&m| {
            let together: f64 = assignments
                .iter()
                .map(|a| members.iter().filter(|&&o| o != m && a.get(o) == a.get(m)).count() as f64 / others)
                .sum();
            together / assignments.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Co-clustering: rows 0 and 1 share a component in 3 of 4 samples, row 2 never with them;
    /// the labels are swapped between samples and change nothing.
    #[test]
    fn co_clustering_counts_shared_components_whatever_their_labels() {
        let samples = vec![vec![0, 0, 1], vec![1, 1, 0], vec![2, 2, 0], vec![0, 1, 2]];
        let p = co_clustering(&samples, &[0, 1]);
        assert_eq!(p, vec![0.75, 0.75]);
        let p = co_clustering(&samples, &[0, 1, 2]);
        assert_eq!(p, vec![0.375, 0.375, 0.0]);
        assert!(co_clustering(&samples, &[0])[0].is_nan());
        assert!(co_clustering(&[], &[0, 1])[0].is_nan());
    }

    #[test]
    fn the_paired_difference_and_its_standard_error() {
        let v = Verdict::from_cells(&[-1.0, -2.0, -1.5, -1.0], &[-1.5, -2.0, -2.5, -1.0]).unwrap();
        // d = 0.5, 0, 1, 0: Σ = 1.5, mean 0.375, sample variance (0.015625 + 0.140625 + 0.390625 +
        // 0.140625)/3 = 0.229167; se = √(4 · 0.229167) = 0.957.
        assert_eq!(v.difference, 1.5);
        assert!((v.se - (4.0f64 * 0.6875 / 3.0).sqrt()).abs() < 1e-12, "{}", v.se);
        assert!(!v.structure());
        assert_eq!(v.independence_log_predictive, -7.0);
        let clear = Verdict::from_cells(&[-1.0; 50], &[-1.2; 50]).unwrap();
        assert!(clear.structure() && clear.se < 1e-9, "{clear:?}");
        // Δ = 3 nats: far beyond 2 se, but under 4 nats the models predict almost alike.
        let slight = Verdict::from_cells(&[-1.0; 30], &[-1.1; 30]).unwrap();
        assert!(!slight.structure() && (slight.difference - 3.0).abs() < 1e-9, "{slight:?}");
        assert!(Verdict::from_cells(&[1.0], &[1.0]).is_none());
        assert!(Verdict::from_cells(&[1.0, 2.0], &[1.0]).is_none());
    }

    /// The verdict is the held-out comparison; beside it, LOO cells are paired by cell whatever
    /// their order, and a cell one fit did not score is left out.
    #[test]
    fn loo_cells_join_the_heldout_cells_beside_the_verdict() {
        let fit_loo = [(3, -1.0), (7, -2.0), (9, -0.5)];
        let independence_loo = [(9, -1.5), (3, -1.0), (5, -9.0)];
        let v = Verdict::from_heldout_and_loo(&[-1.0, -2.0], &[-1.5, -2.0], &fit_loo, &independence_loo).unwrap();
        let alone = Verdict::from_cells(&[-1.0, -2.0], &[-1.5, -2.0]).unwrap();
        assert_eq!((v.cells, v.difference, v.se), (2, alone.difference, alone.se));
        // With LOO: held out (−1 vs −1.5, −2 vs −2) and LOO cells 3 (−1 vs −1) and 9 (−0.5 vs −1.5).
        let all = Verdict::from_cells(&[-1.0, -2.0, -1.0, -0.5], &[-1.5, -2.0, -1.0, -1.5]).unwrap();
        assert_eq!(v.with_loo, Some((4, 1.5, all.se)));
        let plain = Verdict::from_heldout_and_loo(&[-1.0, -2.0], &[-1.5, -2.0], &[], &[]).unwrap();
        assert_eq!(plain, alone);
    }
}
