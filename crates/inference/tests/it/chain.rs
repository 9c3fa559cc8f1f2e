//! The MCMC driver: schedule validation, reproducibility whatever the thread count,
//! cancellation, and the bookkeeping of kept samples.

use distributions::Streams;
use inference::{LocallyPrivate, NonPrivate, Sampler, Schedule, run_chain};
use mechanism::{Noise, privatize};
use models::{BlockModel, GammaPrior, PoissonFactorization, TopicModel};
use std::ops::ControlFlow;

fn topic_sampler(seed: u64) -> LocallyPrivate<TopicModel> {
    let prior = GammaPrior::new(0.5, 1.0).unwrap();
    let (d, v, k) = (70, 40, 4); // 70 rows: 14 chunks of 5, so two threads really split the work
    let truth = TopicModel::new(d, v, k, prior, Streams::new(seed).child(0));
    let y = models::sample_counts(&truth, Streams::new(seed).child(1));
    let data = privatize(&y, d, v, Noise::Scalar(0.6), &mut Streams::new(seed).child(2).rng()).unwrap();
    LocallyPrivate::new(TopicModel::new(d, v, k, prior, Streams::new(seed).child(3)), &data, Streams::new(seed))
        .unwrap()
}

fn run_in_pool<S: Sampler + Send>(threads: usize, sampler: &mut S, schedule: &Schedule) -> (Vec<f64>, Vec<(usize, f64)>)
where
    S::Model: Send,
{
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let s = run_chain(sampler, schedule, Streams::new(42), |_| ControlFlow::Continue(())).unwrap();
        (s.mean_rates, s.kept_ln_joint)
    })
}

#[test]
fn same_numbers_with_one_or_two_threads() {
    let schedule = Schedule::new(30, 10, 5).unwrap();
    let one = run_in_pool(1, &mut topic_sampler(5), &schedule);
    let two = run_in_pool(2, &mut topic_sampler(5), &schedule);
    assert_eq!(
        one.0.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.0.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(one.1, two.1);
    let prior = GammaPrior::new(0.5, 1.0).unwrap();
    let block = || {
        let truth = BlockModel::new(50, 3, prior, Streams::new(8));
        let y = models::sample_counts(&truth, Streams::new(9));
        NonPrivate::new(BlockModel::new(50, 3, prior, Streams::new(10)), y).unwrap()
    };
    assert_eq!(run_in_pool(1, &mut block(), &schedule), run_in_pool(2, &mut block(), &schedule));
}

#[test]
fn a_chain_split_in_two_continues_exactly() {
    // Streams are per iteration, so iterations 1..=20 then 21..=40 by hand equal one run of 40.
    let (mut a, mut b) = (topic_sampler(6), topic_sampler(6));
    let root = Streams::new(1);
    for t in 1..=40u64 {
        a.step(root.child(t)).unwrap();
    }
    for t in 1..=20u64 {
        b.step(root.child(t)).unwrap();
    }
    let mut b2 = b.clone();
    for t in 21..=40u64 {
        b2.step(root.child(t)).unwrap();
    }
    assert_eq!(a.counts(), b2.counts());
    assert_eq!(a.model().theta(), b2.model().theta());
}

#[test]
fn kept_samples_follow_the_schedule_and_best_is_the_maximum() {
    let schedule = Schedule::new(60, 20, 8).unwrap();
    assert_eq!(schedule.kept(), 5);
    let mut sampler = topic_sampler(7);
    let s = run_chain(&mut sampler, &schedule, Streams::new(3), |_| ControlFlow::Continue(())).unwrap();
    let kept: Vec<usize> = s.kept_ln_joint.iter().map(|(t, _)| *t).collect();
    assert_eq!(kept, vec![28, 36, 44, 52, 60]);
    let (t_best, best, model) = s.best.unwrap();
    assert!(s.kept_ln_joint.iter().all(|&(_, l)| l <= best));
    assert!(s.kept_ln_joint.contains(&(t_best, best)));
    assert_eq!(model.shape(), (70, 40));
    assert!(!s.cancelled);
    assert_eq!(s.iterations_done, 60);
    assert!(s.mean_rates.iter().all(|m| m.is_finite() && *m >= 0.0));
}

#[test]
fn progress_hook_sees_every_sweep_and_can_cancel() {
    let schedule = Schedule::new(100, 10, 5).unwrap();
    let mut seen = Vec::new();
    let s = run_chain(&mut topic_sampler(8), &schedule, Streams::new(3), |p| {
        seen.push(p.iteration);
        if p.iteration == 25 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap();
    assert_eq!(seen, (1..=25).collect::<Vec<_>>());
    assert!(s.cancelled);
    assert_eq!(s.iterations_done, 25);
    assert_eq!(s.kept_ln_joint.len(), 3); // 15, 20, 25
}

#[test]
fn bad_schedules_name_the_field() {
    assert_eq!(Schedule::new(0, 0, 1).unwrap_err().field, "iterations");
    assert_eq!(Schedule::new(10, 10, 1).unwrap_err().field, "burn_in");
    assert_eq!(Schedule::new(10, 5, 0).unwrap_err().field, "thin");
    let err = Schedule::new(10, 5, 6).unwrap_err();
    assert_eq!(err.field, "thin");
    assert!(err.to_string().contains("thin = 6"), "{err}");
}

#[test]
fn shape_mismatch_is_an_error() {
    let prior = GammaPrior::new(1.0, 1.0).unwrap();
    let data = privatize(&[1, 2, 3, 4, 5, 6], 2, 3, Noise::Scalar(0.5), &mut Streams::new(1).rng()).unwrap();
    let model = TopicModel::new(3, 2, 2, prior, Streams::new(1));
    let err = LocallyPrivate::new(model.clone(), &data, Streams::new(2)).unwrap_err();
    assert!(err.to_string().contains("2×3"), "{err}");
    assert!(NonPrivate::naive(model.clone(), &data).is_err());
    assert!(NonPrivate::new(model, vec![0; 5]).is_err());
}

/// The dispersion warm-up: a learned `r` is held at `WARM_UP_DISPERSION` for the warm-up's
/// sweeps (in a plain sampler and in every replica of replica exchange) and learned after it; a
/// warm-up longer than the burn-in is refused; a Poisson model ignores it.
#[test]
fn a_dispersion_warm_up_holds_r_then_learns_it() {
    use inference::WARM_UP_DISPERSION;
    use inference::tempering::Replicas;
    use models::{Dispersion, Likelihood};
    let learned = Likelihood::NegativeBinomial(Dispersion::Learned(GammaPrior::new(1.0, 0.1).unwrap()));
    let sampler = |seed: u64| {
        let s = topic_sampler(seed);
        let y = s.counts().to_vec();
        let model = TopicModel::new(70, 40, 4, GammaPrior::new(0.5, 1.0).unwrap(), Streams::new(seed).child(3));
        NonPrivate::new(model.with_likelihood(learned, Streams::new(seed).child(4)), y).unwrap()
    };
    let mut plain = sampler(5);
    plain.hold_dispersion(Some(WARM_UP_DISPERSION));
    for t in 0..3 {
        plain.step(Streams::new(1).child(t)).unwrap();
        assert_eq!(plain.model().dispersion().map(|d| d.shape), Some(WARM_UP_DISPERSION));
    }
    plain.hold_dispersion(None);
    plain.step(Streams::new(1).child(3)).unwrap();
    assert_ne!(plain.model().dispersion().map(|d| d.shape), Some(WARM_UP_DISPERSION));
    let mut replicas = Replicas::new(sampler(6), 3, 10).unwrap();
    replicas.hold_dispersion(Some(WARM_UP_DISPERSION));
    for t in 0..3 {
        replicas.step(Streams::new(2).child(t)).unwrap();
        assert_eq!(
            replicas.model().dispersion().map(|d| d.shape),
            Some(WARM_UP_DISPERSION),
            "the cold rung, whichever replica"
        );
    }
    // The chain holds r in sweeps 1..=4 and learns it from sweep 5: every kept r (sweeps 5, 6) is
    // learned, and the chain differs from one without the warm-up.
    let schedule = Schedule::new(6, 4, 1).unwrap();
    let warm = schedule.with_dispersion_warm_up(4).unwrap();
    let run =
        |schedule: &Schedule| run_chain(&mut sampler(7), schedule, Streams::new(3), |_| ControlFlow::Continue(()));
    let (cold, held) = (run(&schedule).unwrap(), run(&warm).unwrap());
    assert_eq!(held.kept_dispersion.len(), 2);
    assert!(held.kept_dispersion.iter().all(|&r| r != WARM_UP_DISPERSION), "{:?}", held.kept_dispersion);
    assert_ne!(cold.kept_dispersion, held.kept_dispersion);
    // The table's own total of every kept sample: the observed counts' total, non-privately.
    let total: f64 = sampler(7).counts().iter().map(|&y| f64::from(y)).sum();
    assert!(held.kept_total_count.iter().all(|&t| t == total), "{:?} vs {total}", held.kept_total_count);
    let refused = schedule.with_dispersion_warm_up(5).unwrap_err();
    assert_eq!(refused.field, "dispersion_warm_up");
    // A Poisson model: the warm-up changes nothing.
    let poisson = |schedule: &Schedule| {
        run_chain(&mut topic_sampler(8), schedule, Streams::new(3), |_| ControlFlow::Continue(())).unwrap().mean_rates
    };
    assert_eq!(poisson(&schedule), poisson(&warm));
}

/// Under the negative binomial a chain also reports each cell's rate in this table, `E[μδ]`,
/// whose multiplier has seen the cell: on overdispersed counts (each cell's rate times a
/// `Gamma(0.5, 0.5)` multiplier) it is closer to the counts than the model's mean `E[μ]`, and its
/// total is the counts' within 5 %. A Poisson chain reports none.
#[test]
fn an_overdispersed_chain_reports_each_cells_rate_in_this_table() {
    use models::{Dispersion, Likelihood};
    use rand::distr::Distribution;
    let prior = GammaPrior::new(0.5, 1.0).unwrap();
    let (d, v, k) = (40, 30, 3);
    let truth = TopicModel::new(d, v, k, prior, Streams::new(61).child(0));
    let mut rates = vec![0.0; d * v];
    truth.rates_into(&mut rates);
    let mut rng = Streams::new(61).child(1).rng();
    let y: Vec<u32> = rates
        .iter()
        .map(|&mu| {
            let delta: f64 = distributions::Gamma::new(0.5, 0.5).unwrap().sample(&mut rng);
            distributions::Poisson::new(mu * delta).map_or(0, |p| p.sample(&mut rng) as u32)
        })
        .collect();
    let schedule = Schedule::new(400, 200, 2).unwrap();
    let learned = Likelihood::NegativeBinomial(Dispersion::Learned(GammaPrior::new(1.0, 0.1).unwrap()));
    let model =
        TopicModel::new(d, v, k, prior, Streams::new(61).child(2)).with_likelihood(learned, Streams::new(61).child(3));
    let mut sampler = NonPrivate::new(model, y.clone()).unwrap();
    let summary = run_chain(&mut sampler, &schedule, Streams::new(62), |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(summary.mean_cell_rates.len(), d * v);
    let squares = |fitted: &[f64]| y.iter().zip(fitted).map(|(&y, f)| (f64::from(y) - f).powi(2)).sum::<f64>();
    let (cells, means) = (squares(&summary.mean_cell_rates), squares(&summary.mean_rates));
    println!("squared error of E[μδ] {cells} against E[μ] {means}");
    assert!(cells < 0.5 * means, "squared error of E[μδ] {cells} against E[μ] {means}");
    let (total, counted) = (summary.mean_cell_rates.iter().sum::<f64>(), y.iter().map(|&y| f64::from(y)).sum::<f64>());
    assert!((total / counted - 1.0).abs() < 0.05, "Σ E[μδ] = {total}, Σ y = {counted}");
    let mut poisson = topic_sampler(63);
    let summary =
        run_chain(&mut poisson, &Schedule::new(20, 10, 2).unwrap(), Streams::new(64), |_| ControlFlow::Continue(()))
            .unwrap();
    assert!(summary.mean_cell_rates.is_empty());
}

/// A start by name (`--start`, `lppf.fit(start=…)`) and the CAVI iterations it costs; `extended`
/// doubles the length, keeps every kept sweep after the shorter run's end and at least as many
/// samples, and everything but the three lengths; `doublings` stops at the cap (and before a
/// length that would overflow).
#[test]
fn starts_by_name_and_doubled_schedules() {
    use inference::{PrivateStep, Start};
    assert_eq!(Start::from_name("prior"), Some(Start::Prior));
    assert_eq!(Start::from_name("cavi"), Some(Start::CAVI));
    assert_eq!(Start::from_name("warm"), None);
    assert_eq!(Start::Prior.cavi_iterations(), 0);
    assert_eq!(Start::CAVI.cavi_iterations(), 8 * 500);
    let schedule = Schedule::new(100, 40, 3).unwrap().with_private_step(PrivateStep::Augmented).with_start(Start::CAVI);
    let lengths_of = |s: Schedule| (s.iterations(), s.burn_in(), s.thin(), s.kept());
    let extended = schedule.extended();
    // Burn-in 40 < 100/2: the longer run keeps only sweeps after 100, 20 of them (as many as now).
    assert_eq!(lengths_of(extended), (200, 100, 5, 20));
    assert_eq!((extended.private_step(), extended.start()), (PrivateStep::Augmented, Start::CAVI));
    // The default burn-in, half the run: every length doubled.
    assert_eq!(lengths_of(Schedule::new(2000, 1000, 5).unwrap().extended()), (4000, 2000, 10, 200));
    assert_eq!(lengths_of(Schedule::new(100, 70, 3).unwrap().extended()), (200, 140, 6, 10));
    // One kept sample of a run with no burn-in still gives one.
    assert_eq!(lengths_of(Schedule::new(10, 0, 10).unwrap().extended()), (20, 10, 10, 1));
    let lengths = |cap| schedule.doublings(cap).map(|s| s.iterations()).collect::<Vec<_>>();
    assert_eq!(lengths(100), [100]);
    assert_eq!(lengths(799), [100, 200, 400]);
    assert_eq!(lengths(800), [100, 200, 400, 800]);
    assert_eq!(Schedule::new(usize::MAX / 2 + 1, 0, 1).unwrap().doublings(usize::MAX).count(), 1);
    // Checked: the same runs, and a cap below the first run refused naming `until_mixed`.
    assert_eq!(
        schedule.runs_until_mixed(799).unwrap().iter().map(|s| s.iterations()).collect::<Vec<_>>(),
        [100, 200, 400]
    );
    let refused = schedule.runs_until_mixed(99).unwrap_err();
    assert_eq!((refused.field, refused.value), ("until_mixed", 99));
}
