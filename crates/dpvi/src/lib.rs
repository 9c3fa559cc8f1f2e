//! Differentially private variational inference (DPVI; Jälkö, Dikmen & Honkela 2017,
//! `../shared/papers/003_…`), the central-DP baseline: a trusted curator holds the data and
//! privatizes the *algorithm* (clipped, noised per-example gradients), unlike the local methods
//! of this workspace where each person privatizes their own counts.
//!
//! - [`Model`]: a log prior and per-example log likelihoods with gradients on ℝᵈ;
//!   [`LogisticRegression`] and [`GaussianMixture`] are the paper's two models.
//! - [`MeanField`]: q(θ) = N(m, diag e^{2ω}).
//! - [`Dpvi`]: Algorithm 1 with the privacy account of the `accountant` crate.
//! - [`uci`]: the Abalone and Adult data sets as the paper preprocesses them.

mod algorithm;
mod gmm;
mod logistic;
mod model;
pub mod uci;
mod variational;

pub use algorithm::{Dpvi, Fit, Privacy, Settings, clip_to_norm, poisson_subsample};
pub use gmm::GaussianMixture;
pub use logistic::{Classification, LogisticRegression, evaluate, sigmoid};
pub use model::Model;
pub use variational::MeanField;
