//! What every experiment kind offers the command line: [`Loaded`] (validate, claim, run,
//! summarize, plot) and its error type. The kinds themselves are listed in
//! [`crate::registry::KINDS`].

use crate::manifest::{Experiment, ManifestError};
use crate::run::RunError;
use runner::{DirLock, Progress, RunOptions, RunnerError};
use std::fmt;
use std::path::Path;

/// A validated manifest of some kind, ready to run (or to summarize a finished run).
pub trait Loaded: Send + Sync {
    /// The `[experiment]` table: name, seed, output, description.
    fn experiment(&self) -> &Experiment;
    /// One line for `lppf validate`: what the sweep holds.
    fn validation_summary(&self) -> String;
    /// The estimated peak memory and work of a run on this machine's threads, where the kind can
    /// tell (`lppf run` refuses a run that would not fit in memory).
    fn cost(&self) -> Option<crate::Cost> {
        None
    }
    /// Claims the output directory (refusing another experiment's unless `force`, and any live
    /// run of another manifest); hold the lock until the run is done.
    fn claim(&self, force: bool) -> Result<DirLock, RunnerError>;
    /// Runs the units (resuming), then — unless a shard was asked for — writes the outputs to
    /// the output directory. Returns the rows computed or read and, after a full run, the summary
    /// table to print.
    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError>;
    /// The units whose files are not in the output directory yet ([`runner::missing_units`]):
    /// what a merge of shards (`lppf run --merge-only`) waits for.
    fn missing_units(&self) -> Vec<String>;
    /// What the units already in the output directory took ([`runner::measured`]), where the
    /// kind records it: `lppf slurm` calibrates its time estimate on it.
    fn measured(&self) -> Option<runner::Measured> {
        None
    }
    /// Rewrites `dir`'s summary.csv from its unit files; returns the table to print.
    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError>;
    /// Redraws `dir`'s figures from its unit files.
    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError>;
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
