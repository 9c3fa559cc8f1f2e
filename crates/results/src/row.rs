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
}

/// The Arrow schema of [`ResultRow`], in column order.
pub fn schema() -> Arc<Schema> {
    let f = |name: &str, data_type: DataType, nullable: bool| Field::new(name, data_type, nullable);
    Arc::new(Schema::new(vec![
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
    ]))
}
