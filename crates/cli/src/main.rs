//! `lppf`: locally private Poisson factorization experiments from TOML manifests.
//!
//! Exit codes: 0 success; 2 bad input (an invalid or unreadable manifest — nothing was run);
//! 1 a failure while running (finished units stay on disk; rerun to resume).

use clap::{Parser, Subcommand};
use pipeline::{SweepOptions, Unit, load, run_sweep};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Locally private Bayesian inference on count data: run the experiments described by TOML
/// manifests (see docs/manifests.md and the examples in experiments/).
#[derive(Parser)]
#[command(name = "lppf", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a manifest without running anything (exit code 2 if it is invalid).
    Validate {
        /// The manifest, e.g. experiments/smoke.toml.
        manifest: PathBuf,
    },
    /// Run a manifest's sweep. Finished units are kept under <output>/units/ and skipped when
    /// the same manifest is run again, so an interrupted run resumes where it stopped.
    Run {
        /// The manifest, e.g. experiments/smoke.toml.
        manifest: PathBuf,
        /// Recompute every unit, even those already on disk.
        #[arg(long)]
        force: bool,
        /// Print only the final summary line (for CI and batch jobs).
        #[arg(long)]
        quiet: bool,
        /// Run only shard I of N (e.g. 0/4 … 3/4, one per task of a Slurm array job), then run
        /// once more without --shard to merge.
        #[arg(long, value_name = "I/N", value_parser = parse_shard)]
        shard: Option<(usize, usize)>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Validate { manifest } => match load(&manifest) {
            Ok(m) => {
                let units = m.units().len();
                println!("{}: valid — {} cells, {units} units of work", manifest.display(), m.cells().len());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Run { manifest, force, quiet, shard } => {
            let m = match load(&manifest) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let total = shard.map_or(m.units().len(), |(i, n)| (m.units().len() + n - 1 - i) / n);
            let done = AtomicUsize::new(0);
            let start = Instant::now();
            let result = run_sweep(&m, SweepOptions { force, shard }, |unit| {
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if !quiet {
                    let what = match unit.unit {
                        Unit::Reference { replication } => format!("non-private reference, replication {replication}"),
                        Unit::Cell { cell } => format!("cell {cell}"),
                    };
                    let how = if unit.computed { "done" } else { "already on disk" };
                    eprintln!(
                        "[{n}/{total}] {what}: {how} ({} rows, {:.1} s elapsed)",
                        unit.rows,
                        start.elapsed().as_secs_f64()
                    );
                }
            });
            match result {
                Ok(rows) => {
                    println!(
                        "{}: {} rows from {total} units in {} ({:.1} s)",
                        m.experiment.name,
                        rows.len(),
                        m.output_dir().display(),
                        start.elapsed().as_secs_f64()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}\nfinished units are kept; run the same command again to resume");
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// `I/N` with `I < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{text:?} is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i < n { Ok((i, n)) } else { Err(bad()) }
}
