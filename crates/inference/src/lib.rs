//! Gibbs inference for Poisson factorization from clean, naïvely truncated, or locally
//! privatized counts (Schein et al. 2019, §3–4).
//!
//! * [`NonPrivate`]: the model's own sampler on the true counts (the reference), or — built with
//!   [`NonPrivate::naive`] — on privatized counts truncated at 0 (footnote 2 of the paper).
//! * [`LocallyPrivate`]: the same model plus one step that resamples the true counts from the
//!   privatized ones (eqs. 12–16). It is generic over any [`models::PoissonFactorization`] and
//!   accepts only a [`mechanism::Privatized`] matrix.
//! * [`run_chain`]: burn-in, thinning, running posterior means (eq. 17), the joint
//!   log-probability of each kept sample and the best one; progress hook and cancellation.
//! * [`geweke`]: the "getting it right" joint-distribution test (Geweke 2004) every sampler here
//!   passes.
//! * [`Cavi`]: coordinate-ascent variational inference for the same three settings (Schofield et
//!   al.), with the privacy step written once for any [`models::MeanFieldFactorization`].
//! * [`diagnose`]: split-R̂ and bulk/tail ESS of several chains (Vehtari et al. 2021).
//! * [`fit`]: the one estimator interface over all of these — a [`models::ModelFamily`], an
//!   [`Observation`] (exact, naïve, private) and an [`Algorithm`] (Gibbs, CAVI) give a
//!   [`Posterior`]; [`fit_chains`] runs several chains (or CAVI starts) of it in parallel and
//!   pools them with their diagnostics.

mod cavi;
mod chain;
pub mod convergence;
mod diagnostics;
mod entries;
mod error;
mod estimator;
pub mod geweke;
pub mod loo;
mod method;
mod non_private;
mod pooled;
mod private;
mod private_step;
pub mod stacking;
pub mod tempering;

pub use cavi::{
    BesselArgument, Cavi, CaviProgress, CaviSettings, CaviSettingsError, CaviSummary, LocalStep, MEstimate,
    delta_method_ln_mean, private_local_step,
};
pub use chain::{
    ChainSummary, Functional, MeanFactor, Monitor, Pointwise, PrivateStep, Progress, Schedule, ScheduleError, Start,
    Statistics, WARM_UP_DISPERSION, Watch, calibration_targets, run_chain, run_chain_on, run_chain_watching,
};
pub use diagnostics::{Diagnostics, ESS_PER_CHAIN, RHAT_LIMIT, diagnose};
pub use error::InferenceError;
pub use estimator::{Algorithm, ChainState, Observation, Posterior, fit, fit_watching, fit_watching_from};
pub use method::Method;
pub use non_private::NonPrivate;
pub use pooled::{Pooled, chain_streams, fit_chains, fit_chains_from, pool};
pub use private::LocallyPrivate;
pub use private_step::{
    COLLAPSED_MAX_RATE, COLLAPSED_TAIL, NoiseAux, collapsed_count, lambda_posterior_rate, resample_entry,
};

use distributions::Streams;
use models::PoissonFactorization;

/// A Gibbs sampler over a Poisson factorization model and the complete counts it imputes.
pub trait Sampler {
    /// The model being fitted.
    type Model: PoissonFactorization;

    /// One full sweep; all randomness from `streams`.
    fn step(&mut self, streams: Streams) -> Result<(), InferenceError>;

    /// The model in its current state.
    fn model(&self) -> &Self::Model;

    /// The model, to change its temperature (replica exchange, [`tempering`]).
    fn model_mut(&mut self) -> &mut Self::Model;

    /// The current complete counts `Y` (observed, imputed or resampled).
    fn counts(&self) -> &[u32];

    /// Holds the model's learned dispersion shape at `r`, or releases it (`None`): the warm-up of
    /// a burn-in ([`Schedule::with_dispersion_warm_up`]; `PoissonFactorization::hold_dispersion`).
    fn hold_dispersion(&mut self, r: Option<f64>) {
        self.model_mut().hold_dispersion(r);
    }

    /// `ln p(Z, Y) = ln p(Z) + Σ_n ln Pois(y_n; μ_n)` for the current state, given its rates.
    /// For the private sampler `Y` is the current draw of the true counts; the noise auxiliaries
    /// are not included (they are nuisance variables that do not change which `Z` fits best).
    fn ln_joint(&self, rates: &[f64]) -> f64 {
        self.model().ln_prior() + models::ln_likelihood(self.model(), self.counts(), rates)
    }
}
