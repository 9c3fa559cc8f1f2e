//! Two small CSV files of one run for the docs' generated tables (issue 36; `just docs`,
//! `tools/docs/generate.py`), readable without a Parquet reader:
//! - `fits.csv`: one line per fit with the columns the docs quote (errors, chains, R̂ of the log
//!   joint, whether the diagnostics flag the fit, the coverage of the truth by the credible
//!   intervals, the bulk ESS of the KL trace, the SBC rank of the true total and the hottest rung
//!   of a replica-exchange ladder where the fit has them);
//! - `paired.csv`: for each (e₀, level) and each ordered pair of methods (A, B) fitted to the same
//!   data sets, the paired statistics of A − B over those data sets ([`results::paired`]: wins,
//!   mean, 95 % t-interval, two-sided p) for the mean KL, the rate MAE and the aligned topic MAE.
//!   Holm's adjustment is left to the reader of the file, who knows which comparisons form a
//!   family;
//! - with a second run of the same design (`OTHER`), instead of those two, `versus.csv`: for each
//!   (e₀, level, method), the paired statistics of this run − the other over the data sets both
//!   fitted, for the mean KL, and whether the two runs' values are identical (e.g. the collapsed
//!   against the augmented private step, issue 34).
//!
//! Usage: `cargo run -p results --example evidence_tables -- RUN/results.parquet OUT_DIR [OTHER/results.parquet]`

use results::{ResultRow, distinct, paired, read_results};
use std::fmt::Write as _;
use std::path::Path;

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(output)) = (args.get(1), args.get(2)) else {
        return Err("usage: evidence_tables RUN/results.parquet OUT_DIR [OTHER/results.parquet]".into());
    };
    let rows = read_results(input.as_ref())?;
    let dir = Path::new(output);
    match args.get(3) {
        Some(other) => write_versus(&rows, &read_results(other.as_ref())?, &dir.join("versus.csv")),
        None => {
            write_paired(&rows, &dir.join("paired.csv"))?;
            write_fits(&rows, &dir.join("fits.csv"))
        }
    }
}

fn bits(x: Option<f64>) -> Option<u64> {
    x.map(f64::to_bits)
}

/// The axis the summary uses: ε where the release states it (α may differ per data set).
fn level(r: &ResultRow) -> Option<f64> {
    r.epsilon.or(r.alpha)
}

/// A CSV cell: the value, or empty.
fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v}"))
}

/// One metric of a fit, if the fit has it.
type Metric = fn(&ResultRow) -> Option<f64>;

/// The metrics `paired.csv` compares, where both fits have them: the mean KL, the rate MAE and
/// (topic models) the aligned topic MAE.
const METRICS: [(&str, Metric); 3] =
    [("mean_kl", |r| Some(r.mean_kl)), ("rate_mae", |r| Some(r.rate_mae)), ("topic_error", |r| r.topic_error)];

/// `paired.csv`: per (e₀, level), every ordered pair of methods over the data sets both fitted.
fn write_paired(rows: &[ResultRow], path: &Path) -> Result<(), Failure> {
    let cells = distinct(rows.iter().map(|r| (bits(r.e0), bits(level(r)))));
    let methods = distinct(rows.iter().map(|r| r.method.as_str()));
    let mut csv = String::from("e0,level,method,versus,metric,n,wins,mean,low,high,p\n");
    for &(e0, at) in &cells {
        // A method without a level (non-private) is compared at every level.
        let here = |m: &str| -> Vec<&ResultRow> {
            rows.iter()
                .filter(|r| r.method == m && bits(r.e0) == e0 && (bits(level(r)) == at || level(r).is_none()))
                .collect()
        };
        for a in &methods {
            for b in methods.iter().filter(|b| *b != a) {
                let (mine, theirs) = (here(a), here(b));
                for (metric, get) in METRICS {
                    let pairs: Vec<(f64, f64)> = mine
                        .iter()
                        .filter_map(|x| {
                            let y = theirs.iter().find(|y| y.replication == x.replication)?;
                            Some((get(x)?, get(y)?))
                        })
                        .collect();
                    let Some(p) = paired(&pairs, true) else { continue };
                    let (low, high) = p.interval.unzip();
                    writeln!(
                        csv,
                        "{},{},{a},{b},{metric},{},{},{},{},{},{}",
                        opt(e0.map(f64::from_bits)),
                        opt(at.map(f64::from_bits)),
                        p.n,
                        p.wins,
                        p.mean,
                        opt(low),
                        opt(high),
                        opt(p.p_value)
                    )?;
                }
            }
        }
    }
    std::fs::write(path, csv)?;
    Ok(())
}

/// `fits.csv`: one line per fit.
fn write_fits(rows: &[ResultRow], path: &Path) -> Result<(), Failure> {
    let mut fits =
        String::from("replication,e0,level,method,mean_kl,rate_mae,topic_error,chains,rhat_ln_joint,flagged,");
    writeln!(
        fits,
        "{},ess_bulk_kl,{},ladder_min_beta",
        results::Coverage::COLUMNS.join(","),
        results::Sbc::COLUMNS.join(",")
    )?;
    for r in rows {
        let rhat = r.diagnostics.map(|d| d.ln_joint.rhat);
        let flagged = r.warning.as_deref().map_or(String::new(), |w| (!w.is_empty()).to_string());
        let coverage = r.coverage.map(|c| c.values().map(Some)).unwrap_or_default().map(opt).join(",");
        let sbc = r.sbc.map_or(",".to_string(), |s| format!("{},{}", s.total_rank, s.draws));
        writeln!(
            fits,
            "{},{},{},{},{},{},{},{},{},{flagged},{coverage},{},{sbc},{}",
            r.replication,
            opt(r.e0),
            opt(level(r)),
            r.method,
            r.mean_kl,
            r.rate_mae,
            opt(r.topic_error),
            r.chains,
            opt(rhat),
            opt(r.diagnostics.map(|d| d.kl.ess_bulk)),
            opt(r.ladder_min_beta)
        )?;
    }
    std::fs::write(path, fits)?;
    Ok(())
}

/// `versus.csv`: per (e₀, level, method), this run − the other over the data sets both fitted.
fn write_versus(rows: &[ResultRow], other: &[ResultRow], path: &Path) -> Result<(), Failure> {
    let mut versus = String::from("e0,level,method,n,wins,mean,low,high,p,identical\n");
    let key = |r: &ResultRow| (bits(r.e0), bits(level(r)), r.method.clone());
    for cell in distinct(rows.iter().map(key)) {
        let pairs: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| key(r) == cell)
            .filter_map(|r| {
                let twin = other.iter().find(|o| key(o) == cell && o.replication == r.replication)?;
                Some((r.mean_kl, twin.mean_kl))
            })
            .collect();
        let identical = pairs.iter().all(|(a, b)| a.to_bits() == b.to_bits());
        let (e0, at, method) = cell;
        let p = paired(&pairs, true);
        let (low, high) = p.as_ref().and_then(|p| p.interval).unzip();
        writeln!(
            versus,
            "{},{},{method},{},{},{},{},{},{},{identical}",
            opt(e0.map(f64::from_bits)),
            opt(at.map(f64::from_bits)),
            pairs.len(),
            p.as_ref().map_or(0, |p| p.wins),
            opt(p.as_ref().map(|p| p.mean)),
            opt(low),
            opt(high),
            opt(p.as_ref().and_then(|p| p.p_value))
        )?;
    }
    std::fs::write(path, versus)?;
    Ok(())
}
