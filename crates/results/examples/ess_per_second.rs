//! ESS per second of two runs of the same design, paired fit by fit (issue 34: the augmented
//! against the collapsed private step). For each Gibbs fit present in both files (matched by
//! replication, e₀, α or ε, and method): the bulk ESS of the log joint, the total rate and the
//! KL per second of chain time, and the ratio B/A. Ratios are summarized on the log scale: the
//! geometric mean with its 95 % t-interval over the pairs, and how many pairs B wins. Also the
//! paired difference in mean KL (B − A), which must be no evidence of a difference if both
//! samplers target the same posterior.
//!
//! Usage: `cargo run --release -p results --example ess_per_second -- A/results.parquet B/results.parquet [out.csv]`

use results::{ResultRow, paired, read_results};
use std::fmt::Write as _;

fn key(r: &ResultRow) -> (i64, u64, u64, u64, String) {
    let bits = |x: Option<f64>| x.map_or(u64::MAX, f64::to_bits);
    (r.replication, bits(r.e0), bits(r.alpha), bits(r.epsilon), r.method.clone())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(a), Some(b)) = (args.get(1), args.get(2)) else {
        return Err("usage: ess_per_second A.parquet B.parquet [OUT.csv]".into());
    };
    let (a, b) = (read_results(a.as_ref())?, read_results(b.as_ref())?);
    let pairs: Vec<(&ResultRow, &ResultRow)> = a
        .iter()
        .filter(|r| r.diagnostics.is_some())
        .filter_map(|r| b.iter().find(|s| key(s) == key(r) && s.diagnostics.is_some()).map(|s| (r, s)))
        .collect();
    println!("{} paired fits", pairs.len());
    let mut csv = String::from(
        "replication,e0,alpha,epsilon,method,seconds_a,seconds_b,\
         ess_ln_joint_a,ess_ln_joint_b,ess_total_a,ess_total_b,ess_kl_a,ess_kl_b,rhat_ln_joint_a,rhat_ln_joint_b,mean_kl_a,mean_kl_b\n",
    );
    for (x, y) in &pairs {
        let (dx, dy) =
            (x.diagnostics.unwrap_or_else(|| unreachable!()), y.diagnostics.unwrap_or_else(|| unreachable!()));
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
        writeln!(
            csv,
            "{},{},{},{},{},{:.3},{:.3},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.4},{:.4},{:.5},{:.5}",
            x.replication,
            opt(x.e0),
            opt(x.alpha),
            opt(x.epsilon),
            x.method,
            x.seconds,
            y.seconds,
            dx.ln_joint.ess_bulk,
            dy.ln_joint.ess_bulk,
            dx.total_rate.ess_bulk,
            dy.total_rate.ess_bulk,
            dx.kl.ess_bulk,
            dy.kl.ess_bulk,
            dx.ln_joint.rhat,
            dy.ln_joint.rhat,
            x.mean_kl,
            y.mean_kl
        )?;
    }
    let seconds: Vec<(f64, f64)> = pairs.iter().map(|(x, y)| (y.seconds.ln(), x.seconds.ln())).collect();
    summarize("seconds per fit (B/A)", &seconds, true);
    for (name, get) in [
        ("ESS/s of the log joint (B/A)", (|d: results::RowDiagnostics| d.ln_joint.ess_bulk) as fn(_) -> f64),
        ("ESS/s of the total rate (B/A)", |d| d.total_rate.ess_bulk),
        ("ESS/s of the KL (B/A)", |d| d.kl.ess_bulk),
        ("ESS per sweep of the log joint (B/A)", |d| d.ln_joint.ess_bulk),
    ] {
        let per_second = !name.contains("sweep");
        let logs: Vec<(f64, f64)> = pairs
            .iter()
            .filter_map(|(x, y)| {
                let (dx, dy) = (x.diagnostics?, y.diagnostics?);
                let (sx, sy) = if per_second { (x.seconds, y.seconds) } else { (1.0, 1.0) };
                Some(((get(dy) / sy).ln(), (get(dx) / sx).ln()))
            })
            .collect();
        summarize(name, &logs, false);
    }
    let kl: Vec<(f64, f64)> = pairs.iter().map(|(x, y)| (y.mean_kl, x.mean_kl)).collect();
    if let Some(p) = paired(&kl, true) {
        let (lo, hi) = p.interval.unwrap_or((f64::NAN, f64::NAN));
        println!(
            "mean KL, B − A: {:+.5} [{lo:+.5}, {hi:+.5}], p = {:.3}, B lower in {} of {}",
            p.mean,
            p.p_value.unwrap_or(f64::NAN),
            p.wins,
            p.n
        );
    }
    if let Some(out) = args.get(3) {
        std::fs::write(out, csv)?;
        println!("wrote {out}");
    }
    Ok(())
}

/// The geometric mean ratio `exp(mean ln(B/A))` with its 95 % t-interval, and the pairs where
/// B is larger (`lower_is_better`: smaller).
fn summarize(name: &str, logs: &[(f64, f64)], lower_is_better: bool) {
    let Some(p) = paired(logs, lower_is_better) else { return };
    let (lo, hi) = p.interval.unwrap_or((f64::NAN, f64::NAN));
    println!(
        "{name}: geometric mean {:.2} [{:.2}, {:.2}], B {} in {} of {} (p = {:.2e})",
        p.mean.exp(),
        lo.exp(),
        hi.exp(),
        if lower_is_better { "smaller" } else { "larger" },
        p.wins,
        p.n,
        p.p_value.unwrap_or(f64::NAN)
    );
}
