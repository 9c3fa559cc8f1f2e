//! A table on which a fitted model is right by construction: `y_n ~ Pois(μ̂_n)` for every cell a
//! fit modelled (`μ̂_n` the posterior mean rate of its `rates.parquet`), 0 elsewhere (a network's
//! diagonal), on the grid of a count table, drawn in grid order from one seeded stream. A
//! simulation for methods studies (docs/own-data.md, section 4, check (a)): seeded, so **not** a
//! source of private data.
//!
//! `cargo run --release -p analysis --example counts_from_fit -- RATES.parquet GRID.csv SEED OUT.csv`
//! (GRID read as a network, as `lppf privatize --square` would; OUT written as `row,col,count`,
//! non-zero cells only, as `lppf privatize` reads it).

use std::path::Path;

use rand::distr::Distribution;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, rates_file, grid, seed, out] = args.as_slice() else {
        return Err("usage: counts_from_fit RATES.parquet GRID.csv SEED OUT.csv".into());
    };
    let seed: u64 = seed.parse().map_err(|_| format!("SEED: expected a non-negative integer, got {seed:?}"))?;
    let mut table = tables::read_counts(Path::new(grid), true, &tables::GridLabels::default())?;
    let rates = analysis::score::read_fit_rates(Path::new(rates_file))?;
    let mut rng = distributions::Streams::new(seed).rng();
    let cols = table.cols.len();
    let (mut modelled, mut total) = (0usize, 0u64);
    for (n, count) in table.counts.iter_mut().enumerate() {
        let key = (table.rows.names[n / cols].clone(), table.cols.names[n % cols].clone());
        *count = match rates.get(&key) {
            Some(&mean) => {
                modelled += 1;
                let bad = |e| format!("{rates_file}: the mean rate of ({}, {}): {e}", key.0, key.1);
                distributions::Poisson::new(mean).map_err(bad)?.sample(&mut rng)
            }
            None => 0,
        };
        total += *count;
    }
    if modelled != rates.len() {
        return Err(
            format!("{rates_file}: {} fitted cells are not on the grid of {grid}", rates.len() - modelled).into()
        );
    }
    tables::write_counts(Path::new(out), &table)?;
    eprintln!("{out}: {modelled} cells drawn from the fit's mean rates (seed {seed}, NOT private), total {total}");
    Ok(())
}
