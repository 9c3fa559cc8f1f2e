//! `lppf slurm MANIFEST`: a sweep as a Slurm array job and a merge job that waits for it
//! (docs/cluster.md). Writes, under `slurm/<experiment>/`:
//! - `array.sbatch`: task `i` of `N` runs `lppf run MANIFEST --shard i/N` (the runner gives each
//!   task the units at positions `i mod N`, resumes from the unit files, and claims each unit so
//!   that no two tasks compute one);
//! - `merge.sbatch`: `lppf run MANIFEST --merge-only`, which computes nothing, refuses (listing
//!   them) while units are missing, and otherwise writes results.parquet and the summary;
//! - `submit.sh`: refuses while jobs of the design are queued or running, releases the claims that
//!   killed tasks left (`lppf release-claims`), submits the array, then the merge with
//!   `--dependency=afterok` (cancelled by Slurm if a task fails). Run it again after a failure:
//!   the tasks compute only the units still missing.
//!
//! Per-task time and memory come from the design's own estimate (`lppf validate`), times stated
//! safety factors: the work estimate is rough (it counted 26 core-seconds for a calibration run
//! that took 120), so time gets a factor of 5 by default and a floor of 10 minutes.

use crate::{Failure, bad_input, failed};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The options of `lppf slurm`.
#[derive(clap::Args)]
pub struct SlurmArgs {
    /// The manifest of the sweep, e.g. experiments/fig5-enron-topics-paper.toml.
    manifest: PathBuf,
    /// Array tasks: the sweep's units are dealt round-robin to this many shards (at most one
    /// task per unit).
    #[arg(long, default_value_t = 16)]
    tasks: usize,
    /// CPUs of each task (`--cpus-per-task`); a task runs this many units at once.
    #[arg(long, default_value_t = 2)]
    cpus_per_task: usize,
    /// Slurm partition (`--partition`), passed through.
    #[arg(long)]
    partition: Option<String>,
    /// Slurm account (`--account`), passed through.
    #[arg(long)]
    account: Option<String>,
    /// Each task's time limit is its share of the estimated work times this factor (at least 10
    /// minutes).
    #[arg(long, default_value_t = 5.0)]
    time_factor: f64,
    /// Each task's memory is the estimate for its CPUs times this factor (at least 1 GB).
    #[arg(long, default_value_t = 2.0)]
    memory_factor: f64,
    /// Where to write the scripts [default: slurm/<experiment name>].
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// What the scripts need, resolved.
struct Design {
    name: String,
    manifest: PathBuf,
    project: PathBuf,
    lppf: PathBuf,
    dir: PathBuf,
    tasks: usize,
    cpus: usize,
    /// Per task.
    minutes: u64,
    megabytes: u64,
    partition: Option<String>,
    account: Option<String>,
}

/// `D-HH:MM:SS` for Slurm's `--time`.
fn slurm_time(minutes: u64) -> String {
    let (days, rest) = (minutes / (24 * 60), minutes % (24 * 60));
    format!("{days}-{:02}:{:02}:00", rest / 60, rest % 60)
}

/// Resolves a path against the current directory (the scripts run elsewhere).
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    std::path::absolute(path).map_err(|e| failed(format!("{}: {e}", path.display())))
}

fn header(d: &Design, what: &str, cpus: usize, minutes: u64, megabytes: u64, log: &str) -> String {
    let mut s = format!(
        "#!/bin/bash\n# {what} of {} (written by lppf slurm; docs/cluster.md).\n#SBATCH --job-name=lppf-{}\n\
         #SBATCH --chdir={}\n#SBATCH --cpus-per-task={cpus}\n#SBATCH --mem={megabytes}M\n#SBATCH --time={}\n\
         #SBATCH --output={}/logs/{log}\n",
        d.name,
        d.name,
        d.project.display(),
        slurm_time(minutes),
        d.dir.display()
    );
    for (flag, value) in [("partition", &d.partition), ("account", &d.account)] {
        if let Some(v) = value {
            let _ = writeln!(s, "#SBATCH --{flag}={v}");
        }
    }
    s
}

fn array_script(d: &Design) -> String {
    let mut s = header(d, "The shards", d.cpus, d.minutes, d.megabytes, "%x-%A_%a.log");
    let _ = write!(
        s,
        "#SBATCH --array=0-{}\nset -euo pipefail\n\
         # Task i runs the units at positions i mod {}; finished units are kept, so a re-run resumes.\n\
         exec \"{}\" --threads \"$SLURM_CPUS_PER_TASK\" run \"{}\" --shard \"$SLURM_ARRAY_TASK_ID/{}\" --quiet\n",
        d.tasks - 1,
        d.tasks,
        d.lppf.display(),
        d.manifest.display(),
        d.tasks
    );
    s
}

fn merge_script(d: &Design) -> String {
    let mut s = header(d, "The merge", 1, 30, 2048, "%x-merge-%j.log");
    let _ = write!(
        s,
        "# Cancelled by Slurm when a shard task fails (its afterok dependency can then never hold).\n\
         #SBATCH --kill-on-invalid-dep=yes\nset -euo pipefail\n\
         # Computes nothing: refuses, listing them, while units are missing; else writes the results.\n\
         exec \"{}\" --threads 1 run \"{}\" --merge-only --quiet\n",
        d.lppf.display(),
        d.manifest.display()
    );
    s
}

fn submit_script(d: &Design) -> String {
    let job = format!("lppf-{}", d.name);
    format!(
        "#!/usr/bin/env bash\n\
         # Submits {name} to Slurm: {tasks} shard tasks, then the merge after them (written by lppf slurm).\n\
         # After a failure, run it again: the tasks compute only the units still missing.\n\
         set -euo pipefail\n\
         cd \"{project}\"\n\
         if [ -n \"$(squeue -h -u \"${{USER:-$(id -un)}}\" -n {job} -o %i)\" ]; then\n\
         \x20   echo \"{job}: jobs of this design are still queued or running (squeue -n {job}); wait for them or scancel them, then run this again\" >&2\n\
         \x20   exit 1\n\
         fi\n\
         # Nothing of this design runs now, so claims that killed tasks left are stale.\n\
         \"{lppf}\" release-claims \"{manifest}\"\n\
         mkdir -p \"{dir}/logs\"\n\
         array=$(sbatch --parsable \"{dir}/array.sbatch\")\n\
         merge=$(sbatch --parsable --dependency=afterok:\"${{array%%;*}}\" \"{dir}/merge.sbatch\")\n\
         echo \"submitted {job}: array ${{array%%;*}} ({tasks} tasks), merge ${{merge%%;*}} after it; logs in {dir}/logs\"\n",
        name = d.name,
        tasks = d.tasks,
        project = d.project.display(),
        lppf = d.lppf.display(),
        manifest = d.manifest.display(),
        dir = d.dir.display(),
    )
}

pub fn slurm(args: &SlurmArgs) -> Result<(), Failure> {
    let loaded = pipeline::load_experiment(&args.manifest).map_err(bad_input)?;
    let experiment = loaded.experiment();
    let missing = loaded.missing_units().len();
    if args.tasks == 0 || args.cpus_per_task == 0 {
        return Err(bad_input("--tasks and --cpus-per-task must be at least 1"));
    }
    for (flag, f) in [("--time-factor", args.time_factor), ("--memory-factor", args.memory_factor)] {
        if !(f.is_finite() && f >= 1.0) {
            return Err(bad_input(format!("{flag} {f}: must be a number >= 1 (a safety factor)")));
        }
    }
    let cost = loaded.cost().ok_or_else(|| {
        bad_input(format!(
            "{}: this kind of experiment has no cost estimate, so its tasks' time and memory cannot be set; \
             it also cannot be sharded",
            args.manifest.display()
        ))
    })?;
    let tasks = args.tasks.min((cost.units as usize).max(1));
    let cpus = args.cpus_per_task;
    // The work is spread over the tasks; each runs `cpus` units at once.
    let seconds = cost.core_seconds / tasks as f64 / cpus as f64 * args.time_factor;
    let minutes = ((seconds / 60.0).ceil() as u64).max(10);
    let per_unit = cost.bytes / cost.threads.max(1) as f64;
    let megabytes = ((per_unit * cpus as f64 * args.memory_factor / 1e6).ceil() as u64).max(1024);
    let project = absolute(Path::new("."))?;
    let name = experiment.name.clone();
    let dir = absolute(&args.dir.clone().unwrap_or_else(|| Path::new("slurm").join(&name)))?;
    let design = Design {
        name: name.clone(),
        manifest: absolute(&args.manifest)?,
        project,
        lppf: std::env::current_exe().map_err(|e| failed(format!("cannot find the lppf binary: {e}")))?,
        dir: dir.clone(),
        tasks,
        cpus,
        minutes,
        megabytes,
        partition: args.partition.clone(),
        account: args.account.clone(),
    };
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    for (file, text) in [
        ("array.sbatch", array_script(&design)),
        ("merge.sbatch", merge_script(&design)),
        ("submit.sh", submit_script(&design)),
    ] {
        results::write_atomic(&dir.join(file), text.as_bytes()).map_err(failed)?;
    }
    println!(
        "{name}: {} units to compute in {tasks} tasks × {cpus} CPUs, each ≤ {} and {} MB (the estimate {} × {} for time, × {} for memory)\n\
         wrote {}/{{array.sbatch, merge.sbatch, submit.sh}}\nsubmit with: bash {}/submit.sh",
        missing,
        slurm_time(minutes),
        megabytes,
        cost.describe(),
        args.time_factor,
        args.memory_factor,
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// `lppf release-claims MANIFEST`: removes the unit claims and the directory lock of the
/// manifest's output directory ([`runner::release_claims`]); for when no run of it is alive.
pub fn release_claims(manifest: &Path) -> Result<(), Failure> {
    let loaded = pipeline::load_experiment(manifest).map_err(bad_input)?;
    let dir = loaded.experiment().output_dir();
    let removed = runner::release_claims(&dir).map_err(failed)?;
    if removed > 0 {
        eprintln!("{}: released {removed} claim and lock file(s) of runs that are not alive", dir.display());
    }
    Ok(())
}
