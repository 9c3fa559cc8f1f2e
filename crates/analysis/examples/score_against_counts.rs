//! The check only a demonstration can make: how well a fit's posterior mean rates describe the
//! **raw** counts that were privatized (an analyst never has them). Prints the total, the
//! Poisson log-likelihood `Σ_n [y_n ln μ̂_n − μ̂_n − ln y_n!]` over the fitted cells, and the
//! fitted rate summed within bins of the raw count.
//!
//! `cargo run --release -p analysis --example score_against_counts -- RATES.parquet COUNTS.csv`
//! (COUNTS read as a network, as `lppf privatize --square` would). The same numbers, and more,
//! come from `lppf score` (`analysis::score`); this text is what `tools/model-checking-enron.sh`
//! reads.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, rates, counts] = args.as_slice() else {
        return Err("usage: score_against_counts RATES.parquet COUNTS.csv".into());
    };
    let table = tables::read_counts(Path::new(counts), true, &tables::GridLabels::default())?;
    let rates = analysis::score::read_fit_rates(Path::new(rates))?;
    let s = analysis::score::score(&rates, &table, Path::new(counts))?;
    println!("{} cells: raw total {}, fitted total rate {:.0}", s.cells, s.raw_total, s.fitted_total);
    println!(
        "Poisson log-likelihood of the raw counts: {:.0} ({:.3} per cell)",
        s.log_likelihood, s.log_likelihood_per_cell
    );
    println!("raw count | cells | raw total | fitted total rate");
    for b in &s.bins {
        let range = match b.hi {
            None => format!("{}+", b.lo),
            Some(hi) if hi == b.lo => hi.to_string(),
            Some(hi) => format!("{}–{hi}", b.lo),
        };
        println!("{range:>9} | {:>5} | {:>9} | {:>17.0}", b.cells, b.raw_total, b.fitted_total);
    }
    Ok(())
}
