//! The factorization sweep as an experiment of the runner ([`FactorizationSweep`]): its units
//! (per replication, the non-private reference if requested, and one unit per noise level with
//! the naïve and private fits) and how one unit runs. Resume, shards, unit files and parallelism
//! are the runner's.

use crate::kinds::{ExperimentError, Loaded};
use crate::manifest::{Experiment, Manifest, ManifestError, NoiseLevel, parse};
use crate::outputs::{claim_output, result_rows, write_outputs, write_summary, write_summary_figure};
use crate::run::{MethodResult, RunError, run_cell, run_reference, true_data};
use results::FigureText;
use runner::{Progress, ProgressObserver, RunOptions, RunnerError};
use std::path::{Path, PathBuf};

/// What a sweep does with units already on disk (the runner's options).
pub type SweepOptions = runner::RunOptions;

/// One unit of work of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The non-private reference of a data set (index into [`Manifest::datasets`]).
    Reference { dataset: usize },
    /// Naïve and private fits of a cell (index into [`Manifest::cells`]).
    Cell { cell: usize },
}

impl Manifest {
    /// Every unit of the sweep: per data set, its non-private reference (if requested) then one
    /// unit per noise level (if naïve or private is requested).
    pub fn units(&self) -> Vec<Unit> {
        let levels = self.cells().len() / self.datasets().len().max(1);
        let mut units = Vec::new();
        for dataset in 0..self.datasets().len() {
            if self.methods.iter().any(|m| m.is_reference()) {
                units.push(Unit::Reference { dataset });
            }
            if self.methods.iter().any(|m| !m.is_reference()) {
                units.extend((dataset * levels..(dataset + 1) * levels).map(|cell| Unit::Cell { cell }));
            }
        }
        units
    }

    /// Iterations a unit runs (all chains of all its fits; CAVI fits count their maximum, and a
    /// fit that converges early reports the rest as done; a Gibbs fit counts its first run, not
    /// the longer ones `until_mixed` may add).
    pub fn unit_iterations(&self, unit: Unit) -> u64 {
        let reference = matches!(unit, Unit::Reference { .. });
        let gibbs = self.sampler.as_ref().map_or(0, |s| s.iterations);
        let cavi = self.cavi_settings().max_iterations();
        self.methods
            .iter()
            .filter(|m| m.is_reference() == reference)
            .map(|&m| (if m.is_cavi() { cavi } else { gibbs } as u64).saturating_mul(self.chains(m) as u64))
            .fold(0, u64::saturating_add)
    }
}

fn compute(manifest: &Manifest, unit: Unit, on_iteration: &(dyn Fn() + Sync)) -> Result<Vec<MethodResult>, RunError> {
    match unit {
        Unit::Reference { dataset } => {
            let dataset = manifest.datasets()[dataset];
            let data = true_data(manifest, &dataset)?;
            run_reference(manifest, &data, &dataset, on_iteration)
        }
        Unit::Cell { cell } => {
            let cell = manifest.cells()[cell];
            let data = true_data(manifest, &cell.dataset)?;
            run_cell(manifest, &data, &cell, on_iteration)
        }
    }
}

/// The factorization sweep of a manifest, as the runner sees it.
pub struct FactorizationSweep<'a>(pub &'a Manifest);

impl runner::Experiment for FactorizationSweep<'_> {
    type Unit = Unit;
    type Row = MethodResult;

    fn output_dir(&self) -> PathBuf {
        self.0.output_dir()
    }

    /// The seed, every setting that changes a number (not the name, description or output), and
    /// the base parameters' values.
    fn identity(&self) -> String {
        let m = self.0;
        let settings = format!("{:?}", (&m.model, &m.data, &m.noise, &m.sweep, &m.methods, &m.sampler, &m.cavi));
        let base = format!("{:?}", m.base);
        crate::draws::unit_identity(&[&m.experiment.seed.to_le_bytes(), settings.as_bytes(), base.as_bytes()])
    }

    fn units(&self) -> Vec<Unit> {
        self.0.units()
    }

    /// `reference<d>` and `cell<c>` (as the CSV unit files of earlier versions were named).
    fn unit_name(&self, unit: Unit) -> String {
        match unit {
            Unit::Reference { dataset } => format!("reference{dataset}"),
            Unit::Cell { cell } => format!("cell{cell}"),
        }
    }

    fn unit_work(&self, unit: Unit) -> u64 {
        self.0.unit_iterations(unit)
    }

    fn work_name(&self) -> &'static str {
        "iterations"
    }

    fn run_unit(&self, unit: Unit, progress: &(dyn Fn() + Sync)) -> Result<Vec<MethodResult>, runner::UnitError> {
        Ok(compute(self.0, unit, progress)?)
    }

    fn describe_unit(&self, unit: Unit) -> String {
        let data = |d: &crate::manifest::DataSet| match d.e0 {
            Some(e0) => format!("replication {}, e0 = {e0}", d.replication),
            None => format!("replication {}", d.replication),
        };
        match unit {
            Unit::Reference { dataset } => format!("non-private reference ({})", data(&self.0.datasets()[dataset])),
            Unit::Cell { cell } => {
                let c = self.0.cells()[cell];
                let level = match c.noise {
                    NoiseLevel::Alpha(a) => format!("α = {a}"),
                    NoiseLevel::Epsilon(e) => format!("ε = {e}"),
                };
                format!("cell {cell} ({}, {level})", data(&c.dataset))
            }
        }
    }

    /// The chains' seconds of the unit's fits (their CPU time; the rest of a unit is small).
    fn unit_seconds(&self, rows: &[MethodResult]) -> Option<f64> {
        Some(rows.iter().map(|r| r.seconds).sum())
    }

    fn describe_rows(&self, rows: &[MethodResult]) -> String {
        let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
        let kl = rows.iter().map(|r| format!("{} KL {:.4}", r.method.name(), r.mean_kl)).collect::<Vec<_>>();
        format!("{} ({seconds:.1} s of chains)", kl.join(", "))
    }
}

/// The factorization kind's entry of [`crate::registry::KINDS`].
pub(crate) fn parse_loaded(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    Ok(Box::new(parse(text, file)?))
}

impl Loaded for Manifest {
    fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    fn validation_summary(&self) -> String {
        // Counted, not listed: a design of 10⁹ replications must not allocate here.
        let cost = self.cost(rayon::current_num_threads());
        let runs = match self.gibbs_runs() {
            Ok(runs) if runs.len() > 1 && self.tempered() => format!(
                " (every Gibbs fit counted with the {} runs until_mixed allows, each afresh under replica exchange, up to \
                 {} sweeps per chain; a fit that mixes sooner costs less)",
                runs.len(),
                runs.last().map_or(0, |s| s.iterations())
            ),
            Ok(runs) if runs.len() > 1 => format!(
                " (every Gibbs fit counted at the {} sweeps per chain until_mixed allows, its chains continued over {} \
                 runs; a fit that mixes sooner costs less)",
                runs.last().map_or(0, |s| s.iterations()),
                runs.len()
            ),
            _ => String::new(),
        };
        format!("valid — {:.0} units of work; {}{runs}", cost.units, cost.describe())
    }

    fn cost(&self) -> Option<crate::Cost> {
        Some(Manifest::cost(self, rayon::current_num_threads()))
    }

    fn claim(&self, force: bool) -> Result<runner::DirLock, RunnerError> {
        claim_output(self, force)
    }

    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError> {
        let sweep = FactorizationSweep(self);
        let rows = runner::run(&sweep, options, &ProgressObserver { experiment: &sweep, progress })?;
        if options.shard.is_some() {
            return Ok((rows.len(), None));
        }
        let summary = write_outputs(self, &self.output_dir(), &rows)?;
        Ok((rows.len(), Some(results::summary_table(&summary))))
    }

    fn missing_units(&self) -> Vec<String> {
        runner::missing_units(&FactorizationSweep(self))
    }

    fn measured(&self) -> Option<runner::Measured> {
        runner::measured(&FactorizationSweep(self))
    }

    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError> {
        let rows = runner::collect(&FactorizationSweep(self), dir)?;
        let table = result_rows(self, &rows);
        let summary = write_summary(dir, &table)?;
        crate::outputs::write_sbc(self, dir, &table)?;
        Ok(results::summary_table(&summary))
    }

    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError> {
        let rows = runner::collect(&FactorizationSweep(self), dir)?;
        let summary = results::summarize(&result_rows(self, &rows));
        let text = FigureText { title: self.experiment.name.clone(), note: self.experiment.description.clone(), log_y };
        Ok(write_summary_figure(dir, &summary, &text)?)
    }
}

/// Runs every unit (of the shard, if any) not yet on disk (all with `force`) through the
/// runner ([`runner::run`]: parallel, persisted as each finishes, resumable) and returns all rows
/// of the run in unit order.
pub fn run_sweep<'a>(
    manifest: &'a Manifest,
    options: SweepOptions,
    observer: &impl runner::Observer<FactorizationSweep<'a>>,
) -> Result<Vec<MethodResult>, runner::RunnerError> {
    runner::run(&FactorizationSweep(manifest), options, observer)
}
