//! `lppf fit`: the analyst's side. Fits a model to a released table (or, for comparison, to raw
//! counts) with several chains in parallel and writes the posterior by label to a directory.

use crate::{Failure, bad_input, failed};
use analysis::{
    FitError, FitSettings, LevelSource, OUTPUT_FILES, Weighting, fit_chains, fit_cost, hold_out, independence_verdict,
    load, seed_from_os, summary_text, write_outputs,
};
use distributions::Streams;
use indicatif::{ProgressBar, ProgressStyle};
use inference::{Algorithm, BesselArgument, CaviSettings, MEstimate, Method, Schedule};
use models::{Dispersion, GammaPrior, Likelihood, ModelKind};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The stream of the held-out cells: `Streams::new(seed).child(HOLDOUT_STREAM)` (chains use
/// children 0, 1, …).
const HOLDOUT_STREAM: u64 = u64::MAX;

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
    /// block (a network: the same labels on both axes) or topic (rows × columns).
    #[arg(long, value_parser = parse_model)]
    model: ModelKind,
    /// Number of communities (block) or topics (topic).
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
    /// Gibbs sweeps discarded at the start of each chain.
    #[arg(long, default_value_t = 1000)]
    burn_in: usize,
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
    #[arg(long, default_value_t = 10.0)]
    scale_shape: f64,
    /// Hierarchical prior: "learned" (the rates' rate κ ~ Gamma(1, rate 1/a'), an exponential with
    /// mean a', so the rates' common scale is learned from the data), or a number b' fixing
    /// κ = a'/b' (the rates' prior mean is then b').
    #[arg(long, default_value = "learned")]
    scale_mean: String,
    /// poisson: y ~ Pois(μ). negative-binomial (Gibbs methods): y ~ Pois(μδ), δ ~ Gamma(r, r) per
    /// cell, i.e. variance μ + μ²/r, for overdispersed counts (most real networks and texts;
    /// docs/model-checking.md); r is learned unless --dispersion gives it. auto:
    /// negative-binomial for the Gibbs methods, poisson for CAVI.
    #[arg(long, default_value = "auto", value_parser = ["auto", "poisson", "negative-binomial"])]
    likelihood: String,
    /// Negative-binomial likelihood: the dispersion shape r, given instead of learned.
    #[arg(long)]
    dispersion: Option<f64>,
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
    /// How the private method draws the true counts each sweep. augmented: the paper's step
    /// (a Bessel, a binomial and two gamma draws per cell, with noise auxiliaries kept between
    /// sweeps). collapsed: one exact draw from p(y | release, rate) with the auxiliaries
    /// integrated out (docs/inference.md).
    #[arg(long, default_value = "augmented", value_parser = ["augmented", "collapsed"])]
    private_step: String,
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

/// The hierarchical prior of `--scale-shape A --scale-mean learned|B`.
fn scale_prior(shape: f64, mean: &str) -> Result<models::ScalePrior, Failure> {
    let fixed = |mean: f64| models::ScalePrior::new(shape, mean).map_err(bad_input);
    match mean {
        "learned" => fixed(1.0)?.with_learned_mean(1.0).map_err(bad_input),
        number => match number.parse::<f64>() {
            Ok(mean) => fixed(mean),
            Err(_) => Err(bad_input(format!(
                "--scale-mean {number:?} is not allowed: it must be \"learned\" or a number from 1e-6 to 1e6"
            ))),
        },
    }
}

pub fn fit(args: &FitArgs) -> Result<(), Failure> {
    let prior = GammaPrior::new(args.a0, args.b0).map_err(bad_input)?;
    // `auto`: the hierarchical prior and the negative binomial for the Gibbs methods (what held on
    // real releases and on model data: docs/model-checking.md, "Defaults"). CAVI keeps the flat
    // prior and the Poisson likelihood: it has no negative-binomial updates, and its hierarchical
    // updates (`--prior hierarchical`) are tested but not calibrated.
    let gibbs = !args.method.is_cavi();
    let hierarchical = match args.prior.as_str() {
        "auto" => gibbs,
        prior => prior == "hierarchical",
    };
    let scale = match hierarchical {
        true => Some(scale_prior(args.scale_shape, &args.scale_mean)?),
        false => None,
    };
    let likelihood = match args.likelihood.as_str() {
        "auto" if gibbs => "negative-binomial",
        "auto" => "poisson",
        other => other,
    };
    let likelihood = match (likelihood, args.dispersion) {
        ("negative-binomial", None) => Likelihood::NegativeBinomial(Dispersion::default_learned()),
        ("negative-binomial", Some(r)) => Likelihood::NegativeBinomial(Dispersion::given(r).map_err(bad_input)?),
        (_, None) => Likelihood::Poisson,
        (_, Some(r)) => {
            return Err(bad_input(format!("--dispersion {r} applies to --likelihood negative-binomial only")));
        }
    };
    let algorithm = if args.method.is_cavi() {
        let settings =
            CaviSettings::new(args.max_iterations, args.tolerance, MEstimate::Mode, BesselArgument::DeltaMethod);
        Algorithm::Cavi(settings.map_err(bad_input)?)
    } else {
        let step = inference::PrivateStep::from_name(&args.private_step).unwrap_or_default();
        Algorithm::Gibbs(
            Schedule::new(args.iterations, args.burn_in, args.thin).map_err(bad_input)?.with_private_step(step),
        )
    };
    prepare_output(&args.output, args.force)?;
    let levels = match (&args.alpha, &args.alpha_file) {
        (Some(a), _) => LevelSource::Alpha(*a),
        (_, Some(path)) => LevelSource::File { path: path.clone(), precision: args.precision },
        _ => LevelSource::Sidecar,
    };
    if !args.method.reads_released() && (args.alpha.is_some() || args.alpha_file.is_some()) {
        return Err(bad_input(format!(
            "--alpha and --alpha-file apply to released data, not to method {}",
            args.method.name()
        )));
    }
    let counts_format = args.layout.format();
    let mut data = load(&args.input, args.method, args.model, &levels, args.override_sidecar, &counts_format)
        .map_err(to_failure)?;
    let (seed, seed_source) = match args.seed {
        Some(s) => (s, "--seed"),
        None => (seed_from_os().map_err(to_failure)?, "operating-system entropy (recorded here to repeat the fit)"),
    };
    if let Some(fraction) = args.holdout {
        hold_out(&mut data, fraction, Streams::new(seed).child(HOLDOUT_STREAM)).map_err(to_failure)?;
    }
    let settings = FitSettings {
        model: args.model,
        components: args.components,
        prior,
        scale,
        likelihood,
        method: args.method,
        chains: args.chains,
        algorithm,
        seed,
        weighting: match args.weights.as_str() {
            "stacking" => Weighting::Stacking,
            "auto" => Weighting::Auto,
            _ => Weighting::Equal,
        },
        replicas: args.replicas,
    };
    let machine = analysis::Machine::this();
    let cost = fit_cost(&settings, data.shape(), data.heldout.len(), machine);
    if let Some(available) = machine.available
        && cost.least_bytes > available
        && !args.allow_memory
    {
        return Err(bad_input(format!(
            "the fit needs {} of memory even with one chain at a time, but {} is available; use fewer --chains, --iterations (or a larger --thin), \
             --components or a smaller table, or pass --allow-memory",
            runner::bytes_text(cost.least_bytes),
            runner::bytes_text(available)
        )));
    }
    if !args.quiet {
        let (rows, cols) = data.shape();
        let at_a_time = if cost.chains_at_once < args.chains.min(machine.threads) {
            format!(
                "{} at a time, to stay within the {} of memory available (the results are the same)",
                cost.chains_at_once,
                machine.available.map_or_else(|| "?".into(), runner::bytes_text)
            )
        } else {
            format!("on {} threads", machine.threads)
        };
        eprintln!("fitting {rows} × {cols} cells, {} chains {at_a_time}: {}", args.chains, cost.describe());
    }
    let per_chain = match algorithm {
        Algorithm::Gibbs(s) => s.iterations(),
        Algorithm::Cavi(c) => c.max_iterations(),
    };
    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let style =
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} iterations · ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        // With held-out cells, the independence model is fitted too (the "no structure" verdict).
        let fits = if args.holdout.is_some() { 2 } else { 1 };
        ProgressBar::new((per_chain * args.chains * fits) as u64).with_style(style)
    };
    let mut result = fit_chains(&settings, &data, &|| bar.inc(1)).map_err(to_failure)?;
    result.verdict = independence_verdict(&settings, &data, &result, &|| bar.inc(1)).map_err(to_failure)?;
    bar.finish_and_clear();
    commit_fit(&args.output, |dir| write_outputs(dir, &settings, &data, &result, seed_source, args.holdout))?;
    if !args.quiet {
        eprint!("{}", summary_text(&settings, &data, &result));
        eprintln!("\nwrote {} to {}", OUTPUT_FILES.join(", "), args.output.display());
    }
    Ok(())
}

/// The marker of a fit directory: written with the rest, so a directory holding it is a whole fit.
const FIT_FILE: &str = "fit.toml";

/// Before a fit: refuses an output that is not a place for one ([`results::check_output_dir`]:
/// the root, a file, someone else's non-empty directory), or that holds a fit already (unless
/// `force`); undoes what a killed `lppf fit` left beside it (its pending directory, or the old
/// fit it had moved aside to replace, which is put back).
fn prepare_output(output: &Path, force: bool) -> Result<(), Failure> {
    results::check_output_dir(output, &[FIT_FILE], "fit (no fit.toml)").map_err(bad_input)?;
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for (entry, _, target) in results::stale_entries(output) {
        if target == format!("{name}.old") && !output.exists() {
            std::fs::rename(&entry, output).map_err(|e| failed(format!("{}: cannot restore: {e}", entry.display())))?;
            eprintln!("{}: restored the fit that a stopped `lppf fit --force` had moved aside", output.display());
        } else if target == name || target == format!("{name}.old") {
            results::remove_entry(&entry).map_err(|e| failed(format!("{}: {e}", entry.display())))?;
        }
    }
    if output.join(FIT_FILE).exists() && !force {
        return Err(bad_input(format!(
            "{}: already holds a fit (fit.toml); pass --force to replace it or choose another --output",
            output.display()
        )));
    }
    Ok(())
}

/// Writes a fit with `write` into a pending directory beside `output`, then renames it into
/// place, so `output` holds a whole fit or none (issue 31: a full disk used to leave a partial
/// fit that later runs refused to replace). An existing fit (`--force`) is moved aside first and
/// removed after; a kill between the two renames leaves it aside, and the next `lppf fit` puts
/// it back ([`prepare_output`]).
fn commit_fit(output: &Path, write: impl FnOnce(&Path) -> Result<(), FitError>) -> Result<(), Failure> {
    let pending = results::pending_path(output);
    let io = |path: &Path, e: std::io::Error| failed(format!("{}: {e}", path.display()));
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    std::fs::create_dir(&pending).map_err(|e| io(&pending, e))?;
    if let Err(e) = write(&pending) {
        let _ = results::remove_entry(&pending);
        return Err(to_failure(e));
    }
    let empty = std::fs::read_dir(output).map_or(true, |mut entries| entries.next().is_none());
    let aside = if output.exists() && !empty {
        let mut name = pending.as_os_str().to_owned();
        name.push(".old");
        let aside = PathBuf::from(name);
        std::fs::rename(output, &aside).map_err(|e| io(output, e))?;
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&pending, output) {
        if let Some(aside) = &aside {
            let _ = std::fs::rename(aside, output);
        }
        let _ = results::remove_entry(&pending);
        return Err(io(output, e));
    }
    if let Some(aside) = aside {
        let _ = results::remove_entry(&aside);
    }
    Ok(())
}
