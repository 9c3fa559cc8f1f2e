//! `lppf privatize`: the data holder's side of the trust boundary. The options of
//! [`release::privatize_file`] (which reads `row,col,count`, noises every cell of the grid with
//! the exact two-sided geometric mechanism, OS entropy unless `--seed`, and writes `row,col,value`
//! and `<output>.privacy.toml`) as flags.

use crate::counts_layout::CountsLayout;
use crate::{Failure, bad_input, failed};
use release::{LabelSource, Levels, PrivatizeError, PrivatizeRequest, privatize_file};
use std::path::PathBuf;

/// How much noise: one level for every row, or a file with each row's own.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("level").required(true).multiple(false).args(["epsilon", "alpha", "alpha_file"])))]
pub struct PrivatizeArgs {
    /// The counts: CSV with the header row,col,count (TSV when the name ends in .tsv or .tab,
    /// Parquet with those columns when it ends in .parquet); counts over time add a time column
    /// (--time-column). Cells not listed are zeros. Counts may be written 3 or 3.0.
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
    /// An undirected network (implies --square): each unordered pair is released once (at the
    /// one level of --epsilon or --alpha), so a tie costs one release instead of two; the
    /// diagonal is not released (unless --diagonal). The counts may
    /// list a pair either way or both (with the same count). Fit it with --model undirected.
    #[arg(long)]
    symmetric: bool,
    /// With --symmetric: release the self-pairs (the diagonal) too.
    #[arg(long, requires = "symmetric")]
    diagonal: bool,
    /// The row labels of the grid, in the order to release them: a CSV with the header `label`
    /// (or Parquet), one per line. The label set should be public: without it the grid is built
    /// from the labels in --input (sorted), and a label seen only in non-zero cells reveals them.
    #[arg(long, value_name = "FILE", conflicts_with = "square")]
    rows: Option<PathBuf>,
    /// The column labels of the grid (as --rows).
    #[arg(long, value_name = "FILE", conflicts_with = "square")]
    cols: Option<PathBuf>,
    /// With --square or --symmetric: the labels of both axes of the network (as --rows).
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
    /// With --time-column: the time labels of the grid (as --rows), e.g. every month of the
    /// period, so that months without counts are released too.
    #[arg(long, value_name = "FILE")]
    times: Option<PathBuf>,
    /// Seed the noise — for demonstrations and tests only: the release is then NOT private.
    #[arg(long)]
    seed: Option<u64>,
    /// Replace an existing release at --output (publishing two independent releases of the same
    /// counts spends the privacy budget twice).
    #[arg(long)]
    force: bool,
}

impl PrivatizeArgs {
    /// The library's request ([`release::PrivatizeRequest`]); clap has checked which options go
    /// together.
    fn request(&self) -> PrivatizeRequest {
        let levels = match (self.epsilon, self.alpha, &self.alpha_file) {
            (Some(e), _, _) => Levels::Epsilon(e),
            (_, Some(a), _) => Levels::Alpha(a),
            (_, _, Some(file)) => Levels::File(file.clone()),
            // clap's required group `level` gives one of the three.
            (None, None, None) => Levels::Epsilon(f64::NAN),
        };
        PrivatizeRequest {
            format: self.layout.format(),
            precision: self.precision,
            square: self.square,
            symmetric: self.symmetric,
            diagonal: self.diagonal,
            rows: self.rows.clone().map(LabelSource::File),
            cols: self.cols.clone().map(LabelSource::File),
            labels: self.labels.clone().map(LabelSource::File),
            times: self.times.clone().map(LabelSource::File),
            seed: self.seed,
            force: self.force,
            ..PrivatizeRequest::new(&self.input, &self.output, levels)
        }
    }
}

/// Maps the library's error to the exit code: the user's input 2, a failed write 1.
pub(crate) fn failure(e: PrivatizeError) -> Failure {
    if e.is_user_error() { bad_input(e) } else { failed(e) }
}

pub fn privatize(args: &PrivatizeArgs) -> Result<(), Failure> {
    let released = privatize_file(&args.request()).map_err(failure)?;
    eprintln!("{}", released.report);
    for warning in &released.warnings {
        eprintln!("{warning}");
    }
    Ok(())
}
