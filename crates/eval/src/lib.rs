//! Evaluation of Poisson factorization fits against the truth (§5 of Schein et al. 2019):
//! the mean Poisson KL divergence of estimated rates, Hungarian alignment of estimated topics to
//! true ones (Newman et al. 2009), mean absolute error, and the held-out predictive score of
//! released cells (no truth needed).

mod align;
mod heldout;
mod kl;
mod negative_binomial;

pub use align::{Alignment, align_topics, min_cost_matching, normalize_rows};
pub use heldout::{
    CellLikelihood, Seen, evenly_spaced, heldout_log_predictive, heldout_log_predictive_cells,
    heldout_log_predictive_cells_under, ln_released_likelihood,
};
pub use kl::{mean_poisson_kl, poisson_kl};
pub use negative_binomial::{ln_cell_likelihood, ln_negative_binomial_pmf, ln_released_nb_likelihood};

use std::fmt;

/// Why a metric could not be computed.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// The estimate puts zero rate where the truth does not: `KL(Pois(μ*) ‖ Pois(0)) = ∞`.
    ZeroEstimate { index: usize, truth: f64 },
    /// A negative or non-finite rate or value.
    Invalid { index: usize, value: f64 },
    /// Inputs of different or inconsistent sizes, or nothing to average.
    Shape(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroEstimate { index, truth } => write!(
                f,
                "entry {index}: estimated rate is 0 but the true rate is {truth}, so the Poisson KL is infinite"
            ),
            Self::Invalid { index, value } => write!(f, "entry {index}: {value} is not a finite number >= 0"),
            Self::Shape(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for EvalError {}

/// `(1/N) Σ_n |a_n − b_n|`. Errors on different lengths or empty inputs.
pub fn mean_absolute_error(a: &[f64], b: &[f64]) -> Result<f64, EvalError> {
    if a.len() != b.len() || a.is_empty() {
        return Err(EvalError::Shape(format!("mean absolute error of {} vs {} values", a.len(), b.len())));
    }
    Ok(a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>() / a.len() as f64)
}
