//! Draws per second of the samplers over the parameter grid of the issue, and the cost per cell of
//! the likelihood every kept draw of a fit scores (PSIS-LOO, stacking, the monitored marginal
//! log-likelihood). Run: `cargo bench -p benches --bench samplers` (figures in BENCHMARKS.md).
//!
//! Each iteration builds the distribution from its parameters and draws once, as the Gibbs sampler
//! does (the parameters change at every matrix entry), so construction cost is included.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use distributions::{Bessel, CellDispersion, Gamma, ParamError, Poisson, Skellam, TwoSidedGeometric, stream};
use rand::distr::Distribution;
use std::hint::black_box;
use std::time::Duration;

const DRAWS: u64 = 1000;

/// Times `DRAWS` rounds of "build from `params`, draw once" on its own seeded stream.
fn bench_draws<P: Copy + std::fmt::Debug, T, D: Distribution<T>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    seed: u64,
    params: P,
    build: impl Fn(P) -> Result<D, ParamError>,
) {
    let mut rng = stream(seed, 0);
    group.bench_function(BenchmarkId::new(name, format!("{params:?}")), |b| {
        b.iter(|| {
            for _ in 0..DRAWS {
                if let Ok(d) = build(black_box(params)) {
                    black_box(d.sample(&mut rng));
                }
            }
        })
    });
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("samplers");
    group.throughput(Throughput::Elements(DRAWS));
    group.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    let bessel_grid = [
        (0.0, 1e-3),
        (1.0, 2.0),
        (3.0, 10.0),
        (10.0, 100.0),
        (0.0, 1e4),
        (100.0, 1e4),
        (1e4, 1e4),
        (0.0, 1e6),
        (1e5, 1e6),
    ];
    for nu_a in bessel_grid {
        bench_draws(&mut group, "bessel (nu, a)", 1, nu_a, |(nu, a)| Bessel::new(nu, a));
    }
    // Poisson at the Bessel draw's scale (the mean a/2 of a Bessel with small ν), for the ratio.
    for rate in [1e-3, 1.0, 5.0, 50.0, 5e3, 5e5] {
        bench_draws(&mut group, "poisson rate", 2, rate, Poisson::new);
    }
    for mu in [0.5, 50.0, 1e4] {
        bench_draws(&mut group, "skellam mu1=mu2", 3, mu, |mu| Skellam::new(mu, mu));
    }
    for alpha in [0.1, 0.5, 0.9] {
        bench_draws(&mut group, "two_sided_geometric alpha", 4, alpha, TwoSidedGeometric::new);
    }
    for shape in [0.1, 1.0, 10.0] {
        bench_draws(&mut group, "gamma shape (rate 1)", 5, shape, |shape| Gamma::new(shape, 1.0));
    }
    group.finish();
}

/// Cells of a dense release as a fit sees them: rates `μ ~ Gamma(0.5, rate 0.5)` (mean 1), values
/// `ỹ = y + τ` with `y ~ Pois(μ)` and `τ ~ 2Geo(α)`, seeded.
fn released_cells(cells: usize, alpha: f64) -> (Vec<f64>, Vec<i64>) {
    let mut rng = stream(6, 0);
    let (gamma, noise) = (Gamma::new(0.5, 0.5).expect("valid"), TwoSidedGeometric::new(alpha).expect("valid"));
    (0..cells)
        .map(|_| {
            let rate = gamma.sample(&mut rng);
            let count = Poisson::new(rate).expect("valid").sample(&mut rng) as i64;
            (rate, count + noise.sample(&mut rng))
        })
        .unzip()
}

/// `ln p(ỹ | μ, law, α)` of 1,000 cells of a dense release at α = 0.5, under the Poisson, the
/// negative binomial on both sides of `r = 1` (log-convex and log-concave terms) and the
/// contaminated mixture (`lppf fit`'s default likelihood).
fn bench_cell_likelihood(c: &mut Criterion) {
    const CELLS: usize = 1000;
    let mut group = c.benchmark_group("cell likelihood");
    group.throughput(Throughput::Elements(CELLS as u64));
    group.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    let alpha = 0.5;
    let (rates, values) = released_cells(CELLS, alpha);
    let laws = [
        ("poisson", None),
        ("negative binomial r = 0.3", Some(CellDispersion::negative_binomial(0.3))),
        ("negative binomial r = 3", Some(CellDispersion::negative_binomial(3.0))),
        ("contaminated r = 0.3, pi = 0.2", Some(CellDispersion { shape: 0.3, share: 0.2 })),
    ];
    for (name, law) in laws {
        group.bench_function(BenchmarkId::new("alpha 0.5", name), |b| {
            b.iter(|| {
                rates
                    .iter()
                    .zip(&values)
                    .map(|(&rate, &value)| eval::ln_cell_likelihood(value, rate, law, alpha))
                    .sum::<f64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_cell_likelihood);
criterion_main!(benches);
