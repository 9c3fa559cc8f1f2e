//! Recovery tests in the paper's small settings: the locally private sampler must beat the naïve
//! method clearly at high noise. Seeds are fixed, so the tests are deterministic; the margins
//! were chosen from the measured gaps (stated at each assertion) so that they test something.

use distributions::{Beta, Streams, alpha_from_epsilon};
use inference::{LocallyPrivate, NonPrivate, Sampler, Schedule, run_chain};
use mechanism::{Noise, Privatized, privatize};
use models::{BlockModel, GammaPrior, PoissonFactorization, TopicModel};
use rand::distr::Distribution;
use rayon::prelude::*;

fn posterior_mean_rates<S: Sampler>(sampler: &mut S, schedule: &Schedule, seed: u64) -> Vec<f64> {
    run_chain(sampler, schedule, Streams::new(seed), |_| std::ops::ControlFlow::Continue(()))
        .expect("chain runs")
        .mean_rates
}

/// Mean Poisson KL over the off-diagonal entries of a `V × V` network.
fn network_kl(truth: &[f64], estimate: &[f64], v: usize) -> f64 {
    let pairs = (0..v * v).filter(|n| n / v != n % v).map(|n| (truth[n], estimate[n]));
    eval::mean_poisson_kl(pairs).expect("estimates are positive")
}

struct Fig3Result {
    non_private: f64,
    naive: f64,
    private: f64,
}

/// Fig. 3 design: V = 20, C = 5, θ*, π* ~ Gamma(0.01, rate 0.5); precision N = mean of y;
/// α = exp(−ε/N). The prior with a₀ = 0.01 almost always gives an almost empty or a saturated
/// network, so the data set is the first prior draw (model on stream `child(0).child(attempt)`,
/// counts on `child(1).child(attempt)`) whose mean count is in [0.5, 20], as the paper's figure
/// shows a network with visible structure. `first_visible` is that attempt, found once by a search
/// over attempts (172,759 to 756,253 draws per seed: 56 of the test's 57 CPU-seconds when it
/// searched on every run); the test draws that one and checks its mean.
fn fig3_cell(seed: u64, first_visible: u64, epsilon: f64) -> Fig3Result {
    let (v, c) = (20, 5);
    let prior = GammaPrior::new(0.01, 0.5).unwrap();
    let root = Streams::new(seed);
    let truth_model = BlockModel::new(v, c, prior, root.child(0).child(first_visible));
    let y = models::sample_counts(&truth_model, root.child(1).child(first_visible));
    let precision = y.iter().map(|&x| f64::from(x)).sum::<f64>() / (v * (v - 1)) as f64;
    assert!(
        (0.5..=20.0).contains(&precision),
        "seed {seed}, attempt {first_visible}: mean count {precision}; if the prior's draws changed, search the \
         attempts from 0 for the first whose mean count is in [0.5, 20] and write it in the test"
    );
    let mut truth = vec![0.0; v * v];
    truth_model.rates_into(&mut truth);
    let alpha = alpha_from_epsilon(epsilon, precision).unwrap();
    let data = privatize(&y, v, v, Noise::Scalar(alpha), &mut root.child(2).rng()).unwrap();
    let schedule = Schedule::new(1_000, 400, 10).unwrap();
    let fresh = || BlockModel::new(v, c, prior, root.child(3));
    let non_private = posterior_mean_rates(&mut NonPrivate::new(fresh(), y.clone()).unwrap(), &schedule, seed);
    let naive = posterior_mean_rates(&mut NonPrivate::naive(fresh(), &data).unwrap(), &schedule, seed);
    let mut private_sampler = LocallyPrivate::new(fresh(), &data, root.child(4)).unwrap();
    let private = posterior_mean_rates(&mut private_sampler, &schedule, seed);
    Fig3Result {
        non_private: network_kl(&truth, &non_private, v),
        naive: network_kl(&truth, &naive, v),
        private: network_kl(&truth, &private, v),
    }
}

/// ε = 0.75, the paper's highest noise. Measured with 1,000 sweeps (400 of burn-in): naïve KL
/// 0.25–0.45, private 0.009–0.021, non-private 0.002–0.011 (means 0.33 vs 0.015); with 1,500
/// and 3,000 sweeps the gap was the same (means 0.33 vs 0.013, 0.36 vs 0.027).
#[test]
fn fig3_private_beats_naive_at_high_noise() {
    // The first prior draw with a visible network for seeds 300, 301, 302 and 303 (`fig3_cell`).
    let first_visible = [756_253, 172_759, 588_580, 347_061];
    let results: Vec<Fig3Result> =
        (0..4u64).into_par_iter().map(|seed| fig3_cell(300 + seed, first_visible[seed as usize], 0.75)).collect();
    for (i, r) in results.iter().enumerate() {
        eprintln!("seed {i}: KL non-private {:.4} naive {:.4} private {:.4}", r.non_private, r.naive, r.private);
    }
    let mean = |f: fn(&Fig3Result) -> f64| results.iter().map(f).sum::<f64>() / results.len() as f64;
    let (naive, private) = (mean(|r| r.naive), mean(|r| r.private));
    for r in &results {
        assert!(r.private < r.naive, "private KL {} >= naive KL {}", r.private, r.naive);
    }
    assert!(private < 0.25 * naive, "mean KL: private {private} is not clearly below naive {naive}");
}

/// Fig. 1 truth: K = 3 topics over V = 15 words, topic k puts most mass on words 5k..5k+5
/// (φ = 1 there, 0.05 elsewhere); D = 90 documents in 3 groups of 30, group g mostly about topic
/// g (θ = 20 vs 1: documents of about 120 words — the paper does not state its scale; at a
/// quarter of it the high-noise topics are not identifiable by any method).
fn fig1_truth() -> (Vec<f64>, Vec<f64>) {
    let (d, v, k) = (90, 15, 3);
    let phi: Vec<f64> = (0..k * v).map(|i| if (i % v) / 5 == i / v { 1.0 } else { 0.05 }).collect();
    let theta: Vec<f64> = (0..d * k).map(|i| if (i / k) / 30 == i % k { 20.0 } else { 1.0 }).collect();
    (theta, phi)
}

/// Aligned topic error of the best-joint sample's Φ (as the paper selects it) against the truth.
fn topic_error<S: Sampler<Model = TopicModel>>(sampler: &mut S, truth_phi: &[f64], seed: u64) -> f64 {
    let schedule = Schedule::new(2_000, 500, 10).unwrap();
    let summary = run_chain(sampler, &schedule, Streams::new(seed), |_| std::ops::ControlFlow::Continue(())).unwrap();
    let (_, _, best) = summary.best.expect("samples kept");
    eval::align_topics(truth_phi, &best.phi_topic_major(), 3, 15).unwrap().mean_absolute_error
}

fn fig1_cell(seed: u64, alpha0: f64) -> (f64, f64) {
    let (d, v, k) = (90, 15, 3);
    let root = Streams::new(seed);
    let prior = GammaPrior::new(1.0, 1.0).unwrap();
    let (theta, phi) = fig1_truth();
    let mut truth = TopicModel::new(d, v, k, prior, root.child(0));
    truth.set_factors(&theta, &phi).unwrap();
    let y = models::sample_counts(&truth, root.child(1));
    let concentration = 10.0;
    let beta = Beta::new(concentration * alpha0, concentration * (1.0 - alpha0)).unwrap();
    let mut rng = root.child(2).rng();
    let alphas: Vec<f64> = (0..d).map(|_| beta.sample(&mut rng).min(0.999)).collect();
    let data: Privatized = privatize(&y, d, v, Noise::PerRow(alphas), &mut root.child(3).rng()).unwrap();
    let fresh = || TopicModel::new(d, v, k, prior, root.child(4));
    let naive = topic_error(&mut NonPrivate::naive(fresh(), &data).unwrap(), &phi, seed);
    let private = topic_error(&mut LocallyPrivate::new(fresh(), &data, root.child(5)).unwrap(), &phi, seed);
    (naive, private)
}

/// High noise: per-document α_d ~ Beta(mean 0.9, concentration 10). Measured: the naïve
/// topics are nearly flat (aligned MAE ≈ 0.07, a uniform topic scores 0.077), the private ones
/// about 5× closer.
#[test]
fn fig1_private_topics_are_closer_at_high_noise() {
    let results: Vec<(f64, f64)> = (0..3u64).into_par_iter().map(|seed| fig1_cell(100 + seed, 0.9)).collect();
    for (i, (naive, private)) in results.iter().enumerate() {
        eprintln!("seed {i}: aligned topic MAE naive {naive:.5} private {private:.5}");
    }
    for &(naive, private) in &results {
        assert!(private < 0.5 * naive, "private topic error {private} is not clearly below naive {naive}");
    }
}
