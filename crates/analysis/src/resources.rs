//! What a fit will cost, from its settings and the table's shape alone (issue 31): computed in
//! floating point before anything is allocated, so an absurd `--iterations` is refused with a
//! message instead of a "capacity overflow" panic or an abort. The factorization sweep's estimate
//! (`pipeline/src/resources.rs`) uses the same per-cell constants.

use crate::chains::FitSettings;
use inference::Algorithm;

/// Bytes per cell of one data set: its counts (4), rates (8) or released values (8), the missing
/// mask (1), and the copies made while fitting.
pub const DATA_BYTES_PER_CELL: f64 = 40.0;
/// Bytes per cell of one running chain: the sampler's counts and the private step's auxiliaries,
/// the chain's rate buffers (rates, sums, squares), the posterior mean and sd (and, in a sweep,
/// the calibration targets and ranks).
const CHAIN_BYTES_PER_CELL: f64 = 120.0;
/// Of those, the augmented private step's noise auxiliaries, which the collapsed step does not hold.
const AUXILIARY_BYTES_PER_CELL: f64 = 32.0;
/// Bytes per factor value of one chain: the factors, their running means, the best sample and
/// the per-chunk allocation counts (up to 16 chunks).
const CHAIN_BYTES_PER_FACTOR: f64 = 8.0 * 20.0;
/// Bytes per kept sample (or CAVI iteration) of one chain's trace (three numbers).
const BYTES_PER_KEPT: f64 = 24.0;
/// Seconds per cell-component sweep on one core (measured: the single-chain Fig. 4 sweep,
/// 6.96·10¹¹ cell-component sweeps in 5,306 core-seconds on the 2-core CI machine, ≈ 7.6 ns;
/// private topic sweeps are ≈ 3 ns, BENCHMARKS.md). A rough guide, not a promise.
pub const SECONDS_PER_CELL_COMPONENT: f64 = 7.6e-9;

/// The estimated cost of a fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitCost {
    /// Peak memory, bytes.
    pub bytes: f64,
    /// Gibbs sweeps (or CAVI iterations) × chains × cells × components.
    pub cell_component_sweeps: f64,
    /// Work on one core, seconds (rough).
    pub core_seconds: f64,
}

impl FitCost {
    /// `≈ 1.2 GB of memory; about 3.5 h of one core (rough)`.
    pub fn describe(&self) -> String {
        format!(
            "≈ {} of memory; about {} of one core (rough)",
            runner::bytes_text(self.bytes),
            runner::duration_text(self.core_seconds)
        )
    }
}

/// Peak bytes of one running chain of `model` on a `rows × cols` table with `k` components that
/// keeps `kept` samples, each with the rates of `heldout` held-out cells: the per-cell buffers,
/// the factors, the block model's `V × C × C` running sums of its allocation's second stage, and
/// the trace; with the negative-binomial likelihood also its per-cell multipliers `δ` (the state,
/// their running mean, the best sample's copy and the sweep's scratch rates: 4 doubles a cell).
/// Used by [`fit_cost`] and by the factorization sweep's estimate alike.
pub fn chain_bytes(
    (model, likelihood): (models::ModelKind, models::Likelihood),
    (rows, cols, k): (f64, f64, f64),
    kept: f64,
    heldout: f64,
) -> f64 {
    let derived = if model == models::ModelKind::Block { rows * k * k } else { 0.0 };
    let per_cell = CHAIN_BYTES_PER_CELL + if likelihood == models::Likelihood::Poisson { 0.0 } else { 32.0 };
    per_cell * (rows * cols)
        + CHAIN_BYTES_PER_FACTOR * ((rows + cols + k) * k)
        + 8.0 * derived
        + kept * (BYTES_PER_KEPT + 8.0 * heldout)
}

/// The cost of fitting a `rows × cols` table with `heldout` held-out cells by `settings`.
pub fn fit_cost(settings: &FitSettings, (rows, cols): (usize, usize), heldout: usize) -> FitCost {
    let (rows, cols, k) = (rows as f64, cols as f64, settings.components as f64);
    let cells = rows * cols;
    // Each replica of replica exchange is a chain's worth of state and sweeps.
    let chains = (settings.chains * settings.replicas.max(1)) as f64;
    let (iterations, kept) = match settings.algorithm {
        Algorithm::Gibbs(s) => (s.iterations() as f64, s.kept() as f64),
        Algorithm::Cavi(c) => (c.max_iterations() as f64, c.max_iterations() as f64),
    };
    let mut per_chain = chain_bytes((settings.model, settings.likelihood), (rows, cols, k), kept, heldout as f64);
    // The collapsed private step holds no noise auxiliaries (λ₁, λ₂, g₁, g₂: 32 bytes a cell).
    if let Algorithm::Gibbs(s) = settings.algorithm
        && settings.method == inference::Method::Private
        && s.private_step() == inference::PrivateStep::Collapsed
    {
        per_chain -= AUXILIARY_BYTES_PER_CELL * cells;
    }
    // Stacking without held-out cells keeps every kept sample's log-likelihood of the LOO cells.
    if matches!(settings.algorithm, Algorithm::Gibbs(_))
        && settings.chains > 1
        && settings.weighting != crate::Weighting::Equal
        && heldout == 0
    {
        per_chain += 8.0 * kept * cells.min(inference::loo::MAX_LOO_CELLS as f64);
    }
    let cell_component_sweeps = chains * iterations * cells * k;
    FitCost {
        bytes: DATA_BYTES_PER_CELL * cells + chains * per_chain,
        cell_component_sweeps,
        core_seconds: cell_component_sweeps * SECONDS_PER_CELL_COMPONENT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inference::{Method, Schedule};
    use models::{GammaPrior, ModelKind};

    #[test]
    fn absurd_schedules_cost_a_finite_huge_amount_without_allocating() {
        let schedule = Schedule::new(usize::MAX, 0, 1).unwrap();
        let settings = FitSettings {
            model: ModelKind::Topic,
            components: 5,
            prior: GammaPrior::new(1.0, 1.0).unwrap(),
            scale: None,
            likelihood: models::Likelihood::Poisson,
            method: Method::Private,
            chains: 4,
            algorithm: Algorithm::Gibbs(schedule),
            seed: 1,
            weighting: crate::Weighting::Equal,
            replicas: 1,
        };
        let cost = fit_cost(&settings, (10, 10), 0);
        assert!(cost.bytes > 1e20 && cost.bytes.is_finite(), "{}", cost.bytes);
        let small = FitSettings { algorithm: Algorithm::Gibbs(Schedule::new(100, 50, 5).unwrap()), ..settings };
        let cost = fit_cost(&small, (10, 10), 0);
        // 40·100 + 4·(120·100 + 160·(25·5) + 10·24) = 4000 + 4·(12000 + 20000 + 240) = 132,960 bytes.
        assert_eq!(cost.bytes, 132_960.0);
        // The collapsed step: 4 chains × 100 cells × 32 bytes fewer.
        let schedule = Schedule::new(100, 50, 5).unwrap().with_private_step(inference::PrivateStep::Collapsed);
        let collapsed = FitSettings { algorithm: Algorithm::Gibbs(schedule), ..small };
        assert_eq!(fit_cost(&collapsed, (10, 10), 0).bytes, 132_960.0 - 4.0 * 100.0 * 32.0);
    }
}
