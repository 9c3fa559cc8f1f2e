//! One tidy result row: a method fitted to one data set at one noise level. The column list is
//! the schema of `results.parquet` (documented in `docs/results.md`).

use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// One row of `results.parquet`. `None` is a Parquet null.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// `experiment.name` of the manifest.
    pub experiment: String,
    /// `"topic"` or `"block"`.
    pub model: String,
    /// K topics or C communities.
    pub components: i64,
    /// The master seed.
    pub seed: u64,
    pub replication: i64,
    /// Mean re-scaling `e₀` of a semi-synthetic data set; null for data from the prior.
    pub e0: Option<f64>,
    /// The noise level `α` (the mean level with per-row noise); null for the non-private
    /// reference, which sees the true counts.
    pub alpha: Option<f64>,
    /// `ε` when the sweep is over `ε` (then `α = exp(−ε/N)`).
    pub epsilon: Option<f64>,
    /// The precision `N` that turned `ε` into `α`.
    pub precision: Option<f64>,
    /// Concentration `c` of per-row levels `α_d ~ Beta(cα, c(1−α))`; null for one level.
    pub row_concentration: Option<f64>,
    /// `"non-private"`, `"naive"`, `"private"` (Gibbs); `"cavi"`, `"naive-cavi"`, `"private-cavi"`.
    pub method: String,
    /// Mean Poisson KL of the posterior-mean rates against the true rates.
    pub mean_kl: f64,
    /// Mean absolute error of the posterior-mean rates against the true rates (the error measure
    /// of Schofield et al.'s speed study).
    pub rate_mae: f64,
    /// Topic models: MAE of the normalized topics after Hungarian alignment (Gibbs: the best
    /// sample's; CAVI: the posterior means').
    pub topic_error: Option<f64>,
    /// Iterations run: the schedule's sweeps (Gibbs) or the iterations to convergence (CAVI).
    pub iterations: i64,
    /// Gibbs schedule; null for CAVI.
    pub burn_in: Option<i64>,
    pub thin: Option<i64>,
    /// CAVI: whether the relative ELBO change fell below the tolerance; null for Gibbs.
    pub converged: Option<bool>,
    /// Wall time of the chain, seconds.
    pub seconds: f64,
    pub iterations_per_second: f64,
    /// Chains (Gibbs) or starts (CAVI) of the fit; 1 in files written before chains existed.
    pub chains: i64,
    /// Each chain's own mean KL (Gibbs: of that chain's posterior mean; CAVI: of each start's),
    /// in chain order: the chain-to-chain spread is the fit's Monte Carlo error.
    pub chain_mean_kl: Vec<f64>,
    /// Gibbs: split-R̂ and bulk/tail ESS over the chains of `ln p(Z, Y)`, of the total rate
    /// `Σ μ`, and of the KL of each kept sample's rates to the truth; null for CAVI.
    pub diagnostics: Option<RowDiagnostics>,
    /// Gibbs: what the diagnostics warn about (R̂ > 1.01, bulk or tail ESS below 100 per chain),
    /// `; `-separated; empty when nothing; null for CAVI.
    pub warning: Option<String>,
    /// Gibbs: empirical coverage of central posterior credible intervals against the truth
    /// (simulation-based calibration, docs/calibration.md); null for CAVI.
    pub coverage: Option<Coverage>,
    /// Gibbs with several chains: what is wrong with the chains, if anything (`inference::
    /// convergence`: `mixed`, `unsettled`, `modes`, `unsettled-and-modes`); null otherwise and in
    /// files written before it existed.
    pub convergence: Option<String>,
    /// Gibbs with several chains: the chains stacked by their PSIS-LOO predictive; null otherwise.
    pub stacking: Option<Stacking>,
    /// Gibbs with known true rates: the simulation-based-calibration rank of the true total rate
    /// among thinned draws; null otherwise and in files written before it existed.
    pub sbc: Option<Sbc>,
    /// Gibbs with replica exchange (`[sampler] replicas`): the smallest inverse temperature on the
    /// chains' final ladders (adapted in the burn-in; 1 is the cold chain); null for plain chains,
    /// CAVI and files written before it existed.
    pub ladder_min_beta: Option<f64>,
}

/// Simulation-based calibration of one fit (Talts et al. 2018; docs/calibration.md): the rank
/// of the true total rate `Σ_n μ_n` (over the modelled cells) among `draws` posterior draws,
/// thinned evenly from each chain's kept samples so that they are close to independent, and the
/// rank of the true parameters' log-likelihood among the same draws'. Under an exact posterior
/// and data drawn from the prior, each rank is uniform on `0..=draws`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sbc {
    /// How many of the draws are below the truth.
    pub total_rank: u32,
    /// The number of draws ranked against.
    pub draws: u32,
    /// How many of the same draws have a lower marginal log-likelihood of the data the fit sees
    /// (its scored cells) than the true parameters have: a test quantity that depends on the data
    /// and on every rate, so it sees the structure, not only the total, and no labels (Modrák et
    /// al. 2023). `None` where the fit records no log-likelihoods (one chain) and in older files.
    #[serde(default)]
    pub ln_likelihood_rank: Option<u32>,
}

impl Sbc {
    /// The column names, in order.
    pub const COLUMNS: [&'static str; 3] = ["sbc_total_rank", "sbc_draws", "sbc_ln_likelihood_rank"];
}

/// The chains of a fit stacked by their leave-one-out predictive of the data the fit sees (Yao,
/// Vehtari & Gelman 2022; PSIS-LOO on a subsample of cells, docs/modes.md).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stacking {
    /// Each chain's weight, in chain order (summing to 1).
    pub weights: Vec<f64>,
    /// Mean Poisson KL of the stacked posterior-mean rates `Σ_k w_k μ̂_k` against the truth.
    pub mean_kl: f64,
    /// The share of (chain, cell) LOO estimates with Pareto `k̂ > 0.7` (unreliable).
    pub unreliable_share: f64,
}

impl Stacking {
    /// The column names, in order.
    pub const COLUMNS: [&'static str; 3] = ["stacking_weights", "mean_kl_stacked", "loo_unreliable_share"];
}

/// The ranks `lo..=S − lo` of the central `level` credible interval among `kept = S` samples,
/// `lo = round(S (1 − level) / 2)`: the truth is inside when its rank (the number of samples below
/// it; Talts et al. 2018) is (docs/calibration.md).
pub fn central_ranks(kept: usize, level: f64) -> (usize, usize) {
    let lo = (kept as f64 * (1.0 - level) / 2.0).round() as usize;
    (lo, kept.saturating_sub(lo))
}

/// The probability that a calibrated posterior's interval [`central_ranks`] holds the truth, its
/// rank being uniform on `0..=S`: `(S − 2 lo + 1) / (S + 1)` (0.5025 and 0.9005 for 50 % and 90 %
/// with `S = 200`).
pub fn nominal_coverage(kept: usize, level: f64) -> f64 {
    let (lo, hi) = central_ranks(kept, level);
    (hi + 1).saturating_sub(lo) as f64 / (kept + 1) as f64
}

/// The fraction of true values inside the central 50 % and 90 % posterior credible intervals
/// (from the kept samples) of a fit: over its modelled rates `μ_ij`, and over its row totals
/// `Σ_j μ_ij`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Coverage {
    pub rates_50: f64,
    pub rates_90: f64,
    pub rows_50: f64,
    pub rows_90: f64,
}

impl Coverage {
    /// The column names, in order.
    pub const COLUMNS: [&'static str; 4] = ["coverage_50", "coverage_90", "row_coverage_50", "row_coverage_90"];

    /// The values in the order of [`Coverage::COLUMNS`].
    pub fn values(&self) -> [f64; 4] {
        [self.rates_50, self.rates_90, self.rows_50, self.rows_90]
    }
}

/// Split-R̂, bulk ESS and tail ESS of one traced quantity.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TraceDiagnostics {
    pub rhat: f64,
    pub ess_bulk: f64,
    pub ess_tail: f64,
}

/// The diagnostics of a Gibbs fit's traced quantities.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RowDiagnostics {
    pub ln_joint: TraceDiagnostics,
    pub total_rate: TraceDiagnostics,
    /// The mean Poisson KL of each kept sample's rates to the true rates.
    pub kl: TraceDiagnostics,
}

impl RowDiagnostics {
    /// The traced quantities' column suffixes, in column order.
    pub const TRACES: [&'static str; 3] = ["ln_joint", "total_rate", "kl"];

    /// The diagnostics of `TRACES[i]`.
    pub fn trace(&self, i: usize) -> TraceDiagnostics {
        [self.ln_joint, self.total_rate, self.kl][i]
    }

    /// The largest R̂ (NaN if any is NaN).
    pub fn max_rhat(&self) -> f64 {
        max_or_nan([self.ln_joint.rhat, self.total_rate.rhat, self.kl.rhat])
    }

    /// The smallest bulk ESS and the smallest tail ESS.
    pub fn min_ess(&self) -> (f64, f64) {
        let t = [self.ln_joint, self.total_rate, self.kl];
        (
            t.iter().map(|d| d.ess_bulk).fold(f64::INFINITY, f64::min),
            t.iter().map(|d| d.ess_tail).fold(f64::INFINITY, f64::min),
        )
    }
}

/// The largest value, or NaN if any is NaN (an undefined R̂ must not hide behind a defined one,
/// as it would under `f64::max`).
pub(crate) fn max_or_nan(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(f64::NEG_INFINITY, |m, x| if m.is_nan() || x.is_nan() { f64::NAN } else { m.max(x) })
}

/// The names of the diagnostics columns (`rhat_ln_joint`, `ess_bulk_ln_joint`, …), in order.
pub fn diagnostics_columns() -> Vec<String> {
    RowDiagnostics::TRACES.iter().flat_map(|t| ["rhat", "ess_bulk", "ess_tail"].map(|d| format!("{d}_{t}"))).collect()
}

/// The Arrow schema of [`ResultRow`], in column order.
pub fn schema() -> Arc<Schema> {
    let f = |name: &str, data_type: DataType, nullable: bool| Field::new(name, data_type, nullable);
    let mut fields = vec![
        f("experiment", DataType::Utf8, false),
        f("model", DataType::Utf8, false),
        f("components", DataType::Int64, false),
        f("seed", DataType::UInt64, false),
        f("replication", DataType::Int64, false),
        f("e0", DataType::Float64, true),
        f("alpha", DataType::Float64, true),
        f("epsilon", DataType::Float64, true),
        f("precision", DataType::Float64, true),
        f("row_concentration", DataType::Float64, true),
        f("method", DataType::Utf8, false),
        f("mean_kl", DataType::Float64, false),
        f("rate_mae", DataType::Float64, false),
        f("topic_error", DataType::Float64, true),
        f("iterations", DataType::Int64, false),
        f("burn_in", DataType::Int64, true),
        f("thin", DataType::Int64, true),
        f("converged", DataType::Boolean, true),
        f("seconds", DataType::Float64, false),
        f("iterations_per_second", DataType::Float64, false),
        f("chains", DataType::Int64, false),
        f("chain_mean_kl", DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))), false),
    ];
    fields.extend(diagnostics_columns().iter().map(|name| f(name, DataType::Float64, true)));
    fields.push(f("warning", DataType::Utf8, true));
    fields.extend(Coverage::COLUMNS.iter().map(|name| f(name, DataType::Float64, true)));
    fields.push(f("convergence", DataType::Utf8, true));
    fields.push(f(
        Stacking::COLUMNS[0],
        DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))),
        true,
    ));
    fields.extend(Stacking::COLUMNS[1..].iter().map(|name| f(name, DataType::Float64, true)));
    fields.extend(Sbc::COLUMNS.iter().map(|name| f(name, DataType::Int64, true)));
    fields.push(f("ladder_min_beta", DataType::Float64, true));
    Arc::new(Schema::new(fields))
}
