//! Correctness of replica exchange on models small enough to know their (tempered) posteriors:
//! the expectation of the total rate `Σ μ` (the mean counts, what a chain reports; the weights
//! read `μ δ` with the negative binomial) under
//! `π_β(Z | y)` by importance sampling from the prior (`w(Z) = Π_n e^{−β μ_n δ_n} (δ_n^β Σ_k
//! μ_nk^β)^{y_n}`, `models::tempering`; `δ = 1` for the Poisson), against a long chain's average
//! with its batch-means error. False alarms: each comparison is a two-sided z-test at 1e-3
//! (|z| > 3.29); the eleven that must pass together ≤ 1.1e-2, and with fixed seeds they are
//! deterministic. Power: a swap rule with the sign of the exponent flipped is rejected.

use super::*;
use crate::NonPrivate;
use crate::chain::{Schedule, run_chain};
use models::{BlockModel, Dispersion, GammaPrior, Likelihood, TensorModel, TopicModel};
use std::ops::ControlFlow;

const Z_LIMIT: f64 = 3.29;

fn prior() -> GammaPrior {
    GammaPrior::new(2.0, 2.0).unwrap()
}

/// `E_{π_β}[Σ μ]`, its Monte Carlo se and effective sample size by self-normalized importance
/// sampling from the prior (`draws` prior draws of `model`).
fn tempered_mean<M: PoissonFactorization>(model: &M, y: &[u32], beta: f64, draws: usize) -> (f64, f64, f64) {
    let mut m = model.clone();
    let (rows, cols) = m.shape();
    let (mut tempered, mut plain) = (vec![0.0; rows * cols], vec![0.0; rows * cols]);
    let mut means = vec![0.0; rows * cols];
    let (mut logw, mut values) = (Vec::with_capacity(draws), Vec::with_capacity(draws));
    for s in 0..draws {
        m.sample_prior(Streams::new(99).child(s as u64));
        m.set_temperature(beta).unwrap();
        m.rates_into(&mut tempered);
        m.set_temperature(1.0).unwrap();
        m.rates_into(&mut plain);
        m.mean_rates_into(&mut means);
        let lw: f64 = (0..y.len())
            .filter(|&n| !m.is_excluded(n))
            .map(|n| -beta * plain[n] + f64::from(y[n]) * tempered[n].ln())
            .sum();
        logw.push(lw);
        values.push(means.iter().sum::<f64>());
    }
    let top = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = logw.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = w.iter().sum();
    let mean = w.iter().zip(&values).map(|(w, v)| w * v).sum::<f64>() / total;
    // Delta-method se of a ratio estimator: √(Σ w² (v − mean)²) / Σ w.
    let se = w.iter().zip(&values).map(|(w, v)| (w * (v - mean)).powi(2)).sum::<f64>().sqrt() / total;
    let ess = total * total / w.iter().map(|w| w * w).sum::<f64>();
    (mean, se, ess)
}

/// The mean of `x` and its batch-means se (50 batches).
fn batch_mean(x: &[f64]) -> (f64, f64) {
    let batches = 50;
    let size = x.len() / batches;
    let means: Vec<f64> = x.chunks_exact(size).map(|b| b.iter().sum::<f64>() / size as f64).collect();
    let mean = means.iter().sum::<f64>() / batches as f64;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (batches - 1) as f64;
    (mean, (var / batches as f64).sqrt())
}

/// The chain's mean of `Σ μ` over its kept samples (the chain driver, as a fit runs it).
fn chain_mean<S: Sampler>(sampler: &mut S, sweeps: usize, seed: u64) -> (f64, f64) {
    let schedule = Schedule::new(sweeps, sweeps / 10, 1).unwrap();
    let summary = run_chain(sampler, &schedule, Streams::new(seed), |_| ControlFlow::Continue(())).unwrap();
    batch_mean(&summary.kept_total_rate)
}

/// The mean of the untempered total rate `Σ_n μ_n` over a tempered sampler's sweeps (its
/// `mean_rates_into` is tempered at β ≠ 1, so the temperature is lifted to read it).
fn untempered_chain_mean<S: Sampler>(sampler: &mut S, sweeps: usize, seed: u64) -> (f64, f64) {
    let beta = sampler.model().temperature();
    let (rows, cols) = sampler.model().shape();
    let mut rates = vec![0.0; rows * cols];
    let mut x = Vec::with_capacity(sweeps);
    for t in 0..sweeps {
        sampler.step(Streams::new(seed).child(t as u64)).unwrap();
        if t >= sweeps / 10 {
            sampler.model_mut().set_temperature(1.0).unwrap();
            sampler.model().mean_rates_into(&mut rates);
            sampler.model_mut().set_temperature(beta).unwrap();
            x.push(rates.iter().sum::<f64>());
        }
    }
    batch_mean(&x)
}

/// Runs `f` on a pool of one thread: the models' parallel loops then run inline (on these tiny
/// tables, hand-offs between threads would cost far more than the sweeps).
fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(f)
}

fn z(chain: (f64, f64), exact: (f64, f64, f64)) -> f64 {
    (chain.0 - exact.0) / (chain.1 * chain.1 + exact.1 * exact.1).sqrt()
}

fn topic() -> (TopicModel, Vec<u32>) {
    (TopicModel::new(2, 2, 2, prior(), Streams::new(1)), vec![4, 0, 1, 3])
}

fn block() -> (BlockModel, Vec<u32>) {
    (BlockModel::new(3, 2, prior(), Streams::new(2)), vec![0, 3, 0, 1, 0, 2, 0, 0, 0])
}

/// `|z|` of a chain of `model` tempered at β = 0.4 against `π_β` (importance sampling).
fn tempered_z<M: PoissonFactorization>(model: M, y: Vec<u32>, seed: u64) -> f64 {
    let exact = tempered_mean(&model, &y, 0.4, 400_000);
    assert!(exact.2 > 10_000.0, "importance sampling too weak: ESS {}", exact.2);
    let mut sampler = NonPrivate::new(model, y).unwrap();
    sampler.model_mut().set_temperature(0.4).unwrap();
    z(untempered_chain_mean(&mut sampler, 200_000, seed), exact)
}

/// The tempered Gibbs sweep leaves `π_β` invariant (β = 0.4), topic and block model.
#[test]
fn the_tempered_sweeps_target_the_tempered_posterior() {
    on_one_thread(|| {
        let (model, y) = topic();
        let z1 = tempered_z(model, y, 4);
        assert!(z1.abs() < Z_LIMIT, "topic: z = {z1}");
        let (model, y) = block();
        let z2 = tempered_z(model, y, 5);
        assert!(z2.abs() < Z_LIMIT, "block: z = {z2}");
    })
}

/// The cold rung of three replicas samples the posterior (β = 1), topic and block.
#[test]
fn the_cold_rung_samples_the_posterior() {
    on_one_thread(|| {
        let (model, y) = topic();
        let exact = tempered_mean(&model, &y, 1.0, 400_000);
        let mut replicas = Replicas::new(NonPrivate::new(model, y).unwrap(), 3, 1000).unwrap();
        let z1 = z(chain_mean(&mut replicas, 100_000, 6), exact);
        assert!(z1.abs() < Z_LIMIT, "topic: z = {z1}");
        let rates = replicas.swap_rates();
        assert!(rates.iter().all(|r| (0.0..=1.0).contains(r)), "{rates:?}");
        let (model, y) = block();
        let exact = tempered_mean(&model, &y, 1.0, 400_000);
        let mut replicas = Replicas::new(NonPrivate::new(model, y).unwrap(), 3, 1000).unwrap();
        let z2 = z(chain_mean(&mut replicas, 100_000, 7), exact);
        assert!(z2.abs() < Z_LIMIT, "block: z = {z2}");
    })
}

/// Power: a swap rule with the exponent's sign flipped (`exp((β_a − β_b)(E_a − E_b))`) makes the
/// cold rung keep the worse states; the same comparison rejects it.
#[test]
fn a_wrong_swap_acceptance_is_rejected() {
    on_one_thread(|| {
        fn flipped(beta_a: f64, beta_b: f64, energy_a: f64, energy_b: f64) -> f64 {
            swap_probability(beta_a, beta_b, energy_b, energy_a)
        }
        let (model, y) = topic();
        let exact = tempered_mean(&model, &y, 1.0, 400_000);
        let mut replicas = Replicas::new(NonPrivate::new(model, y).unwrap(), 3, 1000).unwrap().with_rule(flipped);
        let z = z(chain_mean(&mut replicas, 100_000, 6), exact);
        assert!(z.abs() > Z_LIMIT, "the flipped swap rule went undetected: z = {z}");
        println!("flipped swap rule: z = {z}");
    })
}

/// The negative binomial (r = 2 given), tempered at β = 0.4: the multipliers' conditional
/// `Gamma(r + β y, r + β μ)` and the factors' β-scaled, δ-weighted exposures (topic and block).
#[test]
fn the_tempered_negative_binomial_sweep_targets_the_tempered_posterior() {
    on_one_thread(|| {
        let nb = Likelihood::NegativeBinomial(Dispersion::given(2.0).unwrap());
        let (model, y) = topic();
        let z1 = tempered_z(model.with_likelihood(nb, Streams::new(8)), y, 9);
        assert!(z1.abs() < Z_LIMIT, "topic: z = {z1}");
        let (model, y) = block();
        let z2 = tempered_z(model.with_likelihood(nb, Streams::new(10)), y, 11);
        assert!(z2.abs() < Z_LIMIT, "block: z = {z2}");
    })
}

/// The cold rung of three replicas with a learned dispersion shape (prior Gamma(6, rate 2)) samples
/// the negative-binomial posterior: the slice sampler of `r` runs with `β y` and `β μ` on the
/// hot rungs.
#[test]
fn the_cold_rung_samples_the_negative_binomial_posterior() {
    on_one_thread(|| {
        let nb = Likelihood::NegativeBinomial(Dispersion::Learned(GammaPrior::new(6.0, 2.0).unwrap()));
        let (model, y) = topic();
        let model = model.with_likelihood(nb, Streams::new(12));
        let exact = tempered_mean(&model, &y, 1.0, 400_000);
        let mut replicas = Replicas::new(NonPrivate::new(model, y).unwrap(), 3, 1000).unwrap();
        let z = z(chain_mean(&mut replicas, 100_000, 13), exact);
        assert!(z.abs() < Z_LIMIT, "z = {z}");
    })
}

/// The private layer under replica exchange (α = 0.5, a released 2 × 2 table with a negative
/// value): a tempered sweep at β = 0.4 draws each `y_n | ỹ_n` at the tempered rate `μ̃_n`, whose
/// target is `π_β(Z | ỹ) ∝ p(Z) Π_n e^{μ̃_n − β μ_n} p(ỹ_n | μ̃_n)` (`p(ỹ | μ)` the
/// Skellam-convolved likelihood, `eval::heldout_log_predictive_cells`); and the cold rung of three
/// replicas samples the private posterior `p(Z) Π_n p(ỹ_n | μ_n)`.
#[test]
fn the_private_layer_is_tempered_and_its_cold_rung_samples_the_posterior() {
    on_one_thread(|| {
        let alpha = 0.5;
        let values = vec![4, -1, 1, 3];
        let data = mechanism::Privatized::from_released(2, 2, values.clone(), mechanism::Noise::Scalar(alpha)).unwrap();
        let model = TopicModel::new(2, 2, 2, prior(), Streams::new(1));
        let private_mean = |beta: f64| -> (f64, f64, f64) {
            let mut m = model.clone();
            let (mut tempered, mut plain) = (vec![0.0; 4], vec![0.0; 4]);
            let released = values.clone();
            let (mut logw, mut totals) = (Vec::new(), Vec::new());
            for s in 0..400_000u64 {
                m.sample_prior(Streams::new(77).child(s));
                m.set_temperature(beta).unwrap();
                m.rates_into(&mut tempered);
                m.set_temperature(1.0).unwrap();
                m.rates_into(&mut plain);
                let cells = eval::heldout_log_predictive_cells(&released, &[alpha; 4], &[tempered.clone()]).unwrap();
                let lw: f64 = (0..4).map(|n| tempered[n] - beta * plain[n] + cells[n]).sum();
                logw.push(lw);
                totals.push(plain.iter().sum::<f64>());
            }
            let top = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = logw.iter().map(|l| (l - top).exp()).collect();
            let total: f64 = w.iter().sum();
            let mean = w.iter().zip(&totals).map(|(w, v)| w * v).sum::<f64>() / total;
            let se = w.iter().zip(&totals).map(|(w, v)| (w * (v - mean)).powi(2)).sum::<f64>().sqrt() / total;
            (mean, se, total * total / w.iter().map(|w| w * w).sum::<f64>())
        };
        let exact = private_mean(0.4);
        let mut sampler = crate::LocallyPrivate::new(model.clone(), &data, Streams::new(14)).unwrap();
        sampler.model_mut().set_temperature(0.4).unwrap();
        let z1 = z(untempered_chain_mean(&mut sampler, 200_000, 15), exact);
        assert!(z1.abs() < Z_LIMIT, "tempered private sweep: z = {z1}");
        let exact = private_mean(1.0);
        let sampler = crate::LocallyPrivate::new(model.clone(), &data, Streams::new(16)).unwrap();
        let mut replicas = Replicas::new(sampler, 3, 1000).unwrap();
        let z2 = z(chain_mean(&mut replicas, 100_000, 17), exact);
        assert!(z2.abs() < Z_LIMIT, "cold rung, private: z = {z2}");
    })
}

/// The tensor model (2 × 1 × 2, two components): its tempered sweep leaves `π_β` invariant
/// (β = 0.4), and the cold rung of three replicas samples the posterior.
#[test]
fn the_tensor_model_is_tempered_and_its_cold_rung_samples_the_posterior() {
    on_one_thread(|| {
        let tensor = || (TensorModel::new(2, 1, 2, 2, prior(), Streams::new(3)), vec![4, 0, 1, 3]);
        let (model, y) = tensor();
        let z1 = tempered_z(model, y, 8);
        assert!(z1.abs() < Z_LIMIT, "tempered: z = {z1}");
        let (model, y) = tensor();
        let exact = tempered_mean(&model, &y, 1.0, 400_000);
        let mut replicas = Replicas::new(NonPrivate::new(model, y).unwrap(), 3, 1000).unwrap();
        let z2 = z(chain_mean(&mut replicas, 100_000, 9), exact);
        assert!(z2.abs() < Z_LIMIT, "cold rung: z = {z2}");
    })
}
