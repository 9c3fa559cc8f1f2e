//! Executing a manifest's work units: the true data set of a replication, the non-private
//! reference on it (once per data set), and the naïve and private fits of each cell.
//!
//! Every random choice comes from `Streams::new(seed)` → replication → purpose (→ noise level →
//! method), so a unit's numbers do not depend on which other units run, in which order, or on how
//! many threads.

use crate::manifest::{Cell, DataSet, Manifest, Method, NoiseLevel, Precision, RescaleAxis};
use distributions::{Beta, Gamma, Streams, alpha_from_epsilon};
use inference::{Algorithm, Observation};
use mechanism::{Noise, Privatized, privatize};
use models::{FamilyShape, FamilyVisitor, GammaPrior, ModelFamily, PoissonFactorization};
use rand::distr::Distribution;
use results::{Coverage, RowDiagnostics as FitDiagnostics, Sbc, Stacking, TraceDiagnostics};

/// Stream purposes under a replication.
const TRUTH: u64 = 0;
const NOISE: u64 = 1;
const CHAIN: u64 = 2;

/// Draws from the prior for `mean_count_range` (or, with `mean_rate`, draws whose rates are all
/// negligible) are retried at most this often.
const MAX_DATA_ATTEMPTS: u64 = 10_000;

pub use crate::error::RunError;

/// One result row: a method fitted to one data set at one noise level (none for non-private).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MethodResult {
    pub replication: usize,
    /// Index on the `e₀` axis (0 without one).
    pub e0_index: usize,
    /// `e₀` of a semi-synthetic data set.
    pub e0: Option<f64>,
    /// `None` for the non-private reference.
    pub noise_index: Option<usize>,
    pub method: Method,
    /// The noise level `α` (the mean level with per-row noise); `None` for non-private.
    pub alpha: Option<f64>,
    pub epsilon: Option<f64>,
    pub precision: Option<f64>,
    /// Mean Poisson KL of `μ̂` against the true rates over the modelled entries.
    pub mean_kl: f64,
    /// Mean absolute error of `μ̂` against the true rates over the modelled entries.
    pub rate_mae: f64,
    /// Topic models: MAE of the normalized topics after Hungarian alignment (Gibbs: the best
    /// sample's; CAVI: the posterior means').
    pub topic_error: Option<f64>,
    /// Iterations run (Gibbs: the schedule, or with `until_mixed` the last run's; CAVI: until
    /// convergence or the maximum).
    pub iterations: usize,
    /// CAVI only: whether the tolerance was reached.
    pub converged: Option<bool>,
    /// Wall-clock seconds of the fit's chains, summed (CPU time when they run in parallel), over
    /// every run with `until_mixed`.
    pub seconds: f64,
    /// Iterations of all chains per second of `seconds`.
    pub iterations_per_second: f64,
    /// Chains (Gibbs) or starts (CAVI) of the fit.
    #[serde(default = "one")]
    pub chains: usize,
    /// Each chain's (CAVI: each start's) own mean KL, in chain order.
    #[serde(default)]
    pub chain_mean_kl: Vec<f64>,
    /// Gibbs: split-R̂ and bulk/tail ESS over the chains of `ln p(Z, Y)`, the total rate and the
    /// KL of each kept sample's rates to the truth; `None` for CAVI.
    #[serde(default)]
    pub diagnostics: Option<FitDiagnostics>,
    /// Gibbs: the empirical coverage of central 50 % and 90 % credible intervals of the true
    /// rates and row totals (docs/calibration.md); `None` for CAVI.
    #[serde(default)]
    pub coverage: Option<Coverage>,
    /// Gibbs with several chains: the verdict on the chains ([`inference::convergence`]).
    #[serde(default)]
    pub convergence: Option<String>,
    /// Gibbs with several chains: the chains stacked by PSIS-LOO (`inference::stacking::loo_by_chain`).
    #[serde(default)]
    pub stacking: Option<Stacking>,
    /// Gibbs: the simulation-based-calibration rank of the true total rate ([`SBC_DRAWS`]
    /// thinned draws; docs/calibration.md).
    #[serde(default)]
    pub sbc: Option<Sbc>,
    /// Gibbs with replica exchange: the smallest inverse temperature on the chains' final ladders.
    #[serde(default)]
    pub ladder_min_beta: Option<f64>,
}

/// The draws, in all, that the true total rate is ranked among: thinned evenly from each chain's
/// kept samples (`⌈19 / chains⌉` per chain), so that they are close to independent. 19 draws give
/// 20 equally likely ranks for one chain.
pub const SBC_DRAWS: usize = 19;

fn one() -> usize {
    1
}

/// Whether the truth lies in the central `level` credible interval of `kept` samples, given its
/// rank `r` (the number of samples below it; Talts et al. 2018): `lo ≤ r ≤ S − lo`
/// ([`results::central_ranks`]). For a calibrated posterior and independent samples `r` is
/// uniform on `0..=S`, so this holds with probability [`results::nominal_coverage`].
pub fn covers(rank: u32, kept: usize, level: f64) -> bool {
    let (lo, hi) = results::central_ranks(kept, level);
    (lo..=hi).contains(&(rank as usize))
}

/// The diagnostics of a pooled Gibbs fit ([`inference::Pooled::diagnostics`]); `None` for CAVI.
fn fit_diagnostics(pooled: &inference::Pooled) -> Option<FitDiagnostics> {
    let get = |name: &str| {
        pooled.diagnostics.iter().find(|(n, _)| *n == name).map(|(_, d)| TraceDiagnostics {
            rhat: d.rhat,
            ess_bulk: d.ess_bulk,
            ess_tail: d.ess_tail,
        })
    };
    Some(FitDiagnostics { ln_joint: get("ln_joint")?, total_rate: get("total_rate")?, kl: get("functional")? })
}

/// What `diagnostics` warn about for `chains` chains ([`inference::Diagnostics::warnings`]), each
/// prefixed with its quantity, `; `-separated (empty when nothing).
pub fn diagnostics_warning(diagnostics: &FitDiagnostics, chains: usize) -> String {
    FitDiagnostics::TRACES
        .iter()
        .enumerate()
        .flat_map(|(i, name)| {
            let d = diagnostics.trace(i);
            let d = inference::Diagnostics { rhat: d.rhat, ess_bulk: d.ess_bulk, ess_tail: d.ess_tail };
            d.warnings(chains).into_iter().map(move |w| format!("{name}: {w}"))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Called after every Gibbs iteration of every chain (progress reporting); must be cheap.
pub type OnIteration<'a> = &'a (dyn Fn() + Sync);

/// The true data set of a replication.
#[derive(Clone, Debug)]
pub struct TrueData {
    rates: Vec<f64>,
    counts: Vec<u32>,
    rows: usize,
    cols: usize,
    /// Entries the model does not model (the block model's diagonal).
    excluded: Vec<bool>,
    /// A topic model's true topics (`K × V`, topic-major) and `K`.
    topics: Option<(Vec<f64>, usize)>,
    /// Semi-synthetic data: the row re-scalings `γ_i`.
    row_scales: Option<Vec<f64>>,
    /// Data from an overdispersed model: the law of its cells' multipliers (`r`, and the share of
    /// overdispersed cells), for the true parameters' log-likelihood; `None` for the Poisson.
    dispersion: Option<distributions::CellDispersion>,
    /// Data kept by `release_mean_count_range`: the attempt that was kept. Its release's noise
    /// comes from streams of that attempt, so that each attempt draws new noise with its new
    /// counts and the kept `(θ, y, ỹ)` are the model's joint given the release in range; `None`
    /// otherwise (the noise streams of the cell alone).
    noise_attempt: Option<u64>,
}

impl TrueData {
    /// Mean count over the modelled entries (the empirical precision `N`).
    pub fn mean_count(&self) -> f64 {
        let (sum, n) = self.modelled().fold((0.0, 0usize), |(s, n), i| (s + f64::from(self.counts[i]), n + 1));
        sum / n as f64
    }

    /// The true rates `μ*` (row-major; the block model's diagonal is 0 and not modelled).
    pub fn rates(&self) -> &[f64] {
        &self.rates
    }

    /// The true counts `y`.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// `(rows, cols)` of the count matrix.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// A topic model's true topics (`K × V`, topic-major, as generated) and `K`.
    pub fn topics(&self) -> Option<(&[f64], usize)> {
        self.topics.as_ref().map(|(t, k)| (t.as_slice(), *k))
    }

    /// Semi-synthetic data: the re-scalings `γ_i ~ Gamma(e₀f₀, rate f₀)` of the rows.
    pub fn row_scales(&self) -> Option<&[f64]> {
        self.row_scales.as_deref()
    }

    /// Data from an overdispersed model: the law of its cells' multipliers (shape `r`, share of
    /// overdispersed cells); `None` for Poisson data.
    pub fn dispersion(&self) -> Option<&distributions::CellDispersion> {
        self.dispersion.as_ref()
    }

    /// The indices of the modelled entries (all but the block model's diagonal), row-major.
    pub fn modelled(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.rates.len()).filter(|&n| !self.excluded[n])
    }

    /// The coverage of central 50 % and 90 % credible intervals from the calibration ranks of the
    /// truth among `kept` samples ([`inference::calibration_targets`]: the rates, then the row
    /// totals); only modelled rates count. `None` without ranks (CAVI).
    fn coverage(&self, ranks: &[u32], kept: usize) -> Option<Coverage> {
        let entries = self.rates.len();
        if ranks.len() != entries + self.rows || kept == 0 {
            return None;
        }
        let (rates, rows) = ranks.split_at(entries);
        let fraction = |ranks: &mut dyn Iterator<Item = u32>, level: f64| {
            let (inside, n) =
                ranks.fold((0usize, 0usize), |(k, n), r| (k + usize::from(covers(r, kept, level)), n + 1));
            inside as f64 / n.max(1) as f64
        };
        let modelled = || self.modelled().map(|n| rates[n]);
        Some(Coverage {
            rates_50: fraction(&mut modelled(), 0.5),
            rates_90: fraction(&mut modelled(), 0.9),
            rows_50: fraction(&mut rows.iter().copied(), 0.5),
            rows_90: fraction(&mut rows.iter().copied(), 0.9),
        })
    }

    /// The rank of the true total rate `Σ_n μ_n` (modelled cells) among draws thinned evenly
    /// from each chain's kept totals ([`SBC_DRAWS`] in all, fewer when a chain kept fewer), and
    /// the rank of `truth_ln_likelihood` (the true parameters' log-likelihood of the scored cells)
    /// among the same draws' ([`inference::Posterior::kept_ln_likelihood`]) when both are
    /// recorded; `None` without kept totals (CAVI).
    fn sbc(&self, chains: &[inference::Posterior], truth_ln_likelihood: Option<f64>) -> Option<Sbc> {
        if chains.is_empty() || chains.iter().any(|c| c.kept_total_rate.is_empty()) {
            return None;
        }
        let truth: f64 = self.modelled().map(|n| self.rates[n]).sum();
        let ln_likelihoods = chains.iter().all(|c| c.kept_ln_likelihood.len() == c.kept_total_rate.len());
        let truth_ln_likelihood = truth_ln_likelihood.filter(|_| ln_likelihoods);
        let per_chain = SBC_DRAWS.div_ceil(chains.len());
        let (mut total_rank, mut ln_likelihood_rank, mut draws) = (0u32, 0u32, 0u32);
        for chain in chains {
            let kept = &chain.kept_total_rate;
            let (s, d) = (kept.len(), per_chain.min(kept.len()));
            for k in 0..d {
                let draw = (k + 1) * s / d - 1;
                total_rank += u32::from(kept[draw] < truth);
                if let Some(truth) = truth_ln_likelihood {
                    ln_likelihood_rank += u32::from(chain.kept_ln_likelihood[draw] < truth);
                }
                draws += 1;
            }
        }
        Some(Sbc { total_rank, draws, ln_likelihood_rank: truth_ln_likelihood.map(|_| ln_likelihood_rank) })
    }

    /// The mean Poisson KL of `rates` (row-major) against the true rates over the modelled
    /// entries.
    fn kl(&self, rates: &[f64]) -> Result<f64, RunError> {
        Ok(eval::mean_poisson_kl(self.modelled().map(|n| (self.rates[n], rates[n])))?)
    }

    /// The rates of `truth` and counts drawn from them.
    fn generated<F: ModelFamily>(family: &F, truth: &F::Gibbs, streams: Streams) -> Self {
        let (rows, cols) = truth.shape();
        let rates = rates_of(truth);
        let counts = models::sample_counts(truth, streams);
        let excluded = (0..rows * cols).map(|n| truth.is_excluded(n)).collect();
        // K × V topic-major, so K = len / V.
        let topics = family.gibbs_topics(truth).map(|t| (t.len() / cols.max(1), t)).map(|(k, t)| (t, k));
        let dispersion = truth.dispersion();
        TrueData { rates, counts, rows, cols, excluded, topics, row_scales: None, dispersion, noise_attempt: None }
    }
}

/// `μ` of a model (row-major): its mean counts (under the negative binomial, without the cells'
/// multipliers: what a fit reports of a cell).
fn rates_of<M: PoissonFactorization>(model: &M) -> Vec<f64> {
    let (rows, cols) = model.shape();
    let mut rates = vec![0.0; rows * cols];
    model.mean_rates_into(&mut rates);
    rates
}

/// Something to do with the manifest's model family, generically over it.
trait FamilyTask {
    type Output;
    fn run<F: ModelFamily>(self, family: &F) -> Result<Self::Output, RunError>;
}

/// A [`FamilyTask`] as the models' registry visits it.
struct Visit<T>(T);

impl<T: FamilyTask> FamilyVisitor for Visit<T> {
    type Output = Result<T::Output, RunError>;
    fn visit<F: ModelFamily>(self, family: &F) -> Self::Output {
        self.0.run(family)
    }
}

/// Runs `task` with the manifest's model family (`models::with_family`, the registry of models).
fn with_family<T: FamilyTask>(manifest: &Manifest, task: T) -> Result<T::Output, RunError> {
    let m = &manifest.model;
    let prior = GammaPrior::new(m.a0, m.b0)?;
    let (rows, cols, times) = manifest.modes();
    if rows == 0 || cols == 0 {
        return Err(RunError::Parameter("the manifest has no matrix size (validate it with `parse`/`load`)".into()));
    }
    // Validation resolved the likelihood against the manifest's file already.
    let likelihood = m.likelihood().model().map_err(|(_, _, allowed)| RunError::Parameter(allowed))?;
    let hmc = manifest.hamiltonian_move().then(models::hmc::HmcSettings::default);
    let shape =
        FamilyShape { rows, cols, times, components: m.components, prior, scale: m.prior.scale(), likelihood, hmc };
    models::with_family(m.kind, shape, Visit(task))
}

/// Scales the rates of `model` so that their mean over the modelled entries is `target`
/// ([`ModelFamily::scale_rates`] by `s = target / mean(μ)`). Returns `false` for a draw whose
/// rates are too small to rescale in floating point.
fn scale_to_mean_rate<F: ModelFamily>(family: &F, model: &mut F::Gibbs, target: f64) -> Result<bool, RunError> {
    let rates = rates_of(model);
    let entries = || (0..rates.len()).filter(|&n| !model.is_excluded(n));
    let mean = entries().map(|n| rates[n]).sum::<f64>() / entries().count() as f64;
    let s = target / mean;
    if !(s.is_finite() && mean > 1e-250) {
        return Ok(false);
    }
    family.scale_rates(model, s)?;
    Ok(true)
}

/// The root of a data set's streams: (master seed, replication, `e₀` index).
fn dataset_streams(manifest: &Manifest, dataset: &DataSet) -> Streams {
    Streams::new(manifest.experiment.seed).child(dataset.replication as u64).child(dataset.e0_index as u64)
}

/// Generates the true data set `dataset`: from the prior (retrying draws for
/// `mean_count_range`), or from the base parameters with rows (`θ*_i`) and/or columns (`φ*_kv`)
/// re-scaled by `γ ~ Gamma(e₀f₀, rate f₀)` (`data.rescale`).
pub fn true_data(manifest: &Manifest, dataset: &DataSet) -> Result<TrueData, RunError> {
    with_family(manifest, GenerateTruth { manifest, dataset })
}

struct GenerateTruth<'a> {
    manifest: &'a Manifest,
    dataset: &'a DataSet,
}

impl FamilyTask for GenerateTruth<'_> {
    type Output = TrueData;

    fn run<F: ModelFamily>(self, family: &F) -> Result<TrueData, RunError> {
        let (manifest, dataset) = (self.manifest, self.dataset);
        let root = dataset_streams(manifest, dataset).child(TRUTH);
        if let Some(base) = &manifest.base {
            // Without an e₀ (`rescale = []`) no γ is drawn.
            let (e0, f0) = (dataset.e0.unwrap_or(1.0), manifest.f0());
            let gamma = Gamma::new(e0 * f0, f0)?;
            let mut rng = root.child(0).rng();
            let k = base.components();
            // γ_i θ*_ic, floored at the smallest positive double (γ can underflow for tiny e₀f₀).
            let mut factors = base.factors_flat();
            let row_factor = base.row_factor().ok_or_else(|| {
                RunError::Data(format!("a {} model has no factor along the rows to re-scale", base.model.name()))
            })?;
            let mut scales = Vec::with_capacity(base.rows());
            if manifest.rescale().contains(&RescaleAxis::Rows) {
                for row in factors[row_factor].chunks_exact_mut(k) {
                    let g = gamma.sample(&mut rng);
                    row.iter_mut().for_each(|x| *x = (*x * g).max(f64::MIN_POSITIVE));
                    scales.push(g);
                }
            }
            // γ_v φ*_kv for every component k (its own stream: the row draws above are unchanged).
            if manifest.rescale().contains(&RescaleAxis::Cols) {
                let col_factor = base.col_factor().ok_or_else(|| {
                    RunError::Data(format!("a {} model has no factor along the columns to re-scale", base.model.name()))
                })?;
                let mut rng = root.child(3).rng();
                let cols = base.cols();
                let col_scales: Vec<f64> = (0..cols).map(|_| gamma.sample(&mut rng)).collect();
                for row in factors[col_factor].chunks_exact_mut(cols) {
                    row.iter_mut().zip(&col_scales).for_each(|(x, g)| *x = (*x * g).max(f64::MIN_POSITIVE));
                }
            }
            let mut truth = family.gibbs(root.child(1));
            family.set_base_factors(&mut truth, &factors)?;
            let row_scales = (!scales.is_empty()).then_some(scales);
            return Ok(TrueData { row_scales, ..TrueData::generated(family, &truth, root.child(2)) });
        }
        let release_window = match manifest.data.release_mean_count_range {
            Some(range) => Some((range, the_one_cell(manifest, dataset)?)),
            None => None,
        };
        for attempt in 0..MAX_DATA_ATTEMPTS {
            let streams = root.child(attempt);
            let mut truth = family.gibbs(streams.child(0));
            if let Some(target) = manifest.data.mean_rate
                && !scale_to_mean_rate(family, &mut truth, target)?
            {
                continue;
            }
            let mut data = TrueData::generated(family, &truth, streams.child(1));
            if let Some([lo, hi]) = manifest.data.mean_count_range
                && !(lo..=hi).contains(&data.mean_count())
            {
                continue;
            }
            if let Some(([lo, hi], cell)) = &release_window {
                data.noise_attempt = Some(attempt);
                if !(*lo..=*hi).contains(&release_mean_count(manifest, cell, &data)?) {
                    continue;
                }
            }
            return Ok(data);
        }
        Err(RunError::Data(format!(
            "no prior draw in {MAX_DATA_ATTEMPTS} attempts had its mean count in data.mean_count_range \
             or data.release_mean_count_range (or, with data.mean_rate, rates large enough to rescale); \
             consider data.mean_rate or a wider range"
        )))
    }
}

/// The cell of data set `dataset` at the manifest's one noise level (for
/// `data.release_mean_count_range`, which allows only one).
fn the_one_cell(manifest: &Manifest, dataset: &DataSet) -> Result<Cell, RunError> {
    manifest
        .cells()
        .into_iter()
        .find(|c| c.dataset == *dataset)
        .ok_or_else(|| RunError::Parameter("data.release_mean_count_range needs a noise level".into()))
}

/// The mean of the values `cell`'s noise level releases of `data` over its modelled cells: the
/// release [`release`] makes for that cell (the same streams), for
/// `data.release_mean_count_range`.
fn release_mean_count(manifest: &Manifest, cell: &Cell, data: &TrueData) -> Result<f64, RunError> {
    let (released, _) = release(manifest, data, cell)?;
    let values = released.values();
    let (sum, n) = data.modelled().fold((0.0, 0usize), |(s, n), i| (s + f64::from(values[i]), n + 1));
    Ok(sum / n as f64)
}

/// Metrics of one fit.
struct Fit {
    mean_kl: f64,
    rate_mae: f64,
    topic_error: Option<f64>,
    iterations: usize,
    converged: Option<bool>,
    seconds: f64,
    /// Topic models: the estimated topics (topic-major, as fitted, before alignment).
    topics: Option<Vec<f64>>,
    /// The posterior mean rates `μ̂` (row-major; pooled over the chains).
    rates: Vec<f64>,
    chains: usize,
    chain_mean_kl: Vec<f64>,
    diagnostics: Option<FitDiagnostics>,
    coverage: Option<Coverage>,
    convergence: Option<String>,
    stacking: Option<Stacking>,
    sbc: Option<Sbc>,
    ladder_min_beta: Option<f64>,
}

/// The chains of a Gibbs fit stacked by their PSIS-LOO predictive of the scored cells
/// ([`inference::stacking::loo_by_chain`]), scored by the KL of the stacked mean rates
/// `Σ_k w_k μ̂_k`. `None` with fewer than two chains or nothing recorded.
fn stack_chains(data: &TrueData, pooled: &inference::Pooled) -> Result<Option<Stacking>, RunError> {
    if pooled.chains.len() < 2 || pooled.chains.iter().any(|p| p.kept_pointwise.is_empty()) {
        return Ok(None);
    }
    let pointwise: Vec<&Vec<Vec<f64>>> = pooled.chains.iter().map(|p| &p.kept_pointwise).collect();
    let loo = inference::stacking::loo_by_chain(&pointwise);
    let weights = inference::stacking::stacking_weights(&loo.elpd);
    let means: Vec<&[f64]> = pooled.chains.iter().map(|p| p.mean_rates.as_slice()).collect();
    let sds: Vec<&[f64]> = pooled.chains.iter().map(|p| p.sd_rates.as_deref().unwrap_or(&[])).collect();
    let (mean, _) = inference::stacking::mixture_moments(&means, &sds, &weights);
    Ok(Some(Stacking { mean_kl: data.kl(&mean)?, weights, unreliable_share: loo.unreliable_share }))
}

impl Fit {
    /// Scores the pooled rates (and, for a topic model, the best chain's topic-major topics)
    /// against the truth, and each chain's own rates.
    /// `truth_ln_likelihood`: the true parameters' log-likelihood of the cells the chains' draws
    /// score, for the calibration's second rank.
    fn score(data: &TrueData, pooled: inference::Pooled, truth_ln_likelihood: Option<f64>) -> Result<Self, RunError> {
        let diagnostics = fit_diagnostics(&pooled);
        let convergence = inference::convergence::assess_pooled(&pooled, None).map(|a| a.verdict.name().to_string());
        let stacking = stack_chains(data, &pooled)?;
        let coverage = data.coverage(&pooled.truth_ranks, pooled.kept);
        let sbc = data.sbc(&pooled.chains, truth_ln_likelihood);
        // Empty ladders (plain chains, CAVI) give none.
        let ladder_min_beta = pooled.chains.iter().flat_map(|p| p.ladder.iter().copied()).reduce(f64::min);
        let chain_mean_kl = pooled.chains.iter().map(|p| data.kl(&p.mean_rates)).collect::<Result<Vec<_>, _>>()?;
        let seconds = pooled.chains.iter().map(|p| p.seconds).sum();
        let chains = pooled.chains.len();
        let best = pooled.best;
        let inference::Posterior { topics, iterations, converged, .. } =
            pooled.chains.into_iter().nth(best).ok_or_else(|| RunError::Request("a fit without chains".into()))?;
        let mean_rates = pooled.mean_rates;
        let mean_kl = data.kl(&mean_rates)?;
        let (truth, estimate): (Vec<f64>, Vec<f64>) = data.modelled().map(|n| (data.rates[n], mean_rates[n])).unzip();
        let rate_mae = eval::mean_absolute_error(&truth, &estimate)?;
        let topic_error = match (&topics, &data.topics) {
            (Some(estimate), Some((truth, k))) => {
                Some(eval::align_topics(truth, estimate, *k, data.cols)?.mean_absolute_error)
            }
            _ => None,
        };
        Ok(Fit {
            mean_kl,
            rate_mae,
            topic_error,
            iterations,
            converged,
            seconds,
            topics,
            rates: mean_rates,
            chains,
            chain_mean_kl,
            diagnostics,
            coverage,
            convergence,
            stacking,
            sbc,
            ladder_min_beta,
        })
    }
}

/// Fits `method` (non-private or CAVI on the true counts, naïve or private on `released`) with
/// the one estimator interface ([`inference::fit`]) and scores it against the truth. Streams:
/// see [`inference::fit`]. A CAVI fit that converges early reports the iterations it did not
/// need to `on_iteration` as well, so progress totals stay exact.
fn fit_any(
    method: Method,
    manifest: &Manifest,
    data: &TrueData,
    released: Option<&Privatized>,
    streams: Streams,
    on_iteration: OnIteration,
) -> Result<Fit, RunError> {
    let missing = || RunError::Request(format!("the {} method needs privatized data", method.name()));
    let observation = method.observation(Some(&data.counts), released).ok_or_else(missing)?;
    // Gibbs: the runs `[sampler] until_mixed` allows, the first always made.
    let runs = if method.is_cavi() { Vec::new() } else { manifest.gibbs_runs()? };
    let algorithm = match runs.first() {
        Some(&first) => Algorithm::Gibbs(first),
        None => Algorithm::Cavi(manifest.cavi_settings()),
    };
    // The KL of every kept sample's rates to the truth: a label-free trace for the diagnostics
    // (NaN, which the diagnostics report as undefined, if a sample cannot be scored).
    let kl = |rates: &[f64]| data.kl(rates).unwrap_or(f64::NAN);
    // The true rates, to rank against the kept samples (the calibration of the posterior).
    let chains = manifest.chains(method);
    // Several Gibbs chains are stacked by their leave-one-out predictive of (a subsample of) the
    // cells the fit sees: each kept sample's log-likelihood of them. On data from the prior that
    // log-likelihood is also ranked against the truth's (simulation-based calibration), with one
    // chain too.
    let scored = match (&algorithm, chains > 1 || manifest.data.is_sbc_target()) {
        (Algorithm::Gibbs(_), true) => Some(scored_cells(data, method, released)?),
        _ => None,
    };
    let pointwise = |rates: &[f64], dispersion: Option<distributions::CellDispersion>| {
        scored.as_ref().map_or_else(Vec::new, |s| s.ln_likelihood(rates, dispersion))
    };
    let monitor = inference::Monitor {
        functional: Some(&kl),
        truth: Some(&data.rates),
        pointwise: scored.is_some().then_some(&pointwise as _),
        replicas: manifest.replicas(method),
        ..inference::Monitor::default()
    };
    let from = Vec::new();
    let task = FitTask { observation, algorithm: &algorithm, streams, chains, monitor, on_iteration, from };
    let (mut pooled, states) = with_family(manifest, task)?;
    // The chains' states are kept only for a run that may follow.
    let mut states = if runs.len() > 1 { states } else { Vec::new() };
    if let Algorithm::Cavi(settings) = algorithm {
        for start in &pooled.chains {
            (start.iterations..settings.max_iterations()).for_each(|_| on_iteration());
        }
    }
    // Until the chains mix, the same chains run on to twice their length (Schedule::extended:
    // continued from where they stopped, or under replica exchange run afresh, the same chains
    // draw for draw). The seconds of every run are counted; the progress counts the first run
    // only (a longer run shows as a pause), since how many runs a fit needs is not known before.
    let mut earlier_seconds = 0.0;
    for &schedule in runs.iter().skip(1) {
        if is_mixed(&pooled) {
            break;
        }
        earlier_seconds += pooled.chains.iter().map(|p| p.seconds).sum::<f64>();
        let algorithm = Algorithm::Gibbs(schedule);
        let on_iteration = &|| {};
        let from = std::mem::take(&mut states);
        (pooled, states) = with_family(
            manifest,
            FitTask { observation, algorithm: &algorithm, streams, chains, monitor, on_iteration, from },
        )?;
    }
    drop(states);
    let truth_ln_likelihood = scored.as_ref().map(|s| s.ln_likelihood(&data.rates, data.dispersion).iter().sum());
    let mut fit = Fit::score(data, pooled, truth_ln_likelihood)?;
    fit.seconds += earlier_seconds;
    Ok(fit)
}

/// Whether a fit's chains mixed, by the verdict its results record (`convergence`).
fn is_mixed(pooled: &inference::Pooled) -> bool {
    inference::convergence::assess_pooled(pooled, None)
        .is_some_and(|a| a.verdict == inference::convergence::Convergence::Mixed)
}

/// The cells PSIS-LOO scores for `method` (at most `inference::loo::MAX_LOO_CELLS` of the modelled ones) with
/// the data that method sees: the true counts (non-private), the release truncated at 0 (naïve,
/// as a Poisson count) or the release under the Skellam-convolved likelihood (private).
fn scored_cells(
    data: &TrueData,
    method: Method,
    released: Option<&Privatized>,
) -> Result<eval::CellLikelihood, RunError> {
    let modelled: Vec<usize> = data.modelled().collect();
    let seen = match (method.observation(Some(&data.counts), released), released) {
        (Some(Observation::Private(_)), Some(r)) => eval::Seen::Release(r),
        (Some(Observation::Naive(_)), Some(r)) => eval::Seen::Truncated(r),
        _ => eval::Seen::Counts(&data.counts),
    };
    Ok(eval::CellLikelihood::of_seen(&modelled, inference::loo::MAX_LOO_CELLS, seen)?)
}

struct FitTask<'a> {
    observation: Observation<'a>,
    algorithm: &'a Algorithm,
    streams: Streams,
    chains: usize,
    monitor: inference::Monitor<'a>,
    on_iteration: OnIteration<'a>,
    /// The chains' states after a shorter run, to continue (empty: fresh chains).
    from: Vec<inference::ChainState>,
}

impl FamilyTask for FitTask<'_> {
    type Output = (inference::Pooled, Vec<inference::ChainState>);

    fn run<F: ModelFamily>(self, family: &F) -> Result<Self::Output, RunError> {
        let FitTask { observation, algorithm, streams, chains, monitor, on_iteration, from } = self;
        inference::fit_chains_from(family, observation, algorithm, streams, chains, monitor, on_iteration, from)
            .map_err(RunError::from)
    }
}

/// A fit's result row with what the recovery figures draw: the estimated topics (topic-major,
/// unaligned; topic models) and the posterior mean rates `μ̂`.
pub(crate) struct FitOutput {
    pub result: MethodResult,
    pub topics: Option<Vec<f64>>,
    pub rates: Vec<f64>,
}

/// The reference fits (`non-private`, `cavi`: those of the manifest's methods that see the true
/// counts) of `dataset`, once per data set.
pub fn run_reference(
    manifest: &Manifest,
    data: &TrueData,
    dataset: &DataSet,
    on_iteration: OnIteration,
) -> Result<Vec<MethodResult>, RunError> {
    Ok(reference_fits(manifest, data, dataset, on_iteration)?.into_iter().map(|f| f.result).collect())
}

/// [`run_reference`] with each fit's estimates.
pub(crate) fn reference_fits(
    manifest: &Manifest,
    data: &TrueData,
    dataset: &DataSet,
    on_iteration: OnIteration,
) -> Result<Vec<FitOutput>, RunError> {
    let root = dataset_streams(manifest, dataset).child(CHAIN).child(u64::MAX);
    let mut results = Vec::new();
    for &method in manifest.methods.iter().filter(|m| m.is_reference()) {
        // The Gibbs reference keeps the stream it always had.
        let streams = if method == Method::NonPrivate { root } else { root.child(method as u64) };
        let fit = fit_any(method, manifest, data, None, streams, on_iteration)?;
        results.push(FitOutput::new(dataset, None, method, (None, None, None), fit));
    }
    Ok(results)
}

impl FitOutput {
    fn new(
        dataset: &DataSet,
        noise_index: Option<usize>,
        method: Method,
        (alpha, epsilon, precision): (Option<f64>, Option<f64>, Option<f64>),
        fit: Fit,
    ) -> Self {
        let result = MethodResult {
            replication: dataset.replication,
            e0_index: dataset.e0_index,
            e0: dataset.e0,
            noise_index,
            method,
            alpha,
            epsilon,
            precision,
            mean_kl: fit.mean_kl,
            rate_mae: fit.rate_mae,
            topic_error: fit.topic_error,
            iterations: fit.iterations,
            converged: fit.converged,
            seconds: fit.seconds,
            iterations_per_second: (fit.iterations * fit.chains) as f64 / fit.seconds.max(1e-12),
            chains: fit.chains,
            chain_mean_kl: fit.chain_mean_kl,
            diagnostics: fit.diagnostics,
            coverage: fit.coverage,
            convergence: fit.convergence,
            stacking: fit.stacking,
            sbc: fit.sbc,
            ladder_min_beta: fit.ladder_min_beta,
        };
        FitOutput { result, topics: fit.topics, rates: fit.rates }
    }
}

/// The naïve and private fits of one cell (the methods of the manifest other than non-private).
pub fn run_cell(
    manifest: &Manifest,
    data: &TrueData,
    cell: &Cell,
    on_iteration: OnIteration,
) -> Result<Vec<MethodResult>, RunError> {
    Ok(cell_fits(manifest, data, cell, on_iteration)?.2.into_iter().map(|f| f.result).collect())
}

/// A cell's noise level: `α` (the mean level with per-row noise), and `ε` and `N` when the
/// manifest gives `ε`.
pub(crate) type Level = (f64, Option<f64>, Option<f64>);

/// The privatized data of `cell` (its own streams: the same release whichever methods run) and
/// its noise level.
fn release(manifest: &Manifest, data: &TrueData, cell: &Cell) -> Result<(Privatized, Level), RunError> {
    let root = dataset_streams(manifest, &cell.dataset);
    let (alpha, epsilon, precision) = match cell.noise {
        NoiseLevel::Alpha(a) => (a, None, None),
        NoiseLevel::Epsilon(e) => {
            let n = match &manifest.noise.precision {
                Some(Precision::Fixed(n)) => *n,
                _ => data.mean_count(),
            };
            let alpha = alpha_from_epsilon(e, n)?;
            if alpha > mechanism::MAX_SWEEP_ALPHA {
                return Err(RunError::Parameter(format!(
                    "noise.epsilon = {e} with the data set's precision N = {n} gives α = exp(−ε/N) = {alpha}, \
                     above the largest noise level 1 − 1e-6: use a larger ε"
                )));
            }
            (alpha, Some(e), Some(n))
        }
    };
    let noise_streams = match data.noise_attempt {
        None => root.child(NOISE).child(cell.noise_index as u64),
        // Children 0 and 1 of the cell's noise streams are the unconditioned release's.
        Some(attempt) => root.child(NOISE).child(cell.noise_index as u64).child(2).child(attempt),
    };
    let noise = match manifest.noise.row_concentration {
        Some(c) if alpha > 0.0 => {
            let beta = Beta::new(c * alpha, c * (1.0 - alpha))?;
            let mut rng = noise_streams.child(0).rng();
            Noise::PerRow((0..data.rows).map(|_| beta.sample(&mut rng).min(0.999_999)).collect())
        }
        _ => Noise::Scalar(alpha),
    };
    let released = privatize(&data.counts, data.rows, data.cols, noise, &mut noise_streams.child(1).rng())?;
    Ok((released, (alpha, epsilon, precision)))
}

/// [`run_cell`] with the cell's privatized data, its noise level and each fit's estimates.
pub(crate) fn cell_fits(
    manifest: &Manifest,
    data: &TrueData,
    cell: &Cell,
    on_iteration: OnIteration,
) -> Result<(Privatized, Level, Vec<FitOutput>), RunError> {
    let root = dataset_streams(manifest, &cell.dataset);
    let (released, level) = release(manifest, data, cell)?;
    let (alpha, epsilon, precision) = level;
    let mut results = Vec::new();
    for &method in manifest.methods.iter().filter(|m| !m.is_reference()) {
        let streams = root.child(CHAIN).child(cell.noise_index as u64).child(method as u64);
        let fit = fit_any(method, manifest, data, Some(&released), streams, on_iteration)?;
        let level = (Some(alpha), epsilon, precision);
        results.push(FitOutput::new(&cell.dataset, Some(cell.noise_index), method, level, fit));
    }
    Ok((released, level, results))
}
