//! `lppf score`: a finished fit against the raw counts it was released from (a methods study's
//! check; an analyst never holds those counts). Prints TOML to stdout (`analysis::score`).

use crate::{Failure, bad_input};
use analysis::score::{Score, adjusted_rand, rate_correlation, read_fit_rates, read_partition, score};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ScoreArgs {
    /// A fit directory written by `lppf fit`.
    #[arg(long)]
    fit: PathBuf,
    /// The raw counts the release was made from: row,col,count (CSV, TSV or Parquet), as given
    /// to `lppf privatize`.
    #[arg(long)]
    truth: PathBuf,
    /// Another fit of the same grid to compare with: the correlation of the two fits' mean rates
    /// and the agreement of their row partitions (adjusted Rand index).
    #[arg(long, value_name = "FIT")]
    reference: Option<PathBuf>,
    /// The row labels the release was made with (`lppf privatize --rows`), when some rows of the
    /// grid have no non-zero count in --truth.
    #[arg(long, value_name = "FILE")]
    rows: Option<PathBuf>,
    /// The column labels the release was made with (`lppf privatize --cols`).
    #[arg(long, value_name = "FILE")]
    cols: Option<PathBuf>,
    /// A network's labels, as given to `lppf privatize --labels` (for a network over time, fitted
    /// with --model tensor, give it so that the truth is read on the network's grid).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rows", "cols"])]
    labels: Option<PathBuf>,
    /// Counts over time: the time labels the release was made with (`lppf privatize --times`).
    #[arg(long, value_name = "FILE")]
    times: Option<PathBuf>,
    #[command(flatten)]
    layout: crate::counts_layout::CountsLayout,
}

/// Agreement with a reference fit.
#[derive(Serialize)]
struct Reference {
    fit: String,
    /// Pearson correlation of the posterior mean rates over the cells both fits hold.
    rate_correlation: f64,
    shared_cells: usize,
    /// Adjusted Rand index of the two row partitions (absent when either fit listed none).
    adjusted_rand: Option<f64>,
    partitioned_rows: usize,
}

#[derive(Serialize)]
struct Report {
    fit: String,
    truth: String,
    #[serde(flatten)]
    score: Score,
    reference: Option<Reference>,
}

/// The model a fit directory's `fit.toml` names (`block` fits read their counts as a network).
fn fit_model(dir: &Path) -> Result<String, Failure> {
    let path = dir.join("fit.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| bad_input(format!("{}: {e} (--fit takes a directory written by lppf fit)", path.display())))?;
    let record: toml::Table = text.parse().map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
    record
        .get("model")
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .ok_or_else(|| bad_input(format!("{}: no `model`", path.display())))
}

/// The raw counts on the grid of the fit's release: a network's (block or undirected model) is
/// square, an undirected network's counts may list each pair once, either way, or both ways
/// (as `lppf privatize --symmetric` takes them), and stated labels give the rows and columns
/// that have no non-zero count.
fn read_truth(args: &ScoreArgs, model: &str) -> Result<tables::CountTable, Failure> {
    let tensor = model == "tensor";
    let square = model == "block" || model == "undirected" || tensor && args.labels.is_some();
    let mut given = tables::GridLabels::from_options(
        square,
        args.labels.as_ref(),
        args.rows.as_ref(),
        args.cols.as_ref(),
        |p: &PathBuf| tables::read_labels(p),
    )
    .map_err(|e| match e {
        tables::LabelOptionError::Misuse(tables::LabelOptionMisuse::TableOptionsOnNetwork) => bad_input(format!(
            "--rows and --cols are for a fit of a table; this fit is of a network (model {model}): give --labels"
        )),
        tables::LabelOptionError::Misuse(tables::LabelOptionMisuse::NetworkOptionOnTable) => bad_input(format!(
            "--labels states a network's labels; this fit is of a table (model {model}): give --rows and --cols"
        )),
        tables::LabelOptionError::Read(e) => bad_input(e),
    })?;
    let mut format = args.layout.format();
    match (tensor, &format.time, &args.times) {
        (true, _, _) => format = format.over_time(),
        (false, Some(_), _) | (false, _, Some(_)) => {
            return Err(bad_input(format!(
                "--time-column and --times are for a fit of counts over time (model tensor); this fit's model is {model}"
            )));
        }
        _ => {}
    }
    given.times = args.times.as_ref().map(|p| tables::read_labels(p)).transpose().map_err(bad_input)?;
    let truth = tables::read_counts_as(&args.truth, square, &given, &format).map_err(bad_input)?;
    if model == "undirected" { truth.undirected(&args.truth).map_err(bad_input) } else { Ok(truth) }
}

pub fn score_fit(args: &ScoreArgs) -> Result<(), Failure> {
    let truth = read_truth(args, &fit_model(&args.fit)?)?;
    let rates = read_fit_rates(&args.fit.join("rates.parquet")).map_err(bad_input)?;
    let score = score(&rates, &truth, &args.truth).map_err(bad_input)?;
    let reference = match &args.reference {
        None => None,
        Some(other) => {
            fit_model(other)?;
            let theirs = read_fit_rates(&other.join("rates.parquet")).map_err(bad_input)?;
            let (rate_correlation, shared_cells) = rate_correlation(&rates, &theirs)
                .map_err(|e| bad_input(format!("--reference {}: {e}", other.display())))?;
            let ours = read_partition(&args.fit.join("partition.csv")).map_err(bad_input)?;
            let them = read_partition(&other.join("partition.csv")).map_err(bad_input)?;
            let agreement = adjusted_rand(&ours, &them);
            Some(Reference {
                fit: other.display().to_string(),
                rate_correlation,
                shared_cells,
                adjusted_rand: agreement.map(|a| a.0),
                partitioned_rows: agreement.map_or(0, |a| a.1),
            })
        }
    };
    let report =
        Report { fit: args.fit.display().to_string(), truth: args.truth.display().to_string(), score, reference };
    let text = toml::to_string(&report).map_err(|e| crate::failed(format!("cannot write the score: {e}")))?;
    print!("# lppf score: the fit's posterior mean rates against the raw counts (docs/own-data.md)\n{text}");
    Ok(())
}
