//! `lppf prepare-enron-network`: the Enron e-mail network as a data holder's count table
//! (`row,col,count`, actors named `Name (Department)`), the input of the worked example in
//! docs/own-data.md; with `--by-month`, the network by calendar month (`row,col,time,count`) and
//! its months, the input of docs/counts-over-time.md.

use crate::{Failure, bad_input, failed};
use enron::{CountNetwork, InclusionRule, MonthlyNetwork, read_employees};
use std::path::PathBuf;
use tables::{CountTable, Labels, TimeAxes, write_counts, write_labels};

/// Arguments of `lppf prepare-enron-network`.
#[derive(clap::Args)]
pub struct EnronNetworkArgs {
    /// The cleaned message table (a file, e.g. ../shared/data/enron/Enron.csv) or a maildir tree
    /// (a directory).
    pub input: PathBuf,
    /// The employee table naming the actors (ids not in it keep their id as label).
    #[arg(long, default_value = "../shared/data/enron/employees.json")]
    pub employees: PathBuf,
    /// Where to write `row,col,count` (the non-zero cells; Parquet if the name ends in .parquet).
    #[arg(long, default_value = "data/enron/network-counts.csv")]
    pub output: PathBuf,
    /// Count by calendar month (UTC) of the sending time: write row,col,time,count (time =
    /// YYYY-MM) and the months (every month from the first to the last, a `label` file for
    /// `lppf privatize --times`) to --months-output. Needs the cleaned table (it has the times).
    #[arg(long)]
    pub by_month: bool,
    /// With --by-month: where to write the months.
    #[arg(long, requires = "by_month", default_value = "data/enron/months.csv")]
    pub months_output: PathBuf,
    /// With --by-month: the first month to count (YYYY-MM) [default: the first with a message].
    #[arg(long, requires = "by_month")]
    pub from: Option<String>,
    /// With --by-month: the last month to count (YYYY-MM) [default: the last with a message].
    #[arg(long, requires = "by_month")]
    pub to: Option<String>,
}

/// Counts the network (one e-mail per recipient), keeps the paper's actors (sent ≥ 1, sent +
/// received ≥ 100), names them and writes the non-zero cells in row-major order.
pub fn prepare_network(args: &EnronNetworkArgs) -> Result<(), Failure> {
    let (messages, report) = if args.input.is_dir() {
        enron::read_maildir(&args.input).map_err(bad_input)?
    } else if args.input.is_file() {
        enron::read_table(&args.input).map_err(bad_input)?
    } else {
        return Err(bad_input(format!("{}: no such file or directory", args.input.display())));
    };
    let employees = read_employees(&args.employees).map_err(bad_input)?;
    let ids = CountNetwork::from_messages(&messages).included(InclusionRule::PAPER);
    let network = ids.with_employee_names(&employees);
    eprintln!("read: {report}");
    crate::write_full_report(&args.output, &report)?;
    let labels = Labels::from_names(network.labels.iter().cloned());
    if args.by_month {
        return write_by_month(args, &messages, (&ids, labels));
    }
    let table = CountTable {
        rows: labels.clone(),
        cols: labels,
        counts: network.counts.iter().map(|&c| u64::from(c)).collect(),
        axes: None,
    };
    write_counts(&args.output, &table).map_err(failed)?;
    println!(
        "{}: {} actors, {} non-zero cells, {} e-mails (one per recipient)",
        args.output.display(),
        network.actors(),
        network.cells().count(),
        network.total()
    );
    Ok(())
}

/// `--by-month`: the kept actors' counts by month, labelled as the network's (`named`, in the
/// order of `ids`), and the months.
fn write_by_month(
    args: &EnronNetworkArgs,
    messages: &[enron::Message],
    (ids, named): (&CountNetwork, Labels),
) -> Result<(), Failure> {
    let bounds = (args.from.as_deref(), args.to.as_deref());
    let monthly = MonthlyNetwork::from_messages(messages, &ids.labels, bounds).map_err(bad_input)?;
    if monthly.undated > 0 {
        return Err(bad_input(format!(
            "{}: {} messages have no sending time; --by-month reads the cleaned table (Enron.csv), which has them",
            args.input.display(),
            monthly.undated
        )));
    }
    let times = Labels::from_names(monthly.months.iter().cloned());
    let axes = TimeAxes { cols: named.clone(), times: times.clone() };
    let cols = axes.grid_labels(&args.output).map_err(bad_input)?;
    let counts = monthly.counts.iter().map(|&c| u64::from(c)).collect();
    let table = CountTable { rows: named, cols, counts, axes: Some(axes) };
    write_counts(&args.output, &table).map_err(failed)?;
    write_labels(&args.months_output, &times).map_err(failed)?;
    println!(
        "{}: {} actors × {} months ({} to {}), {} non-zero cells, {} e-mails (one per recipient; {} outside the months)\n{}: the months",
        args.output.display(),
        monthly.labels.len(),
        monthly.months.len(),
        monthly.months.first().map_or("-", String::as_str),
        monthly.months.last().map_or("-", String::as_str),
        monthly.cells().count(),
        monthly.total(),
        monthly.outside,
        args.months_output.display()
    );
    Ok(())
}
