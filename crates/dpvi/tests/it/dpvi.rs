//! DPVI: gradients, clipping, subsampling, the conjugate reference, privacy bookkeeping, and the
//! paper's Abalone experiment in brief.

use accountant::{Accounting, Neighbouring};
use distributions::{StreamRng, Streams};
use dpvi::{
    Dpvi, GaussianMixture, LogisticRegression, MeanField, Model, Privacy, Settings, clip_to_norm, evaluate,
    poisson_subsample, uci,
};
use rand_distr::{Distribution, StandardNormal};
use std::path::Path;

fn rng(seed: u64) -> StreamRng {
    Streams::new(seed).rng()
}

fn normals(n: usize, rng: &mut StreamRng) -> Vec<f64> {
    (0..n).map(|_| StandardNormal.sample(rng)).collect()
}

/// Central differences of f at x, coordinate by coordinate.
fn numeric_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|j| {
            let h = 1e-6 * x[j].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[j] += h;
            down[j] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

fn assert_close(analytic: &[f64], numeric: &[f64], what: &str) {
    for (j, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        assert!((a - n).abs() <= 1e-6 * (1.0 + n.abs()), "{what}: coordinate {j}: analytic {a} vs numeric {n}");
    }
}

/// Checks ∇θ ln p(x_i | θ), ∇θ ln p(θ), and the (m, ω) chain rule against finite differences.
fn check_gradients<M: Model>(model: &M, seed: u64) {
    let mut r = rng(seed);
    let d = model.dim();
    let theta = normals(d, &mut r);
    for i in [0, model.examples() / 2, model.examples() - 1] {
        let mut grad = vec![0.0; d];
        model.log_likelihood(i, &theta, &mut grad);
        let f = |t: &[f64]| model.log_likelihood(i, t, &mut vec![0.0; d]);
        assert_close(&grad, &numeric_gradient(&f, &theta), &format!("likelihood of example {i}"));
    }
    let mut grad = vec![0.0; d];
    model.log_prior(&theta, &mut grad);
    let f = |t: &[f64]| model.log_prior(t, &mut vec![0.0; d]);
    assert_close(&grad, &numeric_gradient(&f, &theta), "prior");
    // Per-example gradient with respect to the variational parameters (m, ω) at fixed η.
    let (m, w, eta) =
        (normals(d, &mut r), normals(d, &mut r).iter().map(|x| 0.3 * x).collect::<Vec<_>>(), normals(d, &mut r));
    let q = |mw: &[f64]| {
        let mut q = MeanField::new(mw[..d].to_vec(), 0.0);
        let step: Vec<f64> = std::iter::repeat_n(0.0, d).chain(mw[d..].iter().copied()).collect();
        q_ascend(&mut q, &step);
        q
    };
    let mw: Vec<f64> = m.iter().chain(&w).copied().collect();
    let qa = q(&mw);
    let mut g_theta = vec![0.0; d];
    model.log_likelihood(1, &qa.theta(&eta), &mut g_theta);
    let mut g = vec![0.0; 2 * d];
    qa.chain_rule(&g_theta, &eta, &mut g);
    let f = |p: &[f64]| model.log_likelihood(1, &q(p).theta(&eta), &mut vec![0.0; d]);
    assert_close(&g, &numeric_gradient(&f, &mw), "per-example (m, ω) gradient");
}

/// Replaces ω by the second half of `step`.
fn q_ascend(q: &mut MeanField, step: &[f64]) {
    let d = q.dim();
    *q = MeanField::with_log_std(q.mean().to_vec(), step[d..].to_vec());
}

fn small_logistic(seed: u64) -> LogisticRegression {
    let mut r = rng(seed);
    let (n, d) = (40, 4);
    let x = normals(n * d, &mut r);
    let y = (0..n).map(|i| x[i * d] + 0.5 * x[i * d + 1] > 0.0).collect();
    LogisticRegression::new(x, y, 2.0).unwrap()
}

#[test]
fn per_example_gradients_agree_with_finite_differences() {
    check_gradients(&small_logistic(1), 2);
    let mut r = rng(3);
    let gmm = GaussianMixture::new(normals(30 * 2, &mut r), 2, 3, 5.0, 1.5).unwrap();
    check_gradients(&gmm, 4);
}

#[test]
fn clipping_bounds_every_per_example_norm() {
    let mut r = rng(5);
    for scale in [0.01, 1.0, 100.0] {
        for c in [0.1, 1.0, 5.0] {
            let mut g: Vec<f64> = normals(7, &mut r).iter().map(|x| x * scale).collect();
            let before = g.clone();
            let norm = clip_to_norm(&mut g, c);
            let after = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!(after <= c * (1.0 + 1e-12), "norm {after} > {c}");
            if norm <= c {
                assert_eq!(g, before, "a gradient within the threshold is unchanged");
            } else {
                // Direction kept.
                let cos = g.iter().zip(&before).map(|(a, b)| a * b).sum::<f64>() / (after * norm);
                assert!((cos - 1.0).abs() < 1e-12);
            }
        }
    }
}

/// Each index is included independently with probability q: over 20,000 subsamples of 50
/// indices at q = 0.05 every inclusion count is within 5 sd of 1,000 (false-alarm rate ≈ 3e-5
/// over the 50 indices), and the batch-size variance is n q (1 − q) within 10 %.
#[test]
fn poisson_subsampling_includes_each_example_with_probability_q() {
    let mut r = rng(6);
    let (n, q, reps) = (50, 0.05, 20_000);
    let mut counts = vec![0usize; n];
    let mut sizes = Vec::new();
    let mut batch = Vec::new();
    for _ in 0..reps {
        poisson_subsample(n, q, &mut r, &mut batch);
        assert!(batch.windows(2).all(|w| w[0] < w[1]));
        batch.iter().for_each(|&i| counts[i] += 1);
        sizes.push(batch.len() as f64);
    }
    let expected = reps as f64 * q;
    let sd = (reps as f64 * q * (1.0 - q)).sqrt();
    for (i, c) in counts.iter().enumerate() {
        assert!((*c as f64 - expected).abs() < 5.0 * sd, "index {i}: {c} inclusions, expected {expected}");
    }
    let mean = sizes.iter().sum::<f64>() / reps as f64;
    let var = sizes.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (reps as f64 - 1.0);
    assert!((var / (n as f64 * q * (1.0 - q)) - 1.0).abs() < 0.1, "batch-size variance {var}");
}

/// Bayesian linear regression with known noise: y = Xw + e, e ~ N(0, s²), w ~ N(0, I). The exact
/// posterior is N(Λ⁻¹Xᵀy/s², Λ⁻¹) with Λ = I + XᵀX/s²; the best mean-field Gaussian has the
/// exact mean and variances 1/Λ_jj.
struct LinearRegression {
    x: Vec<f64>,
    y: Vec<f64>,
    d: usize,
    noise_sd: f64,
}

impl Model for LinearRegression {
    fn dim(&self) -> usize {
        self.d
    }
    fn examples(&self) -> usize {
        self.y.len()
    }
    fn log_prior(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        theta
            .iter()
            .zip(grad.iter_mut())
            .map(|(t, g)| {
                *g -= t;
                -0.5 * t * t
            })
            .sum()
    }
    fn log_likelihood(&self, i: usize, theta: &[f64], grad: &mut [f64]) -> f64 {
        let x = &self.x[i * self.d..(i + 1) * self.d];
        let resid = self.y[i] - x.iter().zip(theta).map(|(a, b)| a * b).sum::<f64>();
        let v = self.noise_sd * self.noise_sd;
        grad.iter_mut().zip(x).for_each(|(g, xj)| *g = resid * xj / v);
        -0.5 * resid * resid / v
    }
}

/// Solves the d × d system a x = b (Gaussian elimination with partial pivoting).
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, d: usize) -> Vec<f64> {
    for col in 0..d {
        let pivot = (col..d).max_by(|&i, &j| a[i * d + col].abs().total_cmp(&a[j * d + col].abs())).unwrap();
        for k in 0..d {
            a.swap(col * d + k, pivot * d + k);
        }
        b.swap(col, pivot);
        for row in col + 1..d {
            let f = a[row * d + col] / a[col * d + col];
            for k in col..d {
                a[row * d + k] -= f * a[col * d + k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; d];
    for row in (0..d).rev() {
        let s: f64 = (row + 1..d).map(|k| a[row * d + k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row * d + row];
    }
    x
}

#[test]
fn without_noise_or_clipping_dpvi_is_stochastic_vi_and_finds_the_mean_field_optimum() {
    let mut r = rng(7);
    let (n, d, s) = (200, 3, 0.5);
    let x = normals(n * d, &mut r);
    let w_true = [1.0, -2.0, 0.5];
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let e: f64 = StandardNormal.sample(&mut r);
            (0..d).map(|j| x[i * d + j] * w_true[j]).sum::<f64>() + s * e
        })
        .collect();
    let mut lambda = vec![0.0; d * d];
    let mut b = vec![0.0; d];
    for i in 0..n {
        for j in 0..d {
            b[j] += x[i * d + j] * y[i] / (s * s);
            for k in 0..d {
                lambda[j * d + k] += x[i * d + j] * x[i * d + k] / (s * s);
            }
        }
    }
    (0..d).for_each(|j| lambda[j * d + j] += 1.0);
    let mean = solve(lambda.clone(), b, d);
    let model = LinearRegression { x, y, d, noise_sd: s };
    let settings =
        Settings { iterations: 50_000, sampling_rate: 1.0, learning_rate: 0.3, initial_log_std: -1.0, privacy: None };
    // The mean of independent runs' final iterates (each carries Monte Carlo gradient noise).
    let runs = 8;
    let (mut m_avg, mut v_avg) = (vec![0.0; d], vec![0.0; d]);
    for run in 0..runs {
        let fit =
            Dpvi::new(&model, settings).unwrap().fit(MeanField::new(vec![0.0; d], -1.0), &mut rng(100 + run)).unwrap();
        assert_eq!(fit.epsilon, None);
        for j in 0..d {
            m_avg[j] += fit.q.mean()[j] / runs as f64;
            v_avg[j] += (2.0 * fit.q.log_std()[j]).exp() / runs as f64;
        }
    }
    for j in 0..d {
        let sd_post = (1.0 / lambda[j * d + j]).sqrt();
        assert!((m_avg[j] - mean[j]).abs() < 0.1 * sd_post, "mean {j}: {} vs exact {}", m_avg[j], mean[j]);
        let v_exact = 1.0 / lambda[j * d + j];
        assert!((v_avg[j] / v_exact - 1.0).abs() < 0.1, "variance {j}: {} vs mean-field optimum {v_exact}", v_avg[j]);
    }
}

fn private(noise: f64, budget: f64, accounting: Accounting) -> Privacy {
    Privacy {
        clip: 1.0,
        noise_multiplier: noise,
        delta: 1e-5,
        epsilon_budget: budget,
        accounting,
        neighbouring: Neighbouring::AddRemove,
    }
}

#[test]
fn the_reported_epsilon_is_the_accountants_and_the_budget_is_enforced() {
    let model = small_logistic(8);
    for accounting in [Accounting::MomentsAccountant, Accounting::AdvancedComposition] {
        let noise = if accounting == Accounting::MomentsAccountant { 1.5 } else { 30.0 };
        let settings = Settings {
            iterations: 300,
            sampling_rate: 0.1,
            learning_rate: 0.1,
            initial_log_std: -1.0,
            privacy: Some(private(noise, 100.0, accounting)),
        };
        let fit = Dpvi::new(&model, settings).unwrap().fit(MeanField::new(vec![0.0; 4], -1.0), &mut rng(9)).unwrap();
        let expected = accountant::epsilon(accounting, Neighbouring::AddRemove, 0.1, noise, 300, 1e-5).unwrap();
        let reported = fit.epsilon.unwrap();
        assert!(
            (reported - expected).abs() <= 1e-9 * expected,
            "{accounting:?}: reported {reported}, accountant {expected}"
        );
        // A budget just below the plan: the run refuses to start.
        let tight = Settings { privacy: Some(private(noise, expected * 0.999, accounting)), ..settings };
        let e = Dpvi::new(&model, tight).unwrap().fit(MeanField::new(vec![0.0; 4], -1.0), &mut rng(9)).unwrap_err();
        assert!(e.contains("refusing to start") && e.contains("budget"), "{e}");
    }
}

#[test]
fn same_seed_same_fit() {
    let model = small_logistic(10);
    let settings = Settings {
        iterations: 200,
        sampling_rate: 0.2,
        learning_rate: 0.1,
        initial_log_std: -1.0,
        privacy: Some(private(1.0, 100.0, Accounting::MomentsAccountant)),
    };
    let fit =
        |seed| Dpvi::new(&model, settings).unwrap().fit(MeanField::new(vec![0.0; 4], -1.0), &mut rng(seed)).unwrap();
    assert_eq!(fit(11), fit(11));
    assert_ne!(fit(11).q, fit(12).q);
}

fn uci_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/uci"))
}

/// §4.1 on Abalone (1,000 iterations, q = 0.05 ≈ 167 per batch, c = 5): non-private accuracy in
/// the range of the paper's Fig. 1 (about 0.75–0.80), DPVI with the moments accountant at ε = 2
/// within 3 points of it (mean of 4 runs each).
#[test]
#[ignore = "needs ../shared/data/uci; run with --include-ignored (CI does)"]
fn abalone_accuracy_is_in_the_papers_range_and_dpvi_is_close_at_large_epsilon() {
    let path = uci_dir().join("abalone.data");
    let table = uci::abalone(&path).unwrap();
    assert_eq!((table.rows(), table.skipped, table.dim()), (4177, 0, 10));
    let accuracy = |privacy: Option<Privacy>| -> f64 {
        let mut total = 0.0;
        for run in 0..4u64 {
            let split = uci::split(&table, 0.8, &mut rng(1000 + run)).unwrap();
            let model = LogisticRegression::new(split.train_x.clone(), split.train_y.clone(), 1.0).unwrap();
            let settings =
                Settings { iterations: 1000, sampling_rate: 0.05, learning_rate: 0.1, initial_log_std: -2.0, privacy };
            let fit = Dpvi::new(&model, settings)
                .unwrap()
                .fit(MeanField::new(vec![0.0; split.dim], -2.0), &mut rng(2000 + run))
                .unwrap();
            total += evaluate(&fit.q, &split.test_x, &split.test_y).accuracy;
        }
        total / 4.0
    };
    let non_private = accuracy(None);
    let sigma =
        accountant::calibrate_noise(Accounting::MomentsAccountant, Neighbouring::AddRemove, 0.05, 1000, 2.0, 1e-5)
            .unwrap();
    let dp = accuracy(Some(Privacy { clip: 5.0, ..private(sigma, 2.0, Accounting::MomentsAccountant) }));
    eprintln!("Abalone: non-private {non_private:.3}, DPVI (ε = 2, σ = {sigma:.2}) {dp:.3}");
    assert!((0.74..=0.82).contains(&non_private), "non-private accuracy {non_private}");
    assert!(dp > non_private - 0.03, "DPVI accuracy {dp} vs non-private {non_private}");
}
