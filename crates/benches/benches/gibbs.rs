//! One full Gibbs iteration (all steps) of each method, one thread and two (the private method
//! with the paper's augmented step and with the collapsed step), and the per-entry private step
//! in ns/entry. Run: `cargo bench -p benches --bench gibbs` (figures in
//! BENCHMARKS.md).
//!
//! * topic model, 1000 × 1000, K = 50, θ, φ ~ Gamma(1, rate 7) (mean rate ≈ 1), privatized at
//!   ε/N = 1 (α = e⁻¹) — the speed test of appendix E of Schofield et al.;
//! * block model, V = 161 (the paper's Enron size) and V = 117 (the cleaned table's), C = 10,
//!   θ, π ~ Gamma(0.3, rate 1) (mean rate ≈ 2.7, sparse, like the Enron counts), α = 0.5.
//!
//! * tensor model (counts over time), the monthly Enron tensor's shape: 117 × 117 × 44 months
//!   (a 117 × 5,148 grid), K = 24, θ, φ, ψ ~ Gamma(0.15, rate 1) (mean rate ≈ 0.08 per cell, as
//!   sparse as the 36,312 e-mails in 602,316 cells), privatized at ε = 2, N = 1 (α = e⁻²).
//!
//! Each benchmark first runs a few sweeps so the state is a typical one, not the prior draw.
//!
//! `lppf fit`'s default model (hierarchical prior, contaminated likelihood) and the negative
//! binomial against the papers' (flat, Poisson): one private sweep with `lppf fit`'s collapsed
//! step, one thread, same data (group `default model`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use distributions::{Streams, TwoSidedGeometric};
use inference::{LocallyPrivate, NoiseAux, NonPrivate, Sampler, lambda_posterior_rate, resample_entry};
use mechanism::{Noise, Privatized, privatize};
use models::{BlockModel, GammaPrior, PoissonFactorization, TopicModel};
use rand::SeedableRng;
use rand::distr::Distribution;
use std::hint::black_box;
use std::time::Duration;

const WARM_SWEEPS: u64 = 5;

fn setup<M: PoissonFactorization>(truth: &M, fresh: M, alpha: f64) -> (Vec<u32>, Privatized, M) {
    let (rows, cols) = truth.shape();
    let y = models::sample_counts(truth, Streams::new(2));
    let data = privatize(&y, rows, cols, Noise::Scalar(alpha), &mut Streams::new(3).rng()).expect("valid alpha");
    (y, data, fresh)
}

fn bench_methods<M: PoissonFactorization>(c: &mut Criterion, name: &str, truth: M, fresh: M, alpha: f64) {
    let (y, data, fresh) = setup(&truth, fresh, alpha);
    let mut group = c.benchmark_group(name);
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut non_private = NonPrivate::new(fresh.clone(), y.clone()).expect("shape");
        let mut naive = NonPrivate::naive(fresh.clone(), &data).expect("shape");
        let mut private = LocallyPrivate::new(fresh.clone(), &data, Streams::new(4)).expect("shape");
        bench_sampler(&mut group, &pool, "non-private", &mut non_private);
        bench_sampler(&mut group, &pool, "naive", &mut naive);
        bench_sampler(&mut group, &pool, "private", &mut private);
        let collapsed_step = inference::PrivateStep::Collapsed;
        let mut collapsed =
            LocallyPrivate::with_private_step(fresh.clone(), &data, Streams::new(4), collapsed_step).expect("shape");
        bench_sampler(&mut group, &pool, "private collapsed", &mut collapsed);
    }
    group.finish();
}

/// Times one sweep inside `pool` (the sweep's parallel loops run on the pool's threads).
fn bench_sampler<S: Sampler + Send>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pool: &rayon::ThreadPool,
    method: &str,
    sampler: &mut S,
) {
    let root = Streams::new(5);
    pool.install(|| {
        for t in 0..WARM_SWEEPS {
            sampler.step(root.child(t)).expect("sweep");
        }
    });
    let mut t = WARM_SWEEPS;
    let threads = pool.current_num_threads();
    group.bench_function(BenchmarkId::new(method, format!("{threads} thread(s)")), |b| {
        b.iter(|| {
            t += 1;
            pool.install(|| sampler.step(root.child(t)).expect("sweep"));
        })
    });
}

fn topic(c: &mut Criterion) {
    let prior = GammaPrior::new(1.0, 7.0).expect("valid prior");
    let truth = TopicModel::new(1000, 1000, 50, prior, Streams::new(1));
    let fresh = TopicModel::new(1000, 1000, 50, prior, Streams::new(6));
    bench_methods(c, "topic 1000x1000 K=50 alpha=1/e", truth, fresh, (-1.0f64).exp());
}

fn block(c: &mut Criterion) {
    // Gamma(0.3, rate 1): mean rate 100·0.3³ ≈ 2.7, sparse — the cleaned Enron table's 117×117
    // block has 36,312 e-mails in 13,572 cells (mean 2.7), 2,143 of them nonzero.
    let prior = GammaPrior::new(0.3, 1.0).expect("valid prior");
    for v in [161, 117] {
        let truth = BlockModel::new(v, 10, prior, Streams::new(1));
        let fresh = BlockModel::new(v, 10, prior, Streams::new(6));
        bench_methods(c, &format!("block V={v} C=10 alpha=0.5"), truth, fresh, 0.5);
    }
}

fn tensor(c: &mut Criterion) {
    let prior = GammaPrior::new(0.15, 1.0).expect("valid prior");
    let truth = models::TensorModel::new(117, 117, 44, 24, prior, Streams::new(1));
    let fresh = models::TensorModel::new(117, 117, 44, 24, prior, Streams::new(6));
    bench_methods(c, "tensor 117x117x44 K=24 alpha=e^-2", truth, fresh, (-2.0f64).exp());
}

/// The per-entry private step (Bessel + binomial + two gamma draws) on entries drawn like those
/// of the topic benchmark: μ ~ Gamma(1, rate 1)·(50/49), ỹ = Pois(μ) + 2Geo(e⁻¹), λ from its prior.
fn private_step(c: &mut Criterion) {
    const ENTRIES: usize = 10_000;
    let alpha = (-1.0f64).exp();
    let mut rng = Streams::new(7).rng();
    let entries = step_entries(ENTRIES, 50.0 / 49.0, alpha, &mut rng);
    let rate = lambda_posterior_rate(alpha);
    let mut group = c.benchmark_group("private step");
    group.throughput(Throughput::Elements(ENTRIES as u64));
    group.sample_size(20).measurement_time(Duration::from_secs(2));
    group.bench_function("per entry, alpha=1/e, mean rate 1", |b| {
        b.iter(|| run_entries(&entries, rate, &mut rng));
    });
    // The collapsed step (issue 34) on the same entries, and both steps on entries with mean
    // rate 10 at α = e^{-1/2} (the dense topic data of experiments/private-step-topic.toml).
    let collapsed = |entries: &[(i64, f64, NoiseAux)], alpha: f64, rng: &mut distributions::StreamRng| {
        for &(released, mu, _) in entries {
            black_box(inference::collapsed_count(released, mu, alpha, rng).expect("in range"));
        }
    };
    group.bench_function("collapsed, per entry, alpha=1/e, mean rate 1", |b| {
        b.iter(|| collapsed(&entries, alpha, &mut rng));
    });
    let dense_alpha = (-0.5f64).exp();
    let dense = step_entries(ENTRIES, 10.0, dense_alpha, &mut rng);
    let dense_rate = lambda_posterior_rate(dense_alpha);
    group.bench_function("per entry, alpha=e^-1/2, mean rate 10", |b| {
        b.iter(|| run_entries(&dense, dense_rate, &mut rng));
    });
    group.bench_function("collapsed, per entry, alpha=e^-1/2, mean rate 10", |b| {
        b.iter(|| collapsed(&dense, dense_alpha, &mut rng));
    });
    // The same step with the generator the streams used before issue 21 (ChaCha8) and with
    // another small-state one: how much of the step is the generator.
    let mut chacha = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    group.bench_function("per entry, ChaCha8", |b| b.iter(|| run_entries(&entries, rate, &mut chacha)));
    let mut pcg = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    group.bench_function("per entry, Pcg64Mcg", |b| b.iter(|| run_entries(&entries, rate, &mut pcg)));
    group.finish();
    let mut group = c.benchmark_group("generator");
    group.throughput(Throughput::Elements(WORDS));
    group.bench_function("u64, xoshiro256++ (streams)", |b| b.iter(|| draw_words(&mut rng)));
    group.bench_function("u64, ChaCha8", |b| b.iter(|| draw_words(&mut chacha)));
    group.bench_function("u64, Pcg64Mcg", |b| b.iter(|| draw_words(&mut pcg)));
    group.finish();
}

/// `n` entries with `μ ~ Gamma(1)` of mean `mean`, `ỹ = Pois(μ) + 2Geo(α)` and `λ` from its prior.
fn step_entries(n: usize, mean: f64, alpha: f64, rng: &mut distributions::StreamRng) -> Vec<(i64, f64, NoiseAux)> {
    let noise = TwoSidedGeometric::new(alpha).expect("valid");
    let mu_dist = distributions::Gamma::new(1.0, 1.0 / mean).expect("valid");
    (0..n)
        .map(|_| {
            let mu: f64 = mu_dist.sample(rng);
            let y = distributions::Poisson::new(mu).expect("valid").sample(rng) as i64;
            let (_, l1, l2) = noise.sample_augmented(rng);
            (y + noise.sample(rng), mu, NoiseAux { lambda: [l1, l2], g: [0, 0] })
        })
        .collect()
}

/// Words per iteration of the generator benchmarks.
const WORDS: u64 = 10_000;

fn run_entries<R: rand::Rng>(entries: &[(i64, f64, NoiseAux)], rate: f64, rng: &mut R) {
    for &(released, mu, aux) in entries {
        let mut aux = aux;
        black_box(resample_entry(released, mu, rate, &mut aux, rng).expect("in range"));
    }
}

fn draw_words<R: rand::Rng>(rng: &mut R) {
    for _ in 0..WORDS {
        black_box(rng.next_u64());
    }
}

/// Counts of `truth`'s rates with a tenth of the cells overdispersed — `y_n ~ Pois(μ_n δ_n)`,
/// `δ_n = 1` with probability 0.9, else `δ_n ~ Gamma(0.5, rate 0.5)` — released at `alpha`.
/// The contaminated likelihood's cost per sweep grows with its share `π` of overdispersed cells;
/// on Poisson counts `π` is not identified (with `r` large any `π` fits) and wanders over
/// `(0, 1)` from sweep to sweep, so its benchmark data have a share to find.
fn contaminated_release<M: PoissonFactorization>(truth: &M, alpha: f64) -> Privatized {
    let (rows, cols) = truth.shape();
    let mut rates = vec![0.0; rows * cols];
    truth.rates_into(&mut rates);
    let mut rng = Streams::new(2).rng();
    let heavy = distributions::Gamma::new(0.5, 0.5).expect("valid");
    let y: Vec<u32> = rates
        .iter()
        .map(|&mu| {
            let delta = if rand::RngExt::random::<f64>(&mut rng) < 0.1 { heavy.sample(&mut rng) } else { 1.0 };
            let rate = mu * delta;
            if rate > 0.0 { distributions::Poisson::new(rate).expect("valid").sample(&mut rng) as u32 } else { 0 }
        })
        .collect();
    privatize(&y, rows, cols, Noise::Scalar(alpha), &mut Streams::new(3).rng()).expect("valid alpha")
}

/// One private sweep of the papers' model (flat prior, Poisson), of the hierarchical prior
/// (a₀ = a' = b' = 1) with the negative binomial (r learned), and of `lppf fit`'s default (the
/// same with the contaminated likelihood; for the block model also with the Hamiltonian move of
/// its factors after the sweep, 32 leapfrog steps on average, `models::hmc`), on the truths of the topic and V = 117 block
/// benchmarks with a tenth of the cells overdispersed ([`contaminated_release`]), one thread, all
/// with `lppf fit`'s private step (collapsed), after [`DEFAULT_WARM_SWEEPS`] sweeps.
fn default_model(c: &mut Criterion) {
    let mut group = c.benchmark_group("default model");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let scale = models::ScalePrior::new(1.0, 1.0).expect("valid");
    let nb = models::Likelihood::NegativeBinomial(models::Dispersion::default_learned());
    let contaminated = models::Likelihood::Contaminated(models::Dispersion::default_learned());
    let topic_prior = GammaPrior::new(1.0, 7.0).expect("valid prior");
    let truth = TopicModel::new(1000, 1000, 50, topic_prior, Streams::new(1));
    let fresh = TopicModel::new(1000, 1000, 50, GammaPrior::new(1.0, 1.0).expect("valid"), Streams::new(6));
    let data = contaminated_release(&truth, (-1.0f64).exp());
    let negative_binomial = fresh.clone().with_hierarchy(scale, Streams::new(7)).with_likelihood(nb, Streams::new(7));
    let mixed = fresh.clone().with_hierarchy(scale, Streams::new(7)).with_likelihood(contaminated, Streams::new(7));
    for (name, model) in [
        ("topic 1000x1000 K=50, flat Poisson", fresh),
        ("topic 1000x1000 K=50, negative binomial", negative_binomial),
        ("topic 1000x1000 K=50, default (contaminated)", mixed),
    ] {
        bench_collapsed(&mut group, &pool, name, model, &data);
    }
    let truth = BlockModel::new(117, 10, GammaPrior::new(0.3, 1.0).expect("valid prior"), Streams::new(1));
    let fresh = BlockModel::new(117, 10, GammaPrior::new(1.0, 1.0).expect("valid"), Streams::new(6));
    let data = contaminated_release(&truth, 0.5);
    let negative_binomial = fresh.clone().with_hierarchy(scale, Streams::new(7)).with_likelihood(nb, Streams::new(7));
    let mixed = fresh.clone().with_hierarchy(scale, Streams::new(7)).with_likelihood(contaminated, Streams::new(7));
    let hamiltonian = mixed.clone().with_hmc(models::hmc::HmcSettings::default()).expect("directed");
    for (name, model) in [
        ("block V=117 C=10, flat Poisson", fresh),
        ("block V=117 C=10, negative binomial", negative_binomial),
        ("block V=117 C=10, default (contaminated)", mixed),
        ("block V=117 C=10, default with the Hamiltonian move", hamiltonian),
    ] {
        bench_collapsed(&mut group, &pool, name, model, &data);
    }
    group.finish();
}

/// Times one private sweep of `model` with `lppf fit`'s private step (collapsed).
fn bench_collapsed<M: PoissonFactorization + Send>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pool: &rayon::ThreadPool,
    name: &str,
    model: M,
    data: &Privatized,
) {
    let step = inference::PrivateStep::Collapsed;
    let mut private = LocallyPrivate::with_private_step(model, data, Streams::new(4), step).expect("shape");
    let root = Streams::new(8);
    pool.install(|| (0..DEFAULT_WARM_SWEEPS).for_each(|t| private.step(root.child(t)).expect("sweep")));
    bench_sampler(group, pool, name, &mut private);
}

/// Sweeps before the default-model benchmarks time one (besides [`WARM_SWEEPS`]): the share of
/// overdispersed cells settles within about twenty.
const DEFAULT_WARM_SWEEPS: u64 = 40;

/// The cost of one cold draw under replica exchange (issue 33): a plain private sweep of the
/// V = 117 block benchmark (`lppf fit`'s default model) against one step of 4 replicas on the
/// starting ladder (4 sweeps and the swaps), on 1 and 2 threads.
fn replica_exchange(c: &mut Criterion) {
    let mut group = c.benchmark_group("replica exchange");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    let scale = models::ScalePrior::new(10.0, 1.0).expect("valid").with_learned_mean(1.0).expect("valid");
    let nb = models::Likelihood::NegativeBinomial(models::Dispersion::default_learned());
    let truth = BlockModel::new(117, 10, GammaPrior::new(0.3, 1.0).expect("valid prior"), Streams::new(1));
    let fresh = BlockModel::new(117, 10, GammaPrior::new(1.0, 1.0).expect("valid"), Streams::new(6));
    let (_, data, fresh) = setup(&truth, fresh, 0.5);
    let model = fresh.with_hierarchy(scale, Streams::new(7)).with_likelihood(nb, Streams::new(7));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut plain = LocallyPrivate::new(model.clone(), &data, Streams::new(4)).expect("shape");
        bench_sampler(&mut group, &pool, "block V=117 C=10 default, plain sweep", &mut plain);
        let mut replicas = inference::tempering::Replicas::new(plain, 4, 0).expect("replicas");
        bench_sampler(&mut group, &pool, "block V=117 C=10 default, 4 replicas", &mut replicas);
    }
    group.finish();
}

criterion_group!(benches, private_step, block, topic, tensor, default_model, replica_exchange);
criterion_main!(benches);
