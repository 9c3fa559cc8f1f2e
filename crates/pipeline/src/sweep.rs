//! Running a whole sweep: units of work in parallel, each persisted atomically as soon as it
//! finishes, finished units skipped on a rerun (resume).
//!
//! Units: per replication, the non-private reference (if requested) and one unit per noise
//! level (naïve and private). A finished unit is a small CSV file under `<output>/units/`,
//! written to a temporary name and renamed, so a killed run leaves either a whole file or none.

use crate::manifest::{Manifest, Method};
use crate::outputs::csv_opt as opt;
use crate::run::{MethodResult, RunError, run_cell, run_reference, true_data};
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

/// What a sweep run does with units already on disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepOptions {
    /// Recompute every unit even if its file exists.
    pub force: bool,
    /// `Some((i, n))`: run only shard `i` of `n` (units whose position in [`Manifest::units`] is
    /// `i` modulo `n`), e.g. one task of a Slurm array job; the shards' unit files go to the same
    /// output directory and a final unsharded run (which finds them all on disk) merges them.
    pub shard: Option<(usize, usize)>,
}

/// One unit of work of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The non-private reference of a data set (index into [`Manifest::datasets`]).
    Reference { dataset: usize },
    /// Naïve and private fits of a cell (index into [`Manifest::cells`]).
    Cell { cell: usize },
}

/// Reported after each unit: computed now, or found on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDone {
    pub unit: Unit,
    pub computed: bool,
    pub rows: Vec<MethodResult>,
}

/// What a run is about to do, reported once before the first unit starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Units of this run (of the shard, if any).
    pub units: usize,
    /// Of these, the units that will be computed (the others are on disk).
    pub to_compute: usize,
    /// Gibbs iterations of the units to compute (all chains).
    pub iterations: u64,
}

/// Follows a sweep: progress bars, logs. Called from worker threads; keep it cheap.
pub trait Observer: Sync {
    /// Once, before any unit runs.
    fn start(&self, _plan: &Plan) {}
    /// After every Gibbs iteration of any chain.
    fn iteration(&self) {}
    /// After each unit, computed or read from disk.
    fn unit_done(&self, _done: &UnitDone) {}
}

/// Observes nothing.
impl Observer for () {}

const HEADER: &str = "replication,e0_index,e0,noise_index,method,alpha,epsilon,precision,mean_kl,rate_mae,\
                      topic_error,iterations,converged,seconds,iterations_per_second";
const FIELDS: usize = 15;

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

    /// Iterations a unit runs (all its fits; CAVI fits count their maximum, and a fit that
    /// converges early reports the rest as done).
    pub fn unit_iterations(&self, unit: Unit) -> u64 {
        let reference = matches!(unit, Unit::Reference { .. });
        let gibbs = self.sampler.as_ref().map_or(0, |s| s.iterations);
        let cavi = self.cavi_settings().max_iterations();
        self.methods
            .iter()
            .filter(|m| m.is_reference() == reference)
            .map(|m| if m.is_cavi() { cavi } else { gibbs } as u64)
            .sum()
    }
}

fn unit_path(dir: &Path, unit: Unit) -> PathBuf {
    match unit {
        Unit::Reference { dataset } => dir.join(format!("reference{dataset}.csv")),
        Unit::Cell { cell } => dir.join(format!("cell{cell}.csv")),
    }
}

/// Writes `rows` to `path` atomically (temporary file in the same directory, then rename).
fn write_unit(path: &Path, rows: &[MethodResult]) -> Result<(), RunError> {
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{:?},{:?},{},{},{},{:?},{:?}\n",
            r.replication,
            r.e0_index,
            opt(r.e0),
            r.noise_index.map_or(String::new(), |i| i.to_string()),
            r.method.name(),
            opt(r.alpha),
            opt(r.epsilon),
            opt(r.precision),
            r.mean_kl,
            r.rate_mae,
            opt(r.topic_error),
            r.iterations,
            r.converged.map_or(String::new(), |c| c.to_string()),
            r.seconds,
            r.iterations_per_second
        ));
    }
    results::write_atomic(path, text.as_bytes()).map_err(|e| RunError(e.to_string()))
}

/// Reads a unit file written by [`write_unit`].
fn read_unit(path: &Path) -> Result<Vec<MethodResult>, RunError> {
    let bad = |what: &str| RunError(format!("{}: {what}; delete the file to recompute the unit", path.display()));
    let text = fs::read_to_string(path).map_err(|e| RunError(format!("{}: {e}", path.display())))?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(bad("unexpected header (written by an older version?)"));
    }
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != FIELDS {
                return Err(bad(&format!("a row without {FIELDS} fields")));
            }
            let num = |s: &str| s.parse::<f64>().map_err(|_| bad("a malformed number"));
            let opt_num = |s: &str| if s.is_empty() { Ok(None) } else { num(s).map(Some) };
            let index = |s: &str| s.parse::<usize>().map_err(|_| bad("a malformed index"));
            let method = Method::from_name(f[4]).ok_or_else(|| bad("an unknown method"))?;
            Ok(MethodResult {
                replication: index(f[0])?,
                e0_index: index(f[1])?,
                e0: opt_num(f[2])?,
                noise_index: if f[3].is_empty() { None } else { Some(index(f[3])?) },
                method,
                alpha: opt_num(f[5])?,
                epsilon: opt_num(f[6])?,
                precision: opt_num(f[7])?,
                mean_kl: num(f[8])?,
                rate_mae: num(f[9])?,
                topic_error: opt_num(f[10])?,
                iterations: index(f[11])?,
                converged: match f[12] {
                    "" => None,
                    "true" => Some(true),
                    "false" => Some(false),
                    _ => return Err(bad("a malformed `converged` flag")),
                },
                seconds: num(f[13])?,
                iterations_per_second: num(f[14])?,
            })
        })
        .collect()
}

fn compute(manifest: &Manifest, unit: Unit, observer: &impl Observer) -> Result<Vec<MethodResult>, RunError> {
    let on_iteration = || observer.iteration();
    match unit {
        Unit::Reference { dataset } => {
            let dataset = manifest.datasets()[dataset];
            let data = true_data(manifest, &dataset)?;
            run_reference(manifest, &data, &dataset, &on_iteration)
        }
        Unit::Cell { cell } => {
            let cell = manifest.cells()[cell];
            let data = true_data(manifest, &cell.dataset)?;
            run_cell(manifest, &data, &cell, &on_iteration)
        }
    }
}

/// Runs every unit (of the shard, if any) not yet on disk (all with `force`) in parallel,
/// persisting each as it finishes, and returns all rows of the run in unit order. A failed unit
/// does not stop the others; the first error is returned after all units ran, and finished units
/// stay on disk for the next run.
pub fn run_sweep(
    manifest: &Manifest,
    options: SweepOptions,
    observer: &impl Observer,
) -> Result<Vec<MethodResult>, RunError> {
    let dir = manifest.output_dir().join("units");
    fs::create_dir_all(&dir).map_err(|e| RunError(format!("{}: {e}", dir.display())))?;
    if let Some((i, n)) = options.shard
        && i >= n
    {
        return Err(RunError(format!("shard {i}/{n}: the shard index must be below the shard count")));
    }
    let units: Vec<(Unit, PathBuf, bool)> = manifest
        .units()
        .into_iter()
        .enumerate()
        .filter(|(position, _)| options.shard.is_none_or(|(i, n)| position % n == i))
        .map(|(_, unit)| {
            let path = unit_path(&dir, unit);
            let compute = options.force || !path.exists();
            (unit, path, compute)
        })
        .collect();
    let to_compute: Vec<Unit> = units.iter().filter(|u| u.2).map(|u| u.0).collect();
    observer.start(&Plan {
        units: units.len(),
        to_compute: to_compute.len(),
        iterations: to_compute.iter().map(|&u| manifest.unit_iterations(u)).sum(),
    });
    let outcomes: Vec<Result<Vec<MethodResult>, RunError>> = units
        .into_par_iter()
        .map(|(unit, path, computed)| {
            let rows = if computed {
                let rows = compute(manifest, unit, observer)?;
                write_unit(&path, &rows)?;
                rows
            } else {
                read_unit(&path)?
            };
            observer.unit_done(&UnitDone { unit, computed, rows: rows.clone() });
            Ok(rows)
        })
        .collect();
    let mut all = Vec::new();
    for outcome in outcomes {
        all.extend(outcome?);
    }
    Ok(all)
}
