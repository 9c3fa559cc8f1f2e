//! One estimator interface: a model family, the observed data in one of three views, and an
//! algorithm give one posterior summary. The six methods of the paper's experiments are
//! (Gibbs | CAVI) × (exact | naïve | private); code that fits a model calls [`fit`] and never
//! chooses a sampler type itself.

use crate::{
    Cavi, CaviSettings, CaviSummary, InferenceError, LocallyPrivate, Monitor, NonPrivate, Schedule, Start, Watch,
    run_chain_on,
};
use distributions::Streams;
use mechanism::Privatized;
use models::{MeanMatrix, ModelFamily};
use std::any::Any;
use std::ops::ControlFlow;
use std::time::Instant;

/// The data a fit sees.
#[derive(Clone, Copy, Debug)]
pub enum Observation<'a> {
    /// The true counts (the non-private reference; also the only view of exact data).
    Exact(&'a [u32]),
    /// The true counts with entries marked missing (`mask[n] = true`, e.g. held out): imputed
    /// each Gibbs sweep, left out of the CAVI updates.
    ExactMissing(&'a [u32], &'a [bool]),
    /// Privatized counts treated as exact after truncation at 0 (the naïve method).
    Naive(&'a Privatized),
    /// Privatized counts with their noise model (locally private inference).
    Private(&'a Privatized),
}

/// How the posterior is approximated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// Gibbs sampling for a schedule (iterations, burn-in, thinning).
    Gibbs(Schedule),
    /// Coordinate-ascent variational inference.
    Cavi(CaviSettings),
}

/// What a fit reports, whatever the algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct Posterior {
    /// Posterior mean rates `E[μ_n]` (row-major): over the kept Gibbs samples (eq. 17), or under
    /// the final variational `Q`.
    pub mean_rates: Vec<f64>,
    /// Gibbs: the posterior sd of each `μ_n` over the kept samples. CAVI: `None` (mean-field
    /// variances are known to understate the posterior spread, so none is reported).
    pub sd_rates: Option<Vec<f64>>,
    /// Gibbs with cell multipliers: each cell's posterior mean rate in this table, `E[μ_n δ_n]`
    /// ([`crate::ChainSummary::mean_cell_rates`]); empty for a Poisson model and for CAVI.
    pub mean_cell_rates: Vec<f64>,
    /// Gibbs: `Σ_n μ_n` of every kept sample (a label-free summary for R̂ and ESS); CAVI: empty.
    pub kept_total_rate: Vec<f64>,
    /// Gibbs: `Σ_n y_n` of every kept sample's complete counts over the modelled cells
    /// ([`crate::ChainSummary::kept_total_count`]); CAVI: empty.
    pub kept_total_count: Vec<f64>,
    /// Gibbs with an overdispersed likelihood: its dispersion shape `r` of every kept sample;
    /// empty otherwise.
    pub kept_dispersion: Vec<f64>,
    /// Gibbs with an overdispersed likelihood: the share `π` of overdispersed cells of every kept
    /// sample (1 under the negative binomial); empty otherwise.
    pub kept_share: Vec<f64>,
    /// Gibbs: the watched functional of every kept sample's rates ([`crate::fit_chains`]); empty
    /// without one and for CAVI.
    pub kept_functional: Vec<f64>,
    /// Gibbs: the replicated-data statistics of the kept samples ([`crate::Monitor::statistics`]);
    /// empty without them and for CAVI.
    pub kept_statistics: Vec<Vec<f64>>,
    /// Gibbs: the pointwise log-likelihoods of the kept samples ([`crate::Monitor::pointwise`]);
    /// empty without them and for CAVI.
    pub kept_pointwise: Vec<Vec<f64>>,
    /// Gibbs with pointwise likelihoods: each kept sample's marginal log-likelihood of the scored
    /// cells, `Σ_i ln p(x_i | μ^(s), r^(s))` (the sum of its [`Posterior::kept_pointwise`]), the
    /// monitored log density of the convergence diagnostics ([`crate::convergence`]); empty
    /// otherwise.
    pub kept_ln_likelihood: Vec<f64>,
    /// Gibbs with [`crate::Monitor::assignments`]: each row's component in every kept sample;
    /// empty otherwise.
    pub kept_assignments: Vec<Vec<u16>>,
    /// Gibbs with known true rates: the simulation-based-calibration ranks of the truth among the
    /// kept samples ([`crate::ChainSummary::truth_ranks`]); empty otherwise.
    pub truth_ranks: Vec<u32>,
    /// The rates at the observation's missing entries (held out), in row-major order: Gibbs, one
    /// vector per kept sample; CAVI, one vector of `E[μ_n]` under the final `Q` (a plug-in).
    /// Empty when nothing is missing.
    pub heldout_rates: Vec<Vec<f64>>,
    /// The factor matrices in the layout of `family.kind().factors()` (θ rows × components, then
    /// φ components × columns or π components × components): Gibbs, of the kept sample with the
    /// highest joint probability (factors are not averaged over samples, whose labels may switch);
    /// CAVI, the variational means.
    pub factors: Vec<MeanMatrix>,
    /// A topic model's estimated topics (`K × V`, topic-major, unaligned): Gibbs, the kept sample
    /// with the highest joint probability (as the paper does); CAVI, the posterior means.
    pub topics: Option<Vec<f64>>,
    /// Per-iteration trace: `ln p(Z, Y)` of every kept Gibbs sample, or the ELBO of every CAVI
    /// iteration.
    pub trace: Vec<f64>,
    /// Iterations run (Gibbs: the schedule's; CAVI: until convergence or the maximum).
    pub iterations: usize,
    /// CAVI: whether the relative ELBO change fell below the tolerance; `None` for Gibbs.
    pub converged: Option<bool>,
    /// Wall-clock seconds of the fit (Gibbs: the chain after its sampler was built; CAVI: all).
    pub seconds: f64,
    /// Replica exchange: each neighbouring pair of rungs' swap rate over the run, and the final
    /// ladder of inverse temperatures (empty for a plain chain or CAVI).
    pub swap_rates: Vec<f64>,
    pub ladder: Vec<f64>,
    /// The block model's Hamiltonian move (`models::hmc`): its step size and mean acceptance
    /// probability over the kept sweeps (after the burn-in's adaptation); `None` without it.
    pub hamiltonian: Option<(f64, f64)>,
}

/// Fits `family` to `observation` with `algorithm`; every random draw comes from `streams`:
/// `streams.child(0)` draws the Gibbs model's initial factors or the variational start, a private
/// sampler's noise auxiliaries come from `streams.child(u64::MAX)`, the chain's sweeps from
/// `streams` itself (sweep `t` from `child(t)`), CAVI from `streams.child(1)`, a CAVI start's
/// fit `m` ([`Start::Cavi`]) from `streams.child(START).child(m)`. `on_iteration` is
/// called after every iteration (progress reporting; must be cheap).
pub fn fit<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<Posterior, InferenceError> {
    fit_watching(family, observation, algorithm, streams, Monitor::default(), on_iteration)
}

/// [`fit`], a Gibbs chain also recording what `monitor` asks for (CAVI ignores it).
pub fn fit_watching<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    monitor: Monitor<'_>,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<Posterior, InferenceError> {
    fit_watching_from(family, observation, algorithm, streams, monitor, on_iteration, None)
        .map(|(posterior, _)| posterior)
}

/// A Gibbs chain's sampler where a run left it: what [`fit_watching_from`] continues, so that a
/// longer schedule ([`crate::Schedule::extended`]) makes only the sweeps the shorter run did not.
/// It holds the whole state of the chain (factors, imputed counts, allocations), as much memory
/// as the running chain.
pub struct ChainState {
    sampler: Box<dyn Any + Send>,
    sweeps: usize,
}

impl std::fmt::Debug for ChainState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainState").field("sweeps", &self.sweeps).finish_non_exhaustive()
    }
}

impl ChainState {
    /// Sweeps the chain has made.
    pub fn sweeps(&self) -> usize {
        self.sweeps
    }

    /// One slot per chain of a run of `chains` chains: the states a shorter run left (one per
    /// chain, in chain order) or, when there are none, fresh chains; any other number is an error.
    pub fn slots(from: Vec<ChainState>, chains: usize) -> Result<Vec<Option<ChainState>>, InferenceError> {
        match from.len() {
            0 => Ok((0..chains).map(|_| None).collect()),
            n if n == chains => Ok(from.into_iter().map(Some).collect()),
            found => Err(InferenceError::Length { what: "chain states", expected: chains, found }),
        }
    }

    /// The states a run gives back for the next one: every chain's, or none when a chain had none
    /// to give (replica exchange) or did not keep it.
    pub fn all(states: impl IntoIterator<Item = Option<ChainState>>) -> Vec<ChainState> {
        states.into_iter().collect::<Option<Vec<_>>>().unwrap_or_default()
    }
}

/// [`fit_watching`], continuing the chain `from` a run's [`ChainState`] when given (the same
/// family, observation and streams; its sweeps all before the schedule's kept ones), and
/// returning the chain's state for the next run. The continued chain is the one a fresh fit of
/// the longer schedule makes, draw for draw. `None` is returned (and a given state refused) for
/// CAVI and for replica exchange, whose ladder adapts during its own burn-in: those run afresh.
///
/// The chain runs on a thread of rayon's pool (`rayon::scope`: in place on one, else moved there),
/// also when its caller's thread is outside the pool (one chain, nothing to split): there, each
/// parallel loop of its sweeps would be handed to the pool and waited for, two wake-ups per loop,
/// which is most of a small table's time. The draws do not depend on the thread.
pub fn fit_watching_from<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    monitor: Monitor<'_>,
    on_iteration: &(dyn Fn() + Sync),
    from: Option<ChainState>,
) -> Result<(Posterior, Option<ChainState>), InferenceError> {
    rayon::scope(|_| chain_from(family, observation, algorithm, streams, monitor, on_iteration, from))
}

/// [`fit_watching_from`] on the current thread.
fn chain_from<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    algorithm: &Algorithm,
    streams: Streams,
    monitor: Monitor<'_>,
    on_iteration: &(dyn Fn() + Sync),
    from: Option<ChainState>,
) -> Result<(Posterior, Option<ChainState>), InferenceError> {
    match algorithm {
        Algorithm::Gibbs(schedule) => {
            let missing = missing_entries(observation);
            let watch = Watch { entries: &missing, monitor };
            if from.is_some() && monitor.replicas > 1 {
                return Err(InferenceError::Unsupported("a chain of replica exchange cannot be continued".into()));
            }
            let done = from.as_ref().map_or(0, |s| s.sweeps);
            // The chain's model, built (and started) only for a fresh chain.
            let model = || -> Result<F::Gibbs, InferenceError> {
                let mut model = family.gibbs(streams.child(0));
                if let Start::Cavi { fits, iterations } = schedule.start()
                    && family.kind().has_cavi()
                {
                    variational_start(family, observation, fits, iterations, streams.child(START), &mut model)?;
                }
                Ok(model)
            };
            let run = Run { schedule, done, watch, streams, on_iteration };
            match observation {
                Observation::Exact(counts) => {
                    let sampler = resumed(from, || NonPrivate::new(model()?, counts.to_vec()))?;
                    gibbs(family, sampler, run)
                }
                Observation::ExactMissing(counts, mask) => {
                    let sampler = resumed(from, || NonPrivate::new(model()?, counts.to_vec())?.with_missing(mask))?;
                    gibbs(family, sampler, run)
                }
                Observation::Naive(released) => {
                    let sampler = resumed(from, || NonPrivate::naive(model()?, released))?;
                    gibbs(family, sampler, run)
                }
                Observation::Private(released) => {
                    let step = schedule.private_step();
                    let sampler = resumed(from, || {
                        LocallyPrivate::with_private_step(model()?, released, streams.child(u64::MAX), step)
                    })?;
                    gibbs(family, sampler, run)
                }
            }
        }
        Algorithm::Cavi(_) if !family.kind().has_cavi() => Err(InferenceError::Unsupported(format!(
            "the {} model has no CAVI; use a Gibbs method (private, naive, non-private)",
            family.kind().name()
        ))),
        Algorithm::Cavi(_) if from.is_some() => {
            Err(InferenceError::Unsupported("a CAVI fit cannot be continued as a chain".into()))
        }
        Algorithm::Cavi(settings) => {
            let start = Instant::now();
            let summary = cavi(family, observation, *settings, streams.child(0), streams.child(1), on_iteration)?;
            let posterior = Posterior {
                topics: family.variational_topics(&summary.mean_factors),
                factors: summary.mean_factors,
                heldout_rates: match missing_entries(observation) {
                    watch if watch.is_empty() => Vec::new(),
                    watch => vec![watch.iter().map(|&n| summary.mean_rates[n]).collect()],
                },
                mean_rates: summary.mean_rates,
                sd_rates: None,
                mean_cell_rates: Vec::new(),
                kept_total_rate: Vec::new(),
                kept_total_count: Vec::new(),
                kept_dispersion: Vec::new(),
                kept_share: Vec::new(),
                kept_functional: Vec::new(),
                kept_statistics: Vec::new(),
                kept_pointwise: Vec::new(),
                kept_ln_likelihood: Vec::new(),
                kept_assignments: Vec::new(),
                truth_ranks: Vec::new(),
                trace: summary.elbo,
                iterations: summary.iterations,
                converged: Some(summary.converged),
                seconds: start.elapsed().as_secs_f64(),
                swap_rates: Vec::new(),
                ladder: Vec::new(),
                hamiltonian: None,
            };
            Ok((posterior, None))
        }
    }
}

/// The sampler of `from` when given (it must be of type `S`: the same family and observation),
/// else a fresh one from `build`.
fn resumed<S: 'static>(
    from: Option<ChainState>,
    build: impl FnOnce() -> Result<S, InferenceError>,
) -> Result<S, InferenceError> {
    match from {
        None => build(),
        Some(state) => state.sampler.downcast::<S>().map(|s| *s).map_err(|_| {
            InferenceError::Unsupported("a chain can be continued only with the method and model it ran".into())
        }),
    }
}

/// The stream of a CAVI start's fits ([`Start::Cavi`]), apart from the chain's other streams.
const START: u64 = u64::MAX - 4;

/// One CAVI fit of `family` to `observation`: the variational start from `start`, the updates'
/// draws from `updates`.
fn cavi<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    settings: CaviSettings,
    start: Streams,
    updates: Streams,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<CaviSummary, InferenceError> {
    let q = family.variational(start);
    let cavi = match observation {
        Observation::Exact(counts) => Cavi::non_private(q, counts, None, settings, updates)?,
        Observation::ExactMissing(counts, mask) => Cavi::non_private(q, counts, Some(mask), settings, updates)?,
        Observation::Naive(released) => Cavi::naive(q, released, settings, updates)?,
        Observation::Private(released) => Cavi::private(q, released, settings, updates)?,
    };
    cavi.fit(|_| {
        on_iteration();
        ControlFlow::Continue(())
    })
}

/// Sets `model`'s factors to the variational means of the best (highest final ELBO; the first
/// of equals) of `fits` CAVI fits of `observation`, fit `m` from `streams.child(m)`
/// ([`Start::Cavi`]).
fn variational_start<F: ModelFamily>(
    family: &F,
    observation: Observation<'_>,
    fits: usize,
    iterations: usize,
    streams: Streams,
    model: &mut F::Gibbs,
) -> Result<(), InferenceError> {
    let defaults = CaviSettings::DEFAULT;
    let settings =
        CaviSettings::new(iterations, defaults.tolerance(), defaults.m_estimate(), defaults.bessel_argument())
            .map_err(|e| InferenceError::Unsupported(format!("the CAVI start: {e}")))?;
    let mut best: Option<(f64, CaviSummary)> = None;
    for m in 0..fits {
        let fit_streams = streams.child(m as u64);
        let summary = cavi(family, observation, settings, fit_streams.child(0), fit_streams.child(1), &|| {})?;
        let elbo = summary.elbo.last().copied().unwrap_or(f64::NEG_INFINITY);
        if best.as_ref().is_none_or(|(b, _)| elbo > *b) {
            best = Some((elbo, summary));
        }
    }
    if let Some((_, summary)) = best {
        let values: Vec<Vec<f64>> = summary.mean_factors.into_iter().map(|m| m.values).collect();
        family
            .set_base_factors(model, &values)
            .map_err(|e| InferenceError::Numerical(format!("the CAVI start's variational means: {e}")))?;
    }
    Ok(())
}

/// The row-major indices of the entries the observation leaves out (released data only).
fn missing_entries(observation: Observation<'_>) -> Vec<usize> {
    match observation {
        Observation::Exact(_) => Vec::new(),
        Observation::ExactMissing(_, mask) => (0..mask.len()).filter(|&n| mask[n]).collect(),
        Observation::Naive(released) | Observation::Private(released) => {
            (0..released.missing().len()).filter(|&n| released.missing()[n]).collect()
        }
    }
}

/// What a chain runs: its schedule from sweep `done` on, what it watches, its streams.
struct Run<'a, 'w> {
    schedule: &'a Schedule,
    done: usize,
    watch: Watch<'w>,
    streams: Streams,
    on_iteration: &'a (dyn Fn() + Sync),
}

/// Runs a built sampler's chain (as replica exchange when the monitor asks for replicas) and
/// summarizes it; a plain chain's sampler is returned as its [`ChainState`].
fn gibbs<F: ModelFamily, S: crate::Sampler<Model = F::Gibbs> + Clone + Send + 'static>(
    family: &F,
    mut sampler: S,
    run: Run<'_, '_>,
) -> Result<(Posterior, Option<ChainState>), InferenceError> {
    if run.watch.monitor.replicas <= 1 {
        let posterior = summarize(family, &mut sampler, &run)?;
        let state = ChainState { sampler: Box::new(sampler), sweeps: run.schedule.iterations() };
        return Ok((posterior, Some(state)));
    }
    let mut replicas = crate::tempering::Replicas::new(sampler, run.watch.monitor.replicas, run.schedule.burn_in())?;
    let mut posterior = summarize(family, &mut replicas, &run)?;
    posterior.swap_rates = replicas.swap_rates();
    posterior.ladder = replicas.ladder().to_vec();
    Ok((posterior, None))
}

/// Runs a sampler's chain and summarizes it.
fn summarize<F: ModelFamily, S: crate::Sampler<Model = F::Gibbs>>(
    family: &F,
    sampler: &mut S,
    run: &Run<'_, '_>,
) -> Result<Posterior, InferenceError> {
    let start = Instant::now();
    let schedule = run.schedule;
    let summary = run_chain_on(sampler, schedule, run.done, run.streams, run.watch, |_| {
        (run.on_iteration)();
        ControlFlow::Continue(())
    })?;
    let factors = summary.best.as_ref().map_or_else(Vec::new, |(_, _, best)| {
        family
            .kind()
            .factors()
            .iter()
            .zip(family.base_factors(best))
            .map(|(layout, values)| MeanMatrix {
                name: layout.name,
                rows: family.axis(layout.rows),
                cols: family.axis(layout.cols),
                values,
            })
            .collect()
    });
    Ok(Posterior {
        topics: summary.best.as_ref().and_then(|(_, _, best)| family.gibbs_topics(best)),
        factors,
        mean_rates: summary.mean_rates,
        sd_rates: Some(summary.sd_rates),
        mean_cell_rates: summary.mean_cell_rates,
        kept_total_rate: summary.kept_total_rate,
        kept_total_count: summary.kept_total_count,
        kept_dispersion: summary.kept_dispersion,
        kept_share: summary.kept_share,
        kept_functional: summary.kept_functional,
        kept_statistics: summary.kept_statistics,
        kept_ln_likelihood: summary.kept_pointwise.iter().map(|cells| cells.iter().sum()).collect(),
        kept_pointwise: summary.kept_pointwise,
        kept_assignments: summary.kept_assignments,
        truth_ranks: summary.truth_ranks,
        heldout_rates: summary.kept_watched_rates,
        trace: summary.kept_ln_joint.iter().map(|&(_, l)| l).collect(),
        iterations: schedule.iterations(),
        converged: None,
        seconds: start.elapsed().as_secs_f64(),
        swap_rates: Vec::new(),
        ladder: Vec::new(),
        hamiltonian: models::PoissonFactorization::move_summary(sampler.model()),
    })
}
