//! Running a whole sweep: units of work in parallel, each persisted atomically as soon as it
//! finishes, finished units skipped on a rerun (resume).
//!
//! Units: per replication, the non-private reference (if requested) and one unit per noise
//! level (naïve and private). A finished unit is a small CSV file under `<output>/units/`,
//! written to a temporary name and renamed, so a killed run leaves either a whole file or none.

use crate::manifest::{Manifest, Method};
use crate::run::{MethodResult, RunError, run_cell, run_reference, true_data};
use rayon::prelude::*;
use std::fs;
use std::io::Write;
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
    /// The non-private reference of a replication.
    Reference { replication: usize },
    /// Naïve and private fits of a cell (index into `Manifest::cells`).
    Cell { cell: usize },
}

/// Reported after each unit: computed now, or found on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDone {
    pub unit: Unit,
    pub computed: bool,
    pub rows: usize,
}

const HEADER: &str =
    "replication,noise_index,method,alpha,epsilon,precision,mean_kl,topic_error,seconds,iterations_per_second";

impl Manifest {
    /// Every unit of the sweep, references first within each replication.
    pub fn units(&self) -> Vec<Unit> {
        let cells = self.cells();
        let mut units = Vec::new();
        for replication in 0..self.sweep.replications {
            if self.methods.contains(&Method::NonPrivate) {
                units.push(Unit::Reference { replication });
            }
            if self.methods.iter().any(|m| *m != Method::NonPrivate) {
                units.extend(
                    cells.iter().filter(|c| c.replication == replication).map(|c| Unit::Cell { cell: c.index }),
                );
            }
        }
        units
    }
}

fn unit_path(dir: &Path, unit: Unit) -> PathBuf {
    match unit {
        Unit::Reference { replication } => dir.join(format!("reference-rep{replication}.csv")),
        Unit::Cell { cell } => dir.join(format!("cell{cell}.csv")),
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v:?}"))
}

/// Writes `rows` to `path` atomically (temporary file in the same directory, then rename).
fn write_unit(path: &Path, rows: &[MethodResult]) -> Result<(), RunError> {
    let io = |e: std::io::Error| RunError(format!("{}: {e}", path.display()));
    let tmp = path.with_extension("csv.tmp");
    let mut file = fs::File::create(&tmp).map_err(io)?;
    writeln!(file, "{HEADER}").map_err(io)?;
    for r in rows {
        writeln!(
            file,
            "{},{},{},{:?},{},{},{:?},{},{:?},{:?}",
            r.replication,
            r.noise_index.map_or(String::new(), |i| i.to_string()),
            r.method.name(),
            r.alpha,
            opt(r.epsilon),
            opt(r.precision),
            r.mean_kl,
            opt(r.topic_error),
            r.seconds,
            r.iterations_per_second
        )
        .map_err(io)?;
    }
    file.sync_all().map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}

/// Reads a unit file written by [`write_unit`].
fn read_unit(path: &Path) -> Result<Vec<MethodResult>, RunError> {
    let bad = |what: &str| RunError(format!("{}: {what}; delete the file to recompute the unit", path.display()));
    let text = fs::read_to_string(path).map_err(|e| RunError(format!("{}: {e}", path.display())))?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(bad("unexpected header"));
    }
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != 10 {
                return Err(bad("a row without 10 fields"));
            }
            let num = |s: &str| s.parse::<f64>().map_err(|_| bad("a malformed number"));
            let opt_num = |s: &str| if s.is_empty() { Ok(None) } else { num(s).map(Some) };
            let method = Method::from_name(f[2]).ok_or_else(|| bad("an unknown method"))?;
            Ok(MethodResult {
                replication: f[0].parse().map_err(|_| bad("a malformed replication"))?,
                noise_index: if f[1].is_empty() {
                    None
                } else {
                    Some(f[1].parse().map_err(|_| bad("a malformed index"))?)
                },
                method,
                alpha: num(f[3])?,
                epsilon: opt_num(f[4])?,
                precision: opt_num(f[5])?,
                mean_kl: num(f[6])?,
                topic_error: opt_num(f[7])?,
                seconds: num(f[8])?,
                iterations_per_second: num(f[9])?,
            })
        })
        .collect()
}

fn compute(manifest: &Manifest, unit: Unit) -> Result<Vec<MethodResult>, RunError> {
    match unit {
        Unit::Reference { replication } => {
            let data = true_data(manifest, replication)?;
            Ok(vec![run_reference(manifest, &data, replication)?])
        }
        Unit::Cell { cell } => {
            let cell = manifest.cells()[cell];
            let data = true_data(manifest, cell.replication)?;
            run_cell(manifest, &data, &cell)
        }
    }
}

/// Runs every unit (of the shard, if any) not yet on disk (all with `force`) in parallel, persisting each as it
/// finishes, and returns all rows of the sweep in unit order. `on_done` is called once per unit
/// (from worker threads). A failed unit does not stop the others; the first error is returned
/// after all units ran, and finished units stay on disk for the next run.
pub fn run_sweep(
    manifest: &Manifest,
    options: SweepOptions,
    on_done: impl Fn(&UnitDone) + Sync,
) -> Result<Vec<MethodResult>, RunError> {
    let dir = manifest.output_dir().join("units");
    fs::create_dir_all(&dir).map_err(|e| RunError(format!("{}: {e}", dir.display())))?;
    if let Some((i, n)) = options.shard
        && i >= n
    {
        return Err(RunError(format!("shard {i}/{n}: the shard index must be below the shard count")));
    }
    let units: Vec<Unit> = manifest
        .units()
        .into_iter()
        .enumerate()
        .filter(|(position, _)| options.shard.is_none_or(|(i, n)| position % n == i))
        .map(|(_, unit)| unit)
        .collect();
    let outcomes: Vec<Result<Vec<MethodResult>, RunError>> = units
        .into_par_iter()
        .map(|unit| {
            let path = unit_path(&dir, unit);
            let (rows, computed) = if !options.force && path.exists() {
                (read_unit(&path)?, false)
            } else {
                let rows = compute(manifest, unit)?;
                write_unit(&path, &rows)?;
                (rows, true)
            };
            on_done(&UnitDone { unit, computed, rows: rows.len() });
            Ok(rows)
        })
        .collect();
    let mut all = Vec::new();
    for outcome in outcomes {
        all.extend(outcome?);
    }
    Ok(all)
}
