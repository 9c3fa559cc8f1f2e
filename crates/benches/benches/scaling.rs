//! How the cost of one topic-model Gibbs sweep grows with the matrix size, the number of
//! components and the noise level (docs/history/performance.md, "Cost model"). One thread. Run:
//! `just bench-scaling` (about 5 minutes).
//!
//! Each case: `θ, φ ~ Gamma(1, rate r)` with `r` chosen so the mean rate is about 1 whatever `K`
//! (`K/r² = 1`), a square `D × V` matrix, counts privatized at `α`. Timed: the rates `μ = θΦᵀ`
//! alone, one non-private sweep (allocation and factor draws on the true counts) and one private
//! sweep (rates, private step, then the model's sweep on the resampled counts). The private step
//! costs about `private − non-private − rates` (the resampled counts are about as dense as the
//! true ones).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use distributions::Streams;
use inference::{LocallyPrivate, NonPrivate, Sampler};
use mechanism::{Noise, privatize};
use models::{GammaPrior, PoissonFactorization, TopicModel};
use std::time::Duration;

/// `(rows = cols, K, α)`: the size axis at K = 50, α = e⁻¹; the K axis and the noise axis at 10⁶.
fn cases() -> Vec<(usize, usize, f64)> {
    let e = (-1.0f64).exp();
    vec![(316, 50, e), (1000, 50, e), (3162, 50, e), (1000, 10, e), (1000, 200, e), (1000, 50, 0.1), (1000, 50, 0.9)]
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    for (n, k, alpha) in cases() {
        let prior = GammaPrior::new(1.0, (k as f64).sqrt()).expect("valid prior");
        let truth = TopicModel::new(n, n, k, prior, Streams::new(1));
        let fresh = TopicModel::new(n, n, k, prior, Streams::new(6));
        let y = models::sample_counts(&truth, Streams::new(2));
        let data = privatize(&y, n, n, Noise::Scalar(alpha), &mut Streams::new(3).rng()).expect("valid alpha");
        let label = format!("entries={} K={k} alpha={alpha:.3}", n * n);
        let mut rates = vec![0.0; n * n];
        group.bench_function(BenchmarkId::new("rates", &label), |b| {
            b.iter(|| pool.install(|| truth.rates_into(&mut rates)))
        });
        let mut non_private = NonPrivate::new(fresh.clone(), y).expect("shape");
        let mut private = LocallyPrivate::new(fresh, &data, Streams::new(4)).expect("shape");
        let root = Streams::new(5);
        pool.install(|| {
            for t in 0..3 {
                non_private.step(root.child(t)).expect("sweep");
                private.step(root.child(t)).expect("sweep");
            }
        });
        let mut t = 3;
        group.bench_function(BenchmarkId::new("non-private sweep", &label), |b| {
            b.iter(|| {
                t += 1;
                pool.install(|| non_private.step(root.child(t)).expect("sweep"))
            })
        });
        group.bench_function(BenchmarkId::new("private sweep", &label), |b| {
            b.iter(|| {
                t += 1;
                pool.install(|| private.step(root.child(t)).expect("sweep"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
