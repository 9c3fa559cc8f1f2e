//! `lppf slurm MANIFEST`: a sweep as a Slurm array job and a merge job that waits for it
//! (docs/cluster.md). Writes, under `slurm/<experiment>/`:
//! - `array.sbatch`: task `i` of `N` runs `lppf run MANIFEST --shard i/N` (the runner gives each
//!   task the units at positions `i mod N`, resumes from the unit files, and claims each unit so
//!   that no two tasks compute one);
//! - `merge.sbatch`: `lppf run MANIFEST --merge-only`, which computes nothing, refuses (listing
//!   them) while units are missing, and otherwise writes results.parquet and the summary;
//! - `submit.sh`: refuses while jobs of the design (any user's, started from this project
//!   directory) are queued or running, releases the claims that killed tasks left (`lppf
//!   release-claims`, which itself refuses while a run on this host is alive), submits the array,
//!   then the merge with `--dependency=afterany`: when a task has failed, the merge fails too,
//!   and its log lists the missing units and says to run submit.sh again. Run it again after a
//!   failure: the tasks compute only the units still missing, spread over all of them.
//!
//! **Nothing a user names is ever shell code.** Every path (manifest, project, scripts' directory,
//! the lppf binary) enters the scripts as one single-quoted shell word ([`shell_word`]) and is
//! refused if it holds a control character (a newline would end a line) or is not UTF-8; the
//! `#SBATCH` lines hold only numbers lppf computed, the experiment's name (letters, digits, `-`,
//! `_`) and a partition or account checked against Slurm's names ([`slurm_name`]). Paths reach
//! Slurm on `sbatch`'s command line in `submit.sh`, where the shell's quoting holds, never in an
//! `#SBATCH` line, which sbatch parses with rules of its own.
//!
//! Per-task time and memory come from the design's own estimate (`lppf validate`), times stated
//! safety factors: the work estimate is rough (it counted 26 core-seconds for a calibration run
//! that took 120), so time gets a factor of 5 by default and a floor of 10 minutes. When units of
//! the design are already on disk (a pilot shard, an earlier submission), the time is first
//! scaled by what they took against the estimate's share for them ([`runner::measured`]). A
//! request beyond any cluster ([`MAX_MINUTES`], [`MAX_MEGABYTES`]) is refused, naming the option.

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

/// The longest time limit a task may ask for: a year. More is an estimate or a factor gone
/// wrong, and no cluster grants it.
const MAX_MINUTES: u64 = 366 * 24 * 60;
/// The most memory a task may ask for: 64 TiB (2²⁶ MB), beyond any node.
const MAX_MEGABYTES: u64 = 1 << 26;
/// The most CPUs a task may ask for (more than any one node has).
const MAX_CPUS: usize = 4096;

/// What the scripts need, resolved and checked: every path is UTF-8 without control characters.
struct Design {
    name: String,
    manifest: String,
    project: String,
    lppf: String,
    dir: String,
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

/// `value` as one shell word, whatever it holds: in single quotes, inside which the shell
/// interprets nothing, with each `'` written as `'\''` (close, an escaped quote, reopen).
fn shell_word(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// `path` resolved against the current directory (the scripts run elsewhere), as text that can
/// go into a script: UTF-8 and no control character (a newline would end the line it is on).
/// `what` names the path in the refusal.
fn script_path(path: &Path, what: &str) -> Result<String, Failure> {
    let absolute = std::path::absolute(path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    let text = absolute.to_str().ok_or_else(|| {
        bad_input(format!("{what} {}: is not UTF-8 text, which the job scripts need", absolute.display()))
    })?;
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(bad_input(format!(
            "{what} {text:?}: holds the control character {c:?}; a job script cannot name it safely (rename it)"
        )));
    }
    Ok(text.to_string())
}

/// Checks a partition or account against what Slurm names are made of: letters, digits, `_`,
/// `-`, `.` and `,` (a list of partitions). Anything else would be read by sbatch, not passed.
fn slurm_name(flag: &str, value: &Option<String>) -> Result<Option<String>, Failure> {
    match value {
        Some(v) if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || "_-.,".contains(c)) => {
            Err(bad_input(format!(
                "{flag} {v:?}: a Slurm name is letters, digits, '_', '-', '.' (and ',' between partitions)"
            )))
        }
        other => Ok(other.clone()),
    }
}

/// The `#SBATCH` lines every job of the design shares. Only lppf's numbers and checked names:
/// no path (sbatch parses these lines with quoting rules of its own).
fn header(d: &Design, what: &str, cpus: usize, minutes: u64, megabytes: u64) -> String {
    let mut s = format!(
        "#!/bin/bash\n# {what} of {} (written by lppf slurm; docs/cluster.md). Submit with submit.sh, which\n\
         # names each task's log.\n#SBATCH --job-name=lppf-{}\n#SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --mem={megabytes}M\n#SBATCH --time={}\n",
        d.name,
        d.name,
        slurm_time(minutes),
    );
    for (flag, value) in [("partition", &d.partition), ("account", &d.account)] {
        if let Some(v) = value {
            let _ = writeln!(s, "#SBATCH --{flag}={v}");
        }
    }
    s
}

fn array_script(d: &Design) -> String {
    let mut s = header(d, "The shards", d.cpus, d.minutes, d.megabytes);
    let _ = write!(
        s,
        "#SBATCH --array=0-{}\nset -euo pipefail\ncd -- {}\n\
         # Task i runs the units at positions i mod {}; finished units are kept, so a re-run resumes.\n\
         exec {} --threads \"$SLURM_CPUS_PER_TASK\" run {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --quiet\n",
        d.tasks - 1,
        shell_word(&d.project),
        d.tasks,
        shell_word(&d.lppf),
        shell_word(&d.manifest),
        d.tasks
    );
    s
}

fn merge_script(d: &Design) -> String {
    let mut s = header(d, "The merge", 1, 30, 2048);
    let _ = write!(
        s,
        "# Runs when every shard task has ended, whether or not each succeeded (afterany).\n\
         set -euo pipefail\ncd -- {}\n\
         # Computes nothing: if a task failed, fails itself, listing the missing units and saying to run\n\
         # submit.sh again; else writes the results.\n\
         exec {} --threads 1 run {} --merge-only --quiet\n",
        shell_word(&d.project),
        shell_word(&d.lppf),
        shell_word(&d.manifest)
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
         project={project}\n\
         lppf={lppf}\n\
         manifest={manifest}\n\
         dir={dir}\n\
         # Slurm reads % in a log's name as a pattern (%x, %A, %a, %j): the directory's own are doubled.\n\
         logs={logs}\n\
         cd -- \"$project\"\n\
         # Jobs of this design: its name, started from this directory, by any user.\n\
         if squeue -h -n {job} -o %Z | grep -Fxq -- \"$project\"; then\n\
         \x20   echo \"{job}: jobs of this design are still queued or running (squeue -n {job}); wait for them or scancel them, then run this again\" >&2\n\
         \x20   exit 1\n\
         fi\n\
         # Nothing of this design is queued, so claims that killed tasks left are stale (lppf refuses\n\
         # if a run on this host is still alive).\n\
         \"$lppf\" release-claims \"$manifest\"\n\
         mkdir -p -- \"$dir/logs\"\n\
         array=$(sbatch --parsable --output=\"$logs/logs/%x-%A_%a.log\" \"$dir/array.sbatch\")\n\
         merge=$(sbatch --parsable --output=\"$logs/logs/%x-merge-%j.log\" --dependency=afterany:\"${{array%%;*}}\" \"$dir/merge.sbatch\")\n\
         echo \"submitted {job}: array ${{array%%;*}} ({tasks} tasks), merge ${{merge%%;*}} after it; logs in $dir/logs\"\n",
        name = d.name,
        tasks = d.tasks,
        project = shell_word(&d.project),
        lppf = shell_word(&d.lppf),
        manifest = shell_word(&d.manifest),
        dir = shell_word(&d.dir),
        logs = shell_word(&d.dir.replace('%', "%%")),
    )
}

/// Each task's time limit in minutes and memory in MB, refused (naming the options) when
/// beyond any cluster: [`MAX_MINUTES`], [`MAX_MEGABYTES`].
fn task_limits(args: &SlurmArgs, cost: &pipeline::Cost, tasks: usize) -> Result<(u64, u64), Failure> {
    let cpus = args.cpus_per_task as f64;
    // The work is spread over the tasks; each runs `cpus` units at once.
    let minutes = (cost.core_seconds / tasks as f64 / cpus * args.time_factor / 60.0).ceil().max(10.0);
    if minutes.is_nan() || minutes > MAX_MINUTES as f64 {
        return Err(bad_input(format!(
            "each task would need a time limit of {minutes:.3e} minutes (the estimate {} × --time-factor {}), \
             more than a year; use more --tasks or a smaller --time-factor",
            cost.describe(),
            args.time_factor
        )));
    }
    let per_unit = cost.bytes / cost.threads.max(1) as f64;
    let megabytes = (per_unit * cpus * args.memory_factor / 1e6).ceil().max(1024.0);
    if megabytes.is_nan() || megabytes > MAX_MEGABYTES as f64 {
        return Err(bad_input(format!(
            "each task would ask for {megabytes:.3e} MB of memory (--cpus-per-task {} × --memory-factor {}), \
             more than the {MAX_MEGABYTES} MB (64 TiB) of any node; lower them",
            args.cpus_per_task, args.memory_factor
        )));
    }
    Ok((minutes as u64, megabytes as u64))
}

/// The estimate's time scaled by what the units already on disk took against their share of it
/// (a pilot shard, or the finished units of an earlier submission), and a line saying so; the
/// estimate as it is, and how to calibrate it, when none is on disk.
fn calibrated(mut cost: pipeline::Cost, measured: Option<runner::Measured>) -> (pipeline::Cost, String) {
    let Some((m, ratio)) = measured.and_then(|m| m.ratio_to(cost.core_seconds).map(|ratio| (m, ratio))) else {
        let note = "the time is the rough estimate: run a shard first (lppf run MANIFEST --shard 0/N) and lppf slurm \
                    calibrates it on the units that shard finished";
        return (cost, note.into());
    };
    cost.core_seconds *= ratio;
    let note = format!(
        "calibrated on the {} unit(s) on disk: they took {} of one core, {ratio:.2} times the estimate for them",
        m.units,
        runner::duration_text(m.seconds)
    );
    (cost, note)
}

pub fn slurm(args: &SlurmArgs) -> Result<(), Failure> {
    let loaded = pipeline::load_experiment(&args.manifest).map_err(bad_input)?;
    let experiment = loaded.experiment();
    let missing = loaded.missing_units().len();
    if args.tasks == 0 || !(1..=MAX_CPUS).contains(&args.cpus_per_task) {
        return Err(bad_input(format!(
            "--tasks {} and --cpus-per-task {}: each must be at least 1, and --cpus-per-task at most {MAX_CPUS}",
            args.tasks, args.cpus_per_task
        )));
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
    let (cost, calibration) = calibrated(cost, loaded.measured());
    let tasks = args.tasks.min((cost.units as usize).max(1));
    let (minutes, megabytes) = task_limits(args, &cost, tasks)?;
    let name = experiment.name.clone();
    let dir_path = args.dir.clone().unwrap_or_else(|| Path::new("slurm").join(&name));
    let dir = script_path(&dir_path, "--dir")?;
    if dir.contains('\\') {
        return Err(bad_input(format!(
            "--dir {dir:?}: a backslash in the scripts' directory stops Slurm from naming each task's log \
             (%x, %A, %a); choose a directory without one"
        )));
    }
    let lppf = std::env::current_exe().map_err(|e| failed(format!("cannot find the lppf binary: {e}")))?;
    let design = Design {
        name: name.clone(),
        manifest: script_path(&args.manifest, "the manifest")?,
        project: script_path(Path::new("."), "the current directory")?,
        lppf: script_path(&lppf, "the lppf binary")?,
        dir: dir.clone(),
        tasks,
        cpus: args.cpus_per_task,
        minutes,
        megabytes,
        partition: slurm_name("--partition", &args.partition)?,
        account: slurm_name("--account", &args.account)?,
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    for (file, text) in [
        ("array.sbatch", array_script(&design)),
        ("merge.sbatch", merge_script(&design)),
        ("submit.sh", submit_script(&design)),
    ] {
        results::write_atomic(&dir.join(file), text.as_bytes()).map_err(failed)?;
    }
    println!(
        "{name}: {} units to compute in {tasks} tasks × {} CPUs, each ≤ {} and {} MB (the estimate {} × {} for time, × {} for memory)\n\
         {calibration}\nwrote {}/{{array.sbatch, merge.sbatch, submit.sh}}\nsubmit with: bash {}",
        missing,
        args.cpus_per_task,
        slurm_time(minutes),
        megabytes,
        cost.describe(),
        args.time_factor,
        args.memory_factor,
        dir.display(),
        shell_word(&dir.join("submit.sh").to_string_lossy())
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

#[cfg(test)]
#[path = "slurm_tests.rs"]
mod tests;
