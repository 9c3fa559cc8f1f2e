//! The numbers a seed gives are those of `pipeline::DRAWS_VERSION`: a fingerprint of small runs
//! of `lppf fit`'s default model (the topic, block and undirected forms) and of the papers' model,
//! non-private and private, is recorded per version. A change that alters any of their draws
//! fails here until the version is raised, so that a run resumed by the new binary recomputes the
//! units of the old one instead of pooling them (`crates/pipeline/src/draws.rs`).

use pipeline::{DRAWS_VERSION, MethodResult, OnIteration, parse, run_cell, run_reference, true_data};
use std::path::Path;

/// Every fingerprint the draws have had, by version, oldest first. Never edit a line: a change
/// of the draws raises `DRAWS_VERSION` and adds a line.
const FINGERPRINTS: &[(u32, &str)] = &[(1, "cb6a9ca4497e33cd")];

const QUIET: OnIteration = &|| {};

/// A small manifest of the model `kind` (`topic`, `block` or `undirected`) with the prior and
/// likelihood given.
fn manifest(kind: &str, prior: &str, likelihood: &str) -> pipeline::Manifest {
    let cols = if kind == "topic" { "cols = 10\n" } else { "" };
    let warm_up = if likelihood == "poisson" { "" } else { "dispersion_warm_up = 30\n" };
    let text = format!(
        "methods = [\"non-private\", \"private\"]\n\
         [experiment]\nname = \"draws-{kind}\"\nseed = 20261203\ndescription = \"draws fingerprint\"\n\
         [model]\nkind = \"{kind}\"\ncomponents = 2\na0 = 1.0\nb0 = 1.0\nprior = \"{prior}\"\nlikelihood = \"{likelihood}\"\n\
         [data]\nsource = \"prior\"\nrows = 12\n{cols}\
         [noise]\nalpha = [0.5]\n[sweep]\nreplications = 1\n\
         [sampler]\nchains = 2\niterations = 120\nburn_in = 60\nthin = 5\n{warm_up}"
    );
    parse(&text, Path::new("draws.toml")).unwrap()
}

/// A result's numbers (timings excluded), as text: floats as their bits.
fn numbers(r: &MethodResult) -> String {
    let mut out =
        vec![r.replication as u64, r.alpha.map_or(0, f64::to_bits), r.mean_kl.to_bits(), r.rate_mae.to_bits()];
    out.extend(r.chain_mean_kl.iter().map(|x| x.to_bits()));
    if let Some(d) = r.diagnostics {
        for t in [d.ln_joint, d.total_rate, d.kl] {
            out.extend([t.rhat.to_bits(), t.ess_bulk.to_bits(), t.ess_tail.to_bits()]);
        }
    }
    if let Some(s) = &r.sbc {
        out.extend([u64::from(s.total_rank), u64::from(s.draws), s.ln_likelihood_rank.map_or(u64::MAX, u64::from)]);
    }
    format!("{} {out:?}", r.method.name())
}

/// The fingerprint of this build's draws: a hash of every number of the runs.
fn fingerprint() -> String {
    let runs = [
        manifest("topic", "hierarchical", "contaminated"),
        manifest("block", "hierarchical", "contaminated"),
        manifest("undirected", "hierarchical", "contaminated"),
        manifest("topic", "flat", "poisson"),
    ];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let text: Vec<String> = pool.install(|| {
        let mut out = Vec::new();
        for m in &runs {
            for cell in &m.cells() {
                let data = true_data(m, &cell.dataset).unwrap();
                if cell.noise_index == 0 {
                    out.extend(run_reference(m, &data, &cell.dataset, QUIET).unwrap().iter().map(numbers));
                }
                out.extend(run_cell(m, &data, cell, QUIET).unwrap().iter().map(numbers));
            }
        }
        out
    });
    let text = text.join("\n");
    runner::identity(&[text.as_bytes()])
}

#[test]
fn draws_of_the_default_model_are_those_of_this_version() {
    let now = fingerprint();
    let &(version, recorded) = FINGERPRINTS.last().unwrap();
    assert!(
        FINGERPRINTS.iter().enumerate().all(|(i, (v, _))| *v as usize == i + 1),
        "FINGERPRINTS must list versions 1, 2, … in order"
    );
    for (i, (_, a)) in FINGERPRINTS.iter().enumerate() {
        assert!(FINGERPRINTS[i + 1..].iter().all(|(_, b)| a != b), "two versions with the same draws: {a}");
    }
    assert_eq!(
        version, DRAWS_VERSION,
        "DRAWS_VERSION is {DRAWS_VERSION} but the last fingerprint recorded is version {version}'s: add ({DRAWS_VERSION}, \"{now}\")"
    );
    assert_eq!(
        now,
        recorded,
        "the numbers of a seed changed (fingerprint {now}; version {version}'s is {recorded}). If on purpose, raise \
         pipeline::DRAWS_VERSION to {} and add ({}, \"{now}\") to FINGERPRINTS, so that a run resumed by this \
         binary recomputes the units of earlier ones; if not, a change meant to keep the draws altered them",
        version + 1,
        version + 1
    );
}
