//! Expectation propagation and its differentially private stochastic variant (DP-SEP; Vinaroz &
//! Park, `../shared/papers/004_…`), for Gaussian approximations in natural parameters.
//!
//! - [`linalg`]: small symmetric matrices (Cholesky, inverse, Jacobi eigen, PD repair);
//! - [`Natural`]: a Gaussian (or factor) in natural parameters; norms and clipping;
//! - [`MixtureMeans`]: the §6.1 model, its closed-form tilted projection and a Gibbs reference;
//! - [`sep()`](sep::sep), [`ep()`](sep::ep): SEP / clipped SEP / DP-SEP and EP;
//! - [`dp_em()`](dp_em::dp_em): the DP-EM baseline;
//! - [`metrics`]: F-norms against a reference after Hungarian matching of the clusters.

pub mod dp_em;
mod gaussian;
pub mod linalg;
pub mod metrics;
mod mog;
pub mod sep;

pub use gaussian::{Natural, clip, combine, norm};
pub use mog::{MixtureMeans, Synthetic};

/// The noise multiplier σ for which DP-SEP's `epochs · N` single-point steps are (ε, δ)-DP:
/// the subsampled Gaussian at rate q = 1/N with the replace-one sensitivity 2γC/N already in the
/// noise scale (so accounted as add/remove with multiplier σ), as the paper's Prop. 2 does with
/// the subsampled RDP accountant.
pub fn dp_sep_noise(
    epsilon: f64,
    delta: f64,
    points: usize,
    epochs: usize,
) -> Result<f64, accountant::AccountantError> {
    let (q, steps) = (1.0 / points as f64, (epochs * points) as u64);
    accountant::calibrate_noise(
        accountant::Accounting::MomentsAccountant,
        accountant::Neighbouring::AddRemove,
        q,
        steps,
        epsilon,
        delta,
    )
}

/// The ε that `epochs · N` DP-SEP steps with noise multiplier σ spend (see [`dp_sep_noise`]).
pub fn dp_sep_epsilon(
    sigma: f64,
    delta: f64,
    points: usize,
    epochs: usize,
) -> Result<f64, accountant::AccountantError> {
    let (q, steps) = (1.0 / points as f64, (epochs * points) as u64);
    accountant::epsilon(
        accountant::Accounting::MomentsAccountant,
        accountant::Neighbouring::AddRemove,
        q,
        sigma,
        steps,
        delta,
    )
}
