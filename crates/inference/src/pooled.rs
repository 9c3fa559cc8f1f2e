//! Several chains (Gibbs) or starts (CAVI) of one fit, run in parallel and pooled into one
//! posterior summary with its convergence diagnostics.
//!
//! The pooled posterior mean of a rate is the mean over every chain's kept samples,
//! `μ̂_n = (1/M) Σ_m μ̂_n^(m)` (each chain keeps the same number of samples, so this is eq. 17 over
//! all of them). Rates are identifiable, so chains need no relabelling; factors are not averaged
//! across chains (their labels may be permuted) and come from one chain, the one whose best kept
//! sample has the highest `ln p(Z, Y)`. CAVI starts are not pooled: the start with the highest
//! final ELBO is the fit, and the others show how much the result depends on the start.

use crate::InferenceError;
use crate::Monitor;
use crate::diagnostics::{Diagnostics, diagnose};
use crate::estimator::{Algorithm, ChainState, Observation, Posterior, fit_watching_from};
use distributions::Streams;
use models::ModelFamily;
use rayon::prelude::*;

/// The stream node under a fit's streams from which chains `1, 2, …` branch. A fit uses
/// `child(0)` (start), `child(1)` (CAVI), `child(t)` for sweeps `t ≥ 1` and `child(u64::MAX)`
/// (noise auxiliaries); no schedule reaches `u64::MAX − 1` sweeps.
const OTHER_CHAINS: u64 = u64::MAX - 1;

/// The streams of chain `chain` of a fit on `streams`: chain 0 runs on `streams` itself (so a
/// fit of one chain is the single-chain fit, bit for bit), chain `c ≥ 1` on
/// `streams.child(u64::MAX − 1).child(c)`.
pub fn chain_streams(streams: Streams, chain: usize) -> Streams {
    if chain == 0 { streams } else { streams.child(OTHER_CHAINS).child(chain as u64) }
}

/// Several chains of one fit, pooled.
#[derive(Clone, Debug, PartialEq)]
pub struct Pooled {
    /// Each chain's (CAVI: each start's) own posterior, in chain order.
    pub chains: Vec<Posterior>,
    /// Gibbs: the mean over all chains' kept samples; CAVI: the best start's `E[μ]`.
    pub mean_rates: Vec<f64>,
    /// Gibbs: the sd of every rate over all chains' kept samples,
    /// `√((1/M) Σ_m (s_m² + μ̂_m²) − μ̂²)`; CAVI: `None`.
    pub sd_rates: Option<Vec<f64>>,
    /// Gibbs with cell multipliers: the mean over all chains' kept samples of each cell's rate in
    /// this table, `E[μ_n δ_n]` ([`Posterior::mean_cell_rates`]); `None` otherwise.
    pub mean_cell_rates: Option<Vec<f64>>,
    /// The chain that stands for the fit's factors and topics: Gibbs, the one whose best kept
    /// sample has the highest `ln p(Z, Y)`; CAVI, the start with the highest final ELBO. Ties go to
    /// the lower index.
    pub best: usize,
    /// Gibbs: split-`R̂` and bulk/tail ESS over the chains of `"ln_joint"` (`ln p(Z, Y)` of the kept
    /// samples), `"ln_lik"` (the marginal log-likelihood of the scored cells, when every chain
    /// recorded pointwise likelihoods: [`Posterior::kept_ln_likelihood`]), `"total_rate"` (`Σ_n μ_n`, the
    /// mean counts) and, when a functional was watched, `"functional"`.
    /// CAVI: empty.
    pub diagnostics: Vec<(&'static str, Diagnostics)>,
    /// Gibbs with known true rates: the calibration ranks of the truth summed over the chains
    /// (each target's rank among all `kept` samples); empty otherwise.
    pub truth_ranks: Vec<u32>,
    /// Kept samples over all chains (Gibbs); 0 for CAVI.
    pub kept: usize,
}

/// Runs `chains` fits of `family` to `observation` in parallel (chain `c` on
/// [`chain_streams`]`(streams, c)`; Gibbs chains also record what `monitor` asks for) and pools
/// them ([`pool`]). The result does not depend on the number of threads: each chain is a
/// pure function of its streams and the pooling runs in chain order.
pub fn fit_chains<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    chains: usize,
    monitor: Monitor<'_>,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<Pooled, InferenceError> {
    fit_chains_from(family, observation, algorithm, streams, chains, monitor, on_iteration, Vec::new())
        .map(|(pooled, _)| pooled)
}

/// [`fit_chains`], continuing the chains `from` the states a shorter run left (one per chain, in
/// chain order; empty: fresh chains) and returning theirs ([`fit_watching_from`]; empty when a
/// chain has none to give, as under replica exchange). The pooled result is the one
/// [`fit_chains`] gives for the longer schedule.
#[allow(clippy::too_many_arguments)]
pub fn fit_chains_from<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    chains: usize,
    monitor: Monitor<'_>,
    on_iteration: &(dyn Fn() + Sync),
    from: Vec<ChainState>,
) -> Result<(Pooled, Vec<ChainState>), InferenceError> {
    if chains == 0 {
        return Err(InferenceError::Numerical("a fit needs at least one chain".into()));
    }
    let (posteriors, states): (Vec<_>, Vec<_>) = ChainState::slots(from, chains)?
        .into_par_iter()
        .enumerate()
        .map(|(c, state)| {
            let streams = chain_streams(streams, c);
            fit_watching_from(family, observation, algorithm, streams, monitor, on_iteration, state)
        })
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    Ok((pool(posteriors), ChainState::all(states)))
}

/// Pools the posteriors of several chains of one fit (Gibbs when they carry `sd_rates`, CAVI
/// otherwise). One chain is returned as it is: the same means and sds, bit for bit.
///
/// # Panics
/// On an empty `posteriors` (a programming error: [`fit_chains`] refuses zero chains).
pub fn pool(posteriors: Vec<Posterior>) -> Pooled {
    assert!(!posteriors.is_empty(), "pool needs at least one chain");
    let gibbs = posteriors[0].sd_rates.is_some();
    let score = |p: &Posterior| {
        if gibbs {
            p.trace.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        } else {
            p.trace.last().copied().unwrap_or(f64::NEG_INFINITY)
        }
    };
    let best = (1..posteriors.len()).fold(0, |b, c| if score(&posteriors[c]) > score(&posteriors[b]) { c } else { b });
    if !gibbs {
        let mean_rates = posteriors[best].mean_rates.clone();
        let (diagnostics, truth_ranks) = (Vec::new(), Vec::new());
        return Pooled {
            chains: posteriors,
            mean_rates,
            sd_rates: None,
            mean_cell_rates: None,
            best,
            diagnostics,
            truth_ranks,
            kept: 0,
        };
    }
    let trace =
        |f: fn(&Posterior) -> &[f64]| -> Diagnostics { diagnose(&posteriors.iter().map(f).collect::<Vec<_>>()) };
    let mut diagnostics = vec![("ln_joint", trace(|p| p.trace.as_slice()))];
    if posteriors.iter().all(|p| !p.kept_ln_likelihood.is_empty()) {
        diagnostics.push(("ln_lik", trace(|p| p.kept_ln_likelihood.as_slice())));
    }
    diagnostics.push(("total_rate", trace(|p| p.kept_total_rate.as_slice())));
    if !posteriors[0].kept_functional.is_empty() {
        diagnostics.push(("functional", trace(|p| p.kept_functional.as_slice())));
    }
    // A learned dispersion shape (a given one is constant and has nothing to diagnose).
    let varies = |xs: &[f64]| xs.iter().any(|&x| x != xs[0]);
    if posteriors.iter().all(|p| !p.kept_dispersion.is_empty()) && posteriors.iter().any(|p| varies(&p.kept_dispersion))
    {
        diagnostics.push(("dispersion", trace(|p| p.kept_dispersion.as_slice())));
    }
    // The contaminated likelihood's share of overdispersed cells (1 under the negative binomial).
    if posteriors.iter().all(|p| !p.kept_share.is_empty()) && posteriors.iter().any(|p| varies(&p.kept_share)) {
        diagnostics.push(("overdispersed_share", trace(|p| p.kept_share.as_slice())));
    }
    let (mean_rates, sd_rates) = if let [only] = posteriors.as_slice() {
        (only.mean_rates.clone(), only.sd_rates.clone())
    } else {
        let means: Vec<&[f64]> = posteriors.iter().map(|p| p.mean_rates.as_slice()).collect();
        let sds: Vec<&[f64]> = posteriors.iter().map(|p| p.sd_rates.as_deref().unwrap_or(&[])).collect();
        let (mean, sd) = crate::stacking::mixture_moments(&means, &sds, &vec![1.0; posteriors.len()]);
        (mean, Some(sd))
    };
    let mean_cell_rates = posteriors.iter().all(|p| !p.mean_cell_rates.is_empty()).then(|| {
        let means: Vec<&[f64]> = posteriors.iter().map(|p| p.mean_cell_rates.as_slice()).collect();
        crate::stacking::mixture_mean(&means, &vec![1.0; means.len()])
    });
    let mut truth_ranks = posteriors[0].truth_ranks.clone();
    for p in &posteriors[1..] {
        truth_ranks.iter_mut().zip(&p.truth_ranks).for_each(|(r, x)| *r += x);
    }
    let kept = posteriors.iter().map(|p| p.trace.len()).sum();
    Pooled { chains: posteriors, mean_rates, sd_rates, mean_cell_rates, best, diagnostics, truth_ranks, kept }
}
