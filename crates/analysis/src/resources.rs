//! What a fit will cost, from its settings and the table's shape alone (issue 31): computed in
//! floating point before anything is allocated, so an absurd `--iterations` is refused with a
//! message instead of a "capacity overflow" panic or an abort. The constants are the
//! factorization sweep's (`pipeline/src/resources.rs`), which were measured.

use crate::chains::FitSettings;
use inference::Algorithm;

/// Bytes per cell of the table held by the fit: the released values (8), the levels' view, the
/// missing mask and the model's copy of the data.
const DATA_BYTES_PER_CELL: f64 = 40.0;
/// Bytes per cell of one running chain: the sampler's counts and the private step's auxiliaries,
/// the chain's rate buffers, the posterior mean and sd.
const CHAIN_BYTES_PER_CELL: f64 = 120.0;
/// Bytes per factor value of one chain (factors, running means, best sample, chunk counts).
const CHAIN_BYTES_PER_FACTOR: f64 = 160.0;
/// Bytes per kept sample (or CAVI iteration) of one chain's trace: iteration, value, total.
const BYTES_PER_KEPT: f64 = 24.0;
/// Seconds per cell-component sweep on one core (the sweep's measured 7.6 ns; rough).
pub const SECONDS_PER_CELL_COMPONENT: f64 = 7.6e-9;

/// The estimated cost of a fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitCost {
    /// Peak memory, bytes.
    pub bytes: f64,
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

/// The cost of fitting a `rows × cols` table with `heldout` held-out cells by `settings`.
pub fn fit_cost(settings: &FitSettings, (rows, cols): (usize, usize), heldout: usize) -> FitCost {
    let (rows, cols, k) = (rows as f64, cols as f64, settings.components as f64);
    let cells = rows * cols;
    let chains = settings.chains as f64;
    let (iterations, kept) = match settings.algorithm {
        Algorithm::Gibbs(s) => (s.iterations() as f64, s.kept() as f64),
        Algorithm::Cavi(c) => (c.max_iterations() as f64, c.max_iterations() as f64),
    };
    let factors = (rows + cols + k) * k;
    // The block model keeps V × C × C running sums of its allocation's second stage.
    let derived = if settings.model == models::ModelKind::Block { rows * k * k } else { 0.0 };
    // Each kept sample keeps the rates of the held-out cells (for their predictive).
    let per_chain = CHAIN_BYTES_PER_CELL * cells
        + CHAIN_BYTES_PER_FACTOR * factors
        + 8.0 * derived
        + kept * (BYTES_PER_KEPT + 8.0 * heldout as f64);
    FitCost {
        bytes: DATA_BYTES_PER_CELL * cells + chains * per_chain,
        core_seconds: chains * iterations * cells * k * SECONDS_PER_CELL_COMPONENT,
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
            method: Method::Private,
            chains: 4,
            algorithm: Algorithm::Gibbs(schedule),
            seed: 1,
        };
        let cost = fit_cost(&settings, (10, 10), 0);
        assert!(cost.bytes > 1e20 && cost.bytes.is_finite(), "{}", cost.bytes);
        let small = FitSettings { algorithm: Algorithm::Gibbs(Schedule::new(100, 50, 5).unwrap()), ..settings };
        let cost = fit_cost(&small, (10, 10), 0);
        // 40·100 + 4·(120·100 + 160·(25·5) + 10·24) = 4000 + 4·(12000 + 20000 + 240) = 132,960 bytes.
        assert_eq!(cost.bytes, 132_960.0);
    }
}
