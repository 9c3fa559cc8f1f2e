//! The accountant against values reproducible from first principles and published examples.

use accountant::{
    AccountantError, Accounting, Neighbouring, RdpAccountant, calibrate_noise, epsilon, gaussian_mechanism_epsilon,
    rdp_subsampled_gaussian,
};

/// A_α = E_{z~N(0,σ²)}[((1−q) + q·exp((2z − 1)/(2σ²)))^α] by the trapezoid rule on a fine grid
/// (brute force, independent of the series in the crate), returned as RDP = ln A_α / (α − 1).
/// It integrates the excess A_α − 1 = E[r^α − 1] with r^α − 1 = expm1(α·ln1p(q·expm1(…))), so
/// that RDP values of 1e-6 keep their relative accuracy. `reverse` integrates the other
/// direction, E_{z~μ}[(μ₀(z)/μ(z))^α] written as E_{z~μ₀}[(μ₀/μ)^{α−1}].
fn rdp_by_integration(q: f64, sigma: f64, alpha: f64, reverse: bool) -> f64 {
    let (lo, hi, n) = (-30.0 * sigma, 30.0 * sigma + alpha + 5.0, 400_000);
    let h = (hi - lo) / n as f64;
    let mut total = 0.0;
    for i in 0..=n {
        let z = lo + i as f64 * h;
        let density = (-z * z / (2.0 * sigma * sigma)).exp() / (sigma * (2.0 * std::f64::consts::PI).sqrt());
        let ln_ratio = (q * ((2.0 * z - 1.0) / (2.0 * sigma * sigma)).exp_m1()).ln_1p();
        let power = if reverse { 1.0 - alpha } else { alpha };
        let f = density * (power * ln_ratio).exp_m1();
        total += if i == 0 || i == n { 0.5 * f } else { f };
    }
    (total * h).ln_1p() / (alpha - 1.0)
}

#[test]
fn rdp_matches_brute_force_integration_of_the_renyi_divergence() {
    // The last two (q, σ) are where dp-accounting's absolute-value series is loose or does not
    // converge at fractional orders near 1 (see `rdp_per_order_agrees_with_dp_accounting`).
    for (q, sigma) in [(0.01, 1.0), (0.05, 0.9), (0.2, 2.0), (0.004, 1.3), (0.6, 0.8), (0.2, 1.5)] {
        for alpha in [2.0, 3.0, 4.0, 5.0, 1.1, 1.3, 1.5, 1.9, 2.5, 3.7] {
            let exact = rdp_subsampled_gaussian(q, sigma, alpha).unwrap();
            let numeric = rdp_by_integration(q, sigma, alpha, false);
            assert!(
                (exact - numeric).abs() <= 1e-7 * exact.max(1e-6),
                "q {q} σ {sigma} α {alpha}: series {exact:e} vs integral {numeric:e}"
            );
            // The other direction of the add/remove pair is never larger (Mironov et al. 2019,
            // Thm 5), so A_α bounds both and the accountant is valid for add and for remove.
            let other = rdp_by_integration(q, sigma, alpha, true);
            assert!(other <= exact * (1.0 + 1e-9) + 1e-15, "q {q} σ {sigma} α {alpha}: {other:e} > {exact:e}");
        }
    }
}

#[test]
fn without_subsampling_it_is_the_gaussian_mechanism() {
    assert_eq!(rdp_subsampled_gaussian(1.0, 2.0, 3.0).unwrap(), 3.0 / 8.0);
    // q = 1: ε = min_α α/(2σ²)·T + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), checked against a fine
    // direct minimization of the formula written out.
    let mut a = RdpAccountant::new((2..20_000).map(|i| 1.0 + i as f64 * 0.01).collect()).unwrap();
    a.compose_subsampled_gaussian(1.0, 5.0, 10).unwrap();
    let direct = (2..20_000)
        .map(|i| 1.0 + i as f64 * 0.01)
        .map(|al: f64| 10.0 * al / 50.0 + (1.0 - 1.0 / al).ln() - ((1e-5f64).ln() + al.ln()) / (al - 1.0))
        .fold(f64::INFINITY, f64::min);
    assert!((a.epsilon(1e-5).unwrap().0 - direct).abs() < 1e-12);
}

/// Abadi et al. 2016, §3.1: q = 0.01, σ = 4, T = 10,000, δ = 1e-5 gave ε ≈ 1.26 with their
/// moments accountant and Mironov's conversion. The conversion of Balle et al. 2020 is tighter at
/// every order, so ours must be below the published value; the expected 1.03549 is Google's
/// dp-accounting 0.6.0 on the same event (`tools/reference/make_accountant_reference.py` setup,
/// `RdpAccountant().compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.01,
/// GaussianDpEvent(4.0)), 10000)).get_epsilon(1e-5)` = 1.0354900660362436). Their
/// strong-composition figure (9.34) used a per-step bound other than eq. 1, which does not apply
/// here (ε₀ = √(2 ln(1.25/δ₀))/4 > 1), so that accounting reports no finite ε at σ = 4; at σ = 40
/// it does, and is far looser than the moments accountant.
#[test]
fn abadi_et_al_example() {
    let eps = epsilon(Accounting::MomentsAccountant, Neighbouring::AddRemove, 0.01, 4.0, 10_000, 1e-5).unwrap();
    assert!(eps < 1.26, "ε = {eps} is not below the published (looser) 1.26");
    assert!((eps / 1.035_490_066_036_243_6 - 1.0).abs() < 1e-3, "ε = {eps}, dp-accounting 1.035490");
    let strong = epsilon(Accounting::AdvancedComposition, Neighbouring::AddRemove, 0.01, 4.0, 10_000, 1e-5).unwrap();
    assert_eq!(strong, f64::INFINITY);
    let ma = epsilon(Accounting::MomentsAccountant, Neighbouring::AddRemove, 0.01, 40.0, 10_000, 1e-5).unwrap();
    let ac = epsilon(Accounting::AdvancedComposition, Neighbouring::AddRemove, 0.01, 40.0, 10_000, 1e-5).unwrap();
    assert!(ac.is_finite() && ac > 5.0 * ma, "advanced composition {ac} vs moments accountant {ma}");
}

/// Dong, Roth & Su (2020, Fig. 4, computed with the TensorFlow Privacy RDP accountant of the
/// time, i.e. Mironov's conversion): MNIST DP-SGD with q = 256/60000, σ = 1.3 for 20 epochs gives
/// (1.34, 1e-5); σ = 0.7 for 70 epochs gives (8.68, 1e-5). T = epochs/q steps, rounded up. With
/// today's conversion ours must be below the published values, and equal (rel. 1e-3) to Google's
/// dp-accounting 0.6.0 on the same events: 1.1065610904471819 and 7.83951781673821 (computed as
/// in `abadi_et_al_example`).
#[test]
fn published_mnist_dp_sgd_values() {
    let q: f64 = 256.0 / 60_000.0;
    for (sigma, epochs, published, dp_accounting) in
        [(1.3, 20.0f64, 1.34, 1.106_561_090_447_181_9), (0.7, 70.0, 8.68, 7.839_517_816_738_21)]
    {
        let steps = (epochs / q).ceil() as u64;
        let eps = epsilon(Accounting::MomentsAccountant, Neighbouring::AddRemove, q, sigma, steps, 1e-5).unwrap();
        assert!(eps < published, "σ {sigma}, {epochs} epochs: ε = {eps}, published {published}");
        assert!((eps / dp_accounting - 1.0).abs() < 1e-3, "σ {sigma}: ε = {eps}, dp-accounting {dp_accounting}");
    }
}

/// dp-accounting's one-step RDP per (q, σ) at each default order (`f64::INFINITY` where its
/// fractional-order series did not converge and it excluded the order).
fn dp_accounting_rdp() -> Vec<((f64, f64), Vec<f64>)> {
    let mut lines = include_str!("../data/dp_accounting_rdp.csv").lines().filter(|l| !l.starts_with('#'));
    let orders: Vec<f64> = lines.next().unwrap().split(',').skip(2).map(|x| x.parse().unwrap()).collect();
    assert_eq!(orders, accountant::DEFAULT_ORDERS, "our default orders are dp-accounting's");
    lines
        .map(|l| {
            let f: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            ((f[0], f[1]), f[2..].to_vec())
        })
        .collect()
}

/// The per-order RDP against dp-accounting 0.6.0 (`tools/reference/make_accountant_reference.py`):
/// at integer orders both compute the same finite sum (equal to 1e-9 relative). At fractional
/// orders dp-accounting adds the *absolute values* of the §3.3 series of Mironov et al. 2019, an
/// upper bound on A_α, and drops an order when that sum does not converge in 1,000 terms; we sum
/// with the signs (exact, checked against numerical integration in
/// `rdp_matches_brute_force_integration_of_the_renyi_divergence`). So ours is never larger.
#[test]
fn rdp_per_order_agrees_with_dp_accounting() {
    for ((q, sigma), theirs) in dp_accounting_rdp() {
        for (&alpha, &r) in accountant::DEFAULT_ORDERS.iter().zip(&theirs) {
            let ours = rdp_subsampled_gaussian(q, sigma, alpha).unwrap();
            if alpha.fract() == 0.0 {
                assert!((ours - r).abs() <= 1e-9 * r, "q {q} σ {sigma} α {alpha}: {ours} vs {r}");
            } else {
                assert!(ours <= r * (1.0 + 1e-9), "q {q} σ {sigma} α {alpha}: {ours} above {r}");
            }
        }
    }
}

/// The conversion alone: fed dp-accounting's own per-order RDP, our ε(δ) and δ(ε) are theirs
/// (1e-9 relative) in all 240 cases of the grid q ∈ {0.004 … 1}, σ ∈ {0.8 … 10},
/// T ∈ {100 … 50,000}, δ ∈ {1e-5, 1e-6}.
#[test]
fn conversion_equals_dp_accountings_on_its_rdp() {
    let rdp = dp_accounting_rdp();
    let cases = reference_cases();
    for c in &cases {
        let one_step = &rdp.iter().find(|(key, _)| *key == (c.q, c.sigma)).unwrap().1;
        let mut a = RdpAccountant::default();
        a.add_rdp(&one_step.iter().map(|r| r * c.steps as f64).collect::<Vec<_>>());
        let eps = a.epsilon(c.delta).unwrap().0;
        assert!((eps / c.epsilon - 1.0).abs() < 1e-9, "{}: ε {eps} vs {}", c.name(), c.epsilon);
        let d = a.delta(c.epsilon_query);
        assert!((d - c.delta_at).abs() <= 1e-9 * c.delta_at, "{}: δ {d} vs {}", c.name(), c.delta_at);
    }
    assert_eq!(cases.len(), 240);
}

struct Case {
    q: f64,
    sigma: f64,
    steps: u64,
    delta: f64,
    epsilon: f64,
    epsilon_query: f64,
    delta_at: f64,
}

impl Case {
    fn name(&self) -> String {
        format!("q {} σ {} T {} δ {}", self.q, self.sigma, self.steps, self.delta)
    }
}

fn reference_cases() -> Vec<Case> {
    include_str!("../data/dp_accounting_reference.csv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|line| {
            let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            Case {
                q: f[0],
                sigma: f[1],
                steps: f[2] as u64,
                delta: f[3],
                epsilon: f[4],
                epsilon_query: f[5],
                delta_at: f[6],
            }
        })
        .collect()
}

/// End to end over the 240 cases: our ε(δ) and δ(ε = 1) are never larger than dp-accounting
/// 0.6.0's, and within 1 % of them wherever dp-accounting's own per-order RDP at our best order
/// is within 1 % of ours. Where it is not, the difference is dp-accounting's fractional-order
/// upper bound (see `rdp_per_order_agrees_with_dp_accounting`; ours is the exact value, checked by
/// integration): measured, 62 of the 240 ε cases, all with q ≥ 0.05 and a fractional best
/// order, e.g. q = 0.05, σ = 0.8, T = 10,000, δ = 1e-5: ε 83.8 vs 95.2. For every q ≤ 0.01 (the
/// DP-SGD regime) all cases agree within 1 %.
#[test]
fn epsilon_and_delta_agree_with_dp_accounting() {
    let rdp = dp_accounting_rdp();
    let (mut explained, mut worst) = (Vec::new(), 0.0f64);
    for c in reference_cases() {
        let theirs_one_step = &rdp.iter().find(|(key, _)| *key == (c.q, c.sigma)).unwrap().1;
        let mut a = RdpAccountant::default();
        a.compose_subsampled_gaussian(c.q, c.sigma, c.steps).unwrap();
        let is_explained = |order: f64| {
            let i = accountant::DEFAULT_ORDERS.iter().position(|&o| o == order).unwrap();
            theirs_one_step[i] * c.steps as f64 > a.rdp().nth(i).unwrap().1 * 1.01
        };
        let (eps, order) = a.epsilon(c.delta).unwrap();
        let rel = eps / c.epsilon - 1.0;
        assert!(rel < 1e-9, "{}: ε {eps} above dp-accounting's {}", c.name(), c.epsilon);
        if rel.abs() >= 0.01 {
            assert!(is_explained(order), "{}: ε {eps} vs dp-accounting {} (order {order})", c.name(), c.epsilon);
            assert!(c.q >= 0.05 && order.fract() != 0.0, "{}", c.name());
            explained.push(c.name());
        } else {
            worst = worst.max(rel.abs());
        }
        let d = a.delta(c.epsilon_query);
        assert!(d <= c.delta_at * (1.0 + 1e-9), "{}: δ {d} above dp-accounting's {}", c.name(), c.delta_at);
        if c.delta_at > 1e-300 && c.delta_at < 1.0 && (d / c.delta_at - 1.0).abs() >= 0.01 {
            let best = a
                .rdp()
                .map(|(alpha, r)| (alpha, (alpha - 1.0) * (r - c.epsilon_query + (-1.0 / alpha).ln_1p()) - alpha.ln()))
                .fold((f64::NAN, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b })
                .0;
            assert!(is_explained(best), "{}: δ {d} vs dp-accounting {} (order {best})", c.name(), c.delta_at);
        }
    }
    eprintln!("worst relative ε difference where the RDP agrees: {worst:.2e}; {} explained", explained.len());
    assert_eq!(explained.len(), 62, "{explained:?}");
}

/// The Balle et al. 2020 conversion is tighter than Mironov's at every order by
/// ln(α/(α−1)) + ln α/(α−1): check it at one order against the formula written out.
#[test]
fn conversion_is_the_balle_et_al_formula() {
    let mut a = RdpAccountant::new(vec![8.0]).unwrap();
    a.compose_subsampled_gaussian(1.0, 4.0, 10).unwrap(); // R(8) = 10 · 8/32 = 2.5
    let (eps, order) = a.epsilon(1e-5).unwrap();
    let expected = 2.5 + (1.0f64 - 1.0 / 8.0).ln() - ((1e-5f64).ln() + 8.0f64.ln()) / 7.0;
    assert_eq!(order, 8.0);
    assert!((eps - expected).abs() < 1e-12, "{eps} vs {expected}");
    let mironov = 2.5 - (1e-5f64).ln() / 7.0;
    assert!(eps < mironov);
    // δ(ε) is its inverse at that order.
    assert!((a.delta(expected) / 1e-5 - 1.0).abs() < 1e-9, "{}", a.delta(expected));
}

#[test]
fn epsilon_grows_with_steps_and_rate_and_shrinks_with_noise() {
    let eps = |q: f64, s: f64, t: u64| {
        epsilon(Accounting::MomentsAccountant, Neighbouring::AddRemove, q, s, t, 1e-5).unwrap()
    };
    let mut last = 0.0;
    for t in [1, 10, 100, 1000, 10_000] {
        let e = eps(0.01, 1.5, t);
        assert!(e > last, "T = {t}");
        last = e;
    }
    let mut last = 0.0;
    for q in [0.001, 0.01, 0.05, 0.2, 1.0] {
        let e = eps(q, 1.5, 500);
        assert!(e > last, "q = {q}");
        last = e;
    }
    let mut last = f64::INFINITY;
    for s in [0.6, 1.0, 2.0, 4.0, 8.0] {
        let e = eps(0.01, s, 500);
        assert!(e < last, "σ = {s}");
        last = e;
    }
    // Replace-one is accounted at half the noise: strictly weaker for the same σ.
    let replace = epsilon(Accounting::MomentsAccountant, Neighbouring::ReplaceOne, 0.01, 2.0, 500, 1e-5).unwrap();
    assert_eq!(replace, eps(0.01, 1.0, 500));
}

#[test]
fn delta_and_epsilon_conversions_are_consistent() {
    let mut a = RdpAccountant::default();
    a.compose_subsampled_gaussian(0.02, 1.1, 2000).unwrap();
    let (eps, order) = a.epsilon(1e-5).unwrap();
    assert!(order > 1.0);
    assert!(a.delta(eps) <= 1e-5 * (1.0 + 1e-9));
    assert!(a.delta(eps * 0.9) > 1e-5);
}

#[test]
fn calibration_inverts_the_accountant() {
    for accounting in [Accounting::MomentsAccountant, Accounting::AdvancedComposition] {
        for (q, t, target) in [(0.04, 1000, 1.0), (0.01, 2000, 0.5), (0.05, 3000, 4.0)] {
            let n = Neighbouring::AddRemove;
            let sigma = calibrate_noise(accounting, n, q, t, target, 1e-3 / 4177.0).unwrap();
            let at = epsilon(accounting, n, q, sigma, t, 1e-3 / 4177.0).unwrap();
            let below = epsilon(accounting, n, q, sigma * (1.0 - 1e-4), t, 1e-3 / 4177.0).unwrap();
            assert!(
                at <= target && below > target,
                "{accounting:?} q {q} T {t}: σ {sigma} gives {at}, less gives {below}"
            );
        }
    }
}

#[test]
fn bad_parameters_are_named() {
    assert_eq!(
        rdp_subsampled_gaussian(1.5, 1.0, 2.0).unwrap_err(),
        AccountantError::Parameter { parameter: "sampling rate q", value: 1.5, allowed: "in [0, 1]" }
    );
    assert!(rdp_subsampled_gaussian(1.5, 1.0, 2.0).unwrap_err().to_string().contains("sampling rate q = 1.5"));
    assert!(rdp_subsampled_gaussian(0.1, 1.0, 1.0).unwrap_err().to_string().contains("order"));
    assert!(gaussian_mechanism_epsilon(1.0, 0.0).unwrap_err().to_string().contains("delta"));
    assert!(RdpAccountant::new(vec![0.5]).is_err());
    let e = calibrate_noise(Accounting::MomentsAccountant, Neighbouring::AddRemove, 0.1, 10, -1.0, 1e-5).unwrap_err();
    assert!(e.to_string().contains("target epsilon"), "{e}");
    assert_eq!(rdp_subsampled_gaussian(0.1, 0.0, 2.0).unwrap(), f64::INFINITY);
}
