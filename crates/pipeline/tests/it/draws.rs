//! The numbers a seed gives are those of `pipeline::DRAWS_VERSION`: a fingerprint of small runs
//! of `lppf fit`'s default model (the topic, block and undirected forms) and of the papers' model,
//! non-private and private, is recorded per version. A change that alters any of their draws
//! fails here until the version is raised, so that a run resumed by the new binary recomputes the
//! units of the old one instead of pooling them (`crates/pipeline/src/draws.rs`).

use crate::chains::{all_results, bits};
use pipeline::{DRAWS_VERSION, parse};
use std::path::Path;

/// Every fingerprint the draws have had, by version, oldest first. Never edit a line for a change
/// of the draws: raise `DRAWS_VERSION` and add a line. (Version 1's value was recorded again, the
/// draws unchanged, when the fingerprint came to read every number `chains::bits` reads.)
const FINGERPRINTS: &[(u32, &str)] = &[(1, "fbe68b26ee504d27"), (2, "ca5743095a773910"), (3, "2f846a2f0b3eee3d")];

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

/// The fingerprint of this build's draws: a hash of every number of the runs (timings excluded).
fn fingerprint() -> String {
    let runs = [
        manifest("topic", "hierarchical", "contaminated"),
        manifest("block", "hierarchical", "contaminated"),
        manifest("undirected", "hierarchical", "contaminated"),
        manifest("topic", "flat", "poisson"),
    ];
    let mut text = String::new();
    for m in &runs {
        for r in all_results(m, 2) {
            let alpha = r.alpha.map_or(0, f64::to_bits);
            text += &format!("{} {} {alpha} {:?}\n", r.method.name(), r.replication, bits(&r));
        }
    }
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
