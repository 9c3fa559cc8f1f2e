//! `lppf`: locally private Poisson factorization experiments from TOML manifests.
//!
//! Exit codes: 0 success; 2 bad input (an invalid or unreadable manifest or results file, an
//! output directory of another manifest — nothing was run); 1 a failure while running (finished
//! units stay on disk; rerun to resume).

mod budget;
mod progress;

use clap::{Parser, Subcommand};
use pipeline::{
    AnyManifest, DpSepManifest, DpviManifest, DpviRow, FIGURE_PNG, FIGURE_SVG, PrepareOptions, RESULTS_FILE,
    SUMMARY_FILE, SweepOptions, TOPICS_PNG, TOPICS_SVG, base_file_text, claim_dpsep_output, claim_dpvi_output,
    claim_output, dpvi_summary_table, load, load_any, prepare_enron, recovered_topics, run_dpsep, run_dpvi, run_sweep,
    stored_description, write_dpsep_outputs, write_dpvi_outputs, write_outputs, write_summary, write_summary_figure,
};
use progress::Reporter;
use results::TopicPanel;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Locally private Bayesian inference on count data: run the experiments described by TOML
/// manifests and summarize and plot their results.
///
/// A typical session: `lppf validate experiments/smoke.toml`, `lppf run experiments/smoke.toml`,
/// then read results/smoke/results.parquet in any Parquet reader, or look at
/// results/smoke/figure.png. See docs/manifests.md and docs/results.md.
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
    /// Run a manifest's sweep and write results.parquet, summary.csv and figure.svg/.png to its
    /// output directory. Finished units are kept under <output>/units/ and skipped when the same
    /// manifest is run again, so an interrupted run resumes where it stopped.
    Run {
        /// The manifest, e.g. experiments/smoke.toml.
        manifest: PathBuf,
        /// Recompute every unit, even those already on disk.
        #[arg(long)]
        force: bool,
        /// No progress bar and no per-unit log lines; only the final line (for CI).
        #[arg(long)]
        quiet: bool,
        /// Run only shard I of N (e.g. 0/4 … 3/4, one per task of a Slurm array job), then run
        /// once more without --shard to merge and write the results.
        #[arg(long, value_name = "I/N", value_parser = parse_shard)]
        shard: Option<(usize, usize)>,
    },
    /// Print the summary table (mean and sd over replications) of a results directory and
    /// (re)write its summary.csv.
    Summarize {
        /// The output directory of a run, e.g. results/smoke.
        results: PathBuf,
    },
    /// (Re)draw figure.svg and figure.png of a results directory (summary.csv is left as it is).
    Plot {
        /// The output directory of a run, e.g. results/smoke.
        results: PathBuf,
        /// A log-scaled y axis (when one method's KL is orders of magnitude above the others').
        #[arg(long)]
        log_y: bool,
    },
    /// Draw the true topics of one data set of a topic-model manifest beside every method's
    /// recovered topics after Hungarian alignment, refitting that data set with the sweep's
    /// streams (the errors in the panel titles equal the results' topic_error). Writes
    /// <output>/topics.svg and topics.png.
    Topics {
        /// A topic-model manifest, e.g. experiments/schofield-small.toml.
        manifest: PathBuf,
        /// The replication (data set) to draw.
        #[arg(long, default_value_t = 0)]
        replication: usize,
        /// The index of the noise level on the manifest's axis.
        #[arg(long, default_value_t = 0)]
        noise_index: usize,
    },
    /// Privacy budget calculator: ε (or δ) of the central subsampled Gaussian mechanism, or the
    /// pure ε of the local geometric mechanism.
    ///
    /// Central (DPVI, DP-SEP, DP-SGD): `lppf epsilon --sampling-rate Q
    /// --noise-multiplier S --steps T --delta D` prints ε (with `--epsilon E` instead of
    /// `--delta`, prints δ). Local (the geometric mechanism): `lppf epsilon --alpha A --precision
    /// N` prints the pure ε = N ln(1/α) (`--epsilon E --precision N` prints α; `--row-counts C`
    /// prints the ε of a whole row of C counts). The last line is the number alone.
    Epsilon(budget::BudgetArgs),
    /// Compare two results files value by value (floats bit for bit; timing columns skipped):
    /// exit 0 if identical, 1 if not. For checking that a rerun, another thread count, another
    /// machine or a new version reproduces the same numbers.
    Diff {
        /// A results.parquet (of any experiment kind).
        left: PathBuf,
        /// The results.parquet to compare it with.
        right: PathBuf,
        /// Compare the timing columns (seconds, …_per_second) too.
        #[arg(long)]
        with_timings: bool,
    },
    /// Build the Fig. 4 base parameters from the Enron corpus: count the network, keep the
    /// paper's actors, choose C by held-out likelihood, fit the non-private block model, write
    /// θ*, π*, labels and provenance (with the input's sha256). Same input and seed ⇒ same file.
    PrepareEnron {
        /// The cleaned table (a file, e.g. ../shared/data/enron/Enron.csv) or a maildir tree (a
        /// directory, e.g. maildir/).
        input: PathBuf,
        /// Where to write the base parameters.
        #[arg(long, default_value = "data/enron/base.toml")]
        output: PathBuf,
        /// Master seed of the held-out mask and the fits.
        #[arg(long, default_value_t = PrepareOptions::default().seed)]
        seed: u64,
        /// Candidate numbers of communities, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = PrepareOptions::default().components)]
        components: Vec<usize>,
    },
}

/// A failure and its exit code.
struct Failure {
    code: u8,
    message: String,
}

fn bad_input(e: impl std::fmt::Display) -> Failure {
    Failure { code: 2, message: e.to_string() }
}

fn failed(e: impl std::fmt::Display) -> Failure {
    Failure { code: 1, message: e.to_string() }
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Validate { manifest } => validate(&manifest),
        Command::Run { manifest, force, quiet, shard } => run(&manifest, force, quiet, shard),
        Command::Summarize { results } => summarize(&results),
        Command::Plot { results, log_y } => plot(&results, log_y),
        Command::Topics { manifest, replication, noise_index } => topics(&manifest, replication, noise_index),
        Command::Diff { left, right, with_timings } => diff(&left, &right, with_timings),
        Command::Epsilon(args) => budget::budget(&args).map(|lines| lines.iter().for_each(|l| println!("{l}"))),
        Command::PrepareEnron { input, output, seed, components } => {
            prepare(&input, &output, PrepareOptions { seed, components, ..PrepareOptions::default() })
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn validate(path: &Path) -> Result<(), Failure> {
    let m = match load_any(path).map_err(bad_input)? {
        AnyManifest::Factorization(m) => m,
        AnyManifest::Dpvi(m) => {
            println!("{}: valid DPVI manifest — {} runs", path.display(), m.cells().len());
            return Ok(());
        }
        AnyManifest::DpSep(m) => {
            println!("{}: valid DP-SEP manifest — {} replications", path.display(), m.dpsep.replications);
            return Ok(());
        }
    };
    let (datasets, cells, units) = (m.datasets().len(), m.cells().len(), m.units().len());
    println!("{}: valid — {datasets} data sets, {cells} cells, {units} units of work", path.display());
    Ok(())
}

fn run(path: &Path, force: bool, quiet: bool, shard: Option<(usize, usize)>) -> Result<(), Failure> {
    let m = match load_any(path).map_err(bad_input)? {
        AnyManifest::Factorization(m) => m,
        AnyManifest::Dpvi(_) if shard.is_some() => return Err(bad_input("--shard: DPVI sweeps are not sharded")),
        AnyManifest::Dpvi(m) => return run_dpvi_sweep(&m, force, quiet),
        AnyManifest::DpSep(_) if shard.is_some() => return Err(bad_input("--shard: DP-SEP sweeps are not sharded")),
        AnyManifest::DpSep(m) => return run_dpsep_sweep(&m, force, quiet),
    };
    claim_output(&m, force).map_err(bad_input)?;
    let note = m.experiment.description.clone();
    if let (Some(note), false) = (&note, quiet) {
        eprintln!("{}: {note}", m.experiment.name);
    }
    let start = Instant::now();
    let reporter = Reporter::new(&m, quiet);
    let rows = run_sweep(&m, SweepOptions { force, shard }, &reporter).map_err(|e| {
        reporter.finish();
        failed(format!("{e}\nfinished units are kept; run the same command again to resume"))
    })?;
    reporter.finish();
    let dir = m.output_dir();
    if let Some((i, n)) = shard {
        println!(
            "{}: shard {i}/{n} done ({} rows, {:.1} s); run without --shard to merge and write the results",
            m.experiment.name,
            rows.len(),
            start.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let summary = write_outputs(&m, &rows).map_err(failed)?;
    println!(
        "{}: {} rows in {:.1} s → {}/{{{RESULTS_FILE}, {SUMMARY_FILE}, {FIGURE_SVG}, {FIGURE_PNG}}}",
        m.experiment.name,
        rows.len(),
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    if let (Some(note), false) = (&note, quiet) {
        println!("NOTE: {note}");
    }
    if !quiet {
        print!("{}", results::summary_table(&summary));
    }
    if let Some(note) = note {
        println!("NOTE: {note}");
    }
    Ok(())
}

/// Runs a DPVI manifest (resumable; one progress line per finished run unless `quiet`).
fn run_dpvi_sweep(m: &DpviManifest, force: bool, quiet: bool) -> Result<(), Failure> {
    claim_dpvi_output(m, force).map_err(bad_input)?;
    if let (Some(d), false) = (&m.experiment.description, quiet) {
        eprintln!("{}: {d}", m.experiment.name);
    }
    let start = Instant::now();
    let total = m.cells().len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let report = |row: &DpviRow, computed: bool| {
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if !quiet {
            let eps = row.target_epsilon.map_or(String::new(), |e| format!(" ε={e}"));
            let metric =
                row.accuracy.map_or(format!("test ll {:.4}", row.test_log_likelihood), |a| format!("accuracy {a:.4}"));
            let how = if computed { format!("{:.1} s", row.seconds) } else { "kept".into() };
            eprintln!(
                "[{k}/{total}] rep {} {} q={}{eps}: {metric} ({how})",
                row.replication,
                row.method.name(),
                row.sampling_rate
            );
        }
    };
    let rows = run_dpvi(m, force, &report)
        .map_err(|e| failed(format!("{e}\nfinished runs are kept; run the same command again to resume")))?;
    let summary = write_dpvi_outputs(m, &rows).map_err(failed)?;
    println!(
        "{}: {} runs in {:.1} s → {}/{{{RESULTS_FILE}, {SUMMARY_FILE}, {FIGURE_SVG}, {FIGURE_PNG}}}",
        m.experiment.name,
        rows.len(),
        start.elapsed().as_secs_f64(),
        m.output_dir().display()
    );
    if !quiet {
        print!("{}", dpvi_summary_table(&summary));
    }
    Ok(())
}

/// Runs a DP-SEP manifest (resumable per replication) and prints Table 1.
fn run_dpsep_sweep(m: &DpSepManifest, force: bool, quiet: bool) -> Result<(), Failure> {
    claim_dpsep_output(m, force).map_err(bad_input)?;
    let start = Instant::now();
    let total = m.dpsep.replications;
    let report = |r: usize, computed: bool| {
        if !quiet {
            eprintln!("replication {r} of {total}: {}", if computed { "done" } else { "kept" });
        }
    };
    let rows = run_dpsep(m, force, &report)
        .map_err(|e| failed(format!("{e}\nfinished replications are kept; run the same command again to resume")))?;
    let table = write_dpsep_outputs(m, &rows).map_err(failed)?;
    println!(
        "{}: {} fits in {:.1} s → {}/{{{RESULTS_FILE}, {SUMMARY_FILE}, {FIGURE_SVG}, {FIGURE_PNG}}}",
        m.experiment.name,
        rows.len(),
        start.elapsed().as_secs_f64(),
        m.output_dir().display()
    );
    if !quiet {
        println!("{:<24} {:>12} {:>12} {:>12} {:>12}", "method", "F mean", "F cov", "F average", "median avg");
        for (label, a, b, c, med, _) in &table {
            println!("{label:<24} {a:>12.4} {b:>12.4} {c:>12.4} {med:>12.4}");
        }
    }
    Ok(())
}

/// `lppf summarize`: print the summary table (with the manifest's description, e.g. its deviation
/// from the paper) and rewrite summary.csv.
fn summarize(dir: &Path) -> Result<(), Failure> {
    let rows = results::read_results(&dir.join(RESULTS_FILE)).map_err(bad_input)?;
    let summary = write_summary(dir, &rows).map_err(failed)?;
    let note = stored_description(dir);
    if let Some(note) = &note {
        println!("NOTE: {note}");
    }
    print!("{}", results::summary_table(&summary));
    if let Some(note) = &note {
        println!("NOTE: {note}");
    }
    eprintln!("wrote {}", dir.join(SUMMARY_FILE).display());
    Ok(())
}

/// `lppf plot`: redraw the figures (with the manifest's description under the title).
fn plot(dir: &Path, log_y: bool) -> Result<(), Failure> {
    let rows = results::read_results(&dir.join(RESULTS_FILE)).map_err(bad_input)?;
    let text = results::FigureText {
        title: rows.first().map_or_else(String::new, |r| r.experiment.clone()),
        note: stored_description(dir),
        log_y,
    };
    write_summary_figure(dir, &results::summarize(&rows), &text).map_err(failed)?;
    for name in [FIGURE_SVG, FIGURE_PNG] {
        eprintln!("wrote {}", dir.join(name).display());
    }
    Ok(())
}

fn topics(path: &Path, replication: usize, noise_index: usize) -> Result<(), Failure> {
    let m = load(path).map_err(bad_input)?;
    let dataset =
        m.datasets().into_iter().find(|d| d.replication == replication).ok_or_else(|| {
            bad_input(format!("--replication {replication}: the manifest has {}", m.datasets().len()))
        })?;
    let (truth, recovered) = recovered_topics(&m, &dataset, noise_index).map_err(bad_input)?;
    let (k, words) = (m.model.components, m.cols());
    let mut panels = vec![TopicPanel { label: "true topics".into(), topics: truth }];
    for r in recovered {
        let level = r.epsilon.map(|e| format!(" (ε = {e})")).or(r.alpha.map(|a| format!(" (α = {a:.3})")));
        let label = format!("{}{} — aligned MAE {:.4}", r.method.name(), level.unwrap_or_default(), r.error);
        eprintln!("{label}");
        panels.push(TopicPanel { label, topics: r.topics });
    }
    let dir = m.output_dir();
    std::fs::create_dir_all(&dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    let (svg, png) = (dir.join(TOPICS_SVG), dir.join(TOPICS_PNG));
    let title = format!("{}: true vs recovered topics (replication {replication})", m.experiment.name);
    results::plot_topics(&panels, k, words, &title, Some(&svg), Some(&png)).map_err(failed)?;
    println!("wrote {} and {}", svg.display(), png.display());
    Ok(())
}

fn diff(left: &Path, right: &Path, with_timings: bool) -> Result<(), Failure> {
    let c = results::compare_files(left, right, with_timings, 10).map_err(bad_input)?;
    for (name, file) in &c.unmatched {
        println!("column {name} only in {}", if *file == 0 { left } else { right }.display());
    }
    if c.rows.0 != c.rows.1 {
        println!("rows: {} vs {}", c.rows.0, c.rows.1);
    }
    for (column, row, l, r) in &c.differences {
        println!("row {row}, {column}: {l} vs {r}");
    }
    if c.differing_cells > c.differences.len() {
        println!("… {} differing values in all", c.differing_cells);
    }
    let skipped = if c.skipped.is_empty() { String::new() } else { format!(" (skipped: {})", c.skipped.join(", ")) };
    if c.identical() {
        println!("identical: {} rows × {} columns{skipped}", c.rows.0, c.compared.len());
        Ok(())
    } else {
        Err(failed(format!("{} and {} differ", left.display(), right.display())))
    }
}

fn prepare(input: &Path, output: &Path, options: PrepareOptions) -> Result<(), Failure> {
    if !input.exists() {
        return Err(bad_input(format!("{}: no such file or directory", input.display())));
    }
    if options.components.is_empty() || options.components.contains(&0) {
        return Err(bad_input("--components: a comma-separated list of integers >= 1"));
    }
    eprintln!("reading {} and fitting C ∈ {:?} (a minute or two)…", input.display(), options.components);
    let prepared = prepare_enron(input, &options).map_err(failed)?;
    eprintln!("read: {}", prepared.report);
    for (c, score) in &prepared.scores {
        eprintln!("C = {c:>2}: held-out log-likelihood {score:.1}");
    }
    let text = base_file_text(&prepared.base).map_err(failed)?;
    results::write_atomic(output, text.as_bytes()).map_err(failed)?;
    println!("{}: {} actors, C = {}", output.display(), prepared.base.rows(), prepared.base.components());
    Ok(())
}

/// `I/N` with `I < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{text:?} is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i < n { Ok((i, n)) } else { Err(bad()) }
}
