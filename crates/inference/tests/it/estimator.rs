//! The estimator interface: `fit` is exactly the samplers and CAVI it dispatches to, with the
//! stream contract it documents (so experiments that moved onto it kept their numbers).

use distributions::Streams;
use inference::{
    Algorithm, Cavi, CaviSettings, LocallyPrivate, Monitor, NonPrivate, Observation, Posterior, Schedule, fit,
    fit_watching_from, run_chain,
};
use mechanism::{Noise, privatize};
use models::{GammaPrior, ModelFamily, PoissonFactorization, TopicFamily};
use std::ops::ControlFlow;

fn family() -> TopicFamily {
    TopicFamily {
        docs: 10,
        words: 7,
        topics: 2,
        prior: GammaPrior::new(0.8, 0.8).unwrap(),
        scale: None,
        likelihood: models::Likelihood::Poisson,
    }
}

#[test]
fn fit_is_the_samplers_it_dispatches_to() {
    let f = family();
    let truth = f.gibbs(Streams::new(1));
    let counts = models::sample_counts(&truth, Streams::new(2));
    let (rows, cols) = truth.shape();
    let released = privatize(&counts, rows, cols, Noise::Scalar(0.4), &mut Streams::new(3).rng()).unwrap();
    let schedule = Schedule::new(40, 20, 2).unwrap();
    let streams = Streams::new(9);
    let go = |_| ControlFlow::Continue(());
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let count = || {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };

    // Gibbs, exact / naive / private.
    let by_hand =
        run_chain(&mut NonPrivate::new(f.gibbs(streams.child(0)), counts.clone()).unwrap(), &schedule, streams, go)
            .unwrap();
    let p = fit(&f, Observation::Exact(&counts), &Algorithm::Gibbs(schedule), streams, &count).unwrap();
    assert_eq!(p.mean_rates, by_hand.mean_rates);
    assert_eq!(p.topics, by_hand.best.as_ref().map(|(_, _, m)| m.phi_topic_major()));
    assert_eq!(p.trace.len(), by_hand.kept_ln_joint.len());
    assert_eq!((p.iterations, p.converged), (40, None));
    assert_eq!(calls.swap(0, std::sync::atomic::Ordering::Relaxed), 40, "one call per iteration");
    let by_hand =
        run_chain(&mut NonPrivate::naive(f.gibbs(streams.child(0)), &released).unwrap(), &schedule, streams, go)
            .unwrap();
    let p = fit(&f, Observation::Naive(&released), &Algorithm::Gibbs(schedule), streams, &count).unwrap();
    assert_eq!(p.mean_rates, by_hand.mean_rates);
    let step = schedule.private_step();
    let mut private =
        LocallyPrivate::with_private_step(f.gibbs(streams.child(0)), &released, streams.child(u64::MAX), step).unwrap();
    let by_hand = run_chain(&mut private, &schedule, streams, go).unwrap();
    let p = fit(&f, Observation::Private(&released), &Algorithm::Gibbs(schedule), streams, &count).unwrap();
    assert_eq!(p.mean_rates, by_hand.mean_rates);

    // CAVI, private.
    let settings = CaviSettings::default();
    let by_hand = Cavi::private(f.variational(streams.child(0)), &released, settings, streams.child(1))
        .unwrap()
        .fit(|_| ControlFlow::Continue(()))
        .unwrap();
    let p = fit(&f, Observation::Private(&released), &Algorithm::Cavi(settings), streams, &count).unwrap();
    assert_eq!(p.mean_rates, by_hand.mean_rates);
    assert_eq!(p.trace, by_hand.elbo);
    assert_eq!((p.iterations, p.converged), (by_hand.iterations, Some(by_hand.converged)));
    assert!(p.topics.as_ref().is_some_and(|t| t.len() == 2 * 7));
}

/// A CAVI start ([`inference::Start::Cavi`]) is the chain run from the variational means of the
/// best (highest final ELBO) of its CAVI fits, fit `m` on `streams.child(u64::MAX − 4).child(m)`
/// as `fit` documents; a model without CAVI (the undirected block model) starts from the prior.
#[test]
fn a_cavi_start_is_the_chain_from_the_best_fits_means() {
    let f = family();
    let truth = f.gibbs(Streams::new(1));
    let counts = models::sample_counts(&truth, Streams::new(2));
    let streams = Streams::new(9);
    let settings =
        CaviSettings::new(30, 1e-6, inference::MEstimate::Mode, inference::BesselArgument::DeltaMethod).unwrap();
    let fits: Vec<_> = (0..3)
        .map(|m| {
            let s = streams.child(u64::MAX - 4).child(m);
            fit(&f, Observation::Exact(&counts), &Algorithm::Cavi(settings), s, &|| {}).unwrap()
        })
        .collect();
    let elbos: Vec<f64> = fits.iter().map(|p| *p.trace.last().unwrap()).collect();
    let best = (0..3).fold(0, |b, m| if elbos[m] > elbos[b] { m } else { b });
    assert!(elbos.iter().any(|&e| e != elbos[best]), "the fits should differ: {elbos:?}");
    let mut model = f.gibbs(streams.child(0));
    let values: Vec<Vec<f64>> = fits[best].factors.iter().map(|m| m.values.clone()).collect();
    f.set_base_factors(&mut model, &values).unwrap();
    let schedule = Schedule::new(30, 10, 2).unwrap();
    let go = |_| ControlFlow::Continue(());
    let by_hand = run_chain(&mut NonPrivate::new(model, counts.clone()).unwrap(), &schedule, streams, go).unwrap();
    let started = schedule.with_start(inference::Start::Cavi { fits: 3, iterations: 30 });
    let p = fit(&f, Observation::Exact(&counts), &Algorithm::Gibbs(started), streams, &|| {}).unwrap();
    assert_eq!(p.mean_rates, by_hand.mean_rates);
    let from_prior = fit(&f, Observation::Exact(&counts), &Algorithm::Gibbs(schedule), streams, &|| {}).unwrap();
    assert_ne!(p.mean_rates, from_prior.mean_rates);

    // The undirected block model has no CAVI: the same chain as from the prior.
    let undirected = models::BlockFamily {
        actors: 5,
        communities: 2,
        prior: GammaPrior::new(0.8, 0.8).unwrap(),
        scale: None,
        likelihood: models::Likelihood::Poisson,
        undirected: true,
        hmc: None,
    };
    let counts: Vec<u32> = (0..25).map(|n| if n / 5 < n % 5 { (n % 3) as u32 } else { 0 }).collect();
    let a = fit(&undirected, Observation::Exact(&counts), &Algorithm::Gibbs(started), streams, &|| {}).unwrap();
    let b = fit(&undirected, Observation::Exact(&counts), &Algorithm::Gibbs(schedule), streams, &|| {}).unwrap();
    assert_eq!(a.mean_rates, b.mean_rates);
}

/// A chain continued from a shorter run's state to the extended schedule is the fresh chain of
/// that schedule, draw for draw, for every observation (the private step's auxiliaries, a held
/// dispersion shape's warm-up and the cell multipliers included), and makes only the sweeps the
/// shorter run did not. A state is refused for another method, and for replica exchange.
#[test]
fn a_continued_chain_is_the_fresh_longer_chain() {
    let likelihood = models::Likelihood::Contaminated(models::Dispersion::default_learned());
    let f = TopicFamily { likelihood, ..family() };
    let truth = f.gibbs(Streams::new(1));
    let counts = models::sample_counts(&truth, Streams::new(2));
    let (rows, cols) = truth.shape();
    let released = privatize(&counts, rows, cols, Noise::Scalar(0.4), &mut Streams::new(3).rng()).unwrap();
    let short = Schedule::new(40, 20, 2).unwrap().with_dispersion_warm_up(10).unwrap();
    let long = short.extended();
    let streams = Streams::new(9);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let count = || {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let bits = |p: &Posterior| {
        let mut all =
            [p.mean_rates.as_slice(), p.sd_rates.as_deref().unwrap_or(&[]), &p.trace, &p.kept_total_rate].concat();
        all.extend(&p.kept_dispersion);
        all.extend(&p.mean_cell_rates);
        all.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    let run = |observation, schedule: Schedule, from| {
        let algorithm = Algorithm::Gibbs(schedule);
        fit_watching_from(&f, observation, &algorithm, streams, Monitor::default(), &count, from)
    };
    for observation in [Observation::Exact(&counts), Observation::Naive(&released), Observation::Private(&released)] {
        let (_, state) = run(observation, short, None).unwrap();
        let state = state.expect("a plain chain gives its state");
        assert_eq!(state.sweeps(), 40);
        calls.store(0, std::sync::atomic::Ordering::Relaxed);
        let (continued, _) = run(observation, long, Some(state)).unwrap();
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 40, "only the sweeps 41..=80");
        let (fresh, _) = run(observation, long, None).unwrap();
        assert_eq!(bits(&continued), bits(&fresh), "{observation:?}");
        assert_eq!(continued.trace.len(), long.kept());
        assert!(!continued.kept_dispersion.is_empty());
    }
    // One slot per chain: none given means fresh chains; any other number than the chains' is refused.
    let (_, state) = run(Observation::Exact(&counts), short, None).unwrap();
    assert!(inference::ChainState::slots(Vec::new(), 3).unwrap().iter().all(Option::is_none));
    let refused = inference::ChainState::slots(state.into_iter().collect(), 2).unwrap_err();
    assert!(refused.to_string().contains("chain states has 1 values, expected 2"), "{refused}");
    // The state of a private chain does not continue a naïve one.
    let (_, state) = run(Observation::Private(&released), short, None).unwrap();
    let refused = run(Observation::Naive(&released), long, state).unwrap_err();
    assert!(refused.to_string().contains("only with the method and model it ran"), "{refused}");
    // A state whose sweeps reach into the kept ones is refused.
    let (_, state) = run(Observation::Exact(&counts), long, None).unwrap();
    let refused = run(Observation::Exact(&counts), short, state).unwrap_err();
    assert!(refused.to_string().contains("cannot keep sweeps from before them"), "{refused}");
    // Replica exchange adapts its ladder during its own burn-in: it gives no state and takes none.
    let tempered = Monitor { replicas: 2, ..Monitor::default() };
    let algorithm = Algorithm::Gibbs(short);
    let (_, none) =
        fit_watching_from(&f, Observation::Exact(&counts), &algorithm, streams, tempered, &count, None).unwrap();
    assert!(none.is_none());
    let (_, state) = run(Observation::Exact(&counts), short, None).unwrap();
    let refused =
        fit_watching_from(&f, Observation::Exact(&counts), &Algorithm::Gibbs(long), streams, tempered, &count, state);
    assert!(refused.is_err());
}
