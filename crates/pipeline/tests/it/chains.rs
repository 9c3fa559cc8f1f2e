//! Several chains per fit (`[sampler] chains`, `[cavi] starts`): one chain gives the numbers of
//! the saved single-chain run, bit for bit, and a file from before chains existed reads as
//! single-chain fits; pooled chains do not depend on the thread count; the
//! pooled estimate, the per-chain KLs and the diagnostics are what they claim to be.

use pipeline::{Method, MethodResult, OnIteration, parse, run_cell, run_reference, true_data};
use std::path::Path;

const SMOKE: &str = include_str!("../../../../experiments/smoke.toml");

/// `results.parquet` of `experiments/smoke.toml` (one chain per fit), saved by the refactor
/// check when the streams changed (issue 21).
const BEFORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tools/refactor-check/before/smoke.parquet");

/// The same manifest's `results.parquet` as written before chains existed (older streams, so
/// only its layout is used).
const BEFORE_CHAINS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/smoke-before-chains.parquet");

const QUIET: OnIteration = &|| {};

/// The smoke manifest with `chains` Gibbs chains and `starts` CAVI starts per fit.
fn smoke_with(chains: usize, starts: usize) -> pipeline::Manifest {
    smoke_text_with(SMOKE, chains, starts)
}

/// The smoke manifest with the paper's augmented private step, with which the saved runs were
/// made (the default is the collapsed step since issue 34).
fn augmented_smoke() -> String {
    SMOKE.replace("thin = 10", "thin = 10\nprivate_step = \"augmented\"")
}

fn smoke_text_with(base: &str, chains: usize, starts: usize) -> pipeline::Manifest {
    let text = base
        .replace("thin = 10", &format!("thin = 10\nchains = {chains}"))
        .replace("tolerance = 1e-6", &format!("tolerance = 1e-6\nstarts = {starts}"));
    parse(&text, Path::new("smoke-chains.toml")).unwrap()
}

/// Every result of the manifest, in unit order, run in a pool of `threads` threads.
pub(crate) fn all_results(manifest: &pipeline::Manifest, threads: usize) -> Vec<MethodResult> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut out = Vec::new();
        for cell in &manifest.cells() {
            let data = true_data(manifest, &cell.dataset).unwrap();
            if cell.noise_index == 0 {
                out.extend(run_reference(manifest, &data, &cell.dataset, QUIET).unwrap());
            }
            out.extend(run_cell(manifest, &data, cell, QUIET).unwrap());
        }
        out
    })
}

/// A result's numbers as bits (timings excluded).
pub(crate) fn bits(r: &MethodResult) -> Vec<u64> {
    let mut out = vec![r.mean_kl.to_bits(), r.rate_mae.to_bits(), r.topic_error.map_or(0, f64::to_bits)];
    out.extend(r.chain_mean_kl.iter().map(|x| x.to_bits()));
    if let Some(d) = r.diagnostics {
        for t in [d.ln_joint, d.total_rate, d.kl] {
            out.extend([t.rhat.to_bits(), t.ess_bulk.to_bits(), t.ess_tail.to_bits()]);
        }
    }
    if let Some(s) = &r.stacking {
        out.extend(s.weights.iter().chain([&s.mean_kl, &s.unreliable_share]).map(|x| x.to_bits()));
    }
    if let Some(s) = &r.sbc {
        out.extend([u64::from(s.total_rank), u64::from(s.draws), s.ln_likelihood_rank.map_or(u64::MAX, u64::from)]);
    }
    out
}

#[test]
fn one_chain_gives_the_numbers_of_the_saved_single_chain_run() {
    // A file written before chains existed reads as single-chain fits without diagnostics.
    let old = results::read_results(Path::new(BEFORE_CHAINS)).unwrap();
    assert_eq!(old.len(), 20);
    assert!(old.iter().all(|r| r.chains == 1 && r.diagnostics.is_none() && r.chain_mean_kl.is_empty()));
    let before = results::read_results(Path::new(BEFORE)).unwrap();
    assert_eq!(before.len(), 20);
    assert!(before.iter().all(|r| r.chains == 1));
    let smoke = augmented_smoke();
    for manifest in [parse(&smoke, Path::new("smoke.toml")).unwrap(), smoke_text_with(&smoke, 1, 1)] {
        let now = all_results(&manifest, 2);
        assert_eq!(now.len(), before.len());
        for r in &now {
            let old = before
                .iter()
                .find(|b| b.replication == r.replication as i64 && b.alpha == r.alpha && b.method == r.method.name())
                .unwrap();
            assert_eq!(r.mean_kl.to_bits(), old.mean_kl.to_bits(), "{r:?}");
            assert_eq!(r.rate_mae.to_bits(), old.rate_mae.to_bits(), "{r:?}");
            assert_eq!(r.topic_error.map(f64::to_bits), old.topic_error.map(f64::to_bits), "{r:?}");
            assert_eq!(r.chains, 1);
            assert_eq!(r.chain_mean_kl, vec![r.mean_kl]);
        }
    }
}

#[test]
fn pooled_chains_do_not_depend_on_the_thread_count() {
    let manifest = smoke_with(3, 2);
    let one: Vec<Vec<u64>> = all_results(&manifest, 1).iter().map(bits).collect();
    let four: Vec<Vec<u64>> = all_results(&manifest, 4).iter().map(bits).collect();
    assert_eq!(one, four);
}

#[test]
fn chains_are_pooled_and_diagnosed() {
    let single = all_results(&smoke_with(1, 1), 2);
    let pooled = all_results(&smoke_with(3, 2), 2);
    for (s, p) in single.iter().zip(&pooled) {
        assert_eq!(
            (s.method, s.replication, s.alpha.map(f64::to_bits)),
            (p.method, p.replication, p.alpha.map(f64::to_bits))
        );
        let expected = if p.method.is_cavi() { 2 } else { 3 };
        assert_eq!((p.chains, p.chain_mean_kl.len()), (expected, expected), "{p:?}");
        // Chain (start) 0 keeps the single-chain fit's streams.
        assert_eq!(p.chain_mean_kl[0].to_bits(), s.mean_kl.to_bits(), "{p:?}");
        assert!(p.chain_mean_kl[1] != p.chain_mean_kl[0] && p.chain_mean_kl[2.min(expected - 1)] != p.chain_mean_kl[0]);
        if p.method.is_cavi() {
            // The best start is the fit.
            assert!(p.chain_mean_kl.iter().any(|k| k.to_bits() == p.mean_kl.to_bits()), "{p:?}");
            assert!(p.diagnostics.is_none());
        } else {
            // The Poisson KL is convex in the estimate, so the KL of the pooled mean is at most the
            // chains' mean KL.
            let mean = p.chain_mean_kl.iter().sum::<f64>() / 3.0;
            assert!(p.mean_kl <= mean * (1.0 + 1e-12), "{p:?}");
            // Stacked by PSIS-LOO: one weight per chain on the simplex; the stacked mean is a convex
            // combination of the chains' means, so its KL is at most the largest chain's (convexity
            // again); a verdict on the chains is given.
            let stacking = p.stacking.as_ref().expect("several Gibbs chains are stacked");
            assert_eq!(stacking.weights.len(), 3);
            assert!((stacking.weights.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{stacking:?}");
            assert!(stacking.weights.iter().all(|w| (0.0..=1.0).contains(w)), "{stacking:?}");
            let worst = p.chain_mean_kl.iter().copied().fold(0.0, f64::max);
            assert!(stacking.mean_kl <= worst * (1.0 + 1e-12), "{stacking:?} vs {:?}", p.chain_mean_kl);
            assert!((0.0..=1.0).contains(&stacking.unreliable_share));
            assert!(p.convergence.is_some());
            let d = p.diagnostics.unwrap();
            for t in [d.ln_joint, d.total_rate, d.kl] {
                // 4 kept samples per chain (2 per split half): defined, though noisy.
                assert!(t.rhat.is_finite() && t.rhat > 0.0 && t.ess_bulk > 0.0 && t.ess_tail > 0.0, "{d:?}");
            }
            assert_eq!(p.iterations, 60);
        }
    }
    // One chain has nothing to stack or compare.
    assert!(single.iter().all(|r| r.stacking.is_none() && r.convergence.is_none()));
    // The reference too: the non-private fit of each data set has 3 chains.
    assert!(pooled.iter().any(|r| r.method == Method::NonPrivate && r.chains == 3));
}

#[test]
fn chains_out_of_range_are_refused_naming_the_field() {
    for (chains, starts, field) in [(0, 1, "sampler.chains"), (65, 1, "sampler.chains"), (1, 0, "cavi.starts")] {
        let text = SMOKE
            .replace("thin = 10", &format!("thin = 10\nchains = {chains}"))
            .replace("tolerance = 1e-6", &format!("tolerance = 1e-6\nstarts = {starts}"));
        let e = parse(&text, Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains("from 1 to 64"), "{e}");
    }
}

/// Issue 34: `[sampler] private_step` changes the private Gibbs fits only (the data sets,
/// releases and other methods keep their streams), the collapsed step is the default, and an
/// unknown step is refused.
#[test]
fn the_collapsed_private_step_changes_only_the_private_fits() {
    let with = |step: &str| SMOKE.replace("thin = 10", &format!("thin = 10\nprivate_step = \"{step}\""));
    let augmented = parse(&with("augmented"), Path::new("smoke-augmented.toml")).unwrap();
    let collapsed = parse(&with("collapsed"), Path::new("smoke-collapsed.toml")).unwrap();
    let plain = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    let (a, c, p) = (all_results(&augmented, 2), all_results(&collapsed, 2), all_results(&plain, 2));
    assert_eq!(
        c.iter().map(bits).collect::<Vec<_>>(),
        p.iter().map(bits).collect::<Vec<_>>(),
        "collapsed is the default"
    );
    for (x, y) in a.iter().zip(&c) {
        assert_eq!(x.method, y.method);
        if x.method == Method::Private {
            assert_ne!(bits(x), bits(y), "{x:?}");
        } else {
            assert_eq!(bits(x), bits(y), "{x:?}");
        }
    }
    let error = parse(&with("exact"), Path::new("smoke-bad.toml")).unwrap_err().to_string();
    assert!(error.contains("private_step") || error.contains("exact"), "{error}");
}

/// `[sampler] replicas`: replica exchange changes the Gibbs fits only (the data sets, releases
/// and CAVI fits keep their streams), one replica is a plain chain bit for bit, the results do not
/// depend on the thread count, and the sampler section's text (part of a sweep's identity, so of
/// its unit files) is what it was before the field existed unless replicas are asked for.
#[test]
fn replica_exchange_changes_only_the_gibbs_fits() {
    let with = |replicas: usize| {
        let text = SMOKE.replace("thin = 10", &format!("thin = 10\nreplicas = {replicas}"));
        parse(&text, Path::new("smoke-replicas.toml")).unwrap()
    };
    let plain = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    let (one, three) = (with(1), with(3));
    assert_eq!(format!("{:?}", one.sampler), format!("{:?}", plain.sampler));
    assert!(!format!("{:?}", plain.sampler).contains("replicas"));
    assert!(format!("{:?}", three.sampler).contains("replicas: Some(3)"));
    assert_eq!((three.replicas(Method::Private), three.replicas(Method::PrivateCavi)), (3, 1));
    let p: Vec<MethodResult> = all_results(&plain, 2);
    assert_eq!(all_results(&one, 2).iter().map(bits).collect::<Vec<_>>(), p.iter().map(bits).collect::<Vec<_>>());
    let t = all_results(&three, 1);
    assert_eq!(t.iter().map(bits).collect::<Vec<_>>(), all_results(&three, 4).iter().map(bits).collect::<Vec<_>>());
    for (x, y) in p.iter().zip(&t) {
        assert_eq!((x.method, x.replication), (y.method, y.replication));
        assert_eq!(x.ladder_min_beta, None, "{x:?}");
        if x.method.is_cavi() {
            assert_eq!(bits(x), bits(y), "{x:?}");
            assert_eq!(y.ladder_min_beta, None, "{y:?}");
        } else {
            assert_ne!(bits(x), bits(y), "{x:?}");
            assert!(y.mean_kl.is_finite() && y.mean_kl >= 0.0, "{y:?}");
            // The hottest rung of the adapted ladder: below the cold chain's 1, above 0.
            assert!(y.ladder_min_beta.is_some_and(|b| b > 0.0 && b < 1.0), "{y:?}");
        }
    }
    // The cost estimate counts every replica's sweeps.
    let ratio = three.cost(2).entry_component_sweeps / plain.cost(2).entry_component_sweeps;
    assert!(ratio > 1.0 && ratio < 3.0, "{ratio}");
}

#[test]
fn replicas_out_of_range_are_refused_naming_the_field_and_allowed_with_the_negative_binomial() {
    for replicas in [0, 65] {
        let text = SMOKE.replace("thin = 10", &format!("thin = 10\nreplicas = {replicas}"));
        let e = parse(&text, Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains("sampler.replicas") && e.contains("from 1 to 64"), "{e}");
    }
    let gibbs = r#"methods = ["non-private", "naive", "private"]"#;
    let all = r#"methods = ["non-private", "naive", "private", "cavi", "naive-cavi", "private-cavi"]"#;
    let nb = SMOKE.split("[cavi]").next().unwrap_or(SMOKE).replacen(all, gibbs, 1).replacen(
        "b0 = 1.0\n",
        "b0 = 1.0\nlikelihood = \"negative-binomial\"\n",
        1,
    );
    assert!(parse(&nb.replace("thin = 10", "thin = 10\nreplicas = 1"), Path::new("m.toml")).is_ok());
    // The negative binomial is tempered like the Poisson (`inference::tempering` tests its cold
    // rung against the posterior), as `lppf fit --replicas` allows.
    assert!(parse(&nb.replace("thin = 10", "thin = 10\nreplicas = 2"), Path::new("m.toml")).is_ok());
}

/// `[model] prior = "hierarchical"` (with the negative binomial: what `lppf fit` runs by default)
/// is expressible in a manifest: it parses, enters the run's identity (so its unit files are not
/// a flat run's), and changes both the data drawn from the prior and the fits.
#[test]
fn the_default_model_of_lppf_fit_is_expressible_in_a_manifest() {
    let gibbs = r#"methods = ["non-private", "naive", "private"]"#;
    let all = r#"methods = ["non-private", "naive", "private", "cavi", "naive-cavi", "private-cavi"]"#;
    let flat = SMOKE.split("[cavi]").next().unwrap_or(SMOKE).replacen(all, gibbs, 1).replacen(
        "b0 = 1.0\n",
        "b0 = 1.0\nlikelihood = \"negative-binomial\"\n",
        1,
    );
    let default = flat.replacen("b0 = 1.0\n", "b0 = 1.0\nprior = \"hierarchical\"\n", 1);
    let (flat, default) =
        (parse(&flat, Path::new("flat.toml")).unwrap(), parse(&default, Path::new("default.toml")).unwrap());
    assert_eq!(default.model.prior, pipeline::PriorName::Hierarchical);
    assert!(format!("{:?}", default.model).contains("Hierarchical") && !format!("{:?}", flat.model).contains("prior"));
    let dataset = &flat.cells()[0].dataset;
    let (a, b) = (true_data(&flat, dataset).unwrap(), true_data(&default, dataset).unwrap());
    assert_ne!(a.counts(), b.counts(), "the hierarchy's scales change the data drawn from the prior");
    let fits = |m: &pipeline::Manifest| all_results(m, 1).iter().map(|r| r.mean_kl).collect::<Vec<_>>();
    let (fa, fb) = (fits(&flat), fits(&default));
    assert!(fa.len() == fb.len() && fa.iter().zip(&fb).all(|(x, y)| x.is_finite() && y.is_finite() && x != y));
    assert!(parse(&SMOKE.replacen("b0 = 1.0\n", "b0 = 1.0\nprior = \"wide\"\n", 1), Path::new("m.toml")).is_err());
    // The work estimate counts the negative binomial's 200 ns per entry and Gibbs sweep: 2 data
    // sets × (60 non-private sweeps + 2 levels × 2 × 60) = 600 sweeps of 48 entries.
    let poisson = SMOKE.split("[cavi]").next().unwrap_or(SMOKE).replacen(all, gibbs, 1);
    let poisson = parse(&poisson, Path::new("poisson.toml")).unwrap();
    let extra = flat.cost(2).core_seconds - poisson.cost(2).core_seconds;
    assert!((extra - 600.0 * 48.0 * 2e-7).abs() < 1e-12, "{extra}");
}

/// `[sampler] until_mixed`: a fit that has not mixed runs on to twice its length up to the cap
/// (`Schedule::extended`: 60 sweeps, burn-in 20, thin 10, then 120/60/15, then 240/120/30), and
/// its numbers are those of one fresh run with the last schedule (the longer run continues the
/// shorter one's chains, draw for draw); a fit that has mixed is not run again.
#[test]
fn until_mixed_runs_again_twice_as_long_and_continues_the_chains() {
    let with = |sampler: &str| {
        let text = SMOKE.replace("iterations = 60\nburn_in = 20\nthin = 10", sampler);
        parse(&text, Path::new("smoke-until-mixed.toml")).unwrap()
    };
    // Four kept draws per chain cannot give 100 effective draws: no fit mixes, and each runs
    // 60, 120 and 240 sweeps (480 would pass the cap).
    let extended = all_results(&with("iterations = 60\nburn_in = 20\nthin = 10\nchains = 2\nuntil_mixed = 479"), 2);
    let last = all_results(&with("iterations = 240\nburn_in = 120\nthin = 30\nchains = 2"), 2);
    assert_eq!(extended.len(), last.len());
    for (e, l) in extended.iter().zip(&last) {
        assert_eq!(bits(e), bits(l), "{e:?}");
        let gibbs = !e.method.is_cavi();
        assert_eq!(e.iterations, if gibbs { 240 } else { l.iterations }, "{e:?}");
        assert!(e.convergence.as_deref() != Some("mixed"), "{e:?}");
    }
    // 500 kept draws per chain of an 8 x 6 table: a fit stops at the first run that mixes (1,000
    // or 2,000 sweeps) or at 4,000; at least one stops at its first.
    let mixing = all_results(&with("iterations = 1000\nburn_in = 500\nthin = 1\nchains = 2\nuntil_mixed = 4000"), 2);
    let gibbs: Vec<&MethodResult> = mixing.iter().filter(|r| !r.method.is_cavi()).collect();
    for r in &gibbs {
        assert!([1000, 2000, 4000].contains(&r.iterations), "{r:?}");
        assert!(r.iterations == 4000 || r.convergence.as_deref() == Some("mixed"), "{r:?}");
    }
    assert!(gibbs.iter().any(|r| r.iterations == 1000), "no fit mixed at its first run: {gibbs:?}");
}

/// `[sampler] hamiltonian_move`: on a block manifest it changes the Gibbs fits' draws (CAVI's are
/// untouched), gives the same numbers at 1 and 2 threads, and it is refused, naming the field,
/// for another model.
#[test]
fn the_hamiltonian_move_changes_block_fits_reproducibly_and_is_refused_elsewhere() {
    let block = SMOKE.replace("kind = \"topic\"", "kind = \"block\"").replace("cols = 6\n", "");
    let with_move = block.replace("thin = 10", "thin = 10\nhamiltonian_move = true");
    let plain = parse(&block, Path::new("block.toml")).unwrap();
    let moved = parse(&with_move, Path::new("block-hmc.toml")).unwrap();
    let (a, b) = (all_results(&plain, 2), all_results(&moved, 2));
    let again = all_results(&moved, 1);
    assert_eq!(a.len(), b.len());
    for ((x, y), z) in a.iter().zip(&b).zip(&again) {
        assert_eq!(bits(y), bits(z), "thread count changed {y:?}");
        if x.method.is_cavi() {
            assert_eq!(bits(x), bits(y), "{x:?}");
        } else {
            assert_ne!(bits(x), bits(y), "{x:?}");
            assert!(y.mean_kl.is_finite() && y.mean_kl >= 0.0, "{y:?}");
        }
    }
    let topic = SMOKE.replace("thin = 10", "thin = 10\nhamiltonian_move = true");
    let e = parse(&topic, Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("sampler.hamiltonian_move") && e.contains("block"), "{e}");
    // Nor with replica exchange, whose swaps read the allocation the move sums out.
    let tempered = with_move.replace("thin = 10", "thin = 10\nreplicas = 2");
    let e = parse(&tempered, Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("sampler.hamiltonian_move") && e.contains("replicas"), "{e}");
}
