//! Several chains of one fit, in parallel, pooled into one result with its diagnostics.

use crate::checks::{
    CountLaw, MAX_CHECK_SAMPLES_PER_CHAIN, PredictiveCheck, predictive_checks, quantile, release_statistics,
    sample_statistics,
};
use crate::data::{FitData, Input};
use crate::error::FitError;
use crate::partition::MAX_PARTITION_ROWS;
pub use crate::settings::{FitSettings, Weighting};
use distributions::{CellDispersion, Streams};
use inference::{Algorithm, Diagnostics, Method, Monitor, Observation, Posterior, fit_watching_from};
use models::{FamilyShape, FamilyVisitor, MeanMatrix, ModelFamily, with_family};
use rayon::prelude::*;
use std::borrow::Cow;
use std::time::Instant;

/// At most this many posterior samples (evenly spaced over the pooled kept samples) enter the
/// held-out predictive: its Monte Carlo error is then far below the differences between `K`s
/// that it is used to compare, and scoring costs seconds on 10⁵ held-out cells.
pub const MAX_PREDICTIVE_SAMPLES: usize = 200;
/// More chains than this are refused (each holds a copy of the model and its data).
const MAX_CHAINS: usize = 64;
/// More components than this are refused.
const MAX_COMPONENTS: usize = 1000;

/// The chains of one mode ([`inference::convergence::modes`]) and what they say.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeSummary {
    pub chains: Vec<usize>,
    /// The sum of its chains' pooling weights.
    pub weight: f64,
    /// The mean over its chains of the log density the modes were grouped by
    /// ([`inference::convergence::Assessment::primary`]: the marginal log-likelihood of the scored
    /// cells, or the log joint).
    pub mean_log_density: f64,
    pub mean_total_rate: f64,
    /// The held-out log predictive of its chains' samples pooled (equal weights within the
    /// mode), when cells were held out.
    pub heldout_log_predictive: Option<f64>,
    /// The PSIS-LOO log predictive of its chains (equal weights within the mode), when the
    /// chains were scored by it.
    pub loo_log_predictive: Option<f64>,
}

/// One chain's trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainTrace {
    /// The iteration of each value: the kept sweeps (Gibbs) or every CAVI iteration.
    pub iterations: Vec<usize>,
    /// `ln p(Z, Y)` of each kept sample (Gibbs) or the ELBO (CAVI).
    pub values: Vec<f64>,
    /// Gibbs: the marginal log-likelihood of the scored cells (up to
    /// [`inference::loo::MAX_LOO_CELLS`] cells the fit saw; the negative binomial's multipliers
    /// and, for a release, the true counts integrated out) of each kept sample: what convergence
    /// is judged on. Empty for CAVI.
    pub ln_lik: Vec<f64>,
    /// Gibbs fits with a partition of the rows: each kept sample's adjusted Rand index with the
    /// fit's point estimate of the partition (a label-invariant summary of the structure). Empty
    /// otherwise.
    pub structure: Vec<f64>,
    /// `Σ_n μ_n` of each kept sample (Gibbs; empty for CAVI).
    pub total_rate: Vec<f64>,
    /// `Σ_n y_n` of each kept sample's complete counts (Gibbs; empty for CAVI).
    pub total_count: Vec<f64>,
    /// The dispersion shape `r` of each kept sample (empty for Poisson).
    pub dispersion: Vec<f64>,
    /// The contaminated likelihood's share `π` of overdispersed cells of each kept sample (empty
    /// for the other likelihoods).
    pub share: Vec<f64>,
    /// CAVI: whether it converged; `None` for Gibbs.
    pub converged: Option<bool>,
    /// Replica exchange: the swap rate of each neighbouring pair of rungs, and the final ladder
    /// of inverse temperatures (empty for plain chains).
    pub swap_rates: Vec<f64>,
    pub ladder: Vec<f64>,
    /// The block model's Hamiltonian move: its step size and mean acceptance over the kept sweeps.
    pub hamiltonian: Option<(f64, f64)>,
    pub seconds: f64,
}

/// The held-out predictive score.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOutScore {
    pub cells: usize,
    /// `Σ_n ln p(ỹ_n | data)` over the held-out cells (higher is better).
    pub log_predictive: f64,
    /// Posterior samples averaged over (1 for CAVI's plug-in).
    pub samples: usize,
    /// Each chain's own score from its own samples (CAVI: each start's plug-in): their spread is
    /// the Monte Carlo error a comparison of scores must beat.
    pub per_chain: Vec<f64>,
    /// Each chain's score of each held-out cell (`per_chain[k]` is the sum of `per_chain_cells[k]`).
    pub per_chain_cells: Vec<Vec<f64>>,
    /// The pooled score of each held-out cell (in `FitData::heldout` order): `log_predictive`
    /// is their sum. Two fits on the same cells are compared cell by cell (paired).
    pub per_cell: Vec<f64>,
}

/// Each chain's PSIS-LOO predictive of a subsample of the cells the fit saw (`inference::loo`).
#[derive(Clone, Debug, PartialEq)]
pub struct LooScore {
    pub cells: usize,
    /// The cells (row-major indices), in the order of `per_chain_cells`' entries.
    pub at: Vec<usize>,
    /// Each chain's `Σ_i ln p̂(x_i | x_{−i})` over the cells.
    pub per_chain: Vec<f64>,
    /// Each chain's estimate of each cell.
    pub per_chain_cells: Vec<Vec<f64>>,
    /// The share of (chain, cell) estimates whose Pareto `k̂` exceeds 0.7 (unreliable).
    pub unreliable_share: f64,
    /// The mixture of chains with the fit's weights: `Σ_i ln Σ_k w_k p̂_k(x_i | x_{−i})`.
    pub log_predictive: f64,
}

/// The pooled result of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitResult {
    /// Posterior mean of every rate (row-major; 0 where the model excludes a cell). Gibbs: the
    /// mean over all chains' kept samples; CAVI: `E[μ]` of the start with the highest ELBO.
    pub mean_rates: Vec<f64>,
    /// Gibbs: the posterior sd of every rate over all chains' kept samples; CAVI: `None`.
    pub sd_rates: Option<Vec<f64>>,
    /// Gibbs with an overdispersed likelihood: each cell's posterior mean rate in this table,
    /// `E[μ_n δ_n]` with the cell's own multiplier (its count's expectation given the data, where
    /// [`Self::mean_rates`] is a new table's), pooled with the same weights; `None` otherwise.
    pub cell_rates: Option<Vec<f64>>,
    /// The factors of the chain whose best kept sample has the highest `ln p(Z, Y)` (that sample's
    /// factors), or of the CAVI start with the highest final ELBO (its means). Chains are not
    /// averaged: their labels may be permuted.
    pub factors: Vec<MeanMatrix>,
    /// The chain (or start) the factors come from.
    pub factors_chain: usize,
    pub traces: Vec<ChainTrace>,
    /// Gibbs: split-R̂ and ESS of `ln p(Z, Y)` and of the total rate `Σ μ`; empty for CAVI.
    pub diagnostics: Vec<(&'static str, Diagnostics)>,
    pub heldout: Option<HeldOutScore>,
    /// Gibbs chains stacked (or to be stacked by [`Weighting::Auto`]) without held-out cells.
    pub loo: Option<LooScore>,
    /// The "no structure" verdict, when the fit held cells out and was compared with the
    /// independence model on them ([`crate::independence_verdict`]).
    pub verdict: Option<crate::Verdict>,
    /// Gibbs with `--until-mixed`: the sweeps per chain of each run, the last the one reported
    /// (empty when the fit ran once, as scheduled).
    pub lengths: Vec<usize>,
    /// The test of structure beyond activity × popularity on the release alone
    /// ([`crate::structure_test`]); `None` for a topic model with one component.
    pub structure_test: Option<crate::structure_test::StructureTest>,
    /// Gibbs: the central 90 % interval of the total rate `Σ_n μ_n` over all chains' kept
    /// samples (the 5 % and 95 % quantiles); `None` for CAVI.
    pub total_rate_interval: Option<(f64, f64)>,
    /// Private Gibbs fits: the central 90 % interval of the table's own total `Σ_n y_n` (the true
    /// counts drawn given the release), weighted as the total rate's; `None` otherwise.
    pub total_count_interval: Option<(f64, f64)>,
    /// Released data: the table's true total from the release alone, with its interval
    /// ([`crate::release_total`]; computed once, read by the summary, warnings and fit.toml).
    pub release_total: Option<crate::ReleaseTotal>,
    /// Gibbs with an overdispersed likelihood: the 5 %, 50 % and 95 % quantiles of its
    /// dispersion shape `r` over all chains' kept samples.
    pub dispersion_quantiles: Option<[f64; 3]>,
    /// Gibbs with the contaminated likelihood: the same quantiles of the share `π` of
    /// overdispersed cells.
    pub share_quantiles: Option<[f64; 3]>,
    /// Gibbs fits of a network: each actor's community (the one with its largest expected count,
    /// `row_loadings`) in every kept sample of every chain, for co-clustering probabilities
    /// ([`crate::co_clustering`]); empty otherwise.
    pub assignments: Vec<Vec<u16>>,
    /// Posterior predictive checks on the release ([`crate::checks`]): Gibbs fits of released
    /// data; empty otherwise.
    pub checks: Vec<PredictiveCheck>,
    /// How the chains were pooled, and each chain's weight in the means, sds and the total's
    /// interval (CAVI: the best start has weight 1).
    pub weighting: Weighting,
    pub weights: Vec<f64>,
    /// Gibbs with more than one chain: what the chains say about convergence (mixing within
    /// chains, modes between them); `None` otherwise.
    pub assessment: Option<inference::convergence::Assessment>,
    /// Gibbs: the chains grouped into modes, the mode with the highest mean log joint first.
    pub modes: Vec<ModeSummary>,
    /// Gibbs with several chains and at most [`crate::partition::MAX_CHAIN_COMPARISON_ROWS`]
    /// rows: the chains grouped by how they cluster the rows (label-invariant), the second view
    /// of the modes besides their log joints.
    pub co_clustering_modes: Option<Vec<Vec<usize>>>,
    /// Gibbs with assignments: the label-invariant point estimate of the rows' partition
    /// ([`crate::partition`]).
    pub partition: Option<crate::partition::Partition>,
    pub seconds: f64,
}

/// Checks the settings (the method against the data: when the observation is built).
fn check(settings: &FitSettings) -> Result<(), FitError> {
    if settings.components == 0 || settings.components > MAX_COMPONENTS {
        return Err(FitError::setting(
            "components",
            settings.components,
            format!("an integer from 1 to {MAX_COMPONENTS}"),
        ));
    }
    if settings.chains == 0 || settings.chains > MAX_CHAINS {
        return Err(FitError::setting("chains", settings.chains, format!("an integer from 1 to {MAX_CHAINS}")));
    }
    let gibbs = matches!(settings.algorithm, Algorithm::Gibbs(_));
    if settings.likelihood != models::Likelihood::Poisson && !gibbs {
        return Err(FitError::setting(
            "likelihood",
            settings.likelihood.name(),
            "with the Gibbs methods only (a learned dispersion shape r has no closed-form CAVI update)",
        ));
    }
    if settings.replicas == 0 || settings.replicas > inference::tempering::MAX_REPLICAS {
        let allowed = format!("an integer from 1 to {}", inference::tempering::MAX_REPLICAS);
        return Err(FitError::setting("replicas", settings.replicas, allowed));
    }
    if settings.replicas > 1 && !gibbs {
        return Err(FitError::setting("replicas", settings.replicas, "1, or more with a Gibbs method"));
    }
    if settings.weighting == Weighting::Stacking && !gibbs {
        return Err(FitError::setting(
            "weights",
            "stacking",
            "with the Gibbs methods only (CAVI keeps its best start)",
        ));
    }
    if gibbs == settings.method.is_cavi() {
        let allowed = if gibbs { "a Gibbs method with a Gibbs schedule" } else { "a CAVI method with CAVI settings" };
        return Err(FitError::setting("method", settings.method.name(), allowed));
    }
    Ok(())
}

/// Runs the fit's chains in parallel and pools them. `on_iteration` is called after every
/// iteration of every chain (progress; must be cheap). When the chains' memory all together
/// would exceed what the machine has available, they run in groups small enough to fit
/// ([`crate::ChainMemory::at_once`]), with the same results.
pub fn fit_chains(
    settings: &FitSettings,
    data: &FitData,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<FitResult, FitError> {
    fit_chains_from(settings, data, Vec::new(), false, on_iteration).map(|(result, _)| result)
}

/// [`fit_chains`], continuing the chains `from` the states a shorter run of the same fit left
/// (empty: fresh chains; `lppf fit --until-mixed` runs on with [`inference::Schedule::extended`]),
/// with the same result as fresh chains of the longer schedule. With `keep`, the chains' states are
/// returned for the next run, when all the chains fit in memory together and run as plain
/// chains; otherwise none are (they are dropped as each chain ends), and the next run starts
/// afresh.
pub fn fit_chains_from(
    settings: &FitSettings,
    data: &FitData,
    from: Vec<inference::ChainState>,
    keep: bool,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<(FitResult, Vec<inference::ChainState>), FitError> {
    let memory = crate::resources::chain_memory(settings, data.shape(), data.heldout.len());
    let at_once = memory.at_once(settings.chains, crate::Machine::this());
    let keep = keep && at_once >= settings.chains && settings.replicas <= 1;
    fit_chains_in_groups(settings, data, at_once, Resume { from, keep }, on_iteration)
}

/// The chains' states a fit continues from (empty: fresh chains), and whether to return theirs.
struct Resume {
    from: Vec<inference::ChainState>,
    keep: bool,
}

/// [`fit_chains`] starting `at_once` chains together.
fn fit_chains_in_groups(
    settings: &FitSettings,
    data: &FitData,
    at_once: usize,
    resume: Resume,
    on_iteration: &(dyn Fn() + Sync),
) -> Result<(FitResult, Vec<inference::ChainState>), FitError> {
    check(settings)?;
    let start = Instant::now();
    let (rows, cols, times) = data.modes();
    let observation = match &data.input {
        Input::Counts { counts, missing } if !missing.is_empty() => {
            settings.method.observation(Some(counts), None).map(|_| Observation::ExactMissing(counts, missing))
        }
        Input::Counts { counts, .. } => settings.method.observation(Some(counts), None),
        Input::Released { privatized, .. } => settings.method.observation(None, Some(privatized)),
    };
    let observation = observation.ok_or_else(|| {
        let allowed = "naive and private methods read released values, non-private and cavi raw counts";
        FitError::setting("method", settings.method.name(), allowed)
    })?;
    let shape = FamilyShape {
        rows,
        cols,
        times,
        components: settings.components,
        prior: settings.prior,
        scale: settings.scale,
        likelihood: settings.likelihood,
        hmc: settings.hamiltonian_move.then(models::hmc::HmcSettings::default),
    };
    let check = CheckSetup::new(settings, data);
    let gibbs = matches!(settings.algorithm, Algorithm::Gibbs(_));
    let may_stack = gibbs && settings.chains > 1 && settings.weighting != Weighting::Equal;
    // Every Gibbs fit records the marginal log-likelihood of up to MAX_LOO_CELLS cells it saw in
    // every kept sample: its trace is what convergence is judged on, and PSIS-LOO reads it.
    let loo_cells = match gibbs {
        true => Some(loo_cells(data, settings.method)?),
        false => None,
    };
    let (chains, states) = with_family(
        settings.model,
        shape,
        Chains {
            settings,
            rows,
            observation,
            on_iteration,
            check: check.as_ref(),
            loo_cells: loo_cells.as_ref(),
            at_once,
            resume,
        },
    )?;
    let replicated: Vec<Vec<f64>> = chains.iter().flat_map(|p| p.kept_statistics.iter().cloned()).collect();
    let loo = loo_cells.map(|cells| {
        let pointwise: Vec<&Vec<Vec<f64>>> = chains.iter().map(|p| &p.kept_pointwise).collect();
        let loo = inference::stacking::loo_by_chain(&pointwise);
        let per_chain_cells = loo.elpd;
        LooScore {
            cells: cells.cells().len(),
            at: cells.cells().to_vec(),
            per_chain: per_chain_cells.iter().map(|c| c.iter().sum()).collect(),
            log_predictive: inference::stacking::mixture_log_density(
                &per_chain_cells,
                &vec![1.0 / per_chain_cells.len().max(1) as f64; per_chain_cells.len()],
            ),
            per_chain_cells,
            unreliable_share: loo.unreliable_share,
        }
    });
    let (mut result, samples, moments) = pool(settings, chains, rows);
    result.release_total = crate::release_total(data);
    result.loo = loo.filter(|l| l.cells > 0);
    if let Some(check) = check.filter(|_| !replicated.is_empty()) {
        result.checks = predictive_checks(&check.observed, &replicated);
    }
    let pooled_from = match settings.algorithm {
        Algorithm::Gibbs(_) => None,
        Algorithm::Cavi(_) => Some(result.factors_chain),
    };
    result.heldout = score_heldout(data, &samples, pooled_from)?;
    let in_modes = result.assessment.as_ref().is_some_and(|a| a.modes.len() > 1);
    if may_stack && (settings.weighting == Weighting::Stacking || in_modes) {
        stack(&mut result, &moments);
    }
    let interval = |totals: Vec<&[f64]>| {
        totals.iter().any(|t| !t.is_empty()).then(|| match result.weighting {
            Weighting::Equal => {
                let mut all: Vec<f64> = totals.concat();
                all.sort_by(f64::total_cmp);
                (quantile(&all, 0.05), quantile(&all, 0.95))
            }
            Weighting::Stacking | Weighting::Auto => {
                let q = |p| inference::stacking::weighted_quantile(&totals, &result.weights, p);
                (q(0.05), q(0.95))
            }
        })
    };
    result.total_rate_interval = interval(result.traces.iter().map(|t| t.total_rate.as_slice()).collect());
    if settings.method == inference::Method::Private {
        result.total_count_interval = interval(result.traces.iter().map(|t| t.total_count.as_slice()).collect());
    }
    result.modes = mode_summaries(&result);
    if result.traces.len() > 1 && matches!(settings.algorithm, Algorithm::Gibbs(_)) {
        let kept: Vec<usize> = result.traces.iter().map(|t| t.values.len()).collect();
        result.co_clustering_modes = crate::partition::chains_by_co_clustering(&result.assignments, &kept, rows);
    }
    let quantiles = |draws: &dyn Fn(&ChainTrace) -> &[f64]| {
        let mut all: Vec<f64> = result.traces.iter().flat_map(|t| draws(t).iter().copied()).collect();
        all.sort_by(f64::total_cmp);
        (!all.is_empty()).then(|| [0.05, 0.5, 0.95].map(|q| quantile(&all, q)))
    };
    result.dispersion_quantiles = quantiles(&|t| &t.dispersion);
    result.share_quantiles = quantiles(&|t| &t.share);
    result.seconds = start.elapsed().as_secs_f64();
    Ok((result, states))
}

/// The stream of the replicated releases: `Streams::new(seed).child(CHECK_STREAM).child(chain)
/// .child(t)` for kept sweep `t` (chains use `Streams::new(seed).child(c)`, held-out cells a child
/// of their own).
const CHECK_STREAM: u64 = u64::MAX - 1;

/// What the predictive checks of a Gibbs fit need: the release and its levels borrowed from the
/// fit's data, or for raw counts the counts themselves with no noise (`α = 0`: a replicated
/// table is `y_rep ~ Pois(μ)` or `NB(r, μ)` alone).
struct CheckSetup<'a> {
    /// The cells the fit saw: modelled and not held out (row-major, sorted).
    cells: Vec<usize>,
    alphas: Cow<'a, [f64]>,
    cols: usize,
    released: Cow<'a, [i32]>,
    observed: Vec<f64>,
    /// Kept samples between two checked ones.
    stride: usize,
    burn_in: usize,
    thin: usize,
    seed: u64,
}

impl<'a> CheckSetup<'a> {
    fn new(settings: &FitSettings, data: &'a FitData) -> Option<Self> {
        let Algorithm::Gibbs(schedule) = &settings.algorithm else { return None };
        let (rows, cols) = data.shape();
        let (released, alphas): (Cow<'a, [i32]>, Cow<'a, [f64]>) = match &data.input {
            Input::Released { alphas, privatized, .. } => (Cow::Borrowed(privatized.values()), Cow::Borrowed(alphas)),
            Input::Counts { counts, .. } => {
                let counts = counts.iter().map(|&c| i32::try_from(c).unwrap_or(i32::MAX)).collect();
                (Cow::Owned(counts), Cow::Owned(vec![0.0; rows]))
            }
        };
        let cells: Vec<usize> =
            (0..rows * cols).filter(|&n| data.is_modelled(n) && data.heldout.binary_search(&n).is_err()).collect();
        if cells.is_empty() {
            return None;
        }
        Some(Self {
            observed: release_statistics(&released, cols, &cells),
            cells,
            alphas,
            cols,
            released,
            stride: schedule.kept().div_ceil(MAX_CHECK_SAMPLES_PER_CHAIN).max(1),
            burn_in: schedule.burn_in(),
            thin: schedule.thin(),
            seed: settings.seed,
        })
    }

    /// The statistics of a release replicated from kept sweep `t`'s rates (every `stride`-th
    /// kept sample; empty for the others).
    fn statistics(&self, chain: u64, law: CountLaw<'_>, t: usize) -> Vec<f64> {
        let kept_index = (t - self.burn_in) / self.thin - 1;
        if !kept_index.is_multiple_of(self.stride) {
            return Vec::new();
        }
        let streams = Streams::new(self.seed).child(CHECK_STREAM).child(chain).child(t as u64);
        sample_statistics(law, &self.released, &self.alphas, self.cols, &self.cells, streams).unwrap_or_default()
    }
}

struct Chains<'a> {
    settings: &'a FitSettings,
    rows: usize,
    observation: Observation<'a>,
    on_iteration: &'a (dyn Fn() + Sync),
    check: Option<&'a CheckSetup<'a>>,
    /// The cells each kept sample's log-likelihood is recorded of, for PSIS-LOO.
    loo_cells: Option<&'a eval::CellLikelihood>,
    /// Chains started together ([`crate::ChainMemory::at_once`]): groups of this many run one
    /// after the other.
    at_once: usize,
    resume: Resume,
}

impl FamilyVisitor for Chains<'_> {
    type Output = Result<(Vec<Posterior>, Vec<inference::ChainState>), FitError>;

    fn visit<F: ModelFamily>(self, family: &F) -> Self::Output {
        let root = Streams::new(self.settings.seed);
        let Resume { from, keep } = self.resume;
        let chain = |c: usize, from: Option<inference::ChainState>| {
            let statistics = |means: &[f64], dispersion: Option<CellDispersion>, t: usize| {
                let law = CountLaw { means, dispersion };
                self.check.map_or_else(Vec::new, |check| check.statistics(c as u64, law, t))
            };
            // Co-clustering of the rows (a network's actors, a topic model's documents), for the
            // label-invariant partition and the stability of the communities listed.
            let assignments = self.settings.model.square() || self.rows <= MAX_PARTITION_ROWS;
            let pointwise = |rates: &[f64], dispersion: Option<CellDispersion>| {
                self.loo_cells.map_or_else(Vec::new, |c| c.ln_likelihood(rates, dispersion))
            };
            let monitor = Monitor {
                statistics: self.check.map(|_| &statistics as _),
                pointwise: self.loo_cells.map(|_| &pointwise as _),
                assignments,
                replicas: self.settings.replicas,
                ..Monitor::default()
            };
            let algorithm = &self.settings.algorithm;
            let streams = root.child(c as u64);
            let (posterior, state) =
                fit_watching_from(family, self.observation, algorithm, streams, monitor, self.on_iteration, from)?;
            // A state not kept is dropped as its chain ends, before the next group starts.
            Ok::<_, FitError>((posterior, state.filter(|_| keep)))
        };
        let slots = inference::ChainState::slots(from, self.settings.chains)?;
        let (mut posteriors, mut states) = (Vec::with_capacity(slots.len()), Vec::with_capacity(slots.len()));
        let mut chains = slots.into_iter().enumerate().peekable();
        while chains.peek().is_some() {
            let group: Vec<_> = chains.by_ref().take(self.at_once.max(1)).collect();
            let done = group.into_par_iter().map(|(c, from)| chain(c, from)).collect::<Result<Vec<_>, _>>()?;
            for (posterior, state) in done {
                posteriors.push(posterior);
                states.push(state);
            }
        }
        Ok((posteriors, inference::ChainState::all(states)))
    }
}

/// Pools the chains ([`inference::pool`]: means and sds of the rates, the best chain, the
/// diagnostics) with their traces, and (second) each chain's held-out rate samples to score
/// (Gibbs: evenly spaced, at most [`MAX_PREDICTIVE_SAMPLES`] over all chains; CAVI: each start's
/// plug-in).
fn pool(
    settings: &FitSettings,
    posteriors: Vec<Posterior>,
    rows: usize,
) -> (FitResult, Vec<HeldOutSamples>, Vec<ChainMoments>) {
    let mut traces: Vec<ChainTrace> = posteriors
        .iter()
        .map(|p| ChainTrace {
            iterations: match settings.algorithm {
                Algorithm::Gibbs(schedule) => (1..=schedule.iterations()).filter(|&t| schedule.is_kept(t)).collect(),
                Algorithm::Cavi(_) => (1..=p.trace.len()).collect(),
            },
            values: p.trace.clone(),
            ln_lik: p.kept_ln_likelihood.clone(),
            structure: Vec::new(),
            total_rate: p.kept_total_rate.clone(),
            total_count: p.kept_total_count.clone(),
            dispersion: p.kept_dispersion.clone(),
            share: match settings.likelihood {
                models::Likelihood::Contaminated(_) => p.kept_share.clone(),
                _ => Vec::new(),
            },
            converged: p.converged,
            swap_rates: p.swap_rates.clone(),
            ladder: p.ladder.clone(),
            hamiltonian: p.hamiltonian,
            seconds: p.seconds,
        })
        .collect();
    let per_chain = MAX_PREDICTIVE_SAMPLES.div_ceil(posteriors.len()).max(1);
    let samples = posteriors
        .iter()
        .map(|p| {
            let step = p.heldout_rates.len().div_ceil(per_chain).max(1);
            HeldOutSamples {
                rates: p.heldout_rates.iter().step_by(step).cloned().collect(),
                shapes: (p.kept_dispersion.iter().zip(&p.kept_share))
                    .step_by(step)
                    .map(|(&shape, &share)| CellDispersion { shape, share })
                    .collect(),
            }
        })
        .collect();
    let assignments: Vec<Vec<u16>> = posteriors.iter().flat_map(|p| p.kept_assignments.iter().cloned()).collect();
    let gibbs = matches!(settings.algorithm, Algorithm::Gibbs(_));
    // The structure's label-invariant trace: each kept sample's agreement (adjusted Rand index)
    // with the point estimate of the partition over all chains.
    let partition = crate::partition::point_estimate(&assignments, rows);
    let kept: Vec<usize> = traces.iter().map(|t| t.values.len()).collect();
    let structure = partition
        .as_ref()
        .filter(|_| gibbs)
        .map(|p| crate::partition::agreement_traces(&assignments, &kept, &p.group))
        // Every sample in one partition (one component, say): nothing to diagnose.
        .filter(|s| s.iter().all(|t| !t.is_empty()) && s.concat().iter().any(|&x| x != s[0][0]));
    let mut pooled = inference::pool(posteriors);
    let assessment = match &structure {
        Some(structure) => {
            let diagnostics = inference::diagnose(&structure.iter().map(Vec::as_slice).collect::<Vec<_>>());
            pooled.diagnostics.push(("structure", diagnostics));
            traces.iter_mut().zip(structure).for_each(|(t, s)| t.structure = s.clone());
            inference::convergence::assess_pooled(&pooled, Some((structure, diagnostics)))
        }
        None => inference::convergence::assess_pooled(&pooled, None),
    };
    // Each chain's own means and sds, kept only to re-pool them by stacking: moved out of the
    // chains (which need them no more), not copied.
    let moments: Vec<ChainMoments> = match settings.weighting {
        Weighting::Stacking | Weighting::Auto => pooled
            .chains
            .iter_mut()
            .map(|p| {
                let cells = std::mem::take(&mut p.mean_cell_rates);
                (std::mem::take(&mut p.mean_rates), p.sd_rates.take().unwrap_or_default(), cells)
            })
            .collect(),
        Weighting::Equal => Vec::new(),
    };
    let weights = match gibbs {
        true => vec![1.0 / traces.len() as f64; traces.len()],
        false => (0..traces.len()).map(|c| if c == pooled.best { 1.0 } else { 0.0 }).collect(),
    };
    let factors_chain = pooled.best;
    let factors = pooled.chains.into_iter().nth(factors_chain).map(|p| p.factors).unwrap_or_default();
    let result = FitResult {
        mean_rates: pooled.mean_rates,
        sd_rates: pooled.sd_rates,
        cell_rates: pooled.mean_cell_rates,
        factors,
        factors_chain,
        traces,
        diagnostics: pooled.diagnostics,
        heldout: None,
        loo: None,
        verdict: None,
        lengths: Vec::new(),
        structure_test: None,
        total_rate_interval: None,
        total_count_interval: None,
        release_total: None,
        dispersion_quantiles: None,
        share_quantiles: None,
        assignments,
        checks: Vec::new(),
        weighting: Weighting::Equal,
        weights,
        assessment,
        modes: Vec::new(),
        co_clustering_modes: None,
        partition,
        seconds: 0.0,
    };
    (result, samples, moments)
}

/// One chain's posterior mean and sd of every rate, and its mean of every cell's rate in this
/// table (empty for a Poisson model).
type ChainMoments = (Vec<f64>, Vec<f64>, Vec<f64>);

/// One chain's samples of the held-out cells' mean counts, and the law of the cells' multipliers
/// in each (empty for the Poisson likelihood).
struct HeldOutSamples {
    rates: Vec<Vec<f64>>,
    shapes: Vec<CellDispersion>,
}

/// Re-pools the chains with stacking weights from their held-out scores, or without held-out
/// cells from their PSIS-LOO scores: the means and sds of the rates become those of the mixture,
/// and the score that of the mixture (`Σ_i ln Σ_k w_k p_k(x_i)`; the weights were chosen on the
/// same cells, an optimism of about `(K − 1)/2` nats for `K` chains).
fn stack(result: &mut FitResult, moments: &[ChainMoments]) {
    let densities = match (&result.heldout, &result.loo) {
        (Some(heldout), _) => &heldout.per_chain_cells,
        (None, Some(loo)) => &loo.per_chain_cells,
        (None, None) => return,
    };
    let weights = inference::stacking::stacking_weights(densities);
    let means: Vec<&[f64]> = moments.iter().map(|(m, _, _)| m.as_slice()).collect();
    let sds: Vec<&[f64]> = moments.iter().map(|(_, s, _)| s.as_slice()).collect();
    let (mean, sd) = inference::stacking::mixture_moments(&means, &sds, &weights);
    if result.cell_rates.is_some() {
        let cells: Vec<&[f64]> = moments.iter().map(|(_, _, c)| c.as_slice()).collect();
        result.cell_rates = Some(inference::stacking::mixture_mean(&cells, &weights));
    }
    result.mean_rates = mean;
    result.sd_rates = Some(sd);
    if let Some(heldout) = result.heldout.as_mut() {
        heldout.per_cell = inference::stacking::mixture_log_densities(&heldout.per_chain_cells, &weights);
        heldout.log_predictive = heldout.per_cell.iter().sum();
    } else if let Some(loo) = result.loo.as_mut() {
        loo.log_predictive = inference::stacking::mixture_log_density(&loo.per_chain_cells, &weights);
    }
    result.weights = weights;
    result.weighting = Weighting::Stacking;
}

/// The cells PSIS-LOO scores (at most [`inference::loo::MAX_LOO_CELLS`] of the modelled cells the
/// fit sees, evenly spaced: so the independence model of the verdict, which marks the cells a
/// network leaves out as missing, scores the same cells as the block model) with
/// what `method` sees of them: a release under the Skellam-convolved likelihood (private), a
/// release truncated at 0 as a Poisson count (naïve), raw counts (non-private).
fn loo_cells(data: &FitData, method: Method) -> Result<eval::CellLikelihood, FitError> {
    let (rows, cols) = data.shape();
    let modelled: Vec<usize> = (0..rows * cols)
        .filter(|&n| data.is_modelled(n) && !data.is_missing(n) && data.heldout.binary_search(&n).is_err())
        .collect();
    let seen = match &data.input {
        Input::Released { privatized, .. } if method == Method::Private => eval::Seen::Release(privatized),
        Input::Released { privatized, .. } => eval::Seen::Truncated(privatized),
        Input::Counts { counts, .. } => eval::Seen::Counts(counts),
    };
    eval::CellLikelihood::of_seen(&modelled, inference::loo::MAX_LOO_CELLS, seen)
        .map_err(|e| FitError::Inference(e.to_string()))
}

/// The modes of a Gibbs fit with their weights, log joints, totals and held-out scores.
fn mode_summaries(result: &FitResult) -> Vec<ModeSummary> {
    let Some(assessment) = &result.assessment else { return Vec::new() };
    let density = |c: usize| match assessment.primary {
        "ln_lik" => &result.traces[c].ln_lik,
        _ => &result.traces[c].values,
    };
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
    assessment
        .modes
        .iter()
        .map(|chains| {
            let within_mode = |per_chain_cells: &[Vec<f64>]| {
                let members: Vec<&[f64]> = chains.iter().map(|&c| per_chain_cells[c].as_slice()).collect();
                inference::stacking::mixture_log_density(&members, &vec![1.0 / chains.len() as f64; chains.len()])
            };
            let heldout_log_predictive = result.heldout.as_ref().map(|h| within_mode(&h.per_chain_cells));
            let loo_log_predictive = result.loo.as_ref().map(|l| within_mode(&l.per_chain_cells));
            ModeSummary {
                weight: chains.iter().map(|&c| result.weights[c]).sum(),
                mean_log_density: mean(&chains.iter().map(|&c| mean(density(c))).collect::<Vec<_>>()),
                mean_total_rate: mean(&chains.iter().map(|&c| mean(&result.traces[c].total_rate)).collect::<Vec<_>>()),
                heldout_log_predictive,
                loo_log_predictive,
                chains: chains.clone(),
            }
        })
        .collect()
}

/// The held-out log predictive of the held-out cells from samples of their rates: per chain,
/// and pooled over every chain's samples, or with `pooled_from` (CAVI: the best start) over that
/// chain's only.
fn score_heldout(
    data: &FitData,
    per_chain: &[HeldOutSamples],
    pooled_from: Option<usize>,
) -> Result<Option<HeldOutScore>, FitError> {
    if data.heldout.is_empty() {
        return Ok(None);
    }
    // Released data are scored under Pois(μ) ∗ 2Geo(α) (or NB(r, μ) ∗ 2Geo(α)); raw counts with
    // α = 0.
    let cols = data.cols.len();
    let (mask, released, levels): (&[bool], Vec<i64>, Vec<f64>) = match &data.input {
        Input::Released { alphas, privatized, heldout_values } => {
            (privatized.missing(), heldout_values.clone(), data.heldout.iter().map(|&n| alphas[n / cols]).collect())
        }
        Input::Counts { counts, missing } => {
            (missing, data.heldout.iter().map(|&n| i64::from(counts[n])).collect(), vec![0.0; data.heldout.len()])
        }
    };
    // The samples hold the rates of every missing cell (row-major); the held-out cells may be
    // fewer (the independence model of a network also leaves its diagonal out): keep theirs.
    let missing: Vec<usize> = mask.iter().enumerate().filter(|(_, m)| **m).map(|(n, _)| n).collect();
    let positions: Vec<usize> = data
        .heldout
        .iter()
        .map(|n| missing.binary_search(n).map_err(|_| FitError::Inference(format!("held-out cell {n} is not missing"))))
        .collect::<Result<_, _>>()?;
    let whole = positions.len() == missing.len();
    let score = |samples: &[Vec<f64>], shapes: &[CellDispersion]| {
        eval::heldout_log_predictive_cells_under(&released, &levels, samples, shapes)
            .map_err(|e| FitError::Inference(e.to_string()))
    };
    let projected: Vec<Cow<[Vec<f64>]>> = per_chain
        .iter()
        .map(|c| match whole {
            true => Cow::Borrowed(c.rates.as_slice()),
            false => Cow::Owned(c.rates.iter().map(|s| positions.iter().map(|&i| s[i]).collect()).collect()),
        })
        .collect();
    let per_chain_cells =
        projected.iter().zip(per_chain).map(|(s, c)| score(s, &c.shapes)).collect::<Result<Vec<_>, _>>()?;
    let scores = per_chain_cells.iter().map(|c| c.iter().sum()).collect();
    let (pooled, shapes): (Cow<[Vec<f64>]>, Vec<CellDispersion>) = match pooled_from {
        Some(c) => (Cow::Borrowed(projected.get(c).map_or(&[][..], |p| &**p)), Vec::new()),
        None => (Cow::Owned(projected.concat()), per_chain.iter().flat_map(|c| c.shapes.iter().copied()).collect()),
    };
    let per_cell = score(&pooled, &shapes)?;
    let log_predictive = per_cell.iter().sum();
    Ok(Some(HeldOutScore {
        cells: released.len(),
        log_predictive,
        samples: pooled.len(),
        per_chain: scores,
        per_chain_cells,
        per_cell,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::{GammaPrior, ModelKind};

    /// Chains run one at a time (as when memory is short) give the same fit, bit for bit, as
    /// chains run together.
    #[test]
    fn chains_in_groups_give_the_same_fit() {
        let (rows, cols) = (6, 5);
        let counts: Vec<u32> = (0..rows * cols).map(|n| (n % 4) as u32).collect();
        let alpha = 0.4;
        let released =
            mechanism::privatize(&counts, rows, cols, mechanism::Noise::Scalar(alpha), &mut Streams::new(3).rng())
                .unwrap();
        let labels = |prefix: &str, n: usize| tables::Labels::from_names((0..n).map(|i| format!("{prefix}{i}")));
        let data = FitData {
            file: "simulated".into(),
            axes: None,
            rows: labels("r", rows),
            cols: labels("c", cols),
            input: Input::Released { privatized: released, alphas: vec![alpha; rows], heldout_values: Vec::new() },
            levels: None,
            overrides_sidecar: None,
            modelled: models::ModelledCells::All,
            heldout: Vec::new(),
        };
        let settings = FitSettings {
            model: ModelKind::Topic,
            components: 2,
            prior: GammaPrior::new(1.0, 1.0).unwrap(),
            scale: None,
            likelihood: models::Likelihood::Poisson,
            method: Method::Private,
            chains: 3,
            algorithm: Algorithm::Gibbs(inference::Schedule::new(20, 10, 2).unwrap()),
            seed: 7,
            weighting: Weighting::Equal,
            replicas: 1,
            hamiltonian_move: false,
        };
        let fresh = || Resume { from: Vec::new(), keep: true };
        let (together, states) = fit_chains_in_groups(&settings, &data, 3, fresh(), &|| {}).unwrap();
        let (one_by_one, _) = fit_chains_in_groups(&settings, &data, 1, fresh(), &|| {}).unwrap();
        assert_eq!(together.mean_rates, one_by_one.mean_rates);
        assert_eq!(together.sd_rates, one_by_one.sd_rates);
        let trace = |r: &FitResult| r.traces.iter().map(|t| t.values.clone()).collect::<Vec<_>>();
        assert_eq!(trace(&together), trace(&one_by_one));
        // Continued to the extended schedule, the chains are the fresh chains of that schedule,
        // run all together or one at a time.
        assert_eq!(states.len(), 3);
        let Algorithm::Gibbs(short) = settings.algorithm else { unreachable!() };
        let longer = FitSettings { algorithm: Algorithm::Gibbs(short.extended()), ..settings.clone() };
        let resume = Resume { from: states, keep: false };
        let (continued, none) = fit_chains_in_groups(&longer, &data, 3, resume, &|| {}).unwrap();
        assert!(none.is_empty(), "states are returned only when asked for");
        let (fresh_longer, _) = fit_chains_in_groups(&longer, &data, 1, fresh(), &|| {}).unwrap();
        assert_eq!(continued.mean_rates, fresh_longer.mean_rates);
        assert_eq!(trace(&continued), trace(&fresh_longer));
    }
}
