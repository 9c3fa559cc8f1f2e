//! `lppf prepare-enron-network`: the Enron e-mail network as a data holder's count table
//! (`row,col,count`, actors named `Name (Department)`), the input of the worked example in
//! docs/own-data.md.

use crate::{Failure, bad_input, failed};
use enron::{CountNetwork, InclusionRule, read_employees};
use std::path::PathBuf;
use tables::{CountTable, Labels, write_counts};

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
    let network = CountNetwork::from_messages(&messages).included(InclusionRule::PAPER).with_employee_names(&employees);
    eprintln!("read: {report}");
    crate::write_full_report(&args.output, &report)?;
    let labels = Labels::from_names(network.labels.iter().cloned());
    let table = CountTable {
        rows: labels.clone(),
        cols: labels,
        counts: network.counts.iter().map(|&c| u64::from(c)).collect(),
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
