//! The check only a demonstration can make: how well a fit's posterior mean rates describe the
//! **raw** counts that were privatized (an analyst never has them). Prints the total, the
//! Poisson log-likelihood `Σ_n [y_n ln μ̂_n − μ̂_n − ln y_n!]` over the fitted cells, and the
//! fitted rate summed within bins of the raw count.
//!
//! `cargo run --release -p analysis --example score_against_counts -- RATES.parquet COUNTS.csv`
//! (COUNTS read as a network, as `lppf privatize --square` would).

use distributions::ln_gamma;
use results::{Values, read_table};
use std::collections::HashMap;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, rates, counts] = args.as_slice() else {
        return Err("usage: score_against_counts RATES.parquet COUNTS.csv".into());
    };
    let table = tables::read_counts(Path::new(counts), true, &tables::GridLabels::default())?;
    let n = table.cols.len();
    let raw: HashMap<(&str, &str), u64> = table
        .counts
        .iter()
        .enumerate()
        .map(|(k, &c)| ((table.rows.names[k / n].as_str(), table.cols.names[k % n].as_str()), c))
        .collect();
    let columns = read_table(Path::new(rates))?;
    let get = |name: &str| columns.iter().find(|(c, _)| c == name).map(|(_, v)| v.clone());
    let (Some(Values::Text(rows)), Some(Values::Text(cols)), Some(Values::Float(means))) =
        (get("row"), get("col"), get("mean"))
    else {
        return Err(format!("{rates}: expected the columns row, col, mean of lppf fit's rates.parquet").into());
    };
    let bins: [(u64, u64); 6] = [(0, 0), (1, 1), (2, 5), (6, 20), (21, 100), (101, u64::MAX)];
    let (mut loglik, mut fitted, mut total) = (0.0, 0.0, 0u64);
    let mut by_bin = [(0usize, 0u64, 0.0f64); 6];
    for ((r, c), m) in rows.iter().zip(&cols).zip(&means) {
        let (Some(&y), Some(mu)) = (raw.get(&(r.as_str(), c.as_str())), *m) else {
            return Err(format!("cell ({r}, {c}) is not in {counts}").into());
        };
        loglik += y as f64 * mu.ln() - mu - ln_gamma(y as f64 + 1.0);
        fitted += mu;
        total += y;
        if let Some(b) = bins.iter().position(|&(lo, hi)| (lo..=hi).contains(&y)) {
            by_bin[b].0 += 1;
            by_bin[b].1 += y;
            by_bin[b].2 += mu;
        }
    }
    println!("{} cells: raw total {total}, fitted total rate {fitted:.0}", rows.len());
    println!("Poisson log-likelihood of the raw counts: {loglik:.0} ({:.3} per cell)", loglik / rows.len() as f64);
    println!("raw count | cells | raw total | fitted total rate");
    for ((lo, hi), (cells, y, mu)) in bins.iter().zip(by_bin) {
        let range = if hi == &u64::MAX {
            format!("{lo}+")
        } else if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}–{hi}")
        };
        println!("{range:>9} | {cells:>5} | {y:>9} | {mu:>17.0}");
    }
    Ok(())
}
