//! The experiment kinds, in one table ([`KINDS`]): `lppf validate`, `run`, `summarize` and
//! `plot` find a manifest's kind here (by `[experiment] kind`) and work through [`Loaded`], so a
//! new kind is its own file (its manifest, an [`runner::Experiment`] and a [`Loaded`]) plus one
//! line in the table.

use crate::manifest::{EXPERIMENT_KINDS, Experiment, ManifestError, invalid};
use crate::run::RunError;
use runner::{Progress, RunOptions, RunnerError};
use std::fmt;
use std::path::Path;

/// A validated manifest of some kind, ready to run (or to summarize a finished run).
pub trait Loaded: Send + Sync {
    /// The `[experiment]` table: name, seed, output, description.
    fn experiment(&self) -> &Experiment;
    /// One line for `lppf validate`: what the sweep holds.
    fn validation_summary(&self) -> String;
    /// Claims the output directory (refusing another experiment's unless `force`).
    fn claim(&self, force: bool) -> Result<(), RunnerError>;
    /// Runs the units (resuming), then — unless a shard was asked for — writes the outputs to
    /// the output directory. Returns the rows computed or read and, after a full run, the summary
    /// table to print.
    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError>;
    /// Rewrites `dir`'s summary.csv from its unit files; returns the table to print.
    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError>;
    /// Redraws `dir`'s figures from its unit files.
    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError>;
}

/// A kind's manifest parser: manifest text and the file that labels errors.
pub type ParseManifest = fn(&str, &Path) -> Result<Box<dyn Loaded>, ManifestError>;

/// One row of the table: a kind's name and its manifest parser.
pub struct Kind {
    pub name: &'static str,
    pub parse: ParseManifest,
}

/// Every experiment kind. `[experiment] kind` absent means the first.
pub const KINDS: &[Kind] = &[
    Kind { name: "factorization", parse: crate::sweep::parse_loaded },
    Kind { name: "dpvi", parse: crate::dpvi_run::parse_loaded },
    Kind { name: "dp-sep", parse: crate::dpsep::parse_loaded },
];

/// Reads and validates a manifest of any kind, dispatching on `experiment.kind`.
pub fn load_experiment(path: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ManifestError::Io { file: path.to_path_buf(), message: e.to_string() })?;
    parse_experiment(&text, path)
}

/// [`load_experiment`] of manifest text; `file` labels errors.
pub fn parse_experiment(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    let kind = toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|t| t.get("experiment")?.get("kind")?.as_str().map(str::to_string));
    let name = kind.as_deref().unwrap_or(KINDS[0].name);
    match KINDS.iter().find(|k| k.name == name) {
        Some(k) => (k.parse)(text, file),
        None => Err(invalid(file, "experiment.kind", format!("{name:?}"), EXPERIMENT_KINDS)),
    }
}

/// Why running, summarizing or plotting an experiment failed.
#[derive(Debug)]
pub enum ExperimentError {
    /// The manifest (or the one stored in a results directory) is invalid.
    Manifest(ManifestError),
    /// The runner failed (I/O, a corrupt or missing unit file, another experiment's directory).
    Runner(RunnerError),
    /// Writing the outputs failed.
    Outputs(RunError),
    /// An option that this kind does not take.
    Unsupported(String),
}

impl ExperimentError {
    /// Bad input (exit code 2): nothing was run or written.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Self::Manifest(_) | Self::Unsupported(_) => true,
            Self::Runner(e) => e.is_bad_input(),
            Self::Outputs(_) => false,
        }
    }
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Manifest(e) => e.fmt(f),
            Self::Runner(e) => e.fmt(f),
            Self::Outputs(e) => e.fmt(f),
            Self::Unsupported(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ExperimentError {}

impl From<ManifestError> for ExperimentError {
    fn from(e: ManifestError) -> Self {
        Self::Manifest(e)
    }
}

impl From<RunnerError> for ExperimentError {
    fn from(e: RunnerError) -> Self {
        Self::Runner(e)
    }
}

impl From<RunError> for ExperimentError {
    fn from(e: RunError) -> Self {
        Self::Outputs(e)
    }
}

/// Refuses `--shard` for kinds whose sweeps are not sharded.
pub(crate) fn no_shard(options: RunOptions, kind: &str) -> Result<(), ExperimentError> {
    match options.shard {
        Some(_) => Err(ExperimentError::Unsupported(format!("--shard: {kind} sweeps are not sharded"))),
        None => Ok(()),
    }
}

/// Refuses `--log-y` for kinds whose figures do not show KL.
pub(crate) fn no_log_y(log_y: bool, kind: &str) -> Result<(), ExperimentError> {
    if log_y {
        return Err(ExperimentError::Unsupported(format!("--log-y: the {kind} figure has no KL axis")));
    }
    Ok(())
}
