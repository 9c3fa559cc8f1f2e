//! `lppf fit`: the analyst's side. The options of [`analysis::plan_fit`] and [`analysis::run_fit`]
//! (a model fitted to a released table, or for comparison to raw counts, with several chains in
//! parallel, the posterior written by label to a directory) as flags, with a progress bar.

use crate::{Failure, bad_input, failed};
use analysis::{
    FitError, FitRequest, LevelSource, LikelihoodChoice, MoveChoice, OUTPUT_FILES, PriorChoice, ScaleMean,
    dispersion_prior_from_text, plan_fit, run_fit_observed, weighting_from_name,
};
use indicatif::{ProgressBar, ProgressStyle};
use inference::Method;
use models::ModelKind;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("levels").multiple(false).args(["alpha", "alpha_file"])))]
pub struct FitArgs {
    /// The data: a release (row,col,value, with its .privacy.toml) for the naive and private
    /// methods; raw counts (row,col,count; 3 or 3.0) for non-private and cavi. CSV, TSV when the
    /// name ends in .tsv or .tab, Parquet (any common codec) when it ends in .parquet.
    #[arg(long)]
    input: PathBuf,
    /// How raw counts are laid out (non-private and cavi only).
    #[command(flatten)]
    layout: crate::counts_layout::CountsLayout,
    /// block (a directed network: the same labels on both axes), undirected (a network released
    /// once per pair, `lppf privatize --symmetric`), topic (documents × words, any rows ×
    /// columns) or tensor (counts over time, row,col,time: `lppf privatize --time-column`).
    #[arg(long, value_parser = parse_model)]
    model: ModelKind,
    /// Number of communities (block, undirected), topics (topic) or components (tensor).
    #[arg(long)]
    components: usize,
    /// private, naive, private-cavi, naive-cavi (released data); non-private, cavi (raw counts).
    #[arg(long, value_parser = parse_method)]
    method: Method,
    /// Gibbs chains, or CAVI starts, run in parallel.
    #[arg(long, default_value_t = 4)]
    chains: usize,
    /// Gibbs sweeps per chain.
    #[arg(long, default_value_t = 2000)]
    iterations: usize,
    /// Gibbs sweeps discarded at the start of each chain [default: half of --iterations].
    #[arg(long)]
    burn_in: Option<usize>,
    /// Keep every THIN-th sweep after the burn-in.
    #[arg(long, default_value_t = 5)]
    thin: usize,
    /// CAVI: at most this many iterations per start.
    #[arg(long, default_value_t = 1000)]
    max_iterations: usize,
    /// CAVI: stop when the relative ELBO change falls below this.
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
    /// Gamma prior shape a0 of every factor. The default 1 (with b0 = 1: an exponential prior)
    /// is weakly informative; a sparse prior (a0 < 1) shrinks the rates strongly when the noise
    /// is high (docs/own-data.md, "Prior").
    #[arg(long, default_value_t = 1.0)]
    a0: f64,
    /// Gamma prior rate b0 of every factor (with --prior flat).
    #[arg(long, default_value_t = 1.0)]
    b0: f64,
    /// flat: every factor ~ Gamma(a0, b0). hierarchical: each row's factors share a rate learned
    /// from the data, θ_dk ~ Gamma(a0, ξ_d), ξ_d ~ Gamma(a', κ) (--scale-shape a'); so do each
    /// column's (topic model) or the community rates π (block model); κ is learned too
    /// (--scale-mean). auto: hierarchical for the Gibbs methods, flat for CAVI
    /// (docs/model-checking.md, "Defaults").
    #[arg(long, default_value = "auto", value_parser = ["auto", "flat", "hierarchical"])]
    prior: String,
    /// Hierarchical prior: the shape a' of the row and column rates. The default 10 keeps the rows'
    /// scales close together (a' = 1, hierarchical Poisson factorization's choice, lets each row's
    /// scale wander and biased the total of sparse tables: docs/model-checking.md).
    /// [default: 10]
    #[arg(long)]
    scale_shape: Option<f64>,
    /// Hierarchical prior: "learned" (the rates' rate κ ~ Gamma(1, rate 1/a'), an exponential with
    /// mean a', so the rates' common scale is learned from the data), or a number b' fixing
    /// κ = a'/b' (the rates' prior mean is then b').
    /// [default: learned]
    #[arg(long)]
    scale_mean: Option<String>,
    /// poisson: y ~ Pois(μ). negative-binomial (Gibbs methods): y ~ Pois(μδ), δ ~ Gamma(r, rate r)
    /// per cell, i.e. variance μ + μ²/r; r is learned unless --dispersion gives it. contaminated
    /// (Gibbs methods): a learned share π of the cells is negative binomial, the rest Poisson, so
    /// heavy cells do not take the communities or topics with them (docs/model-checking.md,
    /// "Defaults"). auto: contaminated for the Gibbs methods, poisson for CAVI.
    #[arg(long, default_value = "auto", value_parser = ["auto", "poisson", "negative-binomial", "contaminated"])]
    likelihood: String,
    /// Overdispersed likelihoods: the dispersion shape r, given instead of learned.
    #[arg(long)]
    dispersion: Option<f64>,
    /// Overdispersed likelihoods: the prior of a learned r, "SHAPE,RATE" for Gamma(shape, rate)
    /// (mean shape/rate). A prior with little mass near 0 keeps r from collapsing unless the data
    /// demand it (docs/model-checking.md, "Planted designs").
    /// [default: 1,0.1]
    #[arg(long, value_name = "SHAPE,RATE", allow_hyphen_values = true)]
    dispersion_prior: Option<String>,
    /// Overdispersed likelihoods with r learned: the first sweeps of each chain in which r is
    /// held at 1, so the communities or topics settle before the cells' multipliers can explain
    /// the table by themselves (docs/model-checking.md, "Planted designs"). At most --burn-in: only
    /// the burn-in changes. 0: learn r from the first sweep.
    /// [default: half of --burn-in]
    #[arg(long, value_name = "SWEEPS")]
    dispersion_warm_up: Option<usize>,
    /// The noise level of every row, when the release has no .privacy.toml.
    #[arg(long)]
    alpha: Option<f64>,
    /// Each row's level (row,alpha or row,epsilon), when the release has no .privacy.toml.
    #[arg(long)]
    alpha_file: Option<PathBuf>,
    /// The precision N of epsilons in --alpha-file (alpha = exp(−epsilon/N)).
    #[arg(long, default_value_t = 1.0)]
    precision: f64,
    /// Hide this fraction of the modelled cells from the fit and report their held-out log
    /// predictive (under the released-data likelihood for a release, the Poisson likelihood for
    /// raw counts), and compare the fit with the independence model on them.
    #[arg(long)]
    holdout: Option<f64>,
    /// How the chains are pooled into the posterior means, sds and the total's interval. equal:
    /// every chain weighs the same (right when they mix). stacking: weights that maximise the log
    /// predictive of the mixture of chains (Yao, Vehtari & Gelman 2022; right when chains sit in
    /// different modes) on the held-out cells with --holdout, else each chain's PSIS-LOO
    /// predictive of up to 2000 cells it saw. auto: stacking when 2 or more Gibbs chains settle
    /// in different modes (the convergence verdict), equal otherwise.
    #[arg(long, default_value = "auto", value_parser = ["auto", "equal", "stacking"])]
    weights: String,
    /// Replica exchange (Gibbs methods): each chain runs this many replicas
    /// at a ladder of temperatures that swap states, so the cold one can cross between modes
    /// (docs/modes.md). The ladder adapts during burn-in; summary.txt reports the swap rates.
    /// Costs this many times the sweeps. 1: plain chains.
    #[arg(long, default_value_t = 1)]
    replicas: usize,
    /// The directed block model's Gibbs methods: after each sweep, a Hamiltonian move of all
    /// memberships and community rates at once with the allocations integrated out, its step and
    /// mass adapted during the burn-in (docs/inference.md). On heavy networks the sweep alone
    /// climbs for thousands of sweeps; the move gets there in hundreds. A sweep costs about 4
    /// times as much. auto (the default): on for the directed block model's Gibbs methods with
    /// plain chains (not with --replicas), off elsewhere. on (also the bare flag): ask for it.
    /// off: the sweep alone.
    #[arg(long, default_value = "auto", default_missing_value = "on", num_args = 0..=1, value_name = "WHEN",
          value_parser = ["auto", "on", "off"])]
    hamiltonian_move: String,
    /// With 2 or more components: the most tables the test of the release draws (its p-value's
    /// resolution is 1/(N + 1); a release without structure stops it early). 0 skips the test,
    /// e.g. on a large table, where it costs about as much as a few hundred sweeps; otherwise 99
    /// to 1990.
    #[arg(long, default_value_t = analysis::structure_test::STRUCTURE_TEST_REPLICATES, value_name = "N")]
    structure_tables: usize,
    /// How the private method draws the true counts each sweep. collapsed (the default): one
    /// exact draw from p(y | release, rate) with the noise auxiliaries integrated out
    /// (docs/inference.md). augmented: the paper's step (a Bessel, a binomial and two gamma
    /// draws per cell, with the auxiliaries kept between sweeps), for comparison with the paper.
    #[arg(long, default_value = "collapsed", value_parser = ["collapsed", "augmented"])]
    private_step: String,
    /// Where each Gibbs chain starts. prior (the default): factors drawn from the prior, as the
    /// papers do. cavi: the variational means of the best of 8 CAVI fits of the same data (500
    /// iterations at most each; the cost estimate counts the 4,000 as sweeps), which on block-model
    /// networks leaves fewer chains far below the others after the same sweeps
    /// (docs/inference.md). The undirected block model has no CAVI and starts from the prior.
    #[arg(long, default_value = "prior", value_parser = ["prior", "cavi"])]
    start: String,
    /// Gibbs methods: when the chains have not mixed (the convergence verdict), run them on to
    /// twice their length (iterations doubled, burn-in max(2 × burn-in, iterations), the draws
    /// kept after the earlier run's end), and again, until they mix or the next run would pass
    /// this many sweeps per chain. The chains continue where they stopped, so a fit that stops at
    /// N sweeps has cost N (with --replicas, or when the chains run in groups to save memory, each
    /// run starts afresh with the same draws, about 2N). Each run keeps at least as many draws per
    /// chain as the first, and `mixed` asks for 100 effective ones per chain, so keep more than
    /// 100 (the default schedule keeps 200). fit.toml records the lengths run (run_lengths).
    #[arg(long, value_name = "SWEEPS")]
    until_mixed: Option<usize>,
    /// Seed of the chains (and the held-out cells); without it one is drawn from the operating
    /// system and written to fit.toml.
    #[arg(long)]
    seed: Option<u64>,
    /// The directory to write rates.parquet, factors.parquet, trace.parquet, diagnostics.csv,
    /// fit.toml, summary.txt and figure.svg/.png to.
    #[arg(long)]
    output: PathBuf,
    /// Replace a fit already in --output.
    #[arg(long)]
    force: bool,
    /// Fit with --alpha or --alpha-file even where they contradict the release's sidecar (the
    /// levels the release states about itself); fit.toml then records what was overridden.
    #[arg(long)]
    override_sidecar: bool,
    /// Run even if the estimated peak memory exceeds the memory this machine has available.
    #[arg(long)]
    allow_memory: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long)]
    quiet: bool,
}

fn parse_model(s: &str) -> Result<ModelKind, String> {
    ModelKind::ALL
        .into_iter()
        .find(|k| k.name() == s)
        .ok_or_else(|| format!("{s:?} is not a model; use one of {}", ModelKind::ALL.map(ModelKind::name).join(", ")))
}

fn parse_method(s: &str) -> Result<Method, String> {
    Method::from_name(s)
        .ok_or_else(|| format!("{s:?} is not a method; use one of {}", Method::ALL.map(Method::name).join(", ")))
}

fn to_failure(e: FitError) -> Failure {
    if e.is_user_error() { bad_input(e) } else { failed(e) }
}

impl FitArgs {
    /// The library's request ([`analysis::FitRequest`]); clap has checked the names.
    fn request(&self) -> Result<FitRequest, FitError> {
        let levels = match (&self.alpha, &self.alpha_file) {
            (Some(a), _) => LevelSource::Alpha(*a),
            (_, Some(path)) => LevelSource::File { path: path.clone(), precision: self.precision },
            _ => LevelSource::Sidecar,
        };
        Ok(FitRequest {
            counts_format: self.layout.format(),
            chains: self.chains,
            iterations: self.iterations,
            burn_in: self.burn_in,
            thin: self.thin,
            max_iterations: self.max_iterations,
            tolerance: self.tolerance,
            a0: self.a0,
            b0: self.b0,
            prior: PriorChoice::from_name(&self.prior)?,
            scale_shape: self.scale_shape,
            scale_mean: self.scale_mean.as_deref().map(ScaleMean::from_name).transpose()?,
            likelihood: LikelihoodChoice::from_name(&self.likelihood)?,
            dispersion: self.dispersion,
            dispersion_prior: self.dispersion_prior.as_deref().map(dispersion_prior_from_text).transpose()?,
            dispersion_warm_up: self.dispersion_warm_up,
            levels,
            override_sidecar: self.override_sidecar,
            holdout: self.holdout,
            weighting: weighting_from_name(&self.weights)?,
            replicas: self.replicas,
            hamiltonian_move: MoveChoice::from_name(&self.hamiltonian_move)?,
            structure_tables: self.structure_tables,
            private_step: inference::PrivateStep::from_name(&self.private_step).unwrap_or_default(),
            start: inference::Start::from_name(&self.start).unwrap_or_default(),
            until_mixed: self.until_mixed,
            seed: self.seed,
            force: self.force,
            allow_memory: self.allow_memory,
            ..FitRequest::new(&self.input, self.model, self.components, self.method, &self.output)
        })
    }
}

pub fn fit(args: &FitArgs) -> Result<(), Failure> {
    let request = args.request().map_err(to_failure)?;
    let plan = plan_fit(&request).map_err(to_failure)?;
    if !args.quiet {
        eprintln!("{}", plan.estimate);
    }
    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let style =
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} iterations · ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(plan.progress_len).with_style(style)
    };
    // A longer run of --until-mixed grows the bar by its iterations and says why, above the bar
    // (or on its own line when there is no bar).
    let on_extend = |extension: analysis::Extension| {
        bar.inc_length(extension.added);
        if !args.quiet {
            bar.suspend(|| eprintln!("{}", extension.message()));
        }
    };
    let done = run_fit_observed(&plan, &request, &|| bar.inc(1), &on_extend).map_err(to_failure)?;
    bar.finish_and_clear();
    if !args.quiet {
        eprint!("{}", done.summary);
        eprintln!("\nwrote {} to {}", OUTPUT_FILES.join(", "), args.output.display());
    }
    Ok(())
}
