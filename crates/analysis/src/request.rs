//! A whole fit of one's own table, from the options a user types (`lppf fit`, `lppf.fit` in
//! Python) to a fit directory: [`plan_fit`] checks the options and the output place, reads the
//! table, holds out cells and estimates the cost; [`run_fit`] runs the chains, the "no structure"
//! verdict, and commits every output file at once (`fit_dir.rs`: a pending directory put in
//! place), so a directory holds a whole fit or none and `--force` replaces only a fit's files.

use crate::fit_dir::{commit_fit, prepare_output};
use crate::{
    FitCost, FitData, FitError, FitResult, FitSettings, LevelSource, Machine, Weighting, fit_chains_from, fit_cost,
    hold_out, independence_verdict, load, seed_from_os, summary_text, write_outputs,
};
use distributions::Streams;
use inference::{Algorithm, BesselArgument, CaviSettings, MEstimate, Method, PrivateStep, Schedule, Start};
use models::{Dispersion, GammaPrior, Likelihood, ModelKind, ScalePrior};
use std::fmt::Write as _;
use std::path::PathBuf;
use tables::CountsFormat;

/// The stream of the held-out cells: `Streams::new(seed).child(HOLDOUT_STREAM)` (chains use
/// children 0, 1, …).
const HOLDOUT_STREAM: u64 = u64::MAX;

/// The marker of a fit directory: written with the rest, so a directory holding it is a whole fit.
pub const FIT_FILE: &str = "fit.toml";

/// The factors' prior: `auto` is hierarchical for the Gibbs methods and flat for CAVI
/// (docs/model-checking.md, "Defaults").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorChoice {
    Auto,
    /// Every factor `~ Gamma(a0, rate b0)`.
    Flat,
    /// Each row's factors share a rate learned from the data: `θ_dk ~ Gamma(a0, rate ξ_d)`,
    /// `ξ_d ~ Gamma(a', rate κ)`.
    Hierarchical,
}

/// The likelihood: `auto` is the contaminated form for the Gibbs methods, Poisson for CAVI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LikelihoodChoice {
    Auto,
    /// `y ~ Pois(μ)`.
    Poisson,
    /// `y ~ Pois(μδ), δ ~ Gamma(r, rate r)`: variance `μ + μ²/r`.
    NegativeBinomial,
    /// `y ~ (1 − π) Pois(μ) + π NB(r, μ)`: a learned share `π` of the cells is overdispersed.
    Contaminated,
}

/// The directed block model's Hamiltonian move after each Gibbs sweep (`models::hmc`): `auto` runs
/// it wherever it applies (the directed block model's Gibbs methods with plain chains), `on`
/// asks for it (an error where it does not apply), `off` leaves the sweep alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveChoice {
    Auto,
    On,
    Off,
}

/// The hierarchical prior's scale `κ`: learned (`κ ~ Gamma(1, rate 1/a')`), or fixed so the
/// rates' prior mean is `b'`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScaleMean {
    Learned,
    Fixed(f64),
}

macro_rules! named {
    ($ty:ident { $($variant:ident = $name:literal),+ $(,)? }, $setting:literal) => {
        impl $ty {
            /// Every choice, as named on the command line.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The choice named `name`, or a [`FitError::Setting`] listing the names.
            pub fn from_name(name: &str) -> Result<Self, FitError> {
                match name {
                    $($name => Ok(Self::$variant),)+
                    other => Err(FitError::setting($setting, format!("{other:?}"), format!("one of {}", Self::NAMES.join(", ")))),
                }
            }

            /// The name of this choice on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }
    };
}
named!(PriorChoice { Auto = "auto", Flat = "flat", Hierarchical = "hierarchical" }, "--prior");
named!(
    LikelihoodChoice { Auto = "auto", Poisson = "poisson", NegativeBinomial = "negative-binomial", Contaminated = "contaminated" },
    "--likelihood"
);
named!(MoveChoice { Auto = "auto", On = "on", Off = "off" }, "--hamiltonian-move");

impl ScaleMean {
    /// `"learned"` or a number (checked by [`ScalePrior::new`]).
    pub fn from_name(text: &str) -> Result<Self, FitError> {
        match text {
            "learned" => Ok(Self::Learned),
            number => number.parse::<f64>().map(Self::Fixed).map_err(|_| {
                FitError::Input(format!(
                    "--scale-mean {number:?} is not allowed: it must be \"learned\" or a number from 1e-6 to 1e6"
                ))
            }),
        }
    }
}

/// Weighting by the CLI's names: `equal`, `stacking`, `auto`.
pub fn weighting_from_name(name: &str) -> Result<Weighting, FitError> {
    match name {
        "equal" => Ok(Weighting::Equal),
        "stacking" => Ok(Weighting::Stacking),
        "auto" => Ok(Weighting::Auto),
        other => Err(FitError::setting("--weights", format!("{other:?}"), "one of auto, equal, stacking")),
    }
}

/// `--dispersion-prior SHAPE,RATE`: the shape and **rate** of a learned `r`'s gamma prior, as two
/// numbers (their ranges are checked by [`plan_fit`]).
pub fn dispersion_prior_from_text(text: &str) -> Result<(f64, f64), FitError> {
    let pair = text.split_once(',').and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
    pair.ok_or_else(|| {
        FitError::setting("--dispersion-prior", format!("{text:?}"), "two numbers SHAPE,RATE, e.g. 10,10")
    })
}

/// Everything `lppf fit` is told, by the same names and with the same defaults
/// ([`FitRequest::new`]).
#[derive(Clone, Debug)]
pub struct FitRequest {
    /// A release (`row,col,value` with its sidecar) for the naïve and private methods, raw counts
    /// (laid out as `counts_format` says) for non-private and cavi.
    pub input: PathBuf,
    /// Raw counts held in memory instead of the file `input` (which then names them in
    /// messages): a DataFrame from Python, for the non-private methods; never written to disk.
    pub records: Option<tables::CountRecords>,
    pub counts_format: CountsFormat,
    pub model: ModelKind,
    /// Communities (block) or topics (topic).
    pub components: usize,
    pub method: Method,
    /// Gibbs chains or CAVI starts.
    pub chains: usize,
    pub iterations: usize,
    /// Sweeps discarded at the start of each chain; `None`: half of `iterations` (1,000 of the
    /// default 2,000), so that a shorter run needs only its `iterations`.
    pub burn_in: Option<usize>,
    pub thin: usize,
    /// CAVI: at most this many iterations per start, stopping when the relative ELBO change falls
    /// below `tolerance`.
    pub max_iterations: usize,
    pub tolerance: f64,
    /// Gamma prior shape `a0` and rate `b0` of every factor.
    pub a0: f64,
    pub b0: f64,
    pub prior: PriorChoice,
    /// The hierarchical prior's shape `a'` (default 10) and scale (default learned); `None`: the
    /// default. Given with a flat prior they would do nothing, so they are refused.
    pub scale_shape: Option<f64>,
    pub scale_mean: Option<ScaleMean>,
    pub likelihood: LikelihoodChoice,
    /// The negative binomial's dispersion `r`, given instead of learned.
    pub dispersion: Option<f64>,
    /// The prior `Gamma(shape, rate)` of a learned `r`; `None`: [`Dispersion::default_learned`].
    pub dispersion_prior: Option<(f64, f64)>,
    /// Sweeps at the start of each chain in which a learned `r` is held at
    /// `inference::WARM_UP_DISPERSION` (`Schedule::with_dispersion_warm_up`); `None`: half the
    /// burn-in when `r` is learned.
    pub dispersion_warm_up: Option<usize>,
    /// Where a release's noise levels come from.
    pub levels: LevelSource,
    /// Fit with stated levels even where they contradict the release's sidecar.
    pub override_sidecar: bool,
    /// Hide this fraction of the modelled cells and score them.
    pub holdout: Option<f64>,
    pub weighting: Weighting,
    /// Replica exchange: replicas per chain (1: plain chains).
    pub replicas: usize,
    /// The directed block model's Hamiltonian move after each sweep (`models::hmc`).
    pub hamiltonian_move: MoveChoice,
    pub private_step: PrivateStep,
    /// Where each Gibbs chain starts.
    pub start: Start,
    /// Run the chains on to twice their length each time ([`inference::Schedule::extended`]),
    /// until the convergence verdict is `mixed` or the next run would pass this many sweeps per
    /// chain (`None`: run the schedule once).
    pub until_mixed: Option<usize>,
    /// Seed of the chains and the held-out cells; `None`: drawn from the operating system and
    /// recorded in fit.toml.
    pub seed: Option<u64>,
    /// The fit directory.
    pub output: PathBuf,
    /// Replace a fit already in `output`.
    pub force: bool,
    /// Run even if the estimated memory exceeds what is available.
    pub allow_memory: bool,
    /// Tables the test of the release draws at most ([`crate::structure_test`]): 0 skips the
    /// test; otherwise from [`MIN_STRUCTURE_TABLES`], so that its p-value can reach its level.
    pub structure_tables: usize,
}

/// The fewest tables a test of the release may draw: its smallest p-value is `1/(B + 1)`, which
/// must reach the level 0.01.
pub const MIN_STRUCTURE_TABLES: usize = 99;
/// The most: ten times the default, already a p-value resolution of 5·10⁻⁴.
pub const MAX_STRUCTURE_TABLES: usize = 10 * crate::structure_test::STRUCTURE_TEST_REPLICATES;

impl FitRequest {
    /// A request with `lppf fit`'s defaults: 4 chains of 2000 sweeps (1000 burn-in, thin 5),
    /// Gamma(1, 1), `auto` prior, likelihood and Hamiltonian move, levels from the sidecar, `auto`
    /// weights, the collapsed private step, a seed from the operating system.
    pub fn new(
        input: impl Into<PathBuf>,
        model: ModelKind,
        components: usize,
        method: Method,
        output: impl Into<PathBuf>,
    ) -> Self {
        Self {
            input: input.into(),
            records: None,
            counts_format: CountsFormat::default(),
            model,
            components,
            method,
            chains: 4,
            iterations: 2000,
            burn_in: None,
            thin: 5,
            max_iterations: 1000,
            tolerance: 1e-6,
            a0: 1.0,
            b0: 1.0,
            prior: PriorChoice::Auto,
            scale_shape: None,
            scale_mean: None,
            likelihood: LikelihoodChoice::Auto,
            dispersion: None,
            dispersion_prior: None,
            dispersion_warm_up: None,
            levels: LevelSource::Sidecar,
            override_sidecar: false,
            holdout: None,
            weighting: Weighting::Auto,
            replicas: 1,
            hamiltonian_move: MoveChoice::Auto,
            private_step: PrivateStep::default(),
            start: Start::Prior,
            until_mixed: None,
            seed: None,
            output: output.into(),
            force: false,
            allow_memory: false,
            structure_tables: crate::structure_test::STRUCTURE_TEST_REPLICATES,
        }
    }
}

/// A checked fit, ready to run: its settings, the table it reads (with any held-out cells), and
/// its estimated cost.
#[derive(Debug)]
pub struct FitPlan {
    pub settings: FitSettings,
    pub data: FitData,
    pub cost: FitCost,
    /// Where the seed came from, for fit.toml.
    pub seed_source: &'static str,
    /// The estimate, for the user: cells, chains, how many at a time, memory and work.
    pub estimate: String,
    /// Iterations the progress callback of [`run_fit`] is called for, in all.
    pub progress_len: u64,
}

/// What a finished fit says: the summary (also in summary.txt) and its warnings (the summary's
/// `WARNING` lines, without the prefix).
#[derive(Clone, Debug)]
pub struct FitDone {
    pub summary: String,
    pub warnings: Vec<String>,
    pub output: PathBuf,
}

/// The hierarchical prior's default shape `a'` of the rates' scales (`--scale-shape`).
pub const DEFAULT_SCALE_SHAPE: f64 = 10.0;

/// The hierarchical prior `lppf fit` uses by default: scale shape [`DEFAULT_SCALE_SHAPE`], its
/// mean learned.
pub fn default_scale_prior() -> ScalePrior {
    scale_prior(DEFAULT_SCALE_SHAPE, ScaleMean::Learned).expect("the default is in range")
}

/// The prior of `scale_shape`, `scale_mean`.
fn scale_prior(shape: f64, mean: ScaleMean) -> Result<ScalePrior, FitError> {
    let input = |e: models::PriorError| FitError::Input(e.to_string());
    match mean {
        ScaleMean::Learned => ScalePrior::new(shape, 1.0).and_then(|p| p.with_learned_mean(1.0)).map_err(input),
        ScaleMean::Fixed(mean) => ScalePrior::new(shape, mean).map_err(input),
    }
}

/// Checks the request and the output place, reads the table and holds out cells: nothing runs
/// and nothing is written yet. Refuses a fit that would not fit in memory even one chain at a
/// time (unless `allow_memory`).
pub fn plan_fit(request: &FitRequest) -> Result<FitPlan, FitError> {
    let input = |e: &dyn std::fmt::Display| FitError::Input(e.to_string());
    let prior = GammaPrior::new(request.a0, request.b0).map_err(|e| input(&e))?;
    // `auto`: the hierarchical prior and the contaminated likelihood for the Gibbs methods (chosen
    // by a rule written before the data sets it was judged on: docs/model-checking.md, "Defaults").
    // CAVI keeps the flat prior and the Poisson likelihood: it has no overdispersed updates, and
    // its hierarchical updates are tested but not calibrated.
    let gibbs = !request.method.is_cavi();
    let hierarchical = match request.prior {
        PriorChoice::Auto => gibbs,
        choice => choice == PriorChoice::Hierarchical,
    };
    if !hierarchical && (request.scale_shape.is_some() || request.scale_mean.is_some()) {
        return Err(input(&format!(
            "--scale-shape and --scale-mean set the hierarchical prior, which this fit does not use (the prior is flat{}); \
             drop them, or pass --prior hierarchical",
            if request.prior == PriorChoice::Auto { ": auto is flat for CAVI" } else { "" }
        )));
    }
    let scale = if hierarchical {
        Some(scale_prior(
            request.scale_shape.unwrap_or(DEFAULT_SCALE_SHAPE),
            request.scale_mean.unwrap_or(ScaleMean::Learned),
        )?)
    } else {
        None
    };
    // The overdispersed likelihood chosen, as a function of its dispersion `r` (the tensor model
    // is Poisson only: `auto` is Poisson for it).
    let overdispersed: Option<fn(Dispersion) -> Likelihood> = match request.likelihood {
        LikelihoodChoice::NegativeBinomial | LikelihoodChoice::Contaminated if !request.model.has_overdispersion() => {
            return Err(input(&format!(
                "--likelihood {} is not allowed with --model {}: it has the Poisson likelihood only (auto or poisson)",
                request.likelihood.name(),
                request.model.name()
            )));
        }
        LikelihoodChoice::NegativeBinomial => Some(Likelihood::NegativeBinomial),
        LikelihoodChoice::Auto if gibbs && request.model.has_overdispersion() => Some(Likelihood::Contaminated),
        LikelihoodChoice::Contaminated => Some(Likelihood::Contaminated),
        LikelihoodChoice::Auto | LikelihoodChoice::Poisson => None,
    };
    let negative_binomial = overdispersed.is_some();
    let likelihood = match (overdispersed, request.dispersion, request.dispersion_prior) {
        (Some(wrap), None, None) => wrap(Dispersion::default_learned()),
        (Some(wrap), None, Some((shape, rate))) => wrap(Dispersion::learned_with(shape, rate).map_err(|e| input(&e))?),
        (Some(wrap), Some(r), None) => wrap(Dispersion::given(r).map_err(|e| input(&e))?),
        (Some(_), Some(r), Some(_)) => {
            return Err(input(&format!(
                "--dispersion {r} gives r and --dispersion-prior sets the prior of a learned r: pass one of them"
            )));
        }
        (None, None, None) => Likelihood::Poisson,
        (None, Some(_), _) | (None, _, Some(_)) => {
            let flag = if request.dispersion.is_some() { "--dispersion" } else { "--dispersion-prior" };
            return Err(input(&format!(
                "{flag} applies to --likelihood negative-binomial or contaminated only (this fit's likelihood is \
                 poisson{})",
                if request.likelihood == LikelihoodChoice::Auto { ": auto is poisson for CAVI" } else { "" }
            )));
        }
    };
    if let Some(cap) = request.until_mixed.filter(|_| request.method.is_cavi()) {
        return Err(input(&format!("--until-mixed {cap} applies to the Gibbs methods, not to CAVI")));
    }
    let algorithm = if request.method.is_cavi() {
        if let Some(sweeps) = request.dispersion_warm_up.filter(|&n| n > 0) {
            return Err(input(&format!("--dispersion-warm-up {sweeps} applies to the Gibbs methods, not to CAVI")));
        }
        let settings =
            CaviSettings::new(request.max_iterations, request.tolerance, MEstimate::Mode, BesselArgument::DeltaMethod);
        Algorithm::Cavi(settings.map_err(|e| input(&e))?)
    } else {
        let burn_in = request.burn_in.unwrap_or(request.iterations / 2);
        let schedule = Schedule::new(request.iterations, burn_in, request.thin).map_err(|e| input(&e))?;
        let learned = matches!(likelihood.dispersion(), Some(Dispersion::Learned(_)));
        let warm_up = match (learned, request.dispersion_warm_up) {
            (true, sweeps) => sweeps.unwrap_or(burn_in / 2),
            (false, None | Some(0)) => 0,
            (false, Some(sweeps)) => {
                return Err(input(&format!(
                    "--dispersion-warm-up {sweeps} holds a learned dispersion r, and this fit has none (its likelihood \
                     is {}); drop it",
                    if negative_binomial { "overdispersed with r given" } else { "poisson" }
                )));
            }
        };
        let schedule = schedule.with_dispersion_warm_up(warm_up).map_err(|_| {
            FitError::setting(
                "--dispersion-warm-up",
                warm_up,
                format!("at most --burn-in ({burn_in}), which discards the sweeps it holds r in"),
            )
        })?;
        if let Some(cap) = request.until_mixed {
            schedule.runs_until_mixed(cap).map_err(|_| {
                let allowed = format!("at least --iterations ({}), the length of the first run", request.iterations);
                FitError::setting("--until-mixed", cap, allowed)
            })?;
        }
        Algorithm::Gibbs(schedule.with_private_step(request.private_step).with_start(request.start))
    };
    let tables = request.structure_tables;
    if tables != 0 && !(MIN_STRUCTURE_TABLES..=MAX_STRUCTURE_TABLES).contains(&tables) {
        return Err(FitError::setting(
            "--structure-tables",
            tables,
            format!(
                "0 (no test of the release), or {MIN_STRUCTURE_TABLES} to {MAX_STRUCTURE_TABLES} (fewer cannot reach \
                 its level p ≤ 0.01)"
            ),
        ));
    }
    // `auto`: the move wherever it applies (chosen on the Fig. 4-size SBC and the planted networks:
    // docs/inference.md, "The Hamiltonian move of the block model").
    let movable = crate::settings::move_applies_to(request.model, !request.method.is_cavi());
    let hamiltonian_move = match request.hamiltonian_move {
        MoveChoice::Auto => movable && request.replicas == 1,
        MoveChoice::Off => false,
        MoveChoice::On if !movable => {
            return Err(input(&format!(
                "--hamiltonian-move on is not allowed with --model {} --method {}: it moves the directed block \
                 model's factors in its Gibbs methods (--model block with --method private, naive or non-private)",
                request.model.name(),
                request.method.name()
            )));
        }
        MoveChoice::On if request.replicas > 1 => {
            return Err(input(&format!(
                "--hamiltonian-move on is not allowed with --replicas {}: replica exchange swaps on the complete-data \
                 energy of the last sweep's allocation, which the move sums out; use one or the other",
                request.replicas
            )));
        }
        MoveChoice::On => true,
    };
    if request.method.is_cavi() && !request.model.has_cavi() {
        return Err(input(&format!(
            "--method {} is not allowed with --model {}: it has no CAVI; use private, naive or non-private",
            request.method.name(),
            request.model.name()
        )));
    }
    prepare_output(&request.output, request.force)?;
    if !request.method.reads_released() && request.levels != LevelSource::Sidecar {
        return Err(input(&format!(
            "--alpha and --alpha-file apply to released data, not to method {}",
            request.method.name()
        )));
    }
    let mut data = load(
        &request.input,
        request.method,
        request.model,
        &request.levels,
        request.override_sidecar,
        &request.counts_format,
        request.records.as_ref(),
    )?;
    let (seed, seed_source) = match request.seed {
        Some(s) if s > crate::data::MAX_SEED => {
            return Err(FitError::setting(
                "--seed",
                s,
                format!("an integer from 0 to {} (fit.toml records it as a TOML integer)", crate::data::MAX_SEED),
            ));
        }
        Some(s) => (s, "--seed"),
        None => (seed_from_os()?, "operating-system entropy (recorded here to repeat the fit)"),
    };
    if let Some(fraction) = request.holdout {
        hold_out(&mut data, fraction, Streams::new(seed).child(HOLDOUT_STREAM))?;
    }
    let settings = FitSettings {
        model: request.model,
        components: request.components,
        prior,
        scale,
        likelihood,
        method: request.method,
        chains: request.chains,
        algorithm,
        seed,
        weighting: request.weighting,
        replicas: request.replicas,
        hamiltonian_move,
    };
    let machine = Machine::this();
    let cost =
        fit_cost(&settings, data.shape(), data.heldout.len(), machine).with_structure_tables(request.structure_tables);
    if let Some(total) = runner::total_memory()
        && cost.least_bytes > total
    {
        return Err(input(&format!(
            "the fit needs {} of memory even with one chain at a time, more than the {} this machine has in all \
             (memory and swap), so it cannot run here even with --allow-memory; use fewer --chains, --iterations \
             (or a larger --thin), --components or a smaller table",
            runner::bytes_text(cost.least_bytes),
            runner::bytes_text(total)
        )));
    }
    if let Some(available) = machine.available
        && cost.least_bytes > available
        && !request.allow_memory
    {
        return Err(input(&format!(
            "the fit needs {} of memory even with one chain at a time, but {} is available; use fewer --chains, --iterations (or a larger --thin), \
             --components or a smaller table, or pass --allow-memory",
            runner::bytes_text(cost.least_bytes),
            runner::bytes_text(available)
        )));
    }
    let (rows, cols) = data.shape();
    let at_a_time = if cost.chains_at_once < request.chains.min(machine.threads) {
        format!(
            "{} at a time, to stay within the {} of memory available (the results are the same)",
            cost.chains_at_once,
            machine.available.map_or_else(|| "?".into(), runner::bytes_text)
        )
    } else {
        format!("on {} threads", machine.threads)
    };
    let mut estimate =
        format!("fitting {rows} × {cols} cells, {} chains {at_a_time}: {}", request.chains, cost.describe());
    if let Some(cap) = request.until_mixed {
        let _ =
            write!(estimate, "; until the chains mix, run them on to twice their length, up to {cap} sweeps per chain");
    }
    let per_chain = match algorithm {
        Algorithm::Gibbs(s) => s.iterations(),
        Algorithm::Cavi(c) => c.max_iterations(),
    };
    // With held-out cells, the independence model is fitted too (the "no structure" verdict).
    let fits = if request.holdout.is_some() { 2 } else { 1 };
    // …and with two or more components the test of the release draws up to this many tables
    // (fewer when it stops early).
    let tables = if settings.components >= 2 { request.structure_tables } else { 0 };
    let progress_len = (per_chain * request.chains * fits + tables) as u64;
    Ok(FitPlan { settings, data, cost, seed_source, estimate, progress_len })
}

/// Whether a fit's chains mixed by the convergence verdict.
fn is_mixed(result: &FitResult) -> bool {
    result.assessment.as_ref().is_some_and(|a| a.verdict == inference::convergence::Convergence::Mixed)
}

/// A fit that `--until-mixed` runs on because its chains have not mixed: from `from` sweeps per
/// chain to `to`, adding `added` iterations to the progress count (the new sweeps of every chain,
/// or all of them when the chains start afresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension {
    pub from: usize,
    pub to: usize,
    pub added: u64,
}

impl Extension {
    /// The line a user reads when it happens.
    pub fn message(&self) -> String {
        format!(
            "the chains have not mixed after {} sweeps each: running them on to {} (--until-mixed)",
            self.from, self.to
        )
    }
}

/// Runs a planned fit and commits its directory: `on_iteration` is called once per chain
/// iteration (from the chains' threads) and once per bootstrap table of the test of the release.
pub fn run_fit(plan: &FitPlan, request: &FitRequest, on_iteration: &(dyn Fn() + Sync)) -> Result<FitDone, FitError> {
    run_fit_observed(plan, request, on_iteration, &|_| {})
}

/// [`run_fit`], also calling `on_extend` each time `--until-mixed` runs the chains on (before the
/// longer run starts), so that a progress display can grow and say why.
pub fn run_fit_observed(
    plan: &FitPlan,
    request: &FitRequest,
    on_iteration: &(dyn Fn() + Sync),
    on_extend: &(dyn Fn(Extension) + Sync),
) -> Result<FitDone, FitError> {
    let FitPlan { data, seed_source, .. } = plan;
    let mut settings = plan.settings.clone();
    let runs = match (request.until_mixed, settings.algorithm) {
        (Some(cap), Algorithm::Gibbs(first)) => first.doublings(cap).collect(),
        _ => Vec::new(),
    };
    let (mut result, mut states) = fit_chains_from(&settings, data, Vec::new(), runs.len() > 1, on_iteration)?;
    if !runs.is_empty() {
        // The same chains run on to twice their length each time (continued from where they
        // stopped when their states could be kept, else afresh: the same draws either way),
        // until they mix or the next run would pass the cap.
        let mut lengths = vec![runs[0].iterations()];
        for (k, &schedule) in runs.iter().enumerate().skip(1) {
            if is_mixed(&result) {
                break;
            }
            settings.algorithm = Algorithm::Gibbs(schedule);
            let from = runs[k - 1].iterations();
            let new_sweeps = if states.is_empty() { schedule.iterations() } else { schedule.iterations() - from };
            on_extend(Extension { from, to: schedule.iterations(), added: (new_sweeps * settings.chains) as u64 });
            let more = k + 1 < runs.len();
            let earlier = result.seconds;
            (result, states) = fit_chains_from(&settings, data, std::mem::take(&mut states), more, on_iteration)?;
            // The fit's time is every run's (what ESS per second divides by).
            result.seconds += earlier;
            lengths.push(schedule.iterations());
        }
        result.lengths = lengths;
    }
    drop(states);
    let settings = &settings;
    result.verdict = independence_verdict(settings, data, &result, on_iteration)?;
    result.structure_test = match request.structure_tables {
        0 => None,
        tables => crate::structure_test::table_structure_test(
            data,
            settings.model,
            settings.components,
            tables,
            settings.seed,
            on_iteration,
        ),
    };
    commit_fit(&request.output, |dir| write_outputs(dir, settings, data, &result, seed_source, request.holdout))?;
    Ok(FitDone {
        summary: summary_text(settings, data, &result),
        warnings: crate::report::warnings(settings, data, &result),
        output: request.output.clone(),
    })
}
