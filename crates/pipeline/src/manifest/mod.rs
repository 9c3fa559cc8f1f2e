//! The manifest schema (`experiments/*.toml`), strict parsing and validation, and sweep expansion.
//!
//! Parsing is strict (`deny_unknown_fields` on every table, plain structs rather than tagged
//! enums, which serde does not check for unknown fields); validation (`validate.rs`) then checks
//! every value *before any work starts* and names the file, the field, the bad value and what is
//! allowed; `error.rs` holds the error and finds the field a TOML error is about.

pub use inference::Method;
use inference::{BesselArgument, CaviSettings, MEstimate, Schedule, ScheduleError};
use semisynthetic::BaseParameters;
pub use semisynthetic::ModelKind;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod error;
mod validate;

pub use error::ManifestError;
pub(crate) use error::parse_error;
pub(crate) use validate::{distinct_values, first_repeat, invalid};

/// A whole manifest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub experiment: Experiment,
    pub model: ModelSpec,
    pub data: DataSpec,
    pub noise: NoiseSpec,
    pub sweep: SweepSpec,
    pub methods: Vec<Method>,
    /// Required when a Gibbs method is listed.
    pub sampler: Option<SamplerSpec>,
    /// CAVI settings (defaults when absent); only with a CAVI method.
    pub cavi: Option<CaviSpec>,
    /// The base parameters of a semi-synthetic design, read from `data.base` by [`load`] /
    /// [`parse`] (not part of the TOML text).
    #[serde(skip)]
    pub base: Option<Arc<BaseParameters>>,
    /// The TOML text the manifest was parsed from (stored next to the results).
    #[serde(skip)]
    pub text: String,
    /// The CAVI settings of `[cavi]` (or the defaults), checked and set by [`parse`].
    #[serde(skip)]
    cavi_settings: Option<CaviSettings>,
}

/// `[experiment]`: name, master seed, output directory (default `results/<name>`), and an
/// optional description (printed by `lppf run` and stored in `provenance.toml`, e.g. how a
/// reduced design deviates from the paper).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub name: String,
    pub seed: u64,
    /// `"factorization"` (the default: the Poisson-factorization sweeps of this file) or
    /// `"dpvi"` (the central-DP baseline, [`crate::DpviManifest`]); see [`crate::load_experiment`].
    pub kind: Option<String>,
    pub output: Option<PathBuf>,
    pub description: Option<String>,
}

impl Experiment {
    /// Checks the name (it names the output directory) and that `kind` is absent or `expected`.
    pub(crate) fn validate(&self, file: &Path, expected: &str) -> Result<(), ManifestError> {
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            let allowed = "a non-empty name of letters, digits, '-' and '_' (it names the output directory)";
            return Err(invalid(file, "experiment.name", format!("{:?}", self.name), allowed));
        }
        // What `lppf run` would refuse at run time whatever the directory holds (issue 31).
        // (`Path::parent` is `None` for the empty path and for the root, `/`, `//`, `/.`.)
        if let Some(output) = &self.output
            && output.parent().is_none()
        {
            let allowed = "a directory path that is neither empty nor the root of the file system";
            return Err(invalid(file, "experiment.output", format!("{:?}", output.display()), allowed));
        }
        match self.kind.as_deref() {
            Some(kind) if kind != expected => Err(invalid(
                file,
                "experiment.kind",
                format!("{kind:?}"),
                &format!("{EXPERIMENT_KINDS} ({expected} here)"),
            )),
            _ => Ok(()),
        }
    }

    /// The output directory: `output`, or `results/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.output.clone().unwrap_or_else(|| Path::new("results").join(&self.name))
    }
}

/// The experiment kinds a manifest may declare in `experiment.kind`.
pub const EXPERIMENT_KINDS: &str = "one of \"factorization\" (the default), \"dpvi\", \"dp-sep\", \"held-out\"";

/// `[model]`: family, number of components (K or C), gamma prior shape `a0` and **rate** `b0`,
/// and the likelihood (`likelihood`, `dispersion`: [`LikelihoodSpec`]).
#[derive(Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub kind: ModelKind,
    pub components: usize,
    pub a0: f64,
    pub b0: f64,
    /// `"poisson"` (the default) or `"negative-binomial"`.
    #[serde(default)]
    pub likelihood: LikelihoodName,
    /// The negative binomial's shape `r`, given; absent: learned.
    #[serde(default)]
    pub dispersion: Option<f64>,
    /// The prior `[shape, rate]` of a learned `r`; absent: `models::Dispersion::default_learned`.
    #[serde(default)]
    pub dispersion_prior: Option<[f64; 2]>,
    /// `"flat"` (the default: `Gamma(a0, b0)` on every factor) or `"hierarchical"` (`lppf fit`'s
    /// default for the Gibbs methods, [`PriorName`]): the data from the prior and every fit use it.
    #[serde(default)]
    pub prior: PriorName,
}

impl ModelSpec {
    /// The likelihood fields together.
    pub fn likelihood(&self) -> LikelihoodSpec {
        LikelihoodSpec { likelihood: self.likelihood, dispersion: self.dispersion, prior: self.dispersion_prior }
    }
}

/// The `Debug` text of the model section enters a sweep's identity (its unit files): with the
/// Poisson likelihood it is what it was before the likelihood existed, so runs made then resume.
impl fmt::Debug for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("ModelSpec");
        d.field("kind", &self.kind).field("components", &self.components).field("a0", &self.a0).field("b0", &self.b0);
        self.likelihood().identity(&mut d);
        if self.prior != PriorName::Flat {
            d.field("prior", &self.prior);
        }
        d.finish()
    }
}

/// The likelihood names of `[model] likelihood`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum LikelihoodName {
    /// `y ~ Pois(μ)`, the papers' model (the default).
    #[default]
    Poisson,
    /// `y ~ NB(r, μ)` as `Pois(μδ)`, `δ ~ Gamma(r, r)` (`models::Likelihood`).
    NegativeBinomial,
    /// `y ~ (1 − π) Pois(μ) + π NB(r, μ)`, `π` learned (`models::Likelihood::Contaminated`).
    Contaminated,
}

/// `[model] likelihood = "poisson" | "negative-binomial" | "contaminated"` and, for the last two,
/// `dispersion = r` to give its shape or `dispersion_prior = [shape, rate]` for the prior of a
/// learned one (both absent: `r` is learned with the prior `models::Dispersion::default_learned`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LikelihoodSpec {
    pub likelihood: LikelihoodName,
    pub dispersion: Option<f64>,
    pub prior: Option<[f64; 2]>,
}

impl LikelihoodSpec {
    pub(crate) fn is_poisson(&self) -> bool {
        *self == Self::default()
    }

    /// Checks a dispersion warm-up of `sweeps` (named `field`): refused unless `r` is learned.
    pub(crate) fn check_warm_up(
        &self,
        file: &Path,
        field: &'static str,
        sweeps: Option<usize>,
    ) -> Result<(), ManifestError> {
        // What a warm-up holds: the negative binomial with `r` learned, as the likelihood resolves.
        let learned = matches!(self.model().map(|l| l.dispersion()), Ok(Some(models::Dispersion::Learned(_))));
        match sweeps {
            Some(n) if n > 0 && !learned => Err(invalid(
                file,
                field,
                n.to_string(),
                "absent (or 0) unless model.likelihood = \"negative-binomial\" or \"contaminated\" with r learned (no \
                 model.dispersion)",
            )),
            _ => Ok(()),
        }
    }

    /// Adds the likelihood to a section's identity (`Debug`) text: nothing for the Poisson, so
    /// runs made before the likelihood existed resume; the prior only when one is given, so runs
    /// made before it could be given resume too.
    pub(crate) fn identity(&self, d: &mut fmt::DebugStruct<'_, '_>) {
        if !self.is_poisson() {
            d.field("likelihood", &self.likelihood).field("dispersion", &self.dispersion);
        }
        if let Some(prior) = &self.prior {
            d.field("dispersion_prior", prior);
        }
    }

    /// The likelihood, or the error naming the field (`model.dispersion` or
    /// `model.dispersion_prior`) and what it allows.
    pub fn resolve(&self, file: &Path) -> Result<models::Likelihood, ManifestError> {
        self.model().map_err(|(field, value, allowed)| invalid(file, field, value, &allowed))
    }

    /// The likelihood, or the field that is not allowed, its value and what is allowed (for a
    /// manifest that [`Self::resolve`] already accepted, this cannot fail).
    pub fn model(&self) -> Result<models::Likelihood, (&'static str, String, String)> {
        const R: &str = "model.dispersion";
        const PRIOR: &str = "model.dispersion_prior";
        let nb = "absent unless model.likelihood = \"negative-binomial\" or \"contaminated\"".to_string();
        let wrap: fn(models::Dispersion) -> models::Likelihood = match self.likelihood {
            LikelihoodName::Poisson => {
                return match (self.dispersion, self.prior) {
                    (None, None) => Ok(models::Likelihood::Poisson),
                    (Some(r), _) => Err((R, r.to_string(), nb)),
                    (None, Some(p)) => Err((PRIOR, format!("{p:?}"), nb)),
                };
            }
            LikelihoodName::NegativeBinomial => models::Likelihood::NegativeBinomial,
            LikelihoodName::Contaminated => models::Likelihood::Contaminated,
        };
        match (self.dispersion, self.prior) {
            (None, None) => Ok(wrap(models::Dispersion::default_learned())),
            (Some(r), None) => models::Dispersion::given(r).map(wrap).map_err(|e| (R, r.to_string(), e.to_string())),
            (Some(_), Some(p)) => Err((
                PRIOR,
                format!("{p:?}"),
                "absent when model.dispersion gives r (the prior is of a learned r)".to_string(),
            )),
            (None, Some(p @ [shape, rate])) => models::Dispersion::learned_with(shape, rate)
                .map(wrap)
                .map_err(|e| (PRIOR, format!("{p:?}"), format!("[shape, rate] of a gamma prior: {e}"))),
        }
    }
}

/// The prior names of `[model] prior`: `"flat"`, the papers' `Gamma(a0, b0)`
/// on every factor (the default, so manifests written before the choice existed keep their
/// meaning), or `"hierarchical"`, `lppf fit`'s default for the Gibbs methods — each row's (and
/// column's) rates `Gamma(a0, ξ)` with its scale `ξ` drawn from a prior of shape 10 whose mean is
/// learned (`models::ScalePrior`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PriorName {
    #[default]
    Flat,
    Hierarchical,
}

impl PriorName {
    /// The hierarchical prior's scale prior, as `lppf fit` builds it by default; `None` for flat.
    pub fn scale(self) -> Option<models::ScalePrior> {
        match self {
            PriorName::Flat => None,
            PriorName::Hierarchical => Some(analysis::default_scale_prior()),
        }
    }
}

/// Where the true data come from.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DataSource {
    /// Factors and counts drawn from the model's prior.
    Prior,
    /// Stored base parameters (`data.base`) with rows re-scaled by `γ_i ~ Gamma(e₀f₀, rate f₀)`.
    SemiSynthetic,
}

/// `[data]`: the source and the matrix size (`cols` only for the topic model). From the prior:
/// optionally, the draw is repeated until the mean count lies in `mean_count_range`, or its rates
/// are scaled to the mean `mean_rate` (as Fig. 3 needs with a₀ = 0.01, where almost every draw is
/// an empty network). Semi-synthetic: the base-parameter
/// file `base` (its shape is the matrix size; `rows`/`cols`, if given, must match it) and the
/// rate `f0` of the re-scaling `γ_i ~ Gamma(e₀f₀, rate f₀)` (default 0.1, as in §5.1).
#[derive(Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    pub source: DataSource,
    pub rows: Option<usize>,
    pub cols: Option<usize>,
    pub mean_count_range: Option<[f64; 2]>,
    /// From the prior with one noise level: the draw of the counts and of the release's noise is
    /// repeated until the mean of the release's values (over the modelled cells) lies in this
    /// range. A selection on what the fits observe
    /// leaves every posterior as it is, so the ranks of simulation-based calibration stay uniform
    /// (docs/calibration.md, "At Fig. 4's size").
    pub release_mean_count_range: Option<[f64; 2]>,
    pub mean_rate: Option<f64>,
    pub base: Option<PathBuf>,
    pub f0: Option<f64>,
    /// The axes of a semi-synthetic design re-scaled by `γ ~ Gamma(e₀f₀, rate f₀)`: `["rows"]`
    /// (the default: `θ*_i` of Fig. 4), `["cols"]` (`φ*_kv` by `γ_v`), both (Fig. 5, §5.2), or
    /// none (`[]`: the base parameters are the truth as they are, as in Fig. 1's synthetic design).
    pub rescale: Option<Vec<RescaleAxis>>,
}

/// The derived `Debug` text, with `release_mean_count_range` only when it is set: the text is
/// part of a sweep's identity, so runs made before that field existed resume.
impl fmt::Debug for DataSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("DataSpec");
        d.field("source", &self.source).field("rows", &self.rows).field("cols", &self.cols);
        d.field("mean_count_range", &self.mean_count_range);
        if let Some(range) = &self.release_mean_count_range {
            d.field("release_mean_count_range", range);
        }
        d.field("mean_rate", &self.mean_rate).field("base", &self.base).field("f0", &self.f0);
        d.field("rescale", &self.rescale).finish()
    }
}

impl DataSpec {
    /// Whether the data are drawn from the model's own prior without any selection (no
    /// `mean_count_range`, `release_mean_count_range` or `mean_rate`): nothing bounds their
    /// counts (the cost estimate's caveat).
    pub fn is_unconditioned_prior(&self) -> bool {
        self.is_sbc_target() && self.release_mean_count_range.is_none()
    }

    /// Whether the ranks of simulation-based calibration must be uniform: data from the model's
    /// prior, unconditioned or selected by the release alone (`release_mean_count_range`, which
    /// each fit sees: `p(θ | ỹ, ỹ ∈ A) = p(θ | ỹ)`, and the true counts' posterior is unchanged too,
    /// since the selection depends on `θ` only through `y`). A selection on the true counts
    /// (`mean_count_range`) or rescaled rates (`mean_rate`) changes the private posterior, so it is
    /// not a target.
    pub fn is_sbc_target(&self) -> bool {
        self.source == DataSource::Prior && self.mean_count_range.is_none() && self.mean_rate.is_none()
    }
}

/// An axis of the count matrix whose factor the semi-synthetic design re-scales.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RescaleAxis {
    /// Each row's factor `θ*_i` by its own `γ_i`.
    Rows,
    /// Each column's entries `φ*_kv` (over every component k) by its own `γ_v`.
    Cols,
}

/// The default rate `f₀` of the semi-synthetic re-scaling (§5.1).
pub const DEFAULT_F0: f64 = 0.1;

/// The precision `N` of `(N, ε)`-privacy: a number, or `"empirical-mean"` (the mean count of
/// each data set, as in Fig. 3).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Precision {
    Fixed(f64),
    Named(String),
}

/// `[noise]`: exactly one of `alpha = [...]` or `epsilon = [...]` (with `precision`);
/// optionally `row_concentration` for per-row levels `α_d ~ Beta(c·ᾱ, c·(1−ᾱ))` around each
/// swept level ᾱ (§5.2).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NoiseSpec {
    pub alpha: Option<Vec<f64>>,
    pub epsilon: Option<Vec<f64>>,
    pub precision: Option<Precision>,
    pub row_concentration: Option<f64>,
}

/// `[sweep]`: replications and, for semi-synthetic data, the `e₀` axis (the mean re-scaling
/// `E[γ_i]`; default `[1.0]`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub replications: usize,
    pub e0: Option<Vec<f64>>,
}

/// `[cavi]`: stopping rule and local-step variant of the CAVI methods (docs/vi-vs-mcmc.md).
/// `m_estimate`: `"mode"` (the paper's point mass) or `"mean"` (the full Bessel);
/// `bessel_argument`: `"delta-method"` (the paper's) or `"exact"` (the exact mean-field one).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaviSpec {
    pub max_iterations: Option<usize>,
    pub tolerance: Option<f64>,
    pub m_estimate: Option<String>,
    pub bessel_argument: Option<String>,
    /// Starts per CAVI fit: the one with the highest final ELBO is the fit; absent = 1.
    pub starts: Option<usize>,
}

/// `[sampler]`: iterations, burn-in, thinning, chains per fit (default 1) and tempered replicas
/// per chain (default 1).
#[derive(Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SamplerSpec {
    pub iterations: usize,
    pub burn_in: usize,
    pub thin: usize,
    /// Chains per Gibbs fit, run in parallel and pooled (`inference::fit_chains`); absent = 1.
    pub chains: Option<usize>,
    /// How the private method draws the true counts: `"collapsed"` (`inference::collapsed_count`,
    /// the default since issue 34) or `"augmented"` (the paper's eqs. 12–16).
    #[serde(default)]
    pub private_step: PrivateStepName,
    /// Replica exchange: each chain of a Gibbs fit runs this many replicas on a ladder of inverse
    /// temperatures adapted during the burn-in, and keeps the samples of the β = 1 replica
    /// (`inference::tempering`, docs/modes.md; with either likelihood: the negative binomial's
    /// multipliers and shape are tempered too); absent or 1 = a plain chain.
    pub replicas: Option<usize>,
    /// Sweeps at the start of each chain in which a learned dispersion shape is held
    /// (`inference::Schedule::with_dispersion_warm_up`); absent = 0, none.
    pub dispersion_warm_up: Option<usize>,
    /// Where each chain starts: `"prior"` (absent: the papers') or `"cavi"` (the best of 8 CAVI
    /// fits, `inference::Start::CAVI`).
    pub start: Option<StartName>,
    /// A Gibbs fit whose chains have not mixed (its `convergence` is not `mixed`) runs them on to
    /// twice their length (`inference::Schedule::extended`), until they mix or the next run would
    /// pass this many sweeps per chain (`inference::Schedule::doublings`); absent = one run.
    pub until_mixed: Option<usize>,
    /// The directed block model's Hamiltonian move of its factors after each sweep
    /// (`models::BlockModel::with_hmc`, its step and mass adapted during the burn-in); absent or
    /// false = Gibbs only. Refused for other models.
    pub hamiltonian_move: Option<bool>,
}

/// The `Debug` text of the sampler section enters a sweep's identity (its unit files): without
/// replicas or a warm-up it is what it was before they existed, so runs made then resume.
impl fmt::Debug for SamplerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("SamplerSpec");
        d.field("iterations", &self.iterations)
            .field("burn_in", &self.burn_in)
            .field("thin", &self.thin)
            .field("chains", &self.chains)
            .field("private_step", &self.private_step);
        if self.replicas.is_some_and(|r| r != 1) {
            d.field("replicas", &self.replicas);
        }
        if let Some(n) = self.dispersion_warm_up {
            d.field("dispersion_warm_up", &n);
        }
        if self.start == Some(StartName::Cavi) {
            d.field("start", &"cavi");
        }
        if let Some(cap) = self.until_mixed {
            d.field("until_mixed", &cap);
        }
        if self.hamiltonian_move == Some(true) {
            d.field("hamiltonian_move", &true);
        }
        d.finish()
    }
}

/// The names of `[sampler] private_step` (`inference::PrivateStep`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PrivateStepName {
    Augmented,
    #[default]
    Collapsed,
}

impl PrivateStepName {
    /// The step it names.
    pub fn step(self) -> inference::PrivateStep {
        match self {
            PrivateStepName::Augmented => inference::PrivateStep::Augmented,
            PrivateStepName::Collapsed => inference::PrivateStep::Collapsed,
        }
    }
}

/// The names of `[sampler] start` (`inference::Start`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum StartName {
    Prior,
    Cavi,
}

impl StartName {
    /// The start it names.
    pub fn start(self) -> inference::Start {
        match self {
            StartName::Prior => inference::Start::Prior,
            StartName::Cavi => inference::Start::CAVI,
        }
    }
}

/// More chains (or CAVI starts) per fit than this are refused: each holds its own model state and
/// rate sums, and diagnostics gain little beyond a few chains.
pub const MAX_CHAINS: usize = 64;
/// The largest `data.mean_rate`: rates up to 1e6 are where the samplers and pmfs are tested.
const MAX_MEAN_RATE: f64 = 1e6;

/// Reads and validates a manifest file.
pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ManifestError::Io { file: path.to_path_buf(), message: e.to_string() })?;
    parse(&text, path)
}

/// Parses and validates manifest text; `file` labels errors. A semi-synthetic manifest's base
/// file (`data.base`, relative to the working directory) is read and checked too.
pub fn parse(text: &str, file: &Path) -> Result<Manifest, ManifestError> {
    let mut manifest: Manifest = toml::from_str(text).map_err(|e| parse_error(file, text, &e))?;
    if let (DataSource::SemiSynthetic, Some(path)) = (manifest.data.source, &manifest.data.base) {
        let base = BaseParameters::load(path).map_err(|e| {
            invalid(
                file,
                "data.base",
                format!("{:?}", path.display().to_string()),
                &format!("a valid base-parameter file ({e})"),
            )
        })?;
        manifest.base = Some(Arc::new(base));
    }
    manifest.text = text.to_string();
    manifest.validate(file)?;
    manifest.cavi_settings = Some(manifest.checked_cavi_settings(file)?);
    Ok(manifest)
}

/// The noise level of one cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NoiseLevel {
    /// `α` given directly.
    Alpha(f64),
    /// `ε`, converted to `α = exp(−ε/N)` once the data set (and so an empirical `N`) exists.
    Epsilon(f64),
}

/// One true data set: a replication, and for semi-synthetic data a level of `e₀`. All noise
/// levels and methods of a data set share it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataSet {
    pub replication: usize,
    /// Index on the `e₀` axis (0 when there is none).
    pub e0_index: usize,
    /// `e₀` (semi-synthetic data only).
    pub e0: Option<f64>,
}

/// One cell: a data set × a noise level. The naïve and private fits of a cell form one unit of
/// work; the non-private reference is computed once per data set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Position in the expansion order (stable for a given manifest).
    pub index: usize,
    pub dataset: DataSet,
    /// Index of the noise level on its axis.
    pub noise_index: usize,
    pub noise: NoiseLevel,
}

impl Manifest {
    /// `true` if `other` describes the same experiment (the same parsed fields; comments and
    /// formatting of the text do not matter).
    pub fn same_experiment(&self, other: &Manifest) -> bool {
        let strip = |m: &Manifest| Manifest { base: None, text: String::new(), ..m.clone() };
        strip(self) == strip(other)
    }

    /// The output directory: `output`, or `results/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.experiment.output_dir()
    }

    /// The data sets: replications × `e₀` levels, replication-major.
    pub fn datasets(&self) -> Vec<DataSet> {
        let e0: Vec<Option<f64>> = match (&self.data.source, &self.sweep.e0) {
            (DataSource::Prior, _) => vec![None],
            // The base parameters as they are: no e₀ at all.
            (DataSource::SemiSynthetic, None) if self.rescale().is_empty() => vec![None],
            (DataSource::SemiSynthetic, None) => vec![Some(1.0)],
            (DataSource::SemiSynthetic, Some(levels)) => levels.iter().copied().map(Some).collect(),
        };
        (0..self.sweep.replications)
            .flat_map(|replication| {
                e0.iter().enumerate().map(move |(e0_index, &e0)| DataSet { replication, e0_index, e0 })
            })
            .collect()
    }

    /// The sweep as cells: data sets × noise levels, in data-set order.
    pub fn cells(&self) -> Vec<Cell> {
        let levels: Vec<NoiseLevel> = match (&self.noise.alpha, &self.noise.epsilon) {
            (Some(alphas), _) => alphas.iter().map(|&a| NoiseLevel::Alpha(a)).collect(),
            (None, Some(epsilons)) => epsilons.iter().map(|&e| NoiseLevel::Epsilon(e)).collect(),
            (None, None) => Vec::new(),
        };
        self.datasets()
            .into_iter()
            .flat_map(|dataset| {
                levels.iter().enumerate().map(move |(noise_index, &noise)| (dataset, noise_index, noise))
            })
            .enumerate()
            .map(|(index, (dataset, noise_index, noise))| Cell { index, dataset, noise_index, noise })
            .collect()
    }

    /// Rows of the count matrix (documents or actors).
    pub fn rows(&self) -> usize {
        self.base.as_ref().map_or(self.data.rows.unwrap_or(0), |b| b.rows())
    }

    /// Columns of the count matrix (words; actors for the block model; for the tensor the
    /// grid's `cols × times`).
    pub fn cols(&self) -> usize {
        let (_, cols, times) = self.modes();
        cols * times
    }

    /// `(rows, cols, times)`: the tensor's three modes (from its base file), else the matrix
    /// and one time.
    pub fn modes(&self) -> (usize, usize, usize) {
        let cols = match (self.model.kind.square(), &self.base) {
            (true, _) => self.rows(),
            (false, Some(base)) => base.cols(),
            (false, None) => self.data.cols.unwrap_or(0),
        };
        (self.rows(), cols, self.base.as_ref().map_or(1, |b| b.times()))
    }

    /// The rate `f₀` of the semi-synthetic re-scaling.
    pub fn f0(&self) -> f64 {
        self.data.f0.unwrap_or(DEFAULT_F0)
    }

    /// The re-scaled axes of a semi-synthetic design (`data.rescale`, default rows only).
    pub fn rescale(&self) -> &[RescaleAxis] {
        self.data.rescale.as_deref().unwrap_or(&[RescaleAxis::Rows])
    }

    /// Chains (Gibbs: `sampler.chains`) or starts (CAVI: `cavi.starts`) of a fit of `method`.
    pub fn chains(&self, method: Method) -> usize {
        let chains = if method.is_cavi() {
            self.cavi.as_ref().and_then(|c| c.starts)
        } else {
            self.sampler.as_ref().and_then(|s| s.chains)
        };
        chains.unwrap_or(1)
    }

    /// Whether the Gibbs fits run the block model's Hamiltonian move (`sampler.hamiltonian_move`;
    /// absent: no).
    pub fn hamiltonian_move(&self) -> bool {
        self.sampler.as_ref().and_then(|s| s.hamiltonian_move) == Some(true)
    }

    /// Tempered replicas per chain of a fit of `method` (`sampler.replicas`; CAVI fits and an
    /// absent field: 1).
    pub fn replicas(&self, method: Method) -> usize {
        let replicas = if method.is_cavi() { None } else { self.sampler.as_ref().and_then(|s| s.replicas) };
        replicas.unwrap_or(1)
    }

    /// Whether a method of the sweep runs replica exchange, whose longer runs of `until_mixed`
    /// start afresh instead of continuing the chains.
    pub fn tempered(&self) -> bool {
        self.methods.iter().any(|&m| self.replicas(m) > 1)
    }

    /// The Gibbs runs of a fit: the schedule, then its doublings up to `sampler.until_mixed`
    /// ([`Schedule::runs_until_mixed`]; only the schedule without it). The runs after the first
    /// are made only while the chains have not mixed.
    pub fn gibbs_runs(&self) -> Result<Vec<Schedule>, ScheduleError> {
        let first = self.schedule()?;
        match self.sampler.as_ref().and_then(|s| s.until_mixed) {
            Some(cap) => first.runs_until_mixed(cap),
            None => Ok(vec![first]),
        }
    }

    /// The sampler schedule, validated by the sampler's own rules ([`Schedule::new`]); an error
    /// naming `sampler` when the manifest has none.
    pub fn schedule(&self) -> Result<Schedule, ScheduleError> {
        let missing = || ScheduleError { field: "iterations", value: 0, allowed: "a [sampler] table".into() };
        let s = self.sampler.as_ref().ok_or_else(missing)?;
        let start = s.start.map_or(inference::Start::Prior, StartName::start);
        let schedule =
            Schedule::new(s.iterations, s.burn_in, s.thin)?.with_private_step(s.private_step.step()).with_start(start);
        schedule.with_dispersion_warm_up(s.dispersion_warm_up.unwrap_or(0))
    }

    /// The CAVI settings: `[cavi]` over [`CaviSettings::DEFAULT`], validated.
    /// The CAVI settings (those of `[cavi]`, defaults for absent fields), validated by [`parse`].
    pub fn cavi_settings(&self) -> CaviSettings {
        self.cavi_settings.unwrap_or(CaviSettings::DEFAULT)
    }
}
