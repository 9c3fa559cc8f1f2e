//! Draws per second of the samplers over the parameter grid of the issue.
//! Run: `cargo bench -p distributions --bench samplers` (figures in BENCHMARKS.md).
//!
//! Each iteration builds the distribution from its parameters and draws once, as the Gibbs sampler
//! does (the parameters change at every matrix entry), so construction cost is included.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use distributions::{Bessel, Gamma, Poisson, Skellam, TwoSidedGeometric, stream};
use rand::distr::Distribution;
use std::hint::black_box;
use std::time::Duration;

const DRAWS: u64 = 1000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("samplers");
    group.throughput(Throughput::Elements(DRAWS));
    group.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    for (nu, a) in [
        (0.0, 1e-3),
        (1.0, 2.0),
        (3.0, 10.0),
        (10.0, 100.0),
        (0.0, 1e4),
        (100.0, 1e4),
        (1e4, 1e4),
        (0.0, 1e6),
        (1e5, 1e6),
    ] {
        let mut rng = stream(1, 0);
        group.bench_function(BenchmarkId::new("bessel", format!("nu={nu},a={a}")), |b| {
            b.iter(|| {
                (0..DRAWS)
                    .map(|_| Bessel::new(black_box(nu), black_box(a)).map_or(0, |d| d.sample(&mut rng)))
                    .sum::<u64>()
            })
        });
    }
    // Poisson at the Bessel draw's scale (the mean a/2 of a Bessel with small ν), for the ratio.
    for rate in [1e-3, 1.0, 5.0, 50.0, 5e3, 5e5] {
        let mut rng = stream(2, 0);
        group.bench_function(BenchmarkId::new("poisson", format!("rate={rate}")), |b| {
            b.iter(|| (0..DRAWS).map(|_| Poisson::new(black_box(rate)).map_or(0, |d| d.sample(&mut rng))).sum::<u64>())
        });
    }
    for mu in [0.5, 50.0, 1e4] {
        let mut rng = stream(3, 0);
        group.bench_function(BenchmarkId::new("skellam", format!("mu1=mu2={mu}")), |b| {
            b.iter(|| {
                (0..DRAWS)
                    .map(|_| Skellam::new(black_box(mu), black_box(mu)).map_or(0, |d| d.sample(&mut rng)))
                    .sum::<i64>()
            })
        });
    }
    for alpha in [0.1, 0.5, 0.9] {
        let mut rng = stream(4, 0);
        group.bench_function(BenchmarkId::new("two_sided_geometric", format!("alpha={alpha}")), |b| {
            b.iter(|| {
                (0..DRAWS)
                    .map(|_| TwoSidedGeometric::new(black_box(alpha)).map_or(0, |d| d.sample(&mut rng)))
                    .sum::<i64>()
            })
        });
    }
    for shape in [0.1, 1.0, 10.0] {
        let mut rng = stream(5, 0);
        group.bench_function(BenchmarkId::new("gamma", format!("shape={shape}")), |b| {
            b.iter(|| {
                (0..DRAWS).map(|_| Gamma::new(black_box(shape), 1.0).map_or(0.0, |d| d.sample(&mut rng))).sum::<f64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
