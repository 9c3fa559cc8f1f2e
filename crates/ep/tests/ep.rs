//! EP machinery and DP-SEP: linear algebra, exactness on a conjugate model, clipping, the
//! sensitivity bound of Proposition 1, the PD repair, the accountant, and Table 1's ordering.

use distributions::{StreamRng, Streams};
use ep::linalg::{cholesky, inverse_spd, repair_pd, symmetric_eigen};
use ep::sep::{SepSettings, ep, sep, sep_proposal, start};
use ep::{MixtureMeans, Natural, clip, combine, dp_sep_epsilon, dp_sep_noise, metrics::f_norms, norm};
use rand_distr::{Distribution, StandardNormal};

fn rng(seed: u64) -> StreamRng {
    Streams::new(seed).rng()
}

fn normals(n: usize, r: &mut StreamRng) -> Vec<f64> {
    (0..n).map(|_| StandardNormal.sample(r)).collect()
}

fn random_symmetric(d: usize, r: &mut StreamRng) -> Vec<f64> {
    let a = normals(d * d, r);
    (0..d * d).map(|i| a[i] + a[(i % d) * d + i / d]).collect()
}

#[test]
fn linear_algebra_inverts_and_diagonalizes() {
    let mut r = rng(1);
    for d in [1, 2, 4, 6] {
        let b = normals(d * d, &mut r);
        // A = B Bᵀ + I is positive definite.
        let a: Vec<f64> = (0..d * d)
            .map(|i| {
                (0..d).map(|k| b[(i / d) * d + k] * b[(i % d) * d + k]).sum::<f64>()
                    + if i / d == i % d { 1.0 } else { 0.0 }
            })
            .collect();
        let inv = inverse_spd(&a, d).unwrap();
        for i in 0..d {
            for j in 0..d {
                let p: f64 = (0..d).map(|k| a[i * d + k] * inv[k * d + j]).sum();
                assert!((p - if i == j { 1.0 } else { 0.0 }).abs() < 1e-10, "A A⁻¹ at ({i}, {j}) = {p}");
            }
        }
        let s = random_symmetric(d, &mut r);
        let (values, vectors) = symmetric_eigen(&s, d);
        for (idx, expected) in s.iter().enumerate() {
            let (i, j) = (idx / d, idx % d);
            let back: f64 = (0..d).map(|k| vectors[i * d + k] * values[k] * vectors[j * d + k]).sum();
            assert!((back - expected).abs() < 1e-10, "V diag(λ) Vᵀ ≠ S at {idx}");
        }
    }
    assert!(cholesky(&[1.0, 2.0, 2.0, 1.0], 2).is_none(), "an indefinite matrix has no Cholesky factor");
}

/// The repair makes every noisy symmetric matrix positive definite with eigenvalues ≥ the floor,
/// and leaves a matrix that already satisfies that unchanged.
#[test]
fn noisy_covariances_are_always_repaired_to_positive_definite() {
    let mut r = rng(2);
    for _ in 0..500 {
        let s: Vec<f64> =
            random_symmetric(4, &mut r).iter().zip(normals(16, &mut r)).map(|(a, e)| a + 0.1 * e).collect();
        let fixed = repair_pd(&s, 4, 1e-3);
        assert!(cholesky(&fixed, 4).is_some());
        assert!(symmetric_eigen(&fixed, 4).0.iter().all(|l| *l >= 1e-3 * (1.0 - 1e-9)));
    }
    let good = [2.0, 0.5, 0.5, 1.0];
    let same = repair_pd(&good, 2, 1e-3);
    assert!(same.iter().zip(&good).all(|(a, b)| (a - b).abs() < 1e-12));
}

fn one_cluster(seed: u64) -> MixtureMeans {
    MixtureMeans::generate(200, 2, 1, 0.5, vec![0.0; 2], &mut rng(seed)).model
}

/// With one cluster the likelihood is Gaussian: the exact posterior is N((m + Σx/s²)/(1 + n/s²),
/// I/(1 + n/s²)). EP's moment matching is exact there after one pass; SEP's fixed point is the
/// same posterior (its precision exactly, its mean within a fraction of a posterior sd).
#[test]
fn ep_is_exact_and_sep_close_on_a_conjugate_model() {
    let model = one_cluster(3);
    let (n, s2) = (model.points() as f64, 0.25);
    let sum: Vec<f64> = (0..2).map(|i| (0..model.points()).map(|k| model.point(k)[i]).sum()).collect();
    let precision = 1.0 + n / s2;
    let exact: Vec<f64> = sum.iter().map(|x| x / s2 / precision).collect();
    let q0 = start(&model, &mut rng(4));
    let fit = ep(&model, &q0, 1, &mut rng(5));
    let (mean, cov) = fit.q[0].moments().unwrap();
    for i in 0..2 {
        assert!((mean[i] - exact[i]).abs() < 1e-9, "EP mean {} vs exact {}", mean[i], exact[i]);
        assert!((cov[i * 2 + i] - 1.0 / precision).abs() < 1e-12);
    }
    let settings = SepSettings { epochs: 150, damping: 20.0, clip: None, noise_multiplier: None, pd_floor: 1e-6 };
    let fit = sep(&model, &q0, &settings, &mut rng(6)).unwrap();
    let (mean, cov) = fit.q[0].moments().unwrap();
    for i in 0..2 {
        assert!((cov[i * 2 + i] * precision - 1.0).abs() < 1e-3, "SEP variance {}", cov[i * 2 + i]);
        assert!((mean[i] - exact[i]).abs() < 0.3 / precision.sqrt(), "SEP mean {} vs exact {}", mean[i], exact[i]);
    }
}

#[test]
fn clipping_never_lets_a_norm_exceed_c() {
    let mut r = rng(7);
    for c in [0.01, 1.0, 20.0] {
        let mut f: Vec<Natural> =
            (0..3).map(|_| Natural { h: normals(2, &mut r), lambda: random_symmetric(2, &mut r) }).collect();
        let before = norm(&f);
        clip(&mut f, c);
        assert!(norm(&f) <= c * (1.0 + 1e-12) && (before > c || (norm(&f) - before).abs() < 1e-12));
    }
    // Inside SEP: every clipped f_n has norm ≤ C.
    let data = MixtureMeans::generate(100, 2, 3, 0.5, vec![0.0; 2], &mut rng(8));
    let q = start(&data.model, &mut rng(9));
    let prior = data.model.prior();
    let f = combine(&q, 0.01, &prior, -0.01);
    let settings = SepSettings { epochs: 1, damping: 1.0, clip: Some(0.5), noise_multiplier: None, pd_floor: 1e-6 };
    for n in 0..100 {
        let (_, f_n) = sep_proposal(&data.model, &q, &f, n, &settings).unwrap();
        assert!(norm(&f_n) <= 0.5 * (1.0 + 1e-12));
    }
}

/// Proposition 1 on neighbouring data sets: replacing the point a step uses moves θ_new by at
/// most 2γC/N, over random states, points and replacements (the bound is attained when both
/// f_n are clipped in opposite directions, so check it is also approached).
#[test]
fn the_sensitivity_bound_holds_on_neighbouring_data_sets() {
    let mut r = rng(10);
    let (c, gamma) = (1.0, 5.0);
    let settings = SepSettings { epochs: 1, damping: gamma, clip: Some(c), noise_multiplier: None, pd_floor: 1e-6 };
    let mut largest: f64 = 0.0;
    for trial in 0..200 {
        let data = MixtureMeans::generate(50, 3, 2, 0.5, vec![0.0; 3], &mut rng(100 + trial));
        let mut other = data.model.clone();
        let replacement: Vec<f64> = normals(3, &mut r).iter().map(|x| 3.0 * x).collect();
        other.x_nd[..3].copy_from_slice(&replacement);
        let q = start(&data.model, &mut r);
        let f = combine(&q, 1.0 / 50.0, &data.model.prior(), -1.0 / 50.0);
        let (a, _) = sep_proposal(&data.model, &q, &f, 0, &settings).unwrap();
        let (b, _) = sep_proposal(&other, &q, &f, 0, &settings).unwrap();
        let diff = norm(&combine(&a, 1.0, &b, -1.0));
        assert!(diff <= 2.0 * gamma * c / 50.0 * (1.0 + 1e-9), "trial {trial}: {diff}");
        largest = largest.max(diff);
    }
    assert!(largest > 0.5 * 2.0 * gamma * c / 50.0, "the bound is loose by more than 2×: {largest}");
}

#[test]
fn the_accountant_meets_the_configured_budget() {
    for eps in [1.0, 5.0, 50.0] {
        let sigma = dp_sep_noise(eps, 1e-5, 1000, 100).unwrap();
        let spent = dp_sep_epsilon(sigma, 1e-5, 1000, 100).unwrap();
        assert!(spent <= eps && spent > 0.999 * eps, "ε = {eps}: σ = {sigma} spends {spent}");
    }
}

/// Table 1's ordering on one data set of the paper's design (N = 1000, J = 4, d = 4, 100
/// epochs, γ = 100): SEP ≤ clipped C = 20 < C = 10 < C = 1 as in the paper, every DP-SEP fit
/// stays positive definite, and DP-SEP's error at ε = 50 is below its error at ε = 1 (median of
/// 3 noise draws; a single draw can lose a cluster).
#[test]
fn table_1_ordering_on_the_papers_design() {
    let s = Streams::new(2021).child(0);
    let data = MixtureMeans::generate(1000, 4, 4, 0.5, vec![0.0; 4], &mut s.child(0).rng());
    let model = &data.model;
    let reference = model.gibbs_reference(&data.true_means, 500, 5000, &mut s.child(1).rng());
    let q0 = start(model, &mut s.child(2).rng());
    let base = SepSettings { epochs: 100, damping: 100.0, clip: None, noise_multiplier: None, pd_floor: 1.0 };
    let score = |settings: SepSettings, seed: u64| {
        let fit = sep(model, &q0, &settings, &mut s.child(seed).rng()).unwrap();
        let moments: Vec<_> = fit.q.iter().map(|g| g.moments().expect("positive definite")).collect();
        f_norms(&reference, &moments).2
    };
    let plain = score(base, 3);
    let c20 = score(SepSettings { clip: Some(20.0), ..base }, 3);
    let c10 = score(SepSettings { clip: Some(10.0), ..base }, 3);
    let c1 = score(SepSettings { clip: Some(1.0), ..base }, 3);
    assert!(plain <= c20 && c20 < c10 && c10 < c1, "SEP {plain}, C=20 {c20}, C=10 {c10}, C=1 {c1}");
    let dp = |eps: f64| {
        let sigma = dp_sep_noise(eps, 1e-5, 1000, 100).unwrap();
        let mut runs: Vec<f64> = (0..3)
            .map(|k| score(SepSettings { clip: Some(1.0), noise_multiplier: Some(sigma), ..base }, 10 + k))
            .collect();
        runs.sort_by(f64::total_cmp);
        runs[1]
    };
    let (loose, strict) = (dp(50.0), dp(1.0));
    assert!(c1 <= loose && loose < strict, "clipped C=1 {c1}, DP-SEP ε=50 {loose}, ε=1 {strict}");
}
