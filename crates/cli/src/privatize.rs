//! `lppf privatize`: the data holder's side of the trust boundary. Reads `row,col,count`, noises
//! every cell of the grid with the exact two-sided geometric mechanism (OS entropy unless
//! `--seed`), writes `row,col,value` and `<output>.privacy.toml`.

use crate::counts_layout::CountsLayout;
use crate::{Failure, bad_input, failed};
use distributions::{ExactTwoSidedGeometric, MAX_DECAY};
use mechanism::{Randomness, ReleaseError, release};
use std::path::{Path, PathBuf};
use tables::{
    CommitError, GridLabels, Level, PrivacySidecar, ReleasedTable, check_release_free, commit_release, read_counts_as,
    read_labels, read_levels, recover_release, sidecar_path,
};

/// How much noise: one level for every row, or a file with each row's own.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("level").required(true).multiple(false).args(["epsilon", "alpha", "alpha_file"])))]
pub struct PrivatizeArgs {
    /// The counts: CSV with the header row,col,count (TSV when the name ends in .tsv or .tab,
    /// Parquet with those columns when it ends in .parquet). Cells not listed are zeros. Counts
    /// may be written 3 or 3.0.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    layout: CountsLayout,
    /// Where to write the release: row,col,value for every cell (same format rule), and beside it
    /// <output>.privacy.toml.
    #[arg(long)]
    output: PathBuf,
    /// The privacy level ε > 0 of every row: changes of up to --precision in one count are
    /// ε-indistinguishable (α = exp(−ε/N)).
    #[arg(long)]
    epsilon: Option<f64>,
    /// The noise level α ∈ (0, 1) of every row (ε = N ln(1/α)).
    #[arg(long)]
    alpha: Option<f64>,
    /// Each row's own level: a CSV (or Parquet) with row,alpha or row,epsilon, one line per row.
    #[arg(long)]
    alpha_file: Option<PathBuf>,
    /// The precision N > 0 (how large a change in one count is protected).
    #[arg(long, default_value_t = 1.0)]
    precision: f64,
    /// A network: the grid is the union of all labels on both axes (rows × rows).
    #[arg(long)]
    square: bool,
    /// The row labels of the grid, in the order to release them: a CSV with the header `label`
    /// (or Parquet), one per line. The label set should be public: without it the grid is built
    /// from the labels in --input (sorted), and a label seen only in non-zero cells reveals them.
    #[arg(long, value_name = "FILE", conflicts_with = "square")]
    rows: Option<PathBuf>,
    /// The column labels of the grid (as --rows).
    #[arg(long, value_name = "FILE", conflicts_with = "square")]
    cols: Option<PathBuf>,
    /// With --square: the labels of both axes of the network (as --rows).
    #[arg(long, value_name = "FILE", requires = "square")]
    labels: Option<PathBuf>,
    /// Seed the noise — for demonstrations and tests only: the release is then NOT private.
    #[arg(long)]
    seed: Option<u64>,
    /// Replace an existing release at --output (publishing two independent releases of the same
    /// counts spends the privacy budget twice).
    #[arg(long)]
    force: bool,
}

/// Writes a release and its sidecar as one ([`commit_release`]): one already there is bad input
/// (exit 2), a failed write a failure (exit 1).
pub(crate) fn commit(output: &Path, released: &ReleasedTable, sidecar: &str, force: bool) -> Result<(), Failure> {
    commit_release(output, released, sidecar, force).map_err(|e| match e {
        CommitError::Exists(_) => bad_input(e),
        CommitError::Write(_) => failed(e),
    })
}

/// The files a release reads: none may be the release or its sidecar.
fn inputs(args: &PrivatizeArgs) -> Vec<(&'static str, &Path)> {
    let files = [
        ("--input", Some(&args.input)),
        ("--alpha-file", args.alpha_file.as_ref()),
        ("--rows", args.rows.as_ref()),
        ("--cols", args.cols.as_ref()),
        ("--labels", args.labels.as_ref()),
    ];
    files.into_iter().filter_map(|(flag, path)| Some((flag, path?.as_path()))).collect()
}

/// The stated grid labels (--rows, --cols, --labels).
fn grid_labels(args: &PrivatizeArgs) -> Result<GridLabels, Failure> {
    let read = |p: &Option<PathBuf>| p.as_deref().map(read_labels).transpose().map_err(bad_input);
    Ok(GridLabels { rows: if args.square { read(&args.labels)? } else { read(&args.rows)? }, cols: read(&args.cols)? })
}

pub fn privatize(args: &PrivatizeArgs) -> Result<(), Failure> {
    let n = args.precision;
    if !(n.is_finite() && n > 0.0) {
        return Err(bad_input(format!("--precision {n}: must be a finite number > 0")));
    }
    let sidecar_file = sidecar_path(&args.output);
    for (flag, input) in inputs(args) {
        for (what, output) in [("--output", &args.output), ("the sidecar of --output", &sidecar_file)] {
            if results::same_file(input, output) {
                return Err(bad_input(format!(
                    "{}: {flag} and {what} are the same file; the release would overwrite its input",
                    output.display()
                )));
            }
        }
    }
    if args.output.is_dir() {
        return Err(bad_input(format!("{}: is a directory; --output names the release file", args.output.display())));
    }
    let recovery = recover_release(&args.output).map_err(failed)?;
    if let Some(pid) = recovery.completed {
        eprintln!(
            "{}: completed the release that process {pid} had nearly finished when it was stopped",
            args.output.display()
        );
    }
    if !args.force {
        check_release_free(&args.output).map_err(bad_input)?;
    }
    let given = grid_labels(args)?;
    let table = read_counts_as(&args.input, args.square, &given, &args.layout.format()).map_err(bad_input)?;
    let decay_of = |level: Level, what: &str| -> Result<ExactTwoSidedGeometric, Failure> {
        let built = match level {
            Level::Alpha(a) => ExactTwoSidedGeometric::from_alpha(a),
            Level::Epsilon(e) => ExactTwoSidedGeometric::from_decay(e / n),
        };
        built.map_err(|e| {
            let largest = match level {
                Level::Epsilon(e) if e / n > MAX_DECAY => format!(
                    "; the largest epsilon allowed at precision N = {n} is {} (alpha = exp(-epsilon/N) must stay a \
                     normal positive number)",
                    MAX_DECAY * n
                ),
                _ => String::new(),
            };
            bad_input(format!("{what}: {e}{largest}"))
        })
    };
    let levels: Vec<ExactTwoSidedGeometric> = match (args.epsilon, args.alpha, &args.alpha_file) {
        (Some(e), _, _) => {
            vec![decay_of(Level::Epsilon(e), &format!("--epsilon {e} with --precision {n}"))?; table.rows.len()]
        }
        (_, Some(a), _) => vec![decay_of(Level::Alpha(a), &format!("--alpha {a}"))?; table.rows.len()],
        (_, _, Some(file)) => {
            let given = read_levels(file).map_err(bad_input)?;
            let by_row = tables::Labels::from_names(given.iter().map(|(r, _)| r.clone()));
            if let Some((extra, _)) = given.iter().find(|(r, _)| table.rows.get(r).is_none()) {
                return Err(bad_input(format!(
                    "{}: row {extra:?} is not a row of {}",
                    file.display(),
                    args.input.display()
                )));
            }
            table
                .rows
                .names
                .iter()
                .map(|row| match by_row.get(row) {
                    Some(i) => decay_of(given[i].1, &format!("{}: row {row:?}", file.display())),
                    None => {
                        Err(bad_input(format!("{}: no level for row {row:?}; every row needs one", file.display())))
                    }
                })
                .collect::<Result<_, _>>()?
        }
        (None, None, None) => return Err(bad_input("give --epsilon, --alpha or --alpha-file")),
    };
    let randomness = args.seed.map_or(Randomness::OsEntropy, Randomness::Seeded);
    let values =
        release(&table.counts, table.rows.len(), table.cols.len(), &levels, randomness).map_err(|e| match e {
            ReleaseError::TooLarge { row, col } => bad_input(format!(
                "{}: the count of ({}, {}) plus its noise leaves the 64-bit range",
                args.input.display(),
                table.rows.names[row],
                table.cols.names[col]
            )),
            e => failed(e),
        })?;
    let alphas: Vec<f64> = levels.iter().map(ExactTwoSidedGeometric::alpha).collect();
    let released = ReleasedTable { rows: table.rows, cols: table.cols, values };

    let mut sidecar = PrivacySidecar {
        mechanism: "two-sided geometric (discrete Laplace) noise on every cell, zeros included; exact integer sampler \
                    (Canonne, Kamath & Steinke 2020)"
            .into(),
        private: randomness.is_private(),
        randomness: randomness.describe(),
        precision: n,
        rows: released.rows.len(),
        cols: released.cols.len(),
        square: args.square,
        alpha: None,
        epsilon: None,
        row: Vec::new(),
        software: format!("lppf {}", env!("CARGO_PKG_VERSION")),
    };
    sidecar.set_levels(&released.rows, &alphas);
    let sidecar_text = toml::to_string(&sidecar).map_err(failed)?;
    let header = "# What this release states about itself (lppf privatize). Nothing here is computed from the\n\
                  # raw counts. epsilon = precision * ln(1/alpha) per row.\n";
    commit(&args.output, &released, &format!("{header}{sidecar_text}"), args.force)?;
    let (lo, hi) = alphas.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &a| (lo.min(a), hi.max(a)));
    let eps = |a: f64| n * (1.0 / a).ln();
    let level = if lo == hi {
        format!("alpha = {lo:.6}, epsilon = {:.6} per row at precision N = {n}", eps(lo))
    } else {
        format!("alpha from {lo:.6} to {hi:.6} (epsilon {:.6} to {:.6}) at precision N = {n}", eps(hi), eps(lo))
    };
    eprintln!(
        "released {} × {} = {} cells (every cell, zeros included) to {}\n  {level}\n  randomness: {}\n  sidecar: {}",
        released.rows.len(),
        released.cols.len(),
        released.values.len(),
        args.output.display(),
        randomness.describe(),
        sidecar_file.display()
    );
    if !given.complete(args.square) {
        let flags = if args.square { "--labels FILE" } else { "--rows FILE and --cols FILE" };
        eprintln!(
            "NOTE: the grid's labels were taken from {} (sorted, so their order reveals nothing). If that file \
             lists only non-zero cells, a label that appears nowhere else reveals that its cells are non-zero: \
             when the label set is not public, state it with {flags} (docs/privacy.md, \"Labels\").",
            args.input.display()
        );
    }
    if !randomness.is_private() {
        eprintln!("WARNING: this release was seeded and is NOT PRIVATE; use it for demonstrations only.");
    }
    Ok(())
}
