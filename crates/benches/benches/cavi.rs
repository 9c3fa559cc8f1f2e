//! One CAVI iteration (local step + factor updates + ELBO) on the speed-study problem of
//! Schofield et al. (appendix E): topic model 1000 × 1000, K = 50, θ, φ ~ Gamma(1, rate 7)
//! (mean rate ≈ 1), privatized at ε/N = 1 (α = e⁻¹); one thread and two. Every local-step variant
//! and the non-private iteration. Run: `cargo bench -p benches --bench cavi` (figures in
//! BENCHMARKS.md). Each benchmark first runs a few iterations so the state is a typical one.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use distributions::Streams;
use inference::{BesselArgument, Cavi, CaviSettings, MEstimate};
use mechanism::{Noise, privatize};
use models::{GammaPrior, PoissonFactorization, TopicModel, TopicVariational};
use std::time::Duration;

fn iteration(c: &mut Criterion) {
    let prior = GammaPrior::new(1.0, 7.0).expect("valid prior");
    let truth = TopicModel::new(1000, 1000, 50, prior, Streams::new(1));
    let y = models::sample_counts(&truth, Streams::new(2));
    let (rows, cols) = truth.shape();
    let data = privatize(&y, rows, cols, Noise::Scalar((-1.0f64).exp()), &mut Streams::new(3).rng()).expect("alpha");
    let q = TopicVariational::new(rows, cols, 50, prior, Streams::new(4));
    let mut group = c.benchmark_group("cavi topic 1000x1000 K=50 alpha=1/e");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let variants = [
        ("private (mode, delta method)", MEstimate::Mode, BesselArgument::DeltaMethod),
        ("private (mode, exact)", MEstimate::Mode, BesselArgument::Exact),
        ("private (mean, exact)", MEstimate::Mean, BesselArgument::Exact),
    ];
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let label = format!("{threads} thread(s)");
        for (name, m, argument) in variants {
            let settings = CaviSettings::new(1000, 0.0, m, argument).expect("settings");
            let mut cavi = pool.install(|| Cavi::private(q.clone(), &data, settings, Streams::new(5))).expect("shape");
            run(&mut group, &pool, BenchmarkId::new(name, &label), &mut cavi);
        }
        let mut cavi = Cavi::non_private(q.clone(), &y, None, CaviSettings::DEFAULT, Streams::new(5)).expect("shape");
        run(&mut group, &pool, BenchmarkId::new("non-private", &label), &mut cavi);
    }
    group.finish();
}

fn run(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pool: &rayon::ThreadPool,
    id: BenchmarkId,
    cavi: &mut Cavi<TopicVariational>,
) {
    pool.install(|| {
        for _ in 0..3 {
            cavi.iterate().expect("iteration");
        }
    });
    group.bench_function(id, |b| b.iter(|| pool.install(|| cavi.iterate().expect("iteration"))));
}

criterion_group!(benches, iteration);
criterion_main!(benches);
