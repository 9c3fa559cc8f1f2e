//! The MCMC driver: schedule, running posterior means, best sample, progress and cancellation.

use crate::{InferenceError, Sampler};
use distributions::{CellDispersion, Streams};
use models::PoissonFactorization;
use std::fmt;
use std::ops::ControlFlow;

/// Which iterations are kept: `iterations` sweeps in all; after the first `burn_in`, every
/// `thin`-th is kept. "15,000 iterations, every 25th after the first 3,000" is
/// `Schedule::new(15_000, 3_000, 25)` and keeps iterations 3,025, 3,050, …, 15,000 (480 samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    iterations: usize,
    burn_in: usize,
    thin: usize,
    private_step: PrivateStep,
    /// The first sweeps in which a learned dispersion shape is held at [`WARM_UP_DISPERSION`].
    dispersion_warm_up: usize,
    start: Start,
}

/// Where a Gibbs chain starts. The kept draws come from the same kernel either way; the start
/// decides how long the burn-in must be.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// Factors drawn from the prior (the papers').
    #[default]
    Prior,
    /// The factors at the variational means of the best (highest final ELBO) of `fits` CAVI fits
    /// of the same data, each of at most `iterations` iterations from its own streams; the rest of
    /// the state (a hierarchy's rates, cell multipliers) from the prior. A model without CAVI (the
    /// undirected block model) starts from the prior.
    Cavi { fits: usize, iterations: usize },
}

impl Start {
    /// The start `lppf fit --start cavi` uses: 8 fits of at most 500 iterations, the best of the
    /// settings measured on Fig. 4-like networks (docs/evidence/block-starts/).
    pub const CAVI: Self = Self::Cavi { fits: 8, iterations: 500 };

    /// `"prior"` or `"cavi"`.
    pub fn name(self) -> &'static str {
        match self {
            Start::Prior => "prior",
            Start::Cavi { .. } => "cavi",
        }
    }

    /// The start named `name`: `"prior"`, or `"cavi"` ([`Start::CAVI`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [Start::Prior, Start::CAVI].into_iter().find(|s| s.name() == name)
    }

    /// CAVI iterations the start runs per chain at most, for a model with CAVI (`fits ×
    /// iterations`; 0 from the prior). The cost estimates count each as a sweep.
    pub fn cavi_iterations(self) -> usize {
        match self {
            Start::Prior => 0,
            Start::Cavi { fits, iterations } => fits.saturating_mul(iterations),
        }
    }
}

/// The dispersion shape `r` a learned one is held at during the warm-up
/// ([`Schedule::with_dispersion_warm_up`]): multipliers `δ ~ Gamma(1, rate 1)`, whose sd equals
/// their mean — overdispersed, but not enough to explain a table without its components.
pub const WARM_UP_DISPERSION: f64 = 1.0;

/// How the locally private sampler draws the true counts given the release (the rest of the
/// sweep is the model's own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrivateStep {
    /// The paper's step (eqs. 12–16): a Bessel, a binomial and two gamma draws per entry, with
    /// the noise auxiliaries `λ, g` kept between sweeps ([`crate::resample_entry`]). Kept for
    /// comparison with the paper: the manifests that reproduce its figures name it.
    Augmented,
    /// The auxiliaries integrated out: one exact draw from `p(y | ỹ, μ, α) ∝ Pois(y; μ)
    /// α^{|ỹ − y|}` per entry ([`crate::collapsed_count`]). The default since issue 34: as
    /// much or more ESS per second of the log joint on every design measured (BENCHMARKS.md,
    /// "The collapsed private step"), and no noise auxiliaries to store.
    #[default]
    Collapsed,
}

impl PrivateStep {
    /// `"augmented"` or `"collapsed"`.
    pub fn name(self) -> &'static str {
        match self {
            PrivateStep::Augmented => "augmented",
            PrivateStep::Collapsed => "collapsed",
        }
    }

    /// The step named `name` (`"augmented"`, `"collapsed"`).
    pub fn from_name(name: &str) -> Option<Self> {
        [PrivateStep::Augmented, PrivateStep::Collapsed].into_iter().find(|s| s.name() == name)
    }
}

/// A schedule that keeps nothing or makes no sense.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError {
    /// The offending field: `"iterations"`, `"burn_in"`, `"thin"`, `"dispersion_warm_up"` or `"until_mixed"`.
    pub field: &'static str,
    /// Its value.
    pub value: usize,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sampler schedule: {} = {} is not allowed ({})", self.field, self.value, self.allowed)
    }
}

impl std::error::Error for ScheduleError {}

impl Schedule {
    /// Validates: `iterations ≥ 1`, `burn_in < iterations`, `1 ≤ thin ≤ iterations − burn_in`
    /// (so at least one sample is kept).
    pub fn new(iterations: usize, burn_in: usize, thin: usize) -> Result<Self, ScheduleError> {
        if iterations == 0 {
            return Err(ScheduleError { field: "iterations", value: 0, allowed: "an integer >= 1".into() });
        }
        if burn_in >= iterations {
            let allowed = format!("less than iterations = {iterations}");
            return Err(ScheduleError { field: "burn_in", value: burn_in, allowed });
        }
        let span = iterations - burn_in;
        if thin == 0 || thin > span {
            let allowed = format!("between 1 and iterations − burn_in = {span}, so that a sample is kept");
            return Err(ScheduleError { field: "thin", value: thin, allowed });
        }
        Ok(Self {
            iterations,
            burn_in,
            thin,
            private_step: PrivateStep::default(),
            dispersion_warm_up: 0,
            start: Start::Prior,
        })
    }

    /// The same schedule holding a learned negative-binomial dispersion shape at
    /// [`WARM_UP_DISPERSION`] for its first `sweeps` sweeps (at most the burn-in, which must
    /// discard them): with `r` learned from the start, the multipliers of a chain started from
    /// the prior explain the table before its components do, and `r` and the factors settle
    /// where the components carry little (docs/model-checking.md, "Planted designs"). Only the
    /// burn-in changes; the kept sweeps are those of the posterior's kernel. No effect on a
    /// Poisson model or a given `r`.
    pub fn with_dispersion_warm_up(self, sweeps: usize) -> Result<Self, ScheduleError> {
        if sweeps > self.burn_in {
            let allowed = format!("at most the burn-in, {}, which discards them", self.burn_in);
            return Err(ScheduleError { field: "dispersion_warm_up", value: sweeps, allowed });
        }
        Ok(Self { dispersion_warm_up: sweeps, ..self })
    }

    /// Sweeps at the start in which a learned dispersion shape is held.
    pub fn dispersion_warm_up(&self) -> usize {
        self.dispersion_warm_up
    }

    /// The same schedule with the locally private sampler's step `step` (the augmented step
    /// unless set).
    pub fn with_private_step(self, step: PrivateStep) -> Self {
        Self { private_step: step, ..self }
    }

    /// How the locally private sampler draws the true counts.
    pub fn private_step(&self) -> PrivateStep {
        self.private_step
    }

    /// The same chain run on to twice its length (`lppf fit --until-mixed`): `2N` sweeps, the
    /// burn-in `max(2B, N)` so that every kept sweep comes after this schedule's last (the run
    /// can continue a chain instead of repeating it: [`run_chain_on`]), and the thinning that
    /// keeps at least as many samples, `max(1, ⌊(2N − B′)/S⌋)` for `S` kept now. With the default
    /// burn-in `B = N/2` this is `(2N, 2B, 2·thin)`, every length doubled. The private step,
    /// start and dispersion warm-up are unchanged, so sweep `t ≤ N` of either run is the same.
    pub fn extended(self) -> Self {
        let iterations = 2 * self.iterations;
        let burn_in = (2 * self.burn_in).max(self.iterations);
        let thin = ((iterations - burn_in) / self.kept()).max(1);
        Self { iterations, burn_in, thin, ..self }
    }

    /// The runs of a fit that runs on, twice as long each time, until its chains mix (`lppf fit
    /// --until-mixed`, a manifest's `[sampler] until_mixed`): this schedule, then each
    /// [`Schedule::extended`] one while its sweeps per chain stay within `cap`.
    pub fn doublings(self, cap: usize) -> impl Iterator<Item = Schedule> {
        std::iter::successors(Some(self), move |s| {
            s.iterations.checked_mul(2).is_some_and(|n| n <= cap).then(|| s.extended())
        })
    }

    /// [`Schedule::doublings`] up to `cap`, checked: a cap below this schedule's iterations (the
    /// first run, always made) is an error naming `until_mixed`.
    pub fn runs_until_mixed(self, cap: usize) -> Result<Vec<Schedule>, ScheduleError> {
        if cap < self.iterations {
            let allowed = format!("at least iterations = {}, the length of the first run", self.iterations);
            return Err(ScheduleError { field: "until_mixed", value: cap, allowed });
        }
        Ok(self.doublings(cap).collect())
    }

    /// The same schedule with its chains started at `start` (the prior unless set).
    pub fn with_start(self, start: Start) -> Self {
        Self { start, ..self }
    }

    /// Where each chain starts.
    pub fn start(&self) -> Start {
        self.start
    }

    /// Total sweeps.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Sweeps discarded before the first kept one can be.
    pub fn burn_in(&self) -> usize {
        self.burn_in
    }

    /// Every `thin`-th sweep after the burn-in is kept.
    pub fn thin(&self) -> usize {
        self.thin
    }

    /// `true` if iteration `t` (1-based) is kept.
    pub fn is_kept(&self, t: usize) -> bool {
        t > self.burn_in && (t - self.burn_in).is_multiple_of(self.thin)
    }

    /// Number of kept samples.
    pub fn kept(&self) -> usize {
        (self.iterations - self.burn_in) / self.thin
    }
}

/// What the progress hook sees after each sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Sweeps done (1-based).
    pub iteration: usize,
    /// Sweeps in all.
    pub iterations: usize,
    /// Samples kept so far.
    pub kept: usize,
}

/// A kept factor matrix's running mean.
#[derive(Clone, Debug, PartialEq)]
pub struct MeanFactor {
    /// The block's name (see the model's `factors()`).
    pub name: &'static str,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Posterior mean, row-major.
    pub mean: Vec<f64>,
}

/// The result of a chain.
#[derive(Clone, Debug)]
pub struct ChainSummary<M> {
    /// `μ̂_n = (1/S) Σ_s μ_n^(s)` over the kept samples (eq. 17).
    pub mean_rates: Vec<f64>,
    /// The posterior sd of each `μ_n` over the kept samples, `√((1/S) Σ_s (μ_n^(s))² − μ̂_n²)`.
    pub sd_rates: Vec<f64>,
    /// With cell multipliers (an overdispersed likelihood): `(1/S) Σ_s μ_n^(s) δ_n^(s)`, the
    /// posterior mean of cell `n`'s Poisson rate in this table (`PoissonFactorization::rates_into`;
    /// its multiplier has seen the cell's count). Empty for a Poisson model, whose cells' rates are
    /// [`Self::mean_rates`].
    pub mean_cell_rates: Vec<f64>,
    /// `Σ_n μ_n^(s)` of every kept sample (a label-free summary for convergence diagnostics).
    pub kept_total_rate: Vec<f64>,
    /// The dispersion shape `r` of every kept sample; empty for a Poisson model.
    pub kept_dispersion: Vec<f64>,
    /// The share `π` of overdispersed cells of every kept sample (1 under the negative binomial);
    /// empty for a Poisson model.
    pub kept_share: Vec<f64>,
    /// `Σ_n y_n^(s)` over the modelled cells of every kept sample's complete counts (observed,
    /// or drawn given the release): the posterior of the table's own total, where `Σ μ` is the
    /// model's mean total.
    pub kept_total_count: Vec<f64>,
    /// `μ_n^(s)` at the watched entries ([`run_chain_watching`]) of every kept sample: what a
    /// held-out predictive score averages over.
    pub kept_watched_rates: Vec<Vec<f64>>,
    /// The watched functional ([`Monitor::functional`]) of every kept sample's rates; empty without
    /// one.
    pub kept_functional: Vec<f64>,
    /// [`Monitor::statistics`] of the kept samples it did not skip; empty without it.
    pub kept_statistics: Vec<Vec<f64>>,
    /// [`Monitor::pointwise`] of every kept sample; empty without it.
    pub kept_pointwise: Vec<Vec<f64>>,
    /// [`Monitor::assignments`]: each row's component (the one with the largest expected count of
    /// the row, [`models::PoissonFactorization::row_loadings`]) in every kept sample; empty
    /// without it.
    pub kept_assignments: Vec<Vec<u16>>,
    /// With [`Monitor::truth`]: for each calibration target ([`calibration_targets`]: every rate
    /// `μ_n`, then every row total `Σ_j μ_ij`), how many kept samples lie below the true value —
    /// the rank statistic of simulation-based calibration (Talts et al. 2018). Empty otherwise.
    pub truth_ranks: Vec<u32>,
    /// Posterior means of the factor matrices (meaningful only without label switching; the
    /// paper uses [`ChainSummary::best`] for topics).
    pub mean_factors: Vec<MeanFactor>,
    /// `(iteration, ln p(Z, Y))` of every kept sample ([`Sampler::ln_joint`]).
    pub kept_ln_joint: Vec<(usize, f64)>,
    /// The kept sample with the highest joint log-probability: `(iteration, ln p, model)`.
    pub best: Option<(usize, f64, M)>,
    /// Sweeps done (less than the schedule's if cancelled).
    pub iterations_done: usize,
    /// `true` if the progress hook stopped the chain early.
    pub cancelled: bool,
}

/// Runs `sampler` for `schedule`. Sweep `t` uses `streams.child(t)`, so a chain is a pure
/// function of (sampler state, schedule, streams). After each sweep `on_progress` is called;
/// returning `ControlFlow::Break(())` stops the chain, and the summary then covers the samples
/// kept so far (`cancelled = true`).
pub fn run_chain<S: Sampler>(
    sampler: &mut S,
    schedule: &Schedule,
    streams: Streams,
    on_progress: impl FnMut(Progress) -> ControlFlow<()>,
) -> Result<ChainSummary<S::Model>, InferenceError> {
    run_chain_watching(sampler, schedule, streams, Watch::default(), on_progress)
}

/// A scalar function of one sample's rates `μ^(s)` (row-major), e.g. the KL to known true rates.
pub type Functional<'a> = &'a (dyn Fn(&[f64]) -> f64 + Sync);

/// Statistics of data replicated from one kept sample (a posterior predictive check): called with
/// the sample's mean counts `μ^(s)` (row-major; `PoissonFactorization::mean_rates_into`), the law
/// of its cells' multipliers (`r` and `π`; `None`: Poisson) and its sweep `t`, from which the
/// caller derives the sample's own random stream. An empty vector skips the sample (e.g. to thin
/// the checks).
pub type Statistics<'a> = &'a (dyn Fn(&[f64], Option<CellDispersion>, usize) -> Vec<f64> + Sync);

/// The log-likelihood `ln p(x_i | μ^(s), r^(s), π^(s))` of each scored data point given one
/// sample's mean counts `μ^(s)` (row-major) and the law of its cells' multipliers (`None`:
/// Poisson) — the marginal likelihood, the cells' multipliers integrated out: the matrix
/// PSIS-LOO ([`crate::loo`]), stacking by it and the convergence diagnostics need.
pub type Pointwise<'a> = &'a (dyn Fn(&[f64], Option<CellDispersion>) -> Vec<f64> + Sync);

/// What a chain records of its kept samples for simulation studies.
#[derive(Clone, Copy, Default)]
pub struct Monitor<'a> {
    /// Replicated-data statistics of each kept sample: [`ChainSummary::kept_statistics`].
    pub statistics: Option<Statistics<'a>>,
    /// The pointwise log-likelihood of each kept sample: [`ChainSummary::kept_pointwise`].
    pub pointwise: Option<Pointwise<'a>>,
    /// A functional of the rates, kept: [`ChainSummary::kept_functional`] (a label-free trace for
    /// convergence diagnostics).
    pub functional: Option<Functional<'a>>,
    /// Known true rates (row-major): ranks of the truth among the kept samples,
    /// [`ChainSummary::truth_ranks`].
    pub truth: Option<&'a [f64]>,
    /// Record each row's component in every kept sample ([`ChainSummary::kept_assignments`]):
    /// co-clustering probabilities, which do not depend on the components' labels.
    pub assignments: bool,
    /// Run the chain as replica exchange with this many tempered replicas ([`crate::tempering`];
    /// 0 or 1: a plain chain). Not a record but how the chain runs; here because every fit
    /// passes a `Monitor`.
    pub replicas: usize,
}

/// Each row's component in `model`'s current state: the component with the largest expected
/// count of the row ([`models::PoissonFactorization::row_loadings`]; the largest `θ_ik` would move
/// with each component's scale, which the likelihood does not see), as `u16` (components beyond
/// `u16::MAX` are not assigned: `u16::MAX`).
fn assignments<M: models::PoissonFactorization>(model: &M) -> Vec<u16> {
    let loadings = model.row_loadings();
    let rows = model.shape().0.max(1);
    let components = loadings.len() / rows;
    if components == 0 {
        return Vec::new();
    }
    loadings
        .chunks_exact(components)
        .map(|row| {
            let best = row.iter().enumerate().fold(0, |best, (k, x)| if *x > row[best] { k } else { best });
            u16::try_from(best).unwrap_or(u16::MAX)
        })
        .collect()
}

/// What a chain records of every kept sample besides its summaries.
#[derive(Clone, Copy, Default)]
pub struct Watch<'a> {
    /// Entries (row-major indices) whose rates are kept: [`ChainSummary::kept_watched_rates`].
    pub entries: &'a [usize],
    /// The functional and the truth of a simulation study.
    pub monitor: Monitor<'a>,
}

/// The label-free quantities whose calibration a chain can check: every rate `μ_n` (row-major),
/// then every row total `Σ_j μ_ij` (a person's total rate), written into `out`.
pub fn calibration_targets(rates: &[f64], cols: usize, out: &mut Vec<f64>) {
    out.clear();
    out.extend_from_slice(rates);
    out.extend(rates.chunks_exact(cols.max(1)).map(|row| row.iter().sum::<f64>()));
}

impl fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watch")
            .field("entries", &self.entries)
            .field("functional", &self.monitor.functional.map(|_| "fn"))
            .field("statistics", &self.monitor.statistics.map(|_| "fn"))
            .field("truth", &self.monitor.truth.map(<[f64]>::len))
            .finish()
    }
}

/// [`run_chain`], also keeping what `watch` names of every kept sample.
pub fn run_chain_watching<S: Sampler>(
    sampler: &mut S,
    schedule: &Schedule,
    streams: Streams,
    watch: Watch<'_>,
    on_progress: impl FnMut(Progress) -> ControlFlow<()>,
) -> Result<ChainSummary<S::Model>, InferenceError> {
    run_chain_on(sampler, schedule, 0, streams, watch, on_progress)
}

/// [`run_chain_watching`] for a sampler that has already made the first `done` sweeps of
/// `schedule` (on the same `streams`; e.g. the whole of a shorter run, continued by
/// [`Schedule::extended`]): sweeps `done + 1 ..= iterations` are made, so the chain is the one
/// [`run_chain_watching`] gives from the start. Its summaries cover the kept sweeps, which must
/// all come after `done` (`done ≤ burn_in`; otherwise an error).
pub fn run_chain_on<S: Sampler>(
    sampler: &mut S,
    schedule: &Schedule,
    done: usize,
    streams: Streams,
    watch: Watch<'_>,
    mut on_progress: impl FnMut(Progress) -> ControlFlow<()>,
) -> Result<ChainSummary<S::Model>, InferenceError> {
    if done > schedule.burn_in() {
        return Err(InferenceError::Unsupported(format!(
            "a chain continued after {done} sweeps cannot keep sweeps from before them (burn-in {})",
            schedule.burn_in()
        )));
    }
    let (rows, cols) = sampler.model().shape();
    let mut rates = vec![0.0; rows * cols];
    let mut rate_sums = vec![0.0; rows * cols];
    let mut rate_squares = vec![0.0; rows * cols];
    // Σ_s μδ of every cell, when the model has multipliers (else empty).
    let multiplied = sampler.model().dispersion().is_some();
    let mut cell_rate_sums = vec![0.0; if multiplied { rows * cols } else { 0 }];
    let mut factor_sums: Vec<MeanFactor> = sampler
        .model()
        .factors()
        .iter()
        .map(|b| MeanFactor { name: b.name, rows: b.rows, cols: b.cols, mean: vec![0.0; b.values.len()] })
        .collect();
    let mut summary = ChainSummary {
        mean_rates: Vec::new(),
        sd_rates: Vec::new(),
        mean_cell_rates: Vec::new(),
        kept_total_rate: Vec::with_capacity(schedule.kept()),
        kept_total_count: Vec::with_capacity(schedule.kept()),
        kept_dispersion: Vec::new(),
        kept_share: Vec::new(),
        kept_watched_rates: Vec::new(),
        kept_functional: Vec::new(),
        kept_statistics: Vec::new(),
        kept_pointwise: Vec::new(),
        kept_assignments: Vec::new(),
        truth_ranks: Vec::new(),
        mean_factors: Vec::new(),
        kept_ln_joint: Vec::with_capacity(schedule.kept()),
        best: None,
        iterations_done: 0,
        cancelled: false,
    };
    let (mut targets, mut true_targets) = (Vec::new(), Vec::new());
    let mut cell_rates = Vec::new();
    if let Some(truth) = watch.monitor.truth {
        if truth.len() != rows * cols {
            return Err(InferenceError::Length { what: "true rates", expected: rows * cols, found: truth.len() });
        }
        calibration_targets(truth, cols, &mut true_targets);
        summary.truth_ranks = vec![0; true_targets.len()];
    }
    let warm_up = schedule.dispersion_warm_up();
    if warm_up > done {
        sampler.hold_dispersion(Some(WARM_UP_DISPERSION));
    }
    // A Hamiltonian move adapts its step and mass during the burn-in only.
    sampler.model_mut().set_adapting(done < schedule.burn_in());
    for t in done + 1..=schedule.iterations() {
        if t == warm_up + 1 && warm_up > done {
            sampler.hold_dispersion(None);
        }
        if t == schedule.burn_in() + 1 {
            sampler.model_mut().set_adapting(false);
        }
        sampler.step(streams.child(t as u64))?;
        summary.iterations_done = t;
        if schedule.is_kept(t) {
            // What a fit reports of a cell is its mean count μ_n (E[y_n | μ, r]; under the
            // negative binomial, not the sample's μ_n δ_n, whose multiplier has seen the cell):
            // the rates, the total, the watched cells, the functional and the ranks all read it.
            sampler.model().mean_rates_into(&mut rates);
            let dispersion = sampler.model().dispersion();
            let mut total = 0.0;
            for ((s, q), r) in rate_sums.iter_mut().zip(&mut rate_squares).zip(&rates) {
                *s += r;
                *q += r * r;
                total += r;
            }
            summary.kept_total_rate.push(total);
            let model = sampler.model();
            let counts = sampler.counts().iter().enumerate().filter(|&(n, _)| !model.is_excluded(n));
            summary.kept_total_count.push(counts.map(|(_, &y)| f64::from(y)).sum());
            summary.kept_dispersion.extend(dispersion.map(|d| d.shape));
            summary.kept_share.extend(dispersion.map(|d| d.share));
            if !watch.entries.is_empty() {
                summary.kept_watched_rates.push(watch.entries.iter().map(|&n| rates[n]).collect());
            }
            if let Some(functional) = watch.monitor.functional {
                summary.kept_functional.push(functional(&rates));
            }
            if let Some(statistics) = watch.monitor.statistics {
                let values = statistics(&rates, dispersion, t);
                if !values.is_empty() {
                    summary.kept_statistics.push(values);
                }
            }
            if let Some(pointwise) = watch.monitor.pointwise {
                summary.kept_pointwise.push(pointwise(&rates, dispersion));
            }
            if watch.monitor.assignments {
                summary.kept_assignments.push(assignments(sampler.model()));
            }
            if !true_targets.is_empty() {
                calibration_targets(&rates, cols, &mut targets);
                for ((rank, x), truth) in summary.truth_ranks.iter_mut().zip(&targets).zip(&true_targets) {
                    *rank += u32::from(x < truth);
                }
            }
            for (sum, block) in factor_sums.iter_mut().zip(sampler.model().factors()) {
                for (s, x) in sum.mean.iter_mut().zip(block.values) {
                    *s += x;
                }
            }
            // ln p(Z, Y) reads each cell's Poisson rate, μ_n δ_n under the negative binomial, whose
            // means over the kept samples are the cells' rates in this table.
            let ln_joint = if dispersion.is_some() {
                cell_rates.resize(rows * cols, 0.0);
                sampler.model().rates_into(&mut cell_rates);
                cell_rate_sums.iter_mut().zip(&cell_rates).for_each(|(s, r)| *s += r);
                sampler.ln_joint(&cell_rates)
            } else {
                sampler.ln_joint(&rates)
            };
            summary.kept_ln_joint.push((t, ln_joint));
            if summary.best.as_ref().is_none_or(|(_, best, _)| ln_joint > *best) {
                summary.best = Some((t, ln_joint, sampler.model().clone()));
            }
        }
        let progress = Progress { iteration: t, iterations: schedule.iterations(), kept: summary.kept_ln_joint.len() };
        if on_progress(progress).is_break() {
            summary.cancelled = t < schedule.iterations();
            break;
        }
    }
    // The means and sds overwrite the sums they come from (no second copy of a rate per cell).
    drop(rates);
    drop(cell_rates);
    let kept = summary.kept_ln_joint.len().max(1) as f64;
    let (mut mean, mut sd) = (rate_sums, rate_squares);
    for (s, q) in mean.iter_mut().zip(&mut sd) {
        *s /= kept;
        *q = (*q / kept - *s * *s).max(0.0).sqrt();
    }
    (summary.mean_rates, summary.sd_rates) = (mean, sd);
    cell_rate_sums.iter_mut().for_each(|s| *s /= kept);
    summary.mean_cell_rates = cell_rate_sums;
    for f in &mut factor_sums {
        f.mean.iter_mut().for_each(|s| *s /= kept);
    }
    summary.mean_factors = factor_sums;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::{GammaPrior, TopicModel};

    /// A row's component does not move when a topic is rescaled with every rate kept (`θ_·0 × 40`,
    /// `φ_0· / 40`), though the rows' largest `θ` do.
    #[test]
    fn assignments_do_not_follow_a_rescaled_component() {
        let model = TopicModel::new(30, 20, 4, GammaPrior::new(0.5, 1.0).unwrap(), Streams::new(1));
        let mut moved = model.clone();
        let theta: Vec<f64> =
            model.theta().iter().enumerate().map(|(n, &x)| if n % 4 == 0 { x * 40.0 } else { x }).collect();
        let mut phi = model.phi_topic_major();
        phi[..20].iter_mut().for_each(|x| *x /= 40.0);
        moved.set_factors(&theta, &phi).unwrap();
        assert_eq!(assignments(&moved), assignments(&model));
        let largest_theta = |m: &TopicModel| -> Vec<usize> {
            m.theta().chunks_exact(4).map(|r| (0..4).fold(0, |b, k| if r[k] > r[b] { k } else { b })).collect()
        };
        assert_ne!(largest_theta(&moved), largest_theta(&model));
    }
}
