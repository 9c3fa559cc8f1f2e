//! R̂ and ESS (Vehtari et al. 2021) on chains whose answer is known: independent draws, AR(1)
//! chains with a known autocorrelation time, and unconverged chains of four kinds (shifted
//! means, different spreads, a trend, a stuck chain). Every draw is seeded, so each test has one
//! outcome; the tolerances are set from the sampling error of the estimators, given per test.

use distributions::Streams;
use inference::{Diagnostics, diagnose};
use rand::distr::Distribution;
use rand_distr::StandardNormal;

/// `chains` AR(1) chains `x_t = ρ x_{t−1} + √(1−ρ²) ε_t` (stationary N(0, 1) start), shifted by
/// `shift(m)` and scaled by `scale(m)`.
fn ar1(
    seed: u64,
    chains: usize,
    n: usize,
    rho: f64,
    shift: impl Fn(usize) -> f64,
    scale: impl Fn(usize) -> f64,
) -> Vec<Vec<f64>> {
    (0..chains)
        .map(|m| {
            let mut rng = Streams::new(seed).child(m as u64).rng();
            let mut x: f64 = StandardNormal.sample(&mut rng);
            (0..n)
                .map(|_| {
                    let e: f64 = StandardNormal.sample(&mut rng);
                    x = rho * x + (1.0 - rho * rho).sqrt() * e;
                    shift(m) + scale(m) * x
                })
                .collect()
        })
        .collect()
}

fn run(chains: &[Vec<f64>]) -> Diagnostics {
    let refs: Vec<&[f64]> = chains.iter().map(Vec::as_slice).collect();
    diagnose(&refs)
}

#[test]
fn independent_draws_have_rhat_near_one_and_full_ess() {
    // 4 × 1000 iid draws: R̂ − 1 is of order 1/S; ESS estimates of S = 4000 independent draws have
    // a relative sd of a few per cent.
    let d = run(&ar1(1, 4, 1000, 0.0, |_| 0.0, |_| 1.0));
    assert!(d.rhat < 1.005, "{d:?}");
    assert!((3400.0..4600.0).contains(&d.ess_bulk), "{d:?}");
    assert!((3000.0..5000.0).contains(&d.ess_tail), "{d:?}");
    assert!(d.warnings(4).is_empty(), "{:?}", d.warnings(4));
}

#[test]
fn ess_matches_the_autocorrelation_time_of_ar1() {
    // For AR(1), τ = (1 + ρ)/(1 − ρ): ρ = 0.9 gives τ = 19 and ESS = 80000/19 ≈ 4211 for 4 chains
    // of 20000. The estimate's relative sd at this length is a few per cent; the band is ±15 %.
    // The chains are long enough (≈ 500 effective draws per split chain) for R̂ − 1 to be ≪ 0.01.
    let d = run(&ar1(2, 4, 20_000, 0.9, |_| 0.0, |_| 1.0));
    let expected = 80_000.0 / 19.0;
    assert!((d.ess_bulk / expected - 1.0).abs() < 0.15, "{d:?} vs {expected}");
    assert!(d.rhat < 1.01, "{d:?}");
    // ρ = 0.5: τ = 3, ESS ≈ 2667.
    let d = run(&ar1(3, 4, 2000, 0.5, |_| 0.0, |_| 1.0));
    assert!((d.ess_bulk / (8000.0 / 3.0) - 1.0).abs() < 0.2, "{d:?}");
}

#[test]
fn unconverged_chains_are_flagged() {
    // One chain centred one sd away from the other three.
    let shifted = run(&ar1(4, 4, 500, 0.5, |m| if m == 0 { 1.0 } else { 0.0 }, |_| 1.0));
    assert!(shifted.rhat > 1.05, "shifted mean: {shifted:?}");
    // Same mean, one chain three times as spread: the bulk R̂ barely moves, the folded (tail) R̂
    // catches it.
    let spread = run(&ar1(5, 4, 1000, 0.0, |_| 0.0, |m| if m == 0 { 3.0 } else { 1.0 }));
    assert!(spread.rhat > 1.05, "different spread: {spread:?}");
    // Every chain drifting (not stationary): split R̂ compares the halves of each chain.
    let trend: Vec<Vec<f64>> = ar1(6, 4, 500, 0.0, |_| 0.0, |_| 1.0)
        .into_iter()
        .map(|c| c.iter().enumerate().map(|(i, x)| x + 4.0 * i as f64 / 500.0).collect())
        .collect();
    let trend = run(&trend);
    assert!(trend.rhat > 1.1, "trend: {trend:?}");
    // A chain that barely moves (ρ = 0.999) has few effective draws.
    let stuck = run(&ar1(7, 4, 500, 0.999, |_| 0.0, |_| 1.0));
    assert!(stuck.rhat > 1.01 && stuck.ess_bulk < 100.0, "stuck: {stuck:?}");
    for d in [shifted, spread, trend, stuck] {
        assert!(!d.warnings(4).is_empty(), "{d:?} must warn");
    }
}

#[test]
fn invariant_to_monotone_transforms() {
    // Rank normalization makes R̂ and ESS depend only on the ranks: exp(x) gives the same numbers.
    let chains = ar1(8, 3, 400, 0.7, |_| 0.0, |_| 1.0);
    let exp: Vec<Vec<f64>> = chains.iter().map(|c| c.iter().map(|x| x.exp()).collect()).collect();
    let (a, b) = (run(&chains), run(&exp));
    assert!((a.ess_bulk - b.ess_bulk).abs() < 1e-9 && (a.ess_tail - b.ess_tail).abs() < 1e-9);
    // The folded R̂ uses |x − median|, which a monotone map does not preserve; the bulk part does.
    assert!(a.rhat < 1.02 && b.rhat < 1.02, "{a:?} {b:?}");
}

/// Agreement with a reference implementation: ArviZ 0.23.4's `rhat(method="rank")`,
/// `ess(method="bulk")` and `ess(method="tail")` on fixed arrays (4 chains × 100 draws, stored
/// with the values in tests/data/diagnostics_reference.csv; tools/reference/
/// make_diagnostics_reference.py made them and says how). Three cases have not converged, and
/// there R̂ must be large. The two computations differ only in floating-point order (ArviZ's
/// autocovariances go through an FFT), hence the 1e-9 relative tolerance.
#[test]
fn rhat_and_ess_agree_with_arviz_on_fixed_arrays() {
    let text = include_str!("../data/diagnostics_reference.csv");
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(',').collect();
        let name = fields[0];
        let number = |s: &str| s.parse::<f64>().unwrap();
        let (rhat, bulk, tail) = (number(fields[1]), number(fields[2]), number(fields[3]));
        let draws: Vec<f64> = fields[4..].iter().map(|s| number(s)).collect();
        assert_eq!(draws.len(), 400, "{name}");
        let chains: Vec<&[f64]> = draws.chunks(100).collect();
        let d = diagnose(&chains);
        let close = |got: f64, expected: f64| (got - expected).abs() <= 1e-9 * expected.abs();
        assert!(close(d.rhat, rhat), "{name}: R̂ {} vs ArviZ {rhat}", d.rhat);
        assert!(close(d.ess_bulk, bulk), "{name}: bulk ESS {} vs ArviZ {bulk}", d.ess_bulk);
        assert!(close(d.ess_tail, tail), "{name}: tail ESS {} vs ArviZ {tail}", d.ess_tail);
        if ["shifted-chain", "trend"].contains(&name) {
            assert!(d.rhat > 1.4, "{name}: an unconverged case must have a large R̂");
        }
        cases += 1;
    }
    assert_eq!(cases, 7);
}
