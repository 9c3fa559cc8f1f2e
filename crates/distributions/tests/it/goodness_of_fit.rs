//! Every sampler against its exact pmf (or cdf), with fixed seeds.
//!
//! False alarms: each test function below is one family whose family-wise false-alarm rate is
//! `FAMILY_ALPHA = 1e-3`, split evenly over its cases (Bonferroni): a case fails when its
//! chi-square p-value is below `1e-3 / cases`. With the seeds fixed every run draws the same
//! numbers, so a test passes or fails identically on every run and machine; the false-alarm rate
//! says how likely a correct sampler would be to fail for a fresh choice of seeds.

use distributions::gof::{Gof, chi_square, chi_square_continuous, chi_square_integer};
use distributions::{
    Bessel, Beta, Binomial, Erlang, ExactTwoSidedGeometric, Exponential, Gamma, Multinomial, Poisson, Skellam,
    TwoSidedGeometric, stream, stream_id,
};
use rand::distr::Distribution;
use std::collections::HashMap;

const FAMILY_ALPHA: f64 = 1e-3;
const DRAWS: usize = 20_000;
const SEED: u64 = 20_261_120;

/// Runs one family: `cases` labelled results, each must have p >= FAMILY_ALPHA / cases.
fn assert_family(name: &str, results: Vec<(String, Gof)>) {
    let per_case = FAMILY_ALPHA / results.len() as f64;
    let failures: Vec<String> = results
        .iter()
        .filter(|(_, g)| g.rejects(per_case))
        .map(|(label, g)| format!("{label}: chi2 = {:.1}, dof = {}, p = {:.2e}", g.statistic, g.dof, g.p_value))
        .collect();
    assert!(
        failures.is_empty(),
        "{name}: {} of {} cases rejected at {per_case:.1e}:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}

/// `DRAWS` samples from the seeded stream `case`.
fn draws<T>(case: u64, d: &impl Distribution<T>) -> Vec<T> {
    let mut rng = stream(SEED, case);
    (0..DRAWS).map(|_| d.sample(&mut rng)).collect()
}

/// [`draws`] of a count, as the integers [`chi_square_integer`] takes.
fn count_draws(case: u64, d: &impl Distribution<u64>) -> Vec<i64> {
    draws(case, d).into_iter().map(|n| n as i64).collect()
}

/// A count's log-pmf over all integers: `−∞` below 0.
fn count_ln_pmf(ln_pmf: impl Fn(u64) -> f64) -> impl Fn(i64) -> f64 {
    move |n| if n < 0 { f64::NEG_INFINITY } else { ln_pmf(n as u64) }
}

const BESSEL_NU: [f64; 7] = [0.0, 0.5, 1.0, 3.0, 10.0, 100.0, 1e4];
const BESSEL_A: [f64; 7] = [1e-8, 1e-3, 0.5, 2.0, 10.0, 100.0, 1e4];
/// The corners of the range the inference may hit, beyond the grid of the issue; an exact tie of two
/// modes (9·(9+7) = (24/2)²: P(8) = P(9)); and hats whose flat part straddles the switch from
/// step-ratio products (|n − m| <= 8) to the log form (σ ≈ 9: s = 10).
const BESSEL_EXTREMES: [(f64, f64); 7] =
    [(0.0, 1e6), (1e5, 1e6), (1e5, 1e-10), (0.0, 1e-10), (7.0, 24.0), (0.0, 300.0), (50.0, 300.0)];

#[test]
fn bessel_sampler_fits_pmf() {
    let mut cases: Vec<(f64, f64)> = BESSEL_NU.iter().flat_map(|&nu| BESSEL_A.iter().map(move |&a| (nu, a))).collect();
    cases.extend(BESSEL_EXTREMES);
    let results = cases
        .iter()
        .enumerate()
        .map(|(i, &(nu, a))| {
            let bes = Bessel::new(nu, a).expect("valid");
            let samples = count_draws(stream_id(&[1, i as u64]), &bes);
            (format!("Bes({nu}, {a})"), chi_square_integer(&samples, count_ln_pmf(|n| bes.ln_pmf(n))))
        })
        .collect();
    assert_family("Bessel", results);
}

#[test]
fn skellam_sampler_fits_pmf() {
    let rates = [0.0, 1e-3, 0.5, 3.0, 50.0, 1e4, 1e6];
    let mut results = Vec::new();
    for (i, &mu1) in rates.iter().enumerate() {
        for (j, &mu2) in rates.iter().enumerate() {
            if mu1 == 0.0 && mu2 == 0.0 {
                continue;
            }
            let skel = Skellam::new(mu1, mu2).expect("valid");
            let samples = draws(stream_id(&[2, i as u64, j as u64]), &skel);
            results.push((format!("Skel({mu1}, {mu2})"), chi_square_integer(&samples, |k| skel.ln_pmf(k))));
        }
    }
    assert_family("Skellam", results);
}

const ALPHAS: [f64; 6] = [0.0, 0.01, 0.1, 0.5, 0.9, 0.99];

#[test]
fn two_sided_geometric_sampler_fits_pmf() {
    let results = ALPHAS
        .iter()
        .enumerate()
        .map(|(i, &alpha)| {
            let geo = TwoSidedGeometric::new(alpha).expect("valid");
            let samples = draws(stream_id(&[3, i as u64]), &geo);
            (format!("2Geo({alpha})"), chi_square_integer(&samples, |t| geo.ln_pmf(t)))
        })
        .collect();
    assert_family("2Geo direct", results);
}

/// The exact (integer-arithmetic) sampler a person's own release uses: the same pmf, at the
/// noise levels of ALPHAS (α = 0 is no noise and not accepted) and at α = exp(−ε/N) for
/// (ε, N) = (1, 10) and (0.5, 1).
#[test]
fn exact_two_sided_geometric_sampler_fits_pmf() {
    let decays = [0.01f64, 0.1, 0.5, 0.9, 0.99].map(|a: f64| -a.ln()).into_iter().chain([0.1, 0.5]);
    let results = decays
        .enumerate()
        .map(|(i, decay)| {
            let exact = ExactTwoSidedGeometric::from_decay(decay).expect("valid");
            let geo = TwoSidedGeometric::new(exact.alpha()).expect("valid");
            let samples = draws(stream_id(&[30, i as u64]), &exact);
            (format!("exact 2Geo({:.4})", exact.alpha()), chi_square_integer(&samples, |t| geo.ln_pmf(t)))
        })
        .collect();
    assert_family("2Geo exact", results);
}

/// The exact sampler's test has power: samples at α = 0.5 are rejected against the pmf at 0.55,
/// and samples whose sign is drawn after a zero is counted twice (the mutation CKS's restart
/// avoids) are rejected against the right pmf.
#[test]
fn exact_two_sided_geometric_test_rejects_wrong_laws() {
    let exact = ExactTwoSidedGeometric::from_alpha(0.5).unwrap();
    let samples = draws(stream_id(&[31, 0]), &exact);
    let wrong = TwoSidedGeometric::new(0.55).unwrap();
    assert!(chi_square_integer(&samples, |t| wrong.ln_pmf(t)).rejects(FAMILY_ALPHA));
    // Double-counted zero: Y ~ Geometric (P(y) ∝ α^y), a coin for the sign, no restart at −0.
    let mut rng = stream(SEED, stream_id(&[31, 1]));
    let geometric = rand_distr::Geometric::new(1.0 - exact.alpha()).unwrap();
    let doubled: Vec<i64> = (0..DRAWS)
        .map(|_| {
            let magnitude = geometric.sample(&mut rng) as i64;
            if rand::RngExt::random::<bool>(&mut rng) { -magnitude } else { magnitude }
        })
        .collect();
    let right = TwoSidedGeometric::new(exact.alpha()).unwrap();
    assert!(chi_square_integer(&doubled, |t| right.ln_pmf(t)).rejects(FAMILY_ALPHA));
}

/// Theorem 3.1: λ₁, λ₂ ~ Exp(mean α/(1−α)), τ ~ Skel(λ₁, λ₂) is 2Geo(α).
#[test]
fn theorem_3_1_augmented_sampler_is_two_sided_geometric() {
    let results = ALPHAS
        .iter()
        .enumerate()
        .map(|(i, &alpha)| {
            let geo = TwoSidedGeometric::new(alpha).expect("valid");
            let mut rng = stream(SEED, stream_id(&[4, i as u64]));
            let samples: Vec<i64> = (0..DRAWS).map(|_| geo.sample_augmented(&mut rng).0).collect();
            (format!("augmented 2Geo({alpha})"), chi_square_integer(&samples, |t| geo.ln_pmf(t)))
        })
        .collect();
    assert_family("2Geo augmented (Theorem 3.1)", results);
}

/// Theorem 4.1 / D.1: for y₁ ~ Pois(λ₁), y₂ ~ Pois(λ₂), δ = y₁ − y₂ ~ Skel(λ₁, λ₂) and
/// min(y₁, y₂) | δ ~ Bes(|δ|, 2√(λ₁λ₂)). Checked for δ and for min | δ at the five most
/// frequent values of δ, for three pairs of rates.
fn theorem_4_1_cases(coordinate: impl Fn(f64, f64) -> f64) -> Vec<(String, Gof)> {
    let mut results = Vec::new();
    for (i, &(l1, l2)) in [(3.0, 1.5), (0.7, 4.0), (40.0, 25.0)].iter().enumerate() {
        let (p1, p2) = (Poisson::new(l1).expect("valid"), Poisson::new(l2).expect("valid"));
        let mut rng = stream(SEED, stream_id(&[5, i as u64]));
        let pairs: Vec<(u64, u64)> = (0..5 * DRAWS).map(|_| (p1.sample(&mut rng), p2.sample(&mut rng))).collect();
        let deltas: Vec<i64> = pairs.iter().map(|&(a, b)| a as i64 - b as i64).collect();
        let skel = Skellam::new(l1, l2).expect("valid");
        results.push((format!("delta, rates ({l1}, {l2})"), chi_square_integer(&deltas, |k| skel.ln_pmf(k))));
        let mut by_delta: HashMap<i64, Vec<i64>> = HashMap::new();
        for (&(a, b), &d) in pairs.iter().zip(&deltas) {
            by_delta.entry(d).or_default().push(a.min(b) as i64);
        }
        let mut frequent: Vec<(i64, Vec<i64>)> = by_delta.into_iter().collect();
        frequent.sort_by_key(|(d, v)| (std::cmp::Reverse(v.len()), *d));
        for (d, mins) in frequent.into_iter().take(5) {
            let bes = Bessel::new(d.unsigned_abs() as f64, coordinate(l1, l2)).expect("valid");
            let gof = chi_square_integer(&mins, count_ln_pmf(|n| bes.ln_pmf(n)));
            results.push((format!("min | delta = {d}, rates ({l1}, {l2})"), gof));
        }
    }
    results
}

#[test]
fn theorem_4_1_min_given_difference_is_bessel() {
    assert_family("Theorem 4.1", theorem_4_1_cases(|l1, l2| 2.0 * (l1 * l2).sqrt()));
}

/// The typeset eq. 11 / eq. 30 coordinate 2√(2λ₁λ₂) is wrong (papers/README.md): the same data
/// must reject it, which also shows the test above has power.
#[test]
fn theorem_4_1_rejects_the_misprinted_coordinate() {
    let results = theorem_4_1_cases(|l1, l2| 2.0 * (2.0 * l1 * l2).sqrt());
    let rejected = results.iter().filter(|(label, g)| label.starts_with("min") && g.rejects(1e-6)).count();
    assert!(rejected >= 12, "only {rejected} of 15 conditional fits rejected the 2√(2λ₁λ₂) coordinate");
}

#[test]
fn poisson_sampler_fits_pmf() {
    // 11.9 and 12.1 straddle rand_distr's switch from Knuth's method to rejection.
    let rates = [1e-3, 0.5, 5.0, 11.9, 12.1, 100.0, 1e4, 1e6];
    let results = rates
        .iter()
        .enumerate()
        .map(|(i, &rate)| {
            let pois = Poisson::new(rate).expect("valid");
            let samples = count_draws(stream_id(&[6, i as u64]), &pois);
            (format!("Pois({rate})"), chi_square_integer(&samples, count_ln_pmf(|k| pois.ln_pmf(k))))
        })
        .collect();
    assert_family("Poisson", results);
}

#[test]
fn binomial_sampler_fits_pmf() {
    // Inversion (n <= 64; p on both sides of 1/2, up to the boundary) and rand_distr's BINV/BTPE.
    let cases = [
        (1, 0.5),
        (2, 0.7),
        (3, 0.5),
        (5, 0.95),
        (10, 0.01),
        (10, 0.3),
        (20, 0.45),
        (50, 0.97),
        (64, 0.5),
        (64, 0.03),
        (65, 0.4),
        (1000, 0.2),
        (100_000, 0.5),
        (7, 0.0),
        (7, 1.0),
    ];
    let results = cases
        .iter()
        .enumerate()
        .map(|(i, &(n, p))| {
            let bin = Binomial::new(n, p).expect("valid");
            let samples = count_draws(stream_id(&[7, i as u64]), &bin);
            (format!("Binom({n}, {p})"), chi_square_integer(&samples, count_ln_pmf(|k| bin.ln_pmf(k))))
        })
        .collect();
    assert_family("Binomial", results);
}

/// Continuous families through the probability integral transform into 50 equiprobable cells.
#[test]
fn continuous_samplers_fit_cdf() {
    let mut results = Vec::new();
    for (i, &(shape, rate)) in [(0.1, 1.0), (1.0, 0.1), (1.0, 10.0), (5.0, 2.0), (300.0, 0.3)].iter().enumerate() {
        let g = Gamma::new(shape, rate).expect("valid");
        let s = draws(stream_id(&[8, i as u64]), &g);
        results.push((format!("Gamma({shape}, rate {rate})"), chi_square_continuous(&s, |x| g.cdf(x), 50)));
    }
    for (i, &rate) in [0.01, 1.0, 250.0].iter().enumerate() {
        let e = Exponential::new(rate).expect("valid");
        let s = draws(stream_id(&[9, i as u64]), &e);
        results.push((format!("Exp(rate {rate})"), chi_square_continuous(&s, |x| e.cdf(x), 50)));
    }
    for (i, &(a, b)) in [(0.5, 0.5), (1.0, 1.0), (2.0, 8.0), (40.0, 3.0)].iter().enumerate() {
        let d = Beta::new(a, b).expect("valid");
        let s = draws(stream_id(&[10, i as u64]), &d);
        results.push((format!("Beta({a}, {b})"), chi_square_continuous(&s, |x| d.cdf(x), 50)));
    }
    for (i, &(shape, rate)) in [(1, 1.0), (2, 0.3), (4, 7.0), (5, 1.0), (40, 2.0)].iter().enumerate() {
        let e = Erlang::new(shape, rate).expect("valid");
        let g = Gamma::new(shape as f64, rate).expect("valid");
        let s = draws(stream_id(&[11, i as u64]), &e);
        results.push((format!("Erlang({shape}, rate {rate})"), chi_square_continuous(&s, |x| g.cdf(x), 50)));
    }
    assert_family("Gamma, Erlang, Exponential, Beta", results);
}

/// All compositions of `n` into `k` parts.
fn compositions(n: u64, k: usize) -> Vec<Vec<u64>> {
    if k == 1 {
        return vec![vec![n]];
    }
    (0..=n)
        .flat_map(|first| {
            compositions(n - first, k - 1).into_iter().map(move |mut rest| {
                rest.insert(0, first);
                rest
            })
        })
        .collect()
}

/// The joint law of the whole allocation vector, for both algorithms (totals below 2K: unit by
/// unit; otherwise sequential binomials) on both sides of the switch, including a zero weight.
#[test]
fn multinomial_sampler_fits_joint_pmf() {
    let cases: [(u64, Vec<f64>); 5] = [
        (2, vec![1.0, 0.0, 2.0, 0.5, 0.5, 3.0, 1.0, 0.1, 0.9, 2.0, 0.0, 1.0]), // n < 2K: unit by unit
        (1, vec![0.2, 0.3, 0.0, 0.5, 1.0, 1.0, 2.0, 0.0]),                     // single unit
        (10, vec![1.0, 2.0, 7.0]),                                             // sequential binomials
        (7, vec![0.5, 0.0, 0.25, 0.25]),                                       // n = 2K − 1: unit by unit
        (8, vec![0.5, 0.0, 0.25, 0.25]),                                       // n = 2K: binomials
    ];
    let results = [false, true]
        .into_iter()
        .flat_map(|cumulative_form| cases.iter().enumerate().map(move |(i, case)| (cumulative_form, i, case)))
        .map(|(cumulative_form, i, (n, weights))| {
            let mult = Multinomial::new(*n, weights).expect("valid");
            let outcomes = compositions(*n, weights.len());
            let index: HashMap<Vec<u64>, usize> = outcomes.iter().cloned().enumerate().map(|(j, o)| (o, j)).collect();
            let mut observed = vec![0.0; outcomes.len()];
            let mut rng = stream(SEED, stream_id(&[11, i as u64, u64::from(cumulative_form)]));
            let mut out = vec![0; weights.len()];
            let cumulative: Vec<f64> =
                weights.iter().scan(0.0, |acc, w| Some(std::mem::replace(acc, *acc + w) + w)).collect();
            for _ in 0..DRAWS {
                if !cumulative_form {
                    Multinomial::sample_into(*n, weights, &mut out, &mut rng).expect("valid");
                } else {
                    Multinomial::sample_cumulative_into(*n, &cumulative, &mut out, &mut rng).expect("valid");
                }
                observed[index[&out]] += 1.0;
            }
            let expected: Vec<f64> = outcomes.iter().map(|o| DRAWS as f64 * mult.ln_pmf(o).exp()).collect();
            let form = if cumulative_form { "cumulative" } else { "weights" };
            (format!("Mult({n}, {weights:?}) by {form}"), chi_square(&observed, &expected))
        })
        .collect();
    assert_family("Multinomial", results);
}
