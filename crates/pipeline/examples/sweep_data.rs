//! The true data sets of a sweep, outside the sweep: to look at the networks or tables a run drew
//! (e.g. the heavy networks of a Fig. 4-size SBC, docs/calibration.md), or to fit one of them with
//! `lppf fit`.
//!
//! Usage:
//! - `cargo run --release -p pipeline --example sweep_data -- MANIFEST summary`: one CSV line per
//!   replication: its shape; the total, median, 90th percentile and largest of its modelled
//!   counts (the block model's diagonal is not modelled); and for data from an overdispersed model
//!   the true shape `r` of the cells' gamma multipliers and the share of overdispersed cells;
//! - `cargo run --release -p pipeline --example sweep_data -- MANIFEST REPLICATION OUT.csv [RATES.csv]`:
//!   that replication's counts as a table `row,col,count` (rows and columns labelled by their
//!   index; zeros left out), the input `lppf fit` and `lppf privatize` read; with RATES.csv, also
//!   its true rates `μ*` as `row,col,rate` (every cell).
//!
//! The data are those of `pipeline::true_data`, so of the sweep's own streams: the same as the
//! units' fits saw (for manifests without an `e₀` axis; this uses the first `e₀`).

use pipeline::{DataSet, TrueData, load, true_data};
use std::io::Write;

type Failure = Box<dyn std::error::Error>;

/// The modelled counts of `data` (the block model's diagonal left out), sorted.
fn modelled_counts(data: &TrueData) -> Vec<u32> {
    let mut counts: Vec<u32> = data.modelled().map(|n| data.counts()[n]).collect();
    counts.sort_unstable();
    counts
}

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(manifest), Some(what)) = (args.get(1), args.get(2)) else {
        return Err("usage: sweep_data MANIFEST summary | sweep_data MANIFEST REPLICATION OUT.csv [RATES.csv]".into());
    };
    let m = load(manifest.as_ref())?;
    let e0 = m.sweep.e0.as_ref().and_then(|e0| e0.first().copied());
    let data = |replication| true_data(&m, &DataSet { replication, e0_index: 0, e0 });
    if what == "summary" {
        println!("replication,rows,cols,total,median,p90,max,shape,share");
        for replication in 0..m.sweep.replications {
            let d = data(replication)?;
            let counts = modelled_counts(&d);
            let total: u64 = counts.iter().map(|&y| u64::from(y)).sum();
            let at = |q: usize| counts[(counts.len() - 1) * q / 100];
            let (rows, cols) = d.shape();
            let (shape, share) = d
                .dispersion()
                .map_or((String::new(), String::new()), |c| (format!("{:e}", c.shape), format!("{}", c.share)));
            println!("{replication},{rows},{cols},{total},{},{},{},{shape},{share}", at(50), at(90), at(100));
        }
        return Ok(());
    }
    let replication: usize = what
        .parse()
        .map_err(|_| format!("replication {what:?}: expected `summary` or a number below {}", m.sweep.replications))?;
    if replication >= m.sweep.replications {
        return Err(format!(
            "replication {replication}: the manifest has {} (0 to {})",
            m.sweep.replications,
            m.sweep.replications - 1
        )
        .into());
    }
    let Some(out) = args.get(3) else {
        return Err("usage: sweep_data MANIFEST REPLICATION OUT.csv [RATES.csv]".into());
    };
    let d = data(replication)?;
    let (rows, cols) = d.shape();
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?);
    writeln!(file, "row,col,count")?;
    for (n, &y) in d.counts().iter().enumerate() {
        if y > 0 {
            writeln!(file, "{},{},{y}", n / cols, n % cols)?;
        }
    }
    file.flush()?;
    if let Some(path) = args.get(4) {
        let mut rates = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?);
        writeln!(rates, "row,col,rate")?;
        for (n, &mu) in d.rates().iter().enumerate() {
            writeln!(rates, "{},{},{mu:e}", n / cols, n % cols)?;
        }
        rates.flush()?;
    }
    eprintln!("wrote {out}: replication {replication}, {rows} × {cols}");
    Ok(())
}
