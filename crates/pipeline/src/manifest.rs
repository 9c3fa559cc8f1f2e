//! The manifest schema (`experiments/*.toml`), strict parsing and validation, and sweep expansion.
//!
//! Parsing is strict (`deny_unknown_fields` on every table, plain structs rather than tagged
//! enums, which serde does not check for unknown fields); validation then checks every value
//! *before any work starts* and names the file, the field, the bad value and what is allowed.

use inference::{Schedule, ScheduleError};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

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
    pub sampler: SamplerSpec,
}

/// `[experiment]`: name, master seed, output directory (default `results/<name>`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub name: String,
    pub seed: u64,
    pub output: Option<PathBuf>,
}

/// The model family.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Poisson matrix factorization (`rows × cols`, `components` topics).
    Topic,
    /// Overlapping-community block model (`rows × rows`, `components` communities).
    Block,
}

/// `[model]`: family, number of components (K or C), gamma prior shape `a0` and **rate** `b0`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub kind: ModelKind,
    pub components: usize,
    pub a0: f64,
    pub b0: f64,
}

/// Where the true data come from.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DataSource {
    /// Factors and counts drawn from the model's prior.
    Prior,
}

/// `[data]`: the source and the matrix size (`cols` only for the topic model); optionally, the
/// prior draw is repeated until the mean count lies in `mean_count_range` (as Fig. 3 needs with
/// a₀ = 0.01, where most draws are nearly empty).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    pub source: DataSource,
    pub rows: usize,
    pub cols: Option<usize>,
    pub mean_count_range: Option<[f64; 2]>,
}

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

/// `[sweep]`: replications and optional extra axes.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub replications: usize,
}

/// An inference method.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    NonPrivate,
    Naive,
    Private,
}

impl Method {
    /// Every method, in manifest order.
    pub const ALL: [Method; 3] = [Method::NonPrivate, Method::Naive, Method::Private];

    /// The name used in manifests and result files (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            Method::NonPrivate => "non-private",
            Method::Naive => "naive",
            Method::Private => "private",
        }
    }

    /// The method called `name`, if any.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// `[sampler]`: iterations, burn-in, thinning.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SamplerSpec {
    pub iterations: usize,
    pub burn_in: usize,
    pub thin: usize,
}

/// A manifest that cannot be read or is invalid.
#[derive(Clone, Debug, PartialEq)]
pub enum ManifestError {
    /// The file cannot be read.
    Io { file: PathBuf, message: String },
    /// TOML syntax, a missing or unknown field, or a value of the wrong type (the message of the
    /// TOML parser names the field, its line, and for unknown fields the allowed ones).
    Parse { file: PathBuf, message: String },
    /// A value out of range.
    Invalid { file: PathBuf, field: &'static str, value: String, allowed: String },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { file, message } => write!(f, "{}: cannot read the manifest: {message}", file.display()),
            Self::Parse { file, message } => write!(f, "{}: {message}", file.display()),
            Self::Invalid { file, field, value, allowed } => {
                write!(f, "{}: field `{field}` = {value} is not allowed: {allowed}", file.display())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

/// An out-of-range value of `field` in `file`.
fn invalid(file: &Path, field: &'static str, value: String, allowed: &str) -> ManifestError {
    ManifestError::Invalid { file: file.to_path_buf(), field, value, allowed: allowed.to_string() }
}

/// Reads and validates a manifest file.
pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ManifestError::Io { file: path.to_path_buf(), message: e.to_string() })?;
    parse(&text, path)
}

/// Parses and validates manifest text; `file` labels errors.
pub fn parse(text: &str, file: &Path) -> Result<Manifest, ManifestError> {
    let manifest: Manifest =
        toml::from_str(text).map_err(|e| ManifestError::Parse { file: file.to_path_buf(), message: e.to_string() })?;
    manifest.validate(file)?;
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

/// One unit of work: a data set (replication) × a noise level. All methods of a cell share its
/// data; all noise levels of a replication share the same true data set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Position in the expansion order (stable for a given manifest).
    pub index: usize,
    /// Replication number (identifies the true data set).
    pub replication: usize,
    /// Index of the noise level on its axis.
    pub noise_index: usize,
    pub noise: NoiseLevel,
}

impl Manifest {
    /// The output directory: `output`, or `results/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.experiment.output.clone().unwrap_or_else(|| Path::new("results").join(&self.experiment.name))
    }

    /// The sweep as cells: replications × noise levels, replication-major.
    pub fn cells(&self) -> Vec<Cell> {
        let levels: Vec<NoiseLevel> = match (&self.noise.alpha, &self.noise.epsilon) {
            (Some(alphas), _) => alphas.iter().map(|&a| NoiseLevel::Alpha(a)).collect(),
            (None, Some(epsilons)) => epsilons.iter().map(|&e| NoiseLevel::Epsilon(e)).collect(),
            (None, None) => Vec::new(),
        };
        (0..self.sweep.replications)
            .flat_map(|replication| {
                levels.iter().enumerate().map(move |(noise_index, &noise)| (replication, noise_index, noise))
            })
            .enumerate()
            .map(|(index, (replication, noise_index, noise))| Cell { index, replication, noise_index, noise })
            .collect()
    }

    fn validate(&self, file: &Path) -> Result<(), ManifestError> {
        let invalid = |field, value, allowed: &str| invalid(file, field, value, allowed);
        let positive = |field: &'static str, x: f64| {
            if x.is_finite() && x > 0.0 { Ok(()) } else { Err(invalid(field, x.to_string(), "a finite number > 0")) }
        };
        if self.experiment.name.is_empty()
            || !self.experiment.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            let allowed = "a non-empty name of letters, digits, '-' and '_' (it names the output directory)";
            return Err(invalid("experiment.name", format!("{:?}", self.experiment.name), allowed));
        }
        if self.model.components == 0 {
            return Err(invalid("model.components", "0".into(), "an integer >= 1"));
        }
        positive("model.a0", self.model.a0)?;
        positive("model.b0", self.model.b0)?;
        if self.data.rows < 2 {
            return Err(invalid("data.rows", self.data.rows.to_string(), "an integer >= 2"));
        }
        match (self.model.kind, self.data.cols) {
            (ModelKind::Topic, None) => {
                return Err(invalid("data.cols", "missing".into(), "an integer >= 1 (required by the topic model)"));
            }
            (ModelKind::Topic, Some(0)) => return Err(invalid("data.cols", "0".into(), "an integer >= 1")),
            (ModelKind::Block, Some(c)) => {
                let allowed = "absent: the block model's matrix is rows × rows";
                return Err(invalid("data.cols", c.to_string(), allowed));
            }
            _ => {}
        }
        if let Some([lo, hi]) = self.data.mean_count_range
            && !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo < hi)
        {
            return Err(invalid("data.mean_count_range", format!("[{lo}, {hi}]"), "[low, high] with 0 <= low < high"));
        }
        self.validate_noise(file)?;
        if self.sweep.replications == 0 {
            return Err(invalid("sweep.replications", "0".into(), "an integer >= 1"));
        }
        if self.methods.is_empty() {
            return Err(invalid("methods", "[]".into(), "a non-empty list of \"non-private\", \"naive\", \"private\""));
        }
        let mut sorted = self.methods.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != self.methods.len() {
            return Err(invalid("methods", format!("{:?}", self.methods), "each method at most once"));
        }
        self.schedule().map_err(|e| {
            let field = match e.field {
                "iterations" => "sampler.iterations",
                "burn_in" => "sampler.burn_in",
                _ => "sampler.thin",
            };
            invalid(field, e.value.to_string(), &e.allowed)
        })?;
        Ok(())
    }

    /// The sampler schedule, validated by the sampler's own rules ([`Schedule::new`]).
    pub fn schedule(&self) -> Result<Schedule, ScheduleError> {
        Schedule::new(self.sampler.iterations, self.sampler.burn_in, self.sampler.thin)
    }

    fn validate_noise(&self, file: &Path) -> Result<(), ManifestError> {
        let invalid = |field, value, allowed: &str| invalid(file, field, value, allowed);
        let n = &self.noise;
        match (&n.alpha, &n.epsilon) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "noise",
                    "both alpha and epsilon".into(),
                    "exactly one of alpha = [...] or epsilon = [...]",
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "noise",
                    "neither alpha nor epsilon".into(),
                    "exactly one of alpha = [...] or epsilon = [...]",
                ));
            }
            (Some(alphas), None) => {
                if alphas.is_empty() {
                    return Err(invalid("noise.alpha", "[]".into(), "a non-empty list of numbers in [0, 1)"));
                }
                if let Some(a) = alphas.iter().find(|a| !(0.0..1.0).contains(*a)) {
                    return Err(invalid("noise.alpha", a.to_string(), "numbers in [0, 1)"));
                }
                if n.precision.is_some() {
                    return Err(invalid(
                        "noise.precision",
                        "set".into(),
                        "absent when alpha is given (it goes with epsilon)",
                    ));
                }
            }
            (None, Some(epsilons)) => {
                if epsilons.is_empty() {
                    return Err(invalid("noise.epsilon", "[]".into(), "a non-empty list of numbers > 0"));
                }
                if let Some(e) = epsilons.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
                    return Err(invalid("noise.epsilon", e.to_string(), "numbers > 0"));
                }
                match &n.precision {
                    None => {
                        return Err(invalid("noise.precision", "missing".into(), "a number > 0 or \"empirical-mean\""));
                    }
                    Some(Precision::Fixed(p)) if !(p.is_finite() && *p > 0.0) => {
                        return Err(invalid("noise.precision", p.to_string(), "a number > 0 or \"empirical-mean\""));
                    }
                    Some(Precision::Named(name)) if name != "empirical-mean" => {
                        return Err(invalid(
                            "noise.precision",
                            format!("{name:?}"),
                            "a number > 0 or \"empirical-mean\"",
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some(c) = n.row_concentration
            && !(c.is_finite() && c > 0.0)
        {
            return Err(invalid("noise.row_concentration", c.to_string(), "a finite number > 0"));
        }
        Ok(())
    }
}
