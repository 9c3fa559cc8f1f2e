//! CAVI: the objective never decreases under the exact updates, the local step's closed forms
//! agree with the Bessel pmf, CAVI lands near the Gibbs posterior mean, and private CAVI beats
//! the naïve method at high noise (Fig. 3 setting). Seeds are fixed; margins are stated against
//! the measured values at each assertion.

use distributions::{Bessel, Gamma, Streams, alpha_from_epsilon};
use inference::{
    BesselArgument, Cavi, CaviSettings, CaviSummary, InferenceError, MEstimate, NonPrivate, Schedule,
    delta_method_ln_mean, private_local_step, run_chain,
};
use mechanism::{Noise, Privatized, privatize};
use models::{BlockModel, BlockVariational, GammaPrior, PoissonFactorization, TopicModel, TopicVariational};
use rand::distr::Distribution;
use std::ops::ControlFlow;

const EXACT: [(MEstimate, BesselArgument); 2] =
    [(MEstimate::Mode, BesselArgument::Exact), (MEstimate::Mean, BesselArgument::Exact)];

fn settings(max_iterations: usize, tolerance: f64, m: MEstimate, argument: BesselArgument) -> CaviSettings {
    CaviSettings::new(max_iterations, tolerance, m, argument).unwrap()
}

fn fit<M: models::MeanFieldFactorization>(cavi: Cavi<M>) -> CaviSummary {
    cavi.fit(|_| ControlFlow::Continue(())).unwrap()
}

/// A 30 × 40 topic-model data set with K = 3, `θ, φ ~ Gamma(0.5, rate 0.5)` (mean rate 3),
/// privatized at `α`: (true rates, counts, released).
fn topic_data(seed: u64, alpha: f64) -> (Vec<f64>, Vec<u32>, Privatized) {
    let (d, v, k) = (30, 40, 3);
    let root = Streams::new(seed);
    let truth = TopicModel::new(d, v, k, GammaPrior::new(0.5, 0.5).unwrap(), root.child(0));
    let mut rates = vec![0.0; d * v];
    truth.rates_into(&mut rates);
    let y = models::sample_counts(&truth, root.child(1));
    let data = privatize(&y, d, v, Noise::Scalar(alpha), &mut root.child(2).rng()).unwrap();
    (rates, y, data)
}

fn topic_q(seed: u64) -> TopicVariational {
    TopicVariational::new(30, 40, 3, GammaPrior::new(0.5, 0.5).unwrap(), Streams::new(seed))
}

/// Largest decrease between consecutive objective values, relative to the value.
fn worst_dip(elbo: &[f64]) -> f64 {
    elbo.windows(2).map(|w| (w[0] - w[1]) / w[0].abs()).fold(0.0, f64::max)
}

/// Under the exact updates every step is a coordinate optimum, so the objective never decreases
/// (up to rounding, 1e-12 relative): non-private, naïve, and private with the mode or the mean,
/// for the topic model and the block model. 200 iterations each, no early stop.
#[test]
fn exact_updates_never_decrease_the_elbo() {
    let (_, y, data) = topic_data(1, 0.5);
    let s = settings(200, 0.0, MEstimate::Mode, BesselArgument::Exact);
    let mut traces = vec![
        ("topic non-private", fit(Cavi::non_private(topic_q(9), &y, None, s, Streams::new(10)).unwrap()).elbo),
        ("topic naive", fit(Cavi::naive(topic_q(9), &data, s, Streams::new(10)).unwrap()).elbo),
    ];
    for (m, argument) in EXACT {
        let s = settings(200, 0.0, m, argument);
        traces.push(("topic private", fit(Cavi::private(topic_q(9), &data, s, Streams::new(10)).unwrap()).elbo));
    }
    let (v, c) = (15, 3);
    let prior = GammaPrior::new(0.5, 0.5).unwrap();
    let truth = BlockModel::new(v, c, prior, Streams::new(21));
    let block_y = models::sample_counts(&truth, Streams::new(22));
    let block_data = privatize(&block_y, v, v, Noise::Scalar(0.6), &mut Streams::new(23).rng()).unwrap();
    let block_q = || BlockVariational::new(v, c, prior, Streams::new(24));
    traces.push((
        "block non-private",
        fit(Cavi::non_private(block_q(), &block_y, None, s, Streams::new(25)).unwrap()).elbo,
    ));
    for (m, argument) in EXACT {
        let s = settings(200, 0.0, m, argument);
        traces.push(("block private", fit(Cavi::private(block_q(), &block_data, s, Streams::new(25)).unwrap()).elbo));
    }
    for (name, trace) in &traces {
        assert_eq!(trace.len(), 200);
        assert!(trace.iter().all(|x| x.is_finite()), "{name}");
        assert!(worst_dip(trace) <= 1e-12, "{name}: the ELBO decreased by {:e} (relative)", worst_dip(trace));
        assert!(trace[199] > trace[0], "{name}: no progress");
    }
}

/// The paper's update (mode, delta-method argument) is not the exact argmax of its ELBO, so a
/// decrease is possible: on this problem the worst step is a decrease of 1.2e-5 of the ELBO
/// (relative; none with the ChaCha8 streams before issue 21 — the bound 1e-4 was set after
/// seeing it), and its objective stays within 0.5% of the exact update's at the end (measured
/// −3829.4 vs −3813.7).
#[test]
fn paper_update_dips_at_most_slightly_and_stays_close_to_the_exact_one() {
    let (_, _, data) = topic_data(1, 0.5);
    let paper = fit(Cavi::private(
        topic_q(9),
        &data,
        settings(300, 0.0, MEstimate::Mode, BesselArgument::DeltaMethod),
        Streams::new(10),
    )
    .unwrap());
    let exact = fit(Cavi::private(
        topic_q(9),
        &data,
        settings(300, 0.0, MEstimate::Mode, BesselArgument::Exact),
        Streams::new(10),
    )
    .unwrap());
    assert!(worst_dip(&paper.elbo) <= 1e-4, "worst relative decrease {:e}", worst_dip(&paper.elbo));
    let (p, e) = (paper.elbo[299], exact.elbo[299]);
    assert!((p - e).abs() < 0.005 * e.abs(), "paper {p} vs exact {e}");
}

/// The two objectives of the local step are `ln t_m` (point mass at the mode) and `ln Z = ln Σ_m t_m`
/// (full Bessel), with the same `Q(λ)` terms, so their difference is `ln Bes(mode; ν, a)` — checked
/// against the Bessel pmf of `distributions` (an independent implementation) — and it is never
/// positive. The mean and the mode differ by at most 1 (Proposition 3).
#[test]
fn local_step_objectives_match_the_bessel_pmf() {
    let mut checked = 0;
    for released in [-40, -3, -1, 0, 1, 2, 7, 60] {
        for alpha in [0.05, 0.37, 0.8] {
            for w in [1e-3, 0.4, 3.0, 50.0] {
                for g in [[0.0, 0.0], [0.3, 2.0], [5.0, 0.7]] {
                    let mode = private_local_step(
                        released,
                        alpha,
                        g,
                        w,
                        None,
                        settings(1, 0.0, MEstimate::Mode, BesselArgument::Exact),
                    )
                    .unwrap();
                    let mean = private_local_step(
                        released,
                        alpha,
                        g,
                        w,
                        None,
                        settings(1, 0.0, MEstimate::Mean, BesselArgument::Exact),
                    )
                    .unwrap();
                    // a = 2√(λ̂₂ W): rebuild it from the returned E[g₁] = r λ̂₁ and the ratio.
                    let ln_alpha = f64::ln(alpha);
                    let l1 = (distributions::digamma(1.0 + g[0]) + ln_alpha).exp();
                    let l2 = (distributions::digamma(1.0 + g[1]) + ln_alpha).exp();
                    let a = 2.0 * (l2 * (l1 + w)).sqrt();
                    let bessel = Bessel::new(f64::from(released.unsigned_abs()), a).unwrap();
                    assert_eq!(mode.expected_m, bessel.mode() as f64);
                    assert!((mean.expected_m - bessel.mean()).abs() <= 1e-12 * bessel.mean().max(1.0));
                    assert!((mean.expected_m - mode.expected_m).abs() <= 1.0);
                    let ln_pmf = mode.elbo - mean.elbo;
                    let expected = bessel.ln_pmf(bessel.mode());
                    assert!(ln_pmf <= 1e-12, "{ln_pmf}");
                    assert!((ln_pmf - expected).abs() <= 1e-9 * expected.abs().max(1.0), "{ln_pmf} vs {expected}");
                    // E[g₁] + E[y] = E[ỹ⁺] and E[g₂] − E[g₁] − E[y] = −ỹ (eqs. 13–14 in expectation).
                    let plus = mode.ratio * (l1 + w);
                    assert!((plus - mode.expected_g[1] - f64::from(released)).abs() < 1e-9 * plus.max(1.0));
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 288);
}

/// The delta method against Monte Carlo for `E[ln(λ + Σ_k θ_k φ_k)]` with gamma factors: close
/// when the factors are concentrated (shape 20: error 1e-4 measured → bound 1e-3), rough when
/// they are diffuse (shape 1: measured error 0.07 → bound 0.15). Monte Carlo sd ≈ 2e-4.
#[test]
fn delta_method_is_accurate_for_concentrated_factors() {
    for (shape, bound) in [(20.0, 1e-3), (1.0, 0.15)] {
        let k = 4;
        let (lambda, theta, phi) = (
            Gamma::new(shape, shape / 0.5).unwrap(),
            Gamma::new(shape, shape).unwrap(),
            Gamma::new(shape, shape / 0.3).unwrap(),
        );
        let mean = lambda.mean() + k as f64 * theta.mean() * phi.mean();
        let v_product = theta.variance() * phi.variance()
            + theta.variance() * phi.mean().powi(2)
            + phi.variance() * theta.mean().powi(2);
        let variance = lambda.variance() + k as f64 * v_product;
        let mut rng = Streams::new(77).rng();
        let n = 200_000;
        let mc: f64 = (0..n)
            .map(|_| {
                let s: f64 = (0..k).map(|_| theta.sample(&mut rng) * phi.sample(&mut rng)).sum();
                (lambda.sample(&mut rng) + s).ln()
            })
            .sum::<f64>()
            / n as f64;
        let delta = delta_method_ln_mean(mean, variance);
        assert!((delta - mc).abs() < bound, "shape {shape}: delta {delta} vs Monte Carlo {mc}");
    }
}

/// Non-private CAVI lands near the Gibbs posterior mean: mean Poisson KL between the two
/// estimates of the rates below 0.02 (measured 0.0056), while each is 0.06 from the truth.
#[test]
fn cavi_is_close_to_the_gibbs_posterior_mean() {
    let (rates, y, _) = topic_data(1, 0.5);
    let prior = GammaPrior::new(0.5, 0.5).unwrap();
    let cavi = fit(Cavi::non_private(topic_q(9), &y, None, CaviSettings::DEFAULT, Streams::new(10)).unwrap());
    let mut gibbs = NonPrivate::new(TopicModel::new(30, 40, 3, prior, Streams::new(3)), y).unwrap();
    let schedule = Schedule::new(3000, 1000, 5).unwrap();
    let gibbs = run_chain(&mut gibbs, &schedule, Streams::new(4), |_| ControlFlow::Continue(())).unwrap();
    let kl = |a: &[f64], b: &[f64]| eval::mean_poisson_kl(a.iter().copied().zip(b.iter().copied())).unwrap();
    let between = kl(&gibbs.mean_rates, &cavi.mean_rates);
    eprintln!(
        "KL(gibbs, cavi) {between:.4}; vs truth: gibbs {:.4} cavi {:.4}; {} its",
        kl(&rates, &gibbs.mean_rates),
        kl(&rates, &cavi.mean_rates),
        cavi.iterations
    );
    assert!(cavi.converged);
    assert!(between < 0.02, "KL between the Gibbs and CAVI estimates {between}");
}

/// The same comparison from privatized data (α = 0.5), against the locally private Gibbs posterior
/// mean (KL 0.135 from the truth). Measured KL(Gibbs, CAVI): the paper's update (mode, delta
/// method) 0.249, the Bessel mean with the exact argument 0.110 — the mode's floor drops the
/// fractional counts of entries with `ỹ <= 0`, which biases the rates down on data this sparse
/// (mean rate 3). Bounds: 0.3 and 0.15, and the mean must stay the closer of the two.
#[test]
fn private_cavi_is_close_to_the_private_gibbs_posterior_mean() {
    let (rates, _, data) = topic_data(1, 0.5);
    let prior = GammaPrior::new(0.5, 0.5).unwrap();
    let mut gibbs =
        inference::LocallyPrivate::new(TopicModel::new(30, 40, 3, prior, Streams::new(3)), &data, Streams::new(5))
            .unwrap();
    let schedule = Schedule::new(3000, 1000, 5).unwrap();
    let gibbs = run_chain(&mut gibbs, &schedule, Streams::new(4), |_| ControlFlow::Continue(())).unwrap();
    let kl = |a: &[f64], b: &[f64]| eval::mean_poisson_kl(a.iter().copied().zip(b.iter().copied())).unwrap();
    let mut distances = Vec::new();
    for (m, argument, bound) in
        [(MEstimate::Mode, BesselArgument::DeltaMethod, 0.3), (MEstimate::Mean, BesselArgument::Exact, 0.15)]
    {
        let cavi = fit(Cavi::private(topic_q(9), &data, settings(1000, 1e-6, m, argument), Streams::new(10)).unwrap());
        let between = kl(&gibbs.mean_rates, &cavi.mean_rates);
        eprintln!(
            "{m:?} {argument:?}: KL(gibbs, cavi) {between:.4}; vs truth: gibbs {:.4} cavi {:.4}",
            kl(&rates, &gibbs.mean_rates),
            kl(&rates, &cavi.mean_rates)
        );
        assert!(cavi.converged && between < bound, "{m:?} {argument:?}: {between}");
        distances.push(between);
    }
    assert!(distances[1] < distances[0]);
}

/// Fig. 3 setting (V = 20, C = 5, θ*, π* ~ Gamma(0.01, rate 0.5) scaled to mean rate 1, N = mean
/// count, ε = 0.75), eight data sets. Measured KL to the truth: naïve CAVI 0.55–0.73, private
/// CAVI (the paper's update) 0.002–0.41 (sums 5.27 vs 0.80): private wins on every data set.
#[test]
fn fig3_private_cavi_beats_naive_at_high_noise() {
    let (v, c) = (20, 5);
    let prior = GammaPrior::new(0.01, 0.5).unwrap();
    let (mut naive_sum, mut private_sum) = (0.0, 0.0);
    for seed in 300..308u64 {
        let root = Streams::new(seed);
        // Scale π of one prior draw so that the mean rate is 1 (as `experiments/fig3-synthetic.toml`
        // does): with a₀ = 0.01 redrawing until a network is non-empty takes ~1e5 draws.
        let mut truth = BlockModel::new(v, c, prior, root.child(0));
        let mut rates = vec![0.0; v * v];
        truth.rates_into(&mut rates);
        let scale = (v * (v - 1)) as f64 / rates.iter().sum::<f64>();
        let pi: Vec<f64> = truth.pi().iter().map(|p| (p * scale).max(f64::MIN_POSITIVE)).collect();
        let theta = truth.theta().to_vec();
        truth.set_factors(&theta, &pi).unwrap();
        truth.rates_into(&mut rates);
        let y = models::sample_counts(&truth, root.child(1));
        let precision = y.iter().map(|&x| f64::from(x)).sum::<f64>() / (v * (v - 1)) as f64;
        let alpha = alpha_from_epsilon(0.75, precision).unwrap();
        let data = privatize(&y, v, v, Noise::Scalar(alpha), &mut root.child(2).rng()).unwrap();
        let kl = |est: &[f64]| {
            eval::mean_poisson_kl((0..v * v).filter(|n| n / v != n % v).map(|n| (rates[n], est[n]))).unwrap()
        };
        let q = || BlockVariational::new(v, c, prior, Streams::new(9));
        let naive = kl(&fit(Cavi::naive(q(), &data, CaviSettings::DEFAULT, Streams::new(10)).unwrap()).mean_rates);
        let private = kl(&fit(Cavi::private(q(), &data, CaviSettings::DEFAULT, Streams::new(10)).unwrap()).mean_rates);
        eprintln!("seed {seed}: naive {naive:.4} private {private:.4}");
        assert!(private < naive, "seed {seed}: private {private} >= naive {naive}");
        naive_sum += naive;
        private_sum += private;
    }
    assert!(private_sum < 0.25 * naive_sum, "private {private_sum} vs naive {naive_sum} (sums over 8 data sets)");
}

/// The same numbers with one or two threads (rows are split into fixed chunks and summed in
/// chunk order).
#[test]
fn same_numbers_with_one_or_two_threads() {
    let (_, _, data) = topic_data(2, 0.4);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            fit(Cavi::private(
                topic_q(5),
                &data,
                settings(40, 0.0, MEstimate::Mode, BesselArgument::DeltaMethod),
                Streams::new(6),
            )
            .unwrap())
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.elbo, two.elbo);
    assert_eq!(one.mean_rates, two.mean_rates);
}

#[test]
fn bad_settings_and_shapes_are_errors() {
    let e = CaviSettings::new(0, 1e-6, MEstimate::Mode, BesselArgument::Exact).unwrap_err();
    assert_eq!(e.field, "max_iterations");
    let e = CaviSettings::new(10, f64::NAN, MEstimate::Mode, BesselArgument::Exact).unwrap_err();
    assert_eq!(e.field, "tolerance");
    assert!(e.to_string().contains("tolerance = NaN"), "{e}");
    let (_, y, data) = topic_data(1, 0.5);
    let wrong = TopicVariational::new(31, 40, 3, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(1));
    assert!(matches!(
        Cavi::private(wrong.clone(), &data, CaviSettings::DEFAULT, Streams::new(1)),
        Err(InferenceError::Shape { .. })
    ));
    assert!(matches!(
        Cavi::non_private(wrong, &y, None, CaviSettings::DEFAULT, Streams::new(1)),
        Err(InferenceError::Length { .. })
    ));
}

/// The progress hook sees every iteration and can stop the fit; a converged fit says so.
#[test]
fn progress_hook_and_convergence() {
    let (_, y, _) = topic_data(1, 0.5);
    let mut seen = Vec::new();
    let summary = Cavi::non_private(topic_q(9), &y, None, CaviSettings::DEFAULT, Streams::new(10))
        .unwrap()
        .fit(|p| {
            seen.push(p.iteration);
            if p.iteration == 7 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .unwrap();
    assert_eq!(seen, (1..=7).collect::<Vec<_>>());
    assert_eq!((summary.iterations, summary.converged), (7, false));
    let converged = fit(Cavi::non_private(
        topic_q(9),
        &y,
        None,
        settings(5000, 1e-5, MEstimate::Mode, BesselArgument::Exact),
        Streams::new(10),
    )
    .unwrap());
    assert!(converged.converged && converged.iterations < 5000);
    let [.., a, b] = converged.elbo[..] else { panic!("too short") };
    assert!((b - a).abs() / a.abs() < 1e-5);
}
