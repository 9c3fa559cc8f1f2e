//! Fitting a model to a user's own table (`lppf fit`): the analyst's side of the trust boundary.
//!
//! - [`load`]: a released `row,col,value` table with its noise levels (from the release's
//!   `.privacy.toml`, or given), or — for the non-private reference methods — raw
//!   `row,col,count`; labels are kept for every output.
//! - [`hold_out`]: hides a random fraction of the modelled cells from the fit (marked missing,
//!   so every sampler leaves them out of the likelihood), to score them afterwards.
//! - [`fit_chains`]: several chains (or CAVI starts) in parallel, chain `c` on the stream
//!   `Streams::new(seed).child(c)`, pooled into one [`FitResult`]: posterior mean and sd of every
//!   rate, the factors of the best chain, traces, split-R̂ and ESS, and the held-out log
//!   predictive under the released-data likelihood `Pois(μ) ⊛ 2Geo(α)`.
//! - [`write_outputs`]: `rates.parquet`, `factors.parquet`, `trace.parquet`, `diagnostics.csv`,
//!   `fit.toml`, `summary.txt` and `figure.svg`/`.png`, each written atomically.
//! - [`fit_cost`]: the memory and work of a fit from its settings alone, checked before a fit.
//! - [`plan_fit`] and [`run_fit`]: a whole fit from the options a user types ([`FitRequest`], the
//!   options of `lppf fit` and `lppf.fit`) to a committed fit directory.
//! - [`structure_test`]: whether the release has structure beyond the independence model
//!   `μ_ij = a_i b_j`, on every cell, by a parametric bootstrap (the "no structure" verdict).
//! - [`independence_verdict`]: whether the fit's components beat the independence model on the
//!   held-out cells (a check of the fit).

mod chains;
pub mod checks;
mod data;
mod error;
mod fit_dir;
mod outputs;
pub mod partition;
mod report;
mod request;
pub mod resources;
pub mod score;
mod settings;
pub mod structure_test;
mod time_profiles;
pub mod totals;
mod verdict;

pub use chains::{
    ChainTrace, FitResult, FitSettings, HeldOutScore, LooScore, MAX_PREDICTIVE_SAMPLES, ModeSummary, Weighting,
    fit_chains, fit_chains_from,
};
pub use data::{FitData, Input, LevelSource, heldout_count, hold_out, load, seed_from_os};
pub use error::FitError;
pub use outputs::{CHECK_FIGURES, OUTPUT_FILES, write_outputs};
pub use report::summary_text;
pub use request::{
    DEFAULT_SCALE_SHAPE, Extension, FIT_FILE, FitDone, FitPlan, FitRequest, LikelihoodChoice, MAX_STRUCTURE_TABLES,
    MIN_STRUCTURE_TABLES, MoveChoice, PriorChoice, ScaleMean, default_scale_prior, dispersion_prior_from_text,
    plan_fit, run_fit, run_fit_observed, weighting_from_name,
};
pub use resources::{ChainMemory, FitCost, Machine, fit_cost};
/// How a raw counts file is laid out (`load`).
pub use tables::CountsFormat;
pub use totals::{ReleaseTotal, TOTAL_LEVEL, TotalCheck, release_total, total_check};
pub use verdict::{VERDICT_MIN_NATS, VERDICT_SES, Verdict, co_clustering, independence_verdict};
