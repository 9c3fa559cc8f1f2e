//! `lppf`: locally private Poisson factorization experiments from TOML manifests.
//!
//! Exit codes: 0 success; 2 bad input (an invalid or unreadable manifest or results file, an
//! output directory of another manifest — nothing was run); 1 a failure while running (finished
//! units stay on disk; rerun to resume).

mod base_from_fit;
mod budget;
mod combine;
mod counts_layout;
mod enron_network;
mod fit;
mod privatize;
mod progress;
mod recovery;
mod score;
mod shell;
mod slurm;

use clap::{Parser, Subcommand};
use pipeline::{
    ExperimentError, FIGURE_PNG, FIGURE_SVG, MANIFEST_FILE, RESULTS_FILE, SUMMARY_FILE, SweepOptions, TOPICS_PNG,
    TOPICS_SVG, load, load_experiment, recovered_topics,
};
use progress::Reporter;
use results::TopicPanel;
use runner::RunnerError;
use semisynthetic::{
    PrepareOptions, TopicPrepareOptions, base_file_text, prepare_enron, prepare_enron_topics, topic_base_file_text,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// `lppf --version`: the package version and the commit the binary was built from (build.rs).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("LPPF_COMMIT"), ")");

/// Locally private Bayesian inference on count data: run the experiments described by TOML
/// manifests and summarize and plot their results.
///
/// A typical session: `lppf validate experiments/smoke.toml`, `lppf run experiments/smoke.toml`,
/// then read results/smoke/results.parquet in any Parquet reader, or look at
/// results/smoke/figure.png. See docs/manifests.md and docs/results.md.
#[derive(Parser)]
#[command(name = "lppf", version = VERSION)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Threads to use, 1 to 1024 [default: all cores]. Results do not depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
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
        /// Run even if the estimated peak memory (printed by `lppf validate`) exceeds the memory
        /// this machine has available (e.g. on a cluster node whose memory is reserved for you).
        #[arg(long)]
        allow_memory: bool,
        /// Merge the shards only: compute nothing, refuse (listing them, exit 1) while units are
        /// missing, else write the results (the merge job of `lppf slurm`).
        #[arg(long, conflicts_with_all = ["shard", "force"])]
        merge_only: bool,
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
    /// The paper's recovery figure of one data set (Fig. 1 for a topic model, Fig. 3 for the
    /// block model): the true data and parameters, then for each noise level the privatized
    /// data (red positive, blue negative) above every method's estimate. Refits that data set
    /// with the sweep's streams (the errors in the labels equal the results'). Writes
    /// <output>/recovery.png and .svg (or --output).
    Recovery(recovery::RecoveryArgs),
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
        /// Accept columns that only RIGHT has (a newer version's file that added columns); the
        /// columns both have must still be identical.
        #[arg(long)]
        allow_added_columns: bool,
    },
    /// Privatize your own counts before sharing them (the data holder's side): every cell of the
    /// grid, zeros included, gets exact two-sided geometric noise from fresh OS entropy. Writes
    /// row,col,value and <output>.privacy.toml (mechanism, α and ε per row, precision, grid,
    /// randomness; nothing computed from the counts). Example: `lppf privatize --input
    /// counts.csv --output released.csv --epsilon 1 --precision 5`.
    Privatize(privatize::PrivatizeArgs),
    /// Combine per-person releases (each made by `lppf privatize` of that person's rows, with
    /// their own level) into one release whose sidecar states every row's level; values are
    /// copied, not re-noised. Refuses overlapping rows, differing column labels and releases at
    /// different precisions. Example: `lppf combine --inputs ann.csv bob.csv --output all.csv`.
    Combine(combine::CombineArgs),
    /// Fit a model to a released table (the analyst's side): several chains in parallel, the
    /// posterior mean and sd of every rate by label, the communities or topics, R̂ and ESS, an
    /// optional held-out score, and a figure, written to a directory.
    Fit(Box<fit::FitArgs>),
    /// Score a fit against the raw counts its release was made from (methods studies only: an
    /// analyst never holds them): Poisson log-likelihood per cell, deviance, total ratio, and
    /// with --reference the correlation of rates and the agreement of communities with another
    /// fit. Prints TOML. Example: `lppf score --fit fit/ --truth counts.csv`.
    Score(score::ScoreArgs),
    /// Write a sweep as a Slurm array job and a merge job that waits for it, with per-task time
    /// and memory from the design's estimate (docs/cluster.md); submit with the submit.sh it
    /// writes.
    Slurm(slurm::SlurmArgs),
    /// Print the completion script of a shell for lppf (every command and option). bash:
    /// `lppf completions bash > ~/.local/share/bash-completion/completions/lppf`; zsh: into a
    /// directory of $fpath as `_lppf`; fish: `~/.config/fish/completions/lppf.fish`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print lppf's manual page (roff), or write it and every command's into --dir:
    /// `lppf man --dir ~/.local/share/man/man1`, then `man lppf-fit`.
    Man(shell::ManArgs),
    /// Remove the unit claims and the directory lock that killed runs of a manifest left (a run
    /// killed on another machine cannot be checked, so its claims count as alive). Only when no
    /// run of this manifest is alive anywhere, e.g. when squeue shows none of its jobs.
    ReleaseClaims {
        /// The manifest whose output directory to release.
        manifest: PathBuf,
    },
    /// Build the Fig. 5 base parameters from real Enron e-mail bodies (AESLC, sent mail): fit a
    /// non-private topic model with CAVI, keep the most used topics, their top words and top
    /// documents, write θ*, φ* with document and word labels. Same input and seed ⇒ same file.
    /// The file derives from CC BY-NC-SA 4.0 data and says so.
    PrepareEnronTopics {
        /// The AESLC `enron_subject_line` directory.
        #[arg(default_value = "../shared/data/enron-aeslc/enron_subject_line")]
        input: PathBuf,
        /// Where to write the base parameters.
        #[arg(long, default_value = "data/enron/topics-base.toml")]
        output: PathBuf,
        /// Seed of the CAVI initialisation.
        #[arg(long, default_value_t = TopicPrepareOptions::default().seed)]
        seed: u64,
        /// Documents kept per kept topic (those using it most).
        #[arg(long, default_value_t = TopicPrepareOptions::default().docs_per_topic)]
        docs_per_topic: usize,
        /// Share of a kept topic's word mass its kept words must hold, in (0, 1].
        #[arg(long, default_value_t = TopicPrepareOptions::default().word_mass)]
        word_mass: f64,
    },
    /// Write the Enron e-mail network as a count table `row,col,count` (the paper's actors,
    /// named `Name (Department)`; one e-mail per recipient): the input of the worked example in
    /// docs/own-data.md. Same input ⇒ same file.
    PrepareEnronNetwork(enron_network::EnronNetworkArgs),
    /// Write the base parameters of a semi-synthetic sweep (`[data] base` of a manifest) from a
    /// fit directory: its factors by label, for any model (e.g. a non-private tensor fit of the
    /// Enron network by month, for the sweep experiments/tensor-enron.toml).
    BaseFromFit(base_from_fit::BaseFromFitArgs),
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
        /// Replace an existing base file made from a different input (its recorded input
        /// checksum differs from this input's).
        #[arg(long)]
        force: bool,
    },
}

/// A failure and its exit code.
#[derive(Debug)]
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
    let cli = Cli::parse();
    if let Some(n) = cli.threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(usize::from(n)).build_global()
    {
        eprintln!("error: cannot start {n} threads: {e}");
        return ExitCode::from(1);
    }
    let outcome = match cli.command {
        Command::Validate { manifest } => validate(&manifest),
        Command::Run { manifest, force, quiet, shard, allow_memory, merge_only } => {
            run(&manifest, RunFlags { force, quiet, shard, allow_memory, merge_only })
        }
        Command::Summarize { results } => summarize(&results),
        Command::Plot { results, log_y } => plot(&results, log_y),
        Command::Topics { manifest, replication, noise_index } => topics(&manifest, replication, noise_index),
        Command::Recovery(args) => recovery::recovery_figure(&args),
        Command::Diff { left, right, with_timings, allow_added_columns } => {
            diff(&left, &right, with_timings, allow_added_columns)
        }
        Command::Privatize(args) => privatize::privatize(&args),
        Command::Combine(args) => combine::combine(&args),
        Command::Fit(args) => fit::fit(&args),
        Command::Score(args) => score::score_fit(&args),
        Command::Slurm(args) => slurm::slurm(&args),
        Command::ReleaseClaims { manifest } => slurm::release_claims(&manifest),
        Command::Completions { shell } => shell::completions(shell),
        Command::Man(args) => shell::man(&args),
        Command::Epsilon(args) => budget::budget(&args).map(|lines| lines.iter().for_each(|l| println!("{l}"))),
        Command::PrepareEnronNetwork(args) => enron_network::prepare_network(&args),
        Command::BaseFromFit(args) => base_from_fit::base_from_fit(&args),
        Command::PrepareEnronTopics { input, output, seed, docs_per_topic, word_mass } => {
            let options = TopicPrepareOptions { seed, docs_per_topic, word_mass, ..TopicPrepareOptions::default() };
            prepare_topics(&input, &output, options)
        }
        Command::PrepareEnron { input, output, seed, components, force } => {
            prepare(&input, &output, PrepareOptions { seed, components, ..PrepareOptions::default() }, force)
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

/// An experiment error with its exit code: 2 for bad input, 1 for a failure while running.
fn experiment_failure(e: ExperimentError) -> Failure {
    if e.is_bad_input() { bad_input(e) } else { failed(e) }
}

fn validate(path: &Path) -> Result<(), Failure> {
    let loaded = load_experiment(path).map_err(bad_input)?;
    println!("{}: {}", path.display(), loaded.validation_summary());
    Ok(())
}

/// The flags of `lppf run`.
struct RunFlags {
    force: bool,
    quiet: bool,
    shard: Option<(usize, usize)>,
    allow_memory: bool,
    merge_only: bool,
}

fn run(path: &Path, flags: RunFlags) -> Result<(), Failure> {
    let RunFlags { force, quiet, shard, allow_memory, merge_only } = flags;
    let loaded = load_experiment(path).map_err(bad_input)?;
    if merge_only {
        let missing = loaded.missing_units();
        if let Some(first) = missing.first() {
            let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
            let more = if missing.len() > 10 { format!(" and {} more", missing.len() - 10) } else { String::new() };
            return Err(failed(format!(
                "{}: {} unit(s) are not done, so there is nothing to merge yet: {}{more}; run the shards that hold \
                 them again (after a killed Slurm task: submit.sh again), then merge (first missing: {first})",
                path.display(),
                missing.len(),
                shown.join(", ")
            )));
        }
    }
    let experiment = loaded.experiment().clone();
    // Before anything is allocated for the sweep: would it fit in memory?
    if let (Some(cost), Some(available)) = (loaded.cost(), pipeline::available_memory())
        && cost.bytes > available
        && !allow_memory
    {
        return Err(bad_input(format!(
            "{}: the sweep needs about {} of memory with {} threads, but {} is available; \
             make the design smaller (data.rows/cols, model.components, sampler.chains, sweep.replications, \
             sampler.iterations), use fewer threads (RAYON_NUM_THREADS), or pass --allow-memory",
            path.display(),
            pipeline::bytes_text(cost.bytes),
            cost.threads,
            pipeline::bytes_text(available)
        )));
    }
    // Held until the run's outputs are written: another manifest's run cannot use the directory.
    let lock = loaded.claim(force).map_err(|e| experiment_failure(e.into()))?;
    if !lock.owned() {
        eprintln!(
            "{}: another run of this manifest is using {}; this run computes the units nobody holds",
            experiment.name,
            experiment.output_dir().display()
        );
    }
    let note = experiment.description.clone();
    if let (Some(note), false) = (&note, quiet) {
        eprintln!("{}: {note}", experiment.name);
    }
    let start = Instant::now();
    let reporter = Reporter::new(quiet);
    let outcome = loaded.run(SweepOptions { force, shard }, &reporter);
    reporter.finish();
    if let Err(ExperimentError::Runner(pending @ RunnerError::Pending { .. })) = &outcome {
        println!(
            "{}: this run's units are done ({:.1} s{}); {pending}",
            experiment.name,
            start.elapsed().as_secs_f64(),
            reporter.helped_note()
        );
        return Ok(());
    }
    let (rows, table) = outcome.map_err(|e| {
        let resume =
            if e.is_bad_input() { "" } else { "\nfinished units are kept; run the same command again to resume" };
        let failure = experiment_failure(e);
        Failure { message: format!("{}{resume}", failure.message), ..failure }
    })?;
    let dir = experiment.output_dir();
    let Some(table) = table else {
        let (i, n) = shard.unwrap_or((0, 1));
        println!(
            "{}: shard {i}/{n} done ({rows} rows, {:.1} s{}); run without --shard to merge and write the results",
            experiment.name,
            start.elapsed().as_secs_f64(),
            reporter.helped_note()
        );
        return Ok(());
    };
    println!(
        "{}: {rows} rows in {:.1} s → {}/{{{RESULTS_FILE}, {SUMMARY_FILE}, {FIGURE_SVG}, {FIGURE_PNG}}}",
        experiment.name,
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    if let (Some(note), false) = (&note, quiet) {
        println!("NOTE: {note}");
    }
    if !quiet {
        print!("{table}");
    }
    if let Some(note) = note {
        println!("NOTE: {note}");
    }
    Ok(())
}

/// The experiment whose results are in `dir`, from the manifest stored there.
fn stored_experiment(dir: &Path) -> Result<Box<dyn pipeline::Loaded>, Failure> {
    load_experiment(&dir.join(MANIFEST_FILE)).map_err(|e| {
        bad_input(format!("{}: not a results directory of lppf (no readable {MANIFEST_FILE}: {e})", dir.display()))
    })
}

/// `lppf summarize`: print the summary table (with the manifest's description, e.g. its deviation
/// from the paper) and rewrite summary.csv, from the directory's unit files.
fn summarize(dir: &Path) -> Result<(), Failure> {
    let loaded = stored_experiment(dir)?;
    if runner::verify_results_checksum(dir).map_err(bad_input)? {
        eprintln!("{}: matches the checksum recorded when it was written", dir.join(RESULTS_FILE).display());
    }
    let table = loaded.summarize(dir).map_err(experiment_failure)?;
    let note = loaded.experiment().description.clone();
    if let Some(note) = &note {
        println!("NOTE: {note}");
    }
    println!("{}", table.trim_end());
    if let Some(note) = &note {
        println!("NOTE: {note}");
    }
    eprintln!("wrote {}", dir.join(SUMMARY_FILE).display());
    Ok(())
}

/// `lppf plot`: redraw the figures (with the manifest's description under the title).
fn plot(dir: &Path, log_y: bool) -> Result<(), Failure> {
    let loaded = stored_experiment(dir)?;
    loaded.plot(dir, log_y).map_err(experiment_failure)?;
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
    let stem = TOPICS_SVG.trim_end_matches(".svg");
    runner::write_figure(&dir, stem, |svg, png| results::plot_topics(&panels, k, words, &title, Some(svg), Some(png)))
        .map_err(failed)?;
    println!("wrote {} and {}", svg.display(), png.display());
    Ok(())
}

fn diff(left: &Path, right: &Path, with_timings: bool, allow_added_columns: bool) -> Result<(), Failure> {
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
    if c.identical() || (allow_added_columns && c.identical_with_added_columns()) {
        println!("identical: {} rows × {} columns{skipped}", c.rows.0, c.compared.len());
        Ok(())
    } else {
        Err(failed(format!("{} and {} differ", left.display(), right.display())))
    }
}

fn prepare(input: &Path, output: &Path, options: PrepareOptions, force: bool) -> Result<(), Failure> {
    if !input.exists() {
        return Err(bad_input(format!("{}: no such file or directory", input.display())));
    }
    // A base file made from another input (e.g. the committed one, from the verified corpus) is
    // not replaced from a different or damaged input without --force.
    if let Some(recorded) = semisynthetic::recorded_input_checksum(output) {
        let current = if input.is_file() {
            std::fs::read(input)
                .map(|b| semisynthetic::sha256_hex(&b))
                .map_err(|e| bad_input(format!("{}: {e}", input.display())))?
        } else {
            "a maildir directory (no checksum)".into()
        };
        if current != recorded && !force {
            return Err(bad_input(format!(
                "{}: made from an input with sha256 {recorded}, but {} is {current}; refusing to replace it \
                 (pass --force to replace it, or --output to write elsewhere)",
                output.display(),
                input.display()
            )));
        }
    }
    if options.components.is_empty() || options.components.contains(&0) {
        return Err(bad_input("--components: a comma-separated list of integers >= 1"));
    }
    eprintln!("reading {} and fitting C ∈ {:?} (a minute or two)…", input.display(), options.components);
    // A corpus that cannot be read or yields no network is bad input (exit 2); a failed fit is not.
    let prepared = prepare_enron(input, &options).map_err(|e| match e {
        semisynthetic::PrepareError::Inference(_) => failed(e),
        e => bad_input(e),
    })?;
    eprintln!("read: {}", prepared.report);
    write_full_report(output, &prepared.report)?;
    for (c, score) in &prepared.scores {
        eprintln!("C = {c:>2}: held-out log-likelihood {score:.1}");
    }
    let text = base_file_text(&prepared.base).map_err(failed)?;
    results::write_atomic(output, text.as_bytes()).map_err(failed)?;
    println!("{}: {} actors, C = {}", output.display(), prepared.base.rows(), prepared.base.components());
    Ok(())
}

/// When a corpus report lists more malformed items than the terminal shows, writes every one to
/// `<output>.read-report.txt` beside the output and says where.
fn write_full_report(output: &Path, report: &enron::ReadReport) -> Result<(), Failure> {
    if report.malformed.len() <= 5 {
        return Ok(());
    }
    let mut path = output.as_os_str().to_owned();
    path.push(".read-report.txt");
    let path = PathBuf::from(path);
    let text: String = report.malformed.iter().map(|(at, why)| format!("{at}\t{why}\n")).collect();
    results::write_atomic(&path, text.as_bytes()).map_err(failed)?;
    eprintln!("every malformed item ({}) is listed in {}", report.malformed.len(), path.display());
    Ok(())
}

fn prepare_topics(input: &Path, output: &Path, options: TopicPrepareOptions) -> Result<(), Failure> {
    if !input.is_dir() {
        return Err(bad_input(format!("{}: not a directory (the AESLC enron_subject_line folder)", input.display())));
    }
    eprintln!(
        "reading {} and fitting {} topics with CAVI (a few minutes on 2 cores)…",
        input.display(),
        options.fit_topics
    );
    let prepared = prepare_enron_topics(input, &options).map_err(|e| match e {
        semisynthetic::PrepareError::Options(_) => bad_input(e),
        e => failed(e),
    })?;
    eprintln!("read: {}", prepared.report);
    write_full_report(output, &prepared.report)?;
    let text = topic_base_file_text(&prepared.base).map_err(failed)?;
    results::write_atomic(output, text.as_bytes()).map_err(failed)?;
    println!(
        "{}: {} documents × {} words, {} topics (CAVI: {} iterations, {})",
        output.display(),
        prepared.base.rows(),
        prepared.base.cols(),
        prepared.base.components(),
        prepared.iterations,
        if prepared.converged { "converged" } else { "NOT converged" }
    );
    Ok(())
}

/// `I/N` with `I < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{text:?} is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i < n { Ok((i, n)) } else { Err(bad()) }
}
