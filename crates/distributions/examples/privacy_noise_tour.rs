//! A tour of the distributions behind locally private Poisson factorization.
//!
//! Run: `cargo run --release -p distributions --example privacy_noise_tour` (or `just demo`).
//! 1. The geometric mechanism's noise 2Geo(α) and the privacy level ε = N ln(1/α) it buys.
//! 2. Theorem 3.1: the same noise as a Skellam with exponentially distributed rates.
//! 3. Theorem 4.1: from the *difference* of two Poisson counts alone, a Bessel draw recovers the
//!    counts' distribution — the step the locally private Gibbs sampler takes for every entry.

use distributions::{Bessel, Poisson, TwoSidedGeometric, epsilon_from_alpha, stream, stream_id};
use rand::distr::Distribution;

const DRAWS: usize = 200_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("1. Two-sided geometric noise, {DRAWS} draws per level (N = 1)");
    println!("   alpha   epsilon   var(exact)   var(direct)   var(Theorem 3.1)");
    for (i, alpha) in [0.1, 0.3, 0.5, 0.7, 0.9].into_iter().enumerate() {
        let noise = TwoSidedGeometric::new(alpha)?;
        let mut rng = stream(2026, stream_id(&[1, i as u64]));
        let direct: Vec<f64> = (0..DRAWS).map(|_| noise.sample(&mut rng) as f64).collect();
        let augmented: Vec<f64> = (0..DRAWS).map(|_| noise.sample_augmented(&mut rng).0 as f64).collect();
        let var = |xs: &[f64]| xs.iter().map(|x| x * x).sum::<f64>() / xs.len() as f64;
        println!(
            "   {alpha:>5}   {:>7.3}   {:>10.4}   {:>11.4}   {:>16.4}",
            epsilon_from_alpha(alpha, 1.0)?,
            noise.variance(),
            var(&direct),
            var(&augmented)
        );
    }

    let (l1, l2) = (6.0, 4.0);
    println!("\n2. Recovering counts from their difference (Theorem 4.1), y1 ~ Pois({l1}), y2 ~ Pois({l2})");
    let (p1, p2) = (Poisson::new(l1)?, Poisson::new(l2)?);
    let mut rng = stream(2026, stream_id(&[2]));
    let delta = 2i64;
    let mins: Vec<u64> = (0..DRAWS * 5)
        .filter_map(|_| {
            let (y1, y2) = (p1.sample(&mut rng), p2.sample(&mut rng));
            (y1 as i64 - y2 as i64 == delta).then_some(y1.min(y2))
        })
        .collect();
    let bessel = Bessel::new(delta.unsigned_abs() as f64, 2.0 * (l1 * l2).sqrt())?;
    println!("   given y1 - y2 = {delta}: min(y1, y2) by simulation vs Bes({delta}, 2 sqrt(l1 l2))");
    println!("   m   simulated   Bessel pmf");
    for m in 0..8u64 {
        let freq = mins.iter().filter(|&&x| x == m).count() as f64 / mins.len() as f64;
        println!("   {m}   {freq:>9.4}   {:>10.4}", bessel.pmf(m));
    }
    println!(
        "   ({} pairs had the difference {delta}; Bessel mean {:.4}, mode {})",
        mins.len(),
        bessel.mean(),
        bessel.mode()
    );
    Ok(())
}
