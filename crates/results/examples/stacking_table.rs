//! The equal-weight and stacked estimates of a sweep side by side (docs/modes.md, issue 33): for
//! every (e₀, α) cell the paired private − naïve difference in mean KL over the data sets, with
//! the chains pooled with equal weights and stacked by PSIS-LOO; and the share of fits flagged by
//! the old warning (any R̂ or ESS limit) and by each convergence verdict.
//!
//! Usage: `cargo run --release -p results --example stacking_table -- results/fig4-enron-quick/results.parquet [cells.csv [fits.csv]]`
//! Prints a table; with `cells.csv`, also writes one row per cell, and with `fits.csv` one row per
//! Gibbs fit (method, verdict, warning, R̂ and bulk ESS of the log joint, equal and stacked mean
//! KL): the files docs/modes.md's generated blocks read.

use results::{ResultRow, paired, read_results};
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        return Err("usage: stacking_table RESULTS.parquet [OUT.csv]".into());
    };
    let rows = read_results(std::path::Path::new(path))?;
    let gibbs: Vec<&ResultRow> = rows.iter().filter(|r| r.diagnostics.is_some()).collect();
    println!("Gibbs fits: {}", gibbs.len());
    let flagged = gibbs.iter().filter(|r| r.warning.as_deref().is_some_and(|w| !w.is_empty())).count();
    println!("flagged by the R̂/ESS warning: {flagged} ({:.1} %)", 100.0 * flagged as f64 / gibbs.len().max(1) as f64);
    let mut verdicts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in &gibbs {
        *verdicts.entry((r.method.clone(), r.convergence.clone().unwrap_or_default())).or_default() += 1;
    }
    for ((method, verdict), n) in &verdicts {
        println!("  {method:<12} {verdict:<20} {n}");
    }
    let unreliable: Vec<f64> = gibbs.iter().filter_map(|r| r.stacking.as_ref().map(|s| s.unreliable_share)).collect();
    let mean_unreliable = unreliable.iter().sum::<f64>() / unreliable.len().max(1) as f64;
    let worst_unreliable = unreliable.iter().copied().fold(0.0, f64::max);
    println!("LOO cells with k̂ > 0.7: mean share {mean_unreliable:.4}, largest {worst_unreliable:.4}");
    let weights_top: Vec<f64> = gibbs
        .iter()
        .filter_map(|r| r.stacking.as_ref().map(|s| s.weights.iter().copied().fold(0.0, f64::max)))
        .collect();
    let concentrated = weights_top.iter().filter(|&&w| w > 0.99).count();
    println!("fits whose largest stacking weight is above 0.99: {concentrated} of {}", weights_top.len());

    // Why the fits are flagged: the pooled R̂ and bulk ESS of the log joint, by method.
    for method in ["non-private", "naive", "private"] {
        let of = |get: fn(&results::TraceDiagnostics) -> f64| -> Vec<f64> {
            let mut v: Vec<f64> = gibbs
                .iter()
                .filter(|r| r.method == method)
                .filter_map(|r| r.diagnostics.map(|d| get(&d.ln_joint)))
                .collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (rhat, ess) = (of(|d| d.rhat), of(|d| d.ess_bulk));
        let q =
            |v: &[f64], p: f64| v.get(((v.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(f64::NAN);
        println!(
            "  {method:<12} ln joint R̂ median {:.3} (90 % {:.3}), bulk ESS median {:.0} (10 % {:.0}) over {} chains' kept draws",
            q(&rhat, 0.5),
            q(&rhat, 0.9),
            q(&ess, 0.5),
            q(&ess, 0.1),
            gibbs.iter().find(|r| r.method == method).map_or(0, |r| r.chains)
        );
    }
    // Stacked against equal weights, paired over the same fits.
    for method in ["non-private", "naive", "private"] {
        let pairs: Vec<(f64, f64)> = gibbs
            .iter()
            .filter(|r| r.method == method)
            .filter_map(|r| r.stacking.as_ref().map(|s| (s.mean_kl, r.mean_kl)))
            .collect();
        if let Some(p) = paired(&pairs, true) {
            let (lo, hi) = p.interval.unwrap_or((f64::NAN, f64::NAN));
            println!(
                "  {method:<12} stacked − equal mean KL over {} fits: {:+.4} [{lo:+.4}, {hi:+.4}], stacked lower in {}, p = {:.3}",
                p.n,
                p.mean,
                p.wins,
                p.p_value.unwrap_or(f64::NAN)
            );
        }
    }

    // Per (e0, alpha) cell: naïve and private by replication.
    type Key = (u64, u64);
    let mut cells: BTreeMap<Key, BTreeMap<(String, i64), &ResultRow>> = BTreeMap::new();
    for r in gibbs.iter().filter(|r| r.alpha.is_some()) {
        let key = (r.e0.unwrap_or(0.0).to_bits(), r.alpha.unwrap_or(0.0).to_bits());
        cells.entry(key).or_default().insert((r.method.clone(), r.replication), r);
    }
    let mut csv = String::from(
        "e0,alpha,n,equal_naive,equal_private,equal_diff,equal_lo,equal_hi,equal_wins,equal_p,\
         stacked_naive,stacked_private,stacked_diff,stacked_lo,stacked_hi,stacked_wins,stacked_p\n",
    );
    println!(
        "\n{:>5} {:>4} | {:>8} {:>8} {:>18} {:>4} {:>7} | {:>8} {:>8} {:>18} {:>4} {:>7}",
        "e0", "α", "naive", "private", "diff [95 % CI]", "wins", "p", "naive", "private", "diff [95 % CI]", "wins", "p"
    );
    for ((e0, alpha), fits) in &cells {
        let (e0, alpha) = (f64::from_bits(*e0), f64::from_bits(*alpha));
        let replications: Vec<i64> = fits.keys().filter(|(m, _)| m == "private").map(|(_, r)| *r).collect();
        let value = |method: &str, rep: i64, stacked: bool| -> Option<f64> {
            let r = fits.get(&(method.to_string(), rep))?;
            if stacked { r.stacking.as_ref().map(|s| s.mean_kl) } else { Some(r.mean_kl) }
        };
        let mut line = format!("{e0},{alpha}");
        let mut shown = format!("{e0:>5} {alpha:>4.1}");
        for stacked in [false, true] {
            let pairs: Vec<(f64, f64)> = replications
                .iter()
                .filter_map(|&rep| Some((value("private", rep, stacked)?, value("naive", rep, stacked)?)))
                .collect();
            let Some(p) = paired(&pairs, true) else { continue };
            let mean =
                |i: usize| pairs.iter().map(|x| if i == 0 { x.1 } else { x.0 }).sum::<f64>() / pairs.len() as f64;
            let (lo, hi) = p.interval.unwrap_or((f64::NAN, f64::NAN));
            let pv = p.p_value.unwrap_or(f64::NAN);
            if !stacked {
                write!(line, ",{}", p.n)?;
            }
            write!(line, ",{:.4},{:.4},{:.4},{:.4},{:.4},{},{:.4}", mean(0), mean(1), p.mean, lo, hi, p.wins, pv)?;
            write!(
                shown,
                " | {:>8.3} {:>8.3} {:>6.3} [{:>5.3},{:>5.3}] {:>4} {:>7.4}",
                mean(0),
                mean(1),
                p.mean,
                lo,
                hi,
                p.wins,
                pv
            )?;
        }
        println!("{shown}");
        csv.push_str(&line);
        csv.push('\n');
    }
    // Holm's step-down over the cells, per weighting: how many private − naïve differences stay
    // significant at 0.05 family-wise.
    for (name, column) in [("equal", 9), ("stacked", 16)] {
        let mut p: Vec<f64> =
            csv.lines().skip(1).filter_map(|l| l.split(',').nth(column).and_then(|x| x.parse().ok())).collect();
        p.sort_by(f64::total_cmp);
        let m = p.len();
        let survive = p.iter().enumerate().take_while(|&(i, &pv)| pv < 0.05 / (m - i) as f64).count();
        let raw = p.iter().filter(|&&pv| pv < 0.05).count();
        println!("{name}: p < 0.05 in {raw} of {m} cells; {survive} of {m} survive Holm at 0.05");
    }
    if let Some(out) = args.get(2) {
        std::fs::write(out, csv)?;
        println!("\nwrote {out}");
    }
    if let Some(out) = args.get(3) {
        std::fs::write(out, fits_csv(&gibbs)?)?;
        println!("wrote {out}");
    }
    Ok(())
}

/// One line per Gibbs fit: what the verdict and the warning said, and both pooled estimates.
fn fits_csv(gibbs: &[&ResultRow]) -> Result<String, std::fmt::Error> {
    let mut csv = String::from(
        "replication,e0,alpha,method,convergence,warned,rhat_ln_joint,ess_bulk_ln_joint,mean_kl,mean_kl_stacked\n",
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for r in gibbs {
        let d = r.diagnostics.map(|d| d.ln_joint);
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{}",
            r.replication,
            opt(r.e0),
            opt(r.alpha),
            r.method,
            r.convergence.as_deref().unwrap_or_default(),
            r.warning.as_deref().is_some_and(|w| !w.is_empty()),
            opt(d.map(|d| d.rhat)),
            opt(d.map(|d| d.ess_bulk)),
            r.mean_kl,
            opt(r.stacking.as_ref().map(|s| s.mean_kl)),
        )?;
    }
    Ok(csv)
}
