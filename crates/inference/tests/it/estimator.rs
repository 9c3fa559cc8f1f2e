//! The estimator interface: `fit` is exactly the samplers and CAVI it dispatches to, with the
//! stream contract it documents (so experiments that moved onto it kept their numbers).

use distributions::Streams;
use inference::{Algorithm, Cavi, CaviSettings, LocallyPrivate, NonPrivate, Observation, Schedule, fit, run_chain};
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
    };
    let counts: Vec<u32> = (0..25).map(|n| if n / 5 < n % 5 { (n % 3) as u32 } else { 0 }).collect();
    let a = fit(&undirected, Observation::Exact(&counts), &Algorithm::Gibbs(started), streams, &|| {}).unwrap();
    let b = fit(&undirected, Observation::Exact(&counts), &Algorithm::Gibbs(schedule), streams, &|| {}).unwrap();
    assert_eq!(a.mean_rates, b.mean_rates);
}
