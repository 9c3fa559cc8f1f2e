//! Manifest parsing and validation: the shipped manifests are valid, and every validation rule
//! rejects a bad value with the file, the field, the value and what is allowed.

use pipeline::{Cell, DataSet, ManifestError, Method, NoiseLevel, load, parse};
use std::path::Path;

const SMOKE: &str = include_str!("../../../../experiments/smoke.toml");

fn experiments_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"))
}

/// Every shipped factorization manifest is valid when run from the workspace root (where
/// `data.base` paths are relative to); the test resolves those paths against the root instead of
/// changing the working directory.
#[test]
fn shipped_manifests_are_valid() {
    let root = experiments_dir().join("..");
    for entry in std::fs::read_dir(experiments_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            // Other experiment kinds are validated in tests/dpvi.rs, tests/dpsep.rs and (held-out,
            // which needs a release made by the CLI) crates/cli/tests/it/heldout_sweep.rs.
            let others = ["kind = \"dpvi\"", "kind = \"dp-sep\"", "kind = \"held-out\""];
            if others.iter().any(|k| text.contains(k)) {
                continue;
            }
            let text = text.replace("base = \"data/", &format!("base = \"{}/data/", root.display()));
            parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn smoke_expands_into_replication_major_cells() {
    let m = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    assert_eq!(m.methods, Method::ALL.to_vec());
    assert_eq!(m.output_dir(), Path::new("results/smoke"));
    let cells = m.cells();
    assert_eq!(cells.len(), 4);
    let dataset = DataSet { replication: 0, e0_index: 0, e0: None };
    assert_eq!(cells[1], Cell { index: 1, dataset, noise_index: 1, noise: NoiseLevel::Alpha(0.6) });
    assert_eq!(cells[2].dataset.replication, 1);
}

/// Replaces `old` by `new` in the smoke manifest (which must contain `old`) and parses it.
fn with(old: &str, new: &str) -> Result<pipeline::Manifest, ManifestError> {
    assert!(SMOKE.contains(old), "test bug: {old:?} not in smoke.toml");
    parse(&SMOKE.replacen(old, new, 1), Path::new("bad.toml"))
}

fn assert_invalid(old: &str, new: &str, field: &str, allowed_part: &str) {
    match with(old, new) {
        Err(ManifestError::Invalid { file, field: f, allowed, .. }) => {
            assert_eq!(file, Path::new("bad.toml"));
            assert_eq!(f, field, "replacing {old:?} by {new:?}");
            assert!(allowed.contains(allowed_part), "{allowed}");
        }
        other => panic!("replacing {old:?} by {new:?}: expected Invalid({field}), got {other:?}"),
    }
}

#[test]
fn each_range_rule_names_its_field() {
    assert_invalid("name = \"smoke\"", "name = \"a b\"", "experiment.name", "letters");
    assert_invalid("components = 2", "components = 0", "model.components", ">= 1");
    assert_invalid("a0 = 1.0", "a0 = 0.0", "model.a0", "> 0");
    assert_invalid("b0 = 1.0", "b0 = -1.0", "model.b0", "> 0");
    assert_invalid("rows = 8", "rows = 1", "data.rows", ">= 2");
    assert_invalid("rows = 8\n", "", "data.rows", ">= 2");
    assert_invalid("rows = 8", "rows = 8\nf0 = 0.1", "data.f0", "semi-synthetic");
    assert_invalid("rows = 8", "rows = 8\nbase = \"b.toml\"", "data.base", "semi-synthetic");
    assert_invalid("replications = 2", "replications = 2\ne0 = [1.0]", "sweep.e0", "semi-synthetic");
    assert_invalid("source = \"prior\"", "source = \"semi-synthetic\"", "data.base", "base-parameter file");
    assert_invalid("cols = 6\n", "", "data.cols", "required");
    assert_invalid("kind = \"topic\"", "kind = \"block\"", "data.cols", "absent");
    assert_invalid("cols = 6", "cols = 6\nmean_count_range = [3.0, 1.0]", "data.mean_count_range", "low < high");
    // A selection on the release needs exactly one release per data set, and a real range.
    let range = "cols = 6\nrelease_mean_count_range = [0.0, 5.0]";
    assert_invalid("cols = 6", range, "data.release_mean_count_range", "exactly one noise level");
    let one_level = |old: &str, new: &str| {
        let text = SMOKE.replace("alpha = [0.2, 0.6]", "alpha = [0.6]").replacen(old, new, 1);
        parse(&text, Path::new("smoke.toml"))
    };
    assert!(one_level("cols = 6", range).is_ok());
    for (bad, allowed) in [("[5.0, 1.0]", "low < high"), ("[0.0, inf]", "low < high")] {
        let text = format!("cols = 6\nrelease_mean_count_range = {bad}");
        let message = one_level("cols = 6", &text).unwrap_err().to_string();
        assert!(message.contains("data.release_mean_count_range") && message.contains(allowed), "{message}");
    }
    let both = format!("{range}\nmean_count_range = [0.0, 5.0]");
    let message = one_level("cols = 6", &both).unwrap_err().to_string();
    assert!(message.contains("data.release_mean_count_range") && message.contains("mean_count_range"), "{message}");
    assert_invalid("alpha = [0.2, 0.6]", "alpha = [0.2, 1.0]", "noise.alpha", "from 0 to 1 − 1e-6");
    assert_invalid("alpha = [0.2, 0.6]", "alpha = []", "noise.alpha", "non-empty");
    assert_invalid("alpha = [0.2, 0.6]", "alpha = [0.2]\nepsilon = [1.0]", "noise", "exactly one");
    assert_invalid("alpha = [0.2, 0.6]", "", "noise", "exactly one");
    assert_invalid("alpha = [0.2, 0.6]", "epsilon = [1.0]", "noise.precision", "empirical-mean");
    assert_invalid("alpha = [0.2, 0.6]", "epsilon = [0.0]\nprecision = 2.0", "noise.epsilon", "> 0");
    assert_invalid("alpha = [0.2, 0.6]", "epsilon = [1.0]\nprecision = \"mean\"", "noise.precision", "empirical-mean");
    assert_invalid("alpha = [0.2, 0.6]", "alpha = [0.2]\nprecision = 3.0", "noise.precision", "absent");
    assert_invalid("alpha = [0.2, 0.6]", "alpha = [0.2]\nrow_concentration = 0.0", "noise.row_concentration", "> 0");
    assert_invalid("replications = 2", "replications = 0", "sweep.replications", ">= 1");
    assert_invalid(METHODS, "methods = []", "methods", "non-empty");
    assert_invalid(METHODS, "methods = [\"naive\", \"naive\"]", "methods", "at most once");
    assert_invalid("iterations = 60", "iterations = 0", "sampler.iterations", ">= 1");
    assert_invalid("burn_in = 20", "burn_in = 60", "sampler.burn_in", "less than");
    assert_invalid("thin = 10", "thin = 41", "sampler.thin", "= 40");
    assert_invalid("thin = 10", "thin = 0", "sampler.thin", "between 1");
    assert_invalid("max_iterations = 50", "max_iterations = 0", "cavi.max_iterations", ">= 1");
    assert_invalid("tolerance = 1e-6", "tolerance = -1.0", "cavi.tolerance", ">= 0");
    assert_invalid(
        "tolerance = 1e-6",
        "tolerance = 1e-6\nm_estimate = \"median\"",
        "cavi.m_estimate",
        "\"mode\" or \"mean\"",
    );
    assert_invalid(
        "tolerance = 1e-6",
        "tolerance = 1e-6\nbessel_argument = \"taylor\"",
        "cavi.bessel_argument",
        "delta-method",
    );
    // [sampler] goes with the Gibbs methods, [cavi] with the CAVI methods.
    assert_invalid(METHODS, "methods = [\"cavi\"]", "sampler", "absent unless a Gibbs");
    assert_invalid(METHODS, "methods = [\"private\"]", "cavi", "absent unless a CAVI");
    let cavi_only = SMOKE.replacen(METHODS, "methods = [\"private-cavi\"]", 1);
    let cavi_only = &cavi_only[..cavi_only.find("[sampler]").unwrap()];
    assert!(parse(cavi_only, Path::new("cavi.toml")).is_ok(), "a CAVI-only manifest needs no [sampler]");
    let no_sampler = SMOKE.replacen("[sampler]", "[unused]", 1);
    assert!(matches!(parse(&no_sampler, Path::new("m.toml")), Err(ManifestError::Parse { .. })));
}

/// The methods line of `experiments/smoke.toml`.
const METHODS: &str = "methods = [\"non-private\", \"naive\", \"private\", \"cavi\", \"naive-cavi\", \"private-cavi\"]";

#[test]
fn unknown_fields_and_values_are_named_by_the_parser() {
    let message = |old: &str, new: &str| match with(old, new) {
        Err(e @ ManifestError::Parse { .. }) => e.to_string(),
        other => panic!("expected a parse error, got {other:?}"),
    };
    let typo = message("thin = 10", "thinning = 10");
    assert!(typo.contains("bad.toml") && typo.contains("thinning") && typo.contains("thin"), "{typo}");
    let method = message("\"private-cavi\"]", "\"private-cavy\"]");
    assert!(method.contains("private-cavy") && method.contains("private-cavi"), "{method}");
    let kind = message("kind = \"topic\"", "kind = \"lda\"");
    assert!(kind.contains("lda") && kind.contains("block"), "{kind}");
    let wrong_type = message("seed = 1", "seed = \"one\"");
    assert!(wrong_type.contains("seed"), "{wrong_type}");
}

#[test]
fn unreadable_file_is_an_io_error() {
    let err = load(Path::new("/nonexistent/manifest.toml")).unwrap_err();
    assert!(matches!(err, ManifestError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/manifest.toml"));
}

/// The names files use are the names manifests accept.
#[test]
fn method_names_round_trip_through_the_manifest_parser() {
    let (cavi, sampler) = (SMOKE.find("[cavi]").unwrap(), SMOKE.find("[sampler]").unwrap());
    assert!(sampler < cavi, "test bug: smoke.toml lists [sampler] before [cavi]");
    for method in Method::ALL {
        let text = SMOKE.replacen(METHODS, &format!("methods = [{:?}]", method.name()), 1);
        // keep only the settings table of the method's family
        let text = if method.is_cavi() {
            text.replacen(&SMOKE[sampler..cavi], "", 1)
        } else {
            text[..text.find("[cavi]").unwrap()].to_string()
        };
        assert_eq!(parse(&text, Path::new("m.toml")).unwrap().methods, vec![method]);
        assert_eq!(Method::from_name(method.name()), Some(method));
    }
}

/// A value twice on any axis of any kind is refused, naming the field: it would be run again and
/// summarized as extra replications of the same data (issue 20).
#[test]
fn duplicate_axis_values_are_refused_in_every_kind() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let read = |name: &str| std::fs::read_to_string(root.join("experiments").join(name)).unwrap();
    let cases = [
        ("smoke.toml", "alpha = [0.2, 0.6]", "alpha = [0.2, 0.6, 0.2, 0.6]", "noise.alpha"),
        ("smoke.toml", "alpha = [0.2, 0.6]", "epsilon = [1.0, 1.0]", "noise.epsilon"),
        ("fig4-enron.toml", "e0 = [0.75, 1.0, 1.5]", "e0 = [0.75, 1.0, 0.75]", "sweep.e0"),
        ("dpvi-gmm.toml", "epsilon = [0.2, 0.5, 1.0, 2.0, 4.0]", "epsilon = [0.2, 0.2]", "dpvi.epsilon"),
        (
            "dpvi-gmm.toml",
            "methods = [\"non-private\", \"moments-accountant\"]",
            "methods = [\"non-private\", \"moments-accountant\", \"non-private\"]",
            "dpvi.methods",
        ),
        ("dp-sep-mog.toml", "epsilon = [50.0, 5.0, 1.0]", "epsilon = [50.0, 5.0, 50.0]", "dpsep.epsilon"),
        ("dp-sep-mog.toml", "clip_sep = [20.0, 10.0, 1.0]", "clip_sep = [20.0, 20.0]", "dpsep.clip_sep"),
        (
            "dp-sep-mog.toml",
            "methods = [\"ep\", \"sep\", \"clipped-sep\", \"dp-sep\", \"dp-em\"]",
            "methods = [\"ep\", \"sep\", \"ep\"]",
            "dpsep.methods",
        ),
    ];
    for (name, from, to, field) in cases {
        // data.base is relative to the repository root.
        let text = read(name).replace("base = \"data/", &format!("base = \"{}/data/", root.display()));
        assert!(text.contains(from), "{name} no longer has {from:?}");
        let e = pipeline::parse_experiment(&text.replace(from, to), Path::new(name)).err().expect(field);
        let message = e.to_string();
        assert!(message.contains(field) && message.contains("at most once"), "{name}: {message}");
    }
}

/// Hyperparameters that are positive but whose derived quantities are not representable (an
/// infinite scale 1/b0, rates that overflow) are refused by validation, naming the field, instead
/// of panicking at run time (issue 20).
#[test]
fn unrepresentable_priors_are_refused() {
    for (from, to, field) in [("a0 = 1.0", "a0 = 1e308", "model.a0"), ("b0 = 1.0", "b0 = 5e-324", "model.b0")] {
        assert!(SMOKE.contains(from));
        let e = parse(&SMOKE.replace(from, to), Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains("1e-6 to 1e6"), "{e}");
    }
}

/// Noise levels that pass "in [0, 1)" but break the sampler (within an ulp of 1, or from a tiny
/// ε) are refused by validation, naming the field (issue 20).
#[test]
fn noise_levels_too_close_to_one_are_refused() {
    let alpha = SMOKE.replace("alpha = [0.2, 0.6]", "alpha = [0.2, 0.9999999999999999]");
    let e = parse(&alpha, Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("noise.alpha") && e.contains("0.999999"), "{e}");
    let epsilon = SMOKE.replace("alpha = [0.2, 0.6]", "epsilon = [1.0, 1e-300]\nprecision = 1.0");
    let e = parse(&epsilon, Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("noise.epsilon") && e.contains("1e-300"), "{e}");
    assert!(parse(&SMOKE.replace("alpha = [0.2, 0.6]", "alpha = [0.0, 0.999999]"), Path::new("m.toml")).is_ok());
}

/// Values that passed `lppf validate` and failed only at run time (issue 31) are refused up
/// front, naming the field the user wrote.
#[test]
fn values_that_would_fail_at_run_time_are_refused_by_validation() {
    assert_invalid("seed = 1", "seed = 1\noutput = \"\"", "experiment.output", "neither empty nor the root");
    assert_invalid("seed = 1", "seed = 1\noutput = \"/\"", "experiment.output", "neither empty nor the root");
    assert!(with("seed = 1", "seed = 1\noutput = \"/tmp/x\"").is_ok());
    assert_invalid("cols = 6", "cols = 6\nmean_rate = 1e308", "data.mean_rate", "at most 1e6");
    assert!(with("cols = 6", "cols = 6\nmean_rate = 1e6").is_ok());
    // A precision so large that α = exp(−ε/N) rounds to 1 names both fields, not only ε.
    let huge = SMOKE.replace("alpha = [0.2, 0.6]", "epsilon = [1.0]\nprecision = 1e300");
    let e = parse(&huge, Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("noise.epsilon and noise.precision") && e.contains("N = 1e300"), "{e}");
}

/// A DPVI or DP-SEP manifest whose `kind` is missing, mistyped or not a string is reported as
/// `experiment.kind`, not as an unknown `dpvi`/`dpsep` field of the default kind (issue 20).
#[test]
fn a_missing_or_malformed_kind_is_named_as_such() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for (name, kind) in [("dpvi-gmm.toml", "kind = \"dpvi\""), ("dp-sep-mog.toml", "kind = \"dp-sep\"")] {
        let text = std::fs::read_to_string(root.join("experiments").join(name)).unwrap();
        assert!(text.contains(kind), "{name}");
        for broken in ["", "kind = \"dpvii\"", "kind = 3", "kind = { nested = 1 }"] {
            let e = pipeline::parse_experiment(&text.replace(kind, broken), Path::new(name)).err().unwrap().to_string();
            assert!(
                e.contains("experiment.kind") && e.contains("dpvi") && !e.contains("unknown field"),
                "{name} {broken:?}: {e}"
            );
        }
    }
}

/// An enum given a table names its field (it used to say only "unknown variant `nested`").
#[test]
fn an_enum_given_a_table_names_its_field() {
    let e = parse(&SMOKE.replace("kind = \"topic\"", "kind = { nested = 1 }"), Path::new("m.toml")).unwrap_err();
    assert!(e.to_string().contains("field `model.kind`"), "{e}");
}

/// `[model] likelihood` and `dispersion` (issue 32): the negative binomial with a learned or a
/// given shape parses with Gibbs methods; it is refused with a CAVI method, a `dispersion` without
/// it and a shape out of range; and a Poisson manifest's model text (part of a sweep's identity,
/// so of its unit files) is what it was before the likelihood existed.
#[test]
fn the_likelihood_of_the_model() {
    let gibbs = r#"methods = ["non-private", "naive", "private"]"#;
    let all = r#"methods = ["non-private", "naive", "private", "cavi", "naive-cavi", "private-cavi"]"#;
    let without_cavi = SMOKE.split("[cavi]").next().unwrap_or(SMOKE).replacen(all, gibbs, 1);
    let nb = |model: &str| without_cavi.replacen("b0 = 1.0\n", &format!("b0 = 1.0\n{model}"), 1);
    let m = parse(&nb("likelihood = \"negative-binomial\"\n"), Path::new("nb.toml")).unwrap();
    assert_eq!(
        m.model.likelihood().resolve(Path::new("nb.toml")).unwrap(),
        models::Likelihood::NegativeBinomial(models::Dispersion::default_learned())
    );
    assert!(format!("{:?}", m.model).contains("NegativeBinomial"));
    let m = parse(&nb("likelihood = \"negative-binomial\"\ndispersion = 0.5\n"), Path::new("nb.toml")).unwrap();
    assert_eq!(
        m.model.likelihood().resolve(Path::new("nb.toml")).unwrap(),
        models::Likelihood::NegativeBinomial(models::Dispersion::Given(0.5))
    );
    assert_invalid("b0 = 1.0\n", "b0 = 1.0\nlikelihood = \"negative-binomial\"\n", "methods", "Gibbs methods only");
    assert_invalid("b0 = 1.0\n", "b0 = 1.0\ndispersion = 2.0\n", "model.dispersion", "negative-binomial");
    for r in ["0.0", "-1.0", "1e9"] {
        let text = nb(&format!("likelihood = \"negative-binomial\"\ndispersion = {r}\n"));
        match parse(&text, Path::new("nb.toml")) {
            Err(ManifestError::Invalid { field, allowed, .. }) => {
                assert_eq!(field, "model.dispersion");
                assert!(allowed.contains("from 1e-3 to 1e4"), "{allowed}");
            }
            other => panic!("dispersion {r}: {other:?}"),
        }
    }
    assert!(with("b0 = 1.0\n", "b0 = 1.0\nlikelihood = \"gamma\"\n").is_err());
    // The contaminated form: the same dispersion fields, Gibbs methods only.
    let m = parse(&nb("likelihood = \"contaminated\"\ndispersion = 0.5\n"), Path::new("c.toml")).unwrap();
    assert_eq!(
        m.model.likelihood().resolve(Path::new("c.toml")).unwrap(),
        models::Likelihood::Contaminated(models::Dispersion::Given(0.5))
    );
    assert!(format!("{:?}", m.model).contains("Contaminated"));
    assert_invalid("b0 = 1.0\n", "b0 = 1.0\nlikelihood = \"contaminated\"\n", "methods", "Gibbs methods only");
    // The prior of a learned r: read, part of the identity, refused with a given r, with the
    // Poisson likelihood, and where it puts most of its mass outside the range r is kept in.
    let text = nb("likelihood = \"negative-binomial\"\ndispersion_prior = [10.0, 10.0]\n");
    let m = parse(&text, Path::new("nb.toml")).unwrap();
    let prior = models::GammaPrior::new(10.0, 10.0).unwrap();
    assert_eq!(
        m.model.likelihood().resolve(Path::new("nb.toml")).unwrap(),
        models::Likelihood::NegativeBinomial(models::Dispersion::Learned(prior))
    );
    assert!(format!("{:?}", m.model).contains("dispersion_prior: [10.0, 10.0]"));
    let default = parse(&nb("likelihood = \"negative-binomial\"\n"), Path::new("nb.toml")).unwrap();
    assert!(!format!("{:?}", default.model).contains("dispersion_prior"));
    for (model, allowed) in [
        ("likelihood = \"negative-binomial\"\ndispersion = 1.0\ndispersion_prior = [10.0, 10.0]\n", "absent when"),
        ("dispersion_prior = [10.0, 10.0]\n", "negative-binomial"),
        ("likelihood = \"negative-binomial\"\ndispersion_prior = [100.0, 1e-4]\n", "at least half"),
        ("likelihood = \"negative-binomial\"\ndispersion_prior = [0.0, 1.0]\n", "shape"),
    ] {
        match parse(&nb(model), Path::new("nb.toml")) {
            Err(ManifestError::Invalid { field, allowed: text, .. }) => {
                assert_eq!(field, "model.dispersion_prior", "{model}");
                assert!(text.contains(allowed), "{model}: {text}");
            }
            other => panic!("{model}: {other:?}"),
        }
    }
    // A dispersion warm-up: part of the schedule and the identity, only with a learned r and
    // within the burn-in.
    let warm = |model: &str, sweeps: usize| {
        let text = nb(model);
        let (before, after) = text.split_once("[sampler]\n").unwrap();
        format!("{before}[sampler]\ndispersion_warm_up = {sweeps}\n{after}")
    };
    let learned = "likelihood = \"negative-binomial\"\n";
    let m = parse(&warm(learned, 2), Path::new("nb.toml")).unwrap();
    assert_eq!(m.schedule().unwrap().dispersion_warm_up(), 2);
    assert!(format!("{:?}", m.sampler).contains("dispersion_warm_up: 2"));
    assert!(!format!("{:?}", parse(&nb(learned), Path::new("nb.toml")).unwrap().sampler).contains("warm"));
    let burn_in = m.schedule().unwrap().burn_in();
    for (model, sweeps) in
        [("", 2), ("likelihood = \"negative-binomial\"\ndispersion = 1.0\n", 2), (learned, burn_in + 1)]
    {
        match parse(&warm(model, sweeps), Path::new("nb.toml")) {
            Err(ManifestError::Invalid { field, .. }) => assert_eq!(field, "sampler.dispersion_warm_up", "{model}"),
            other => panic!("{model} {sweeps}: {other:?}"),
        }
    }
    let poisson = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    assert_eq!(format!("{:?}", poisson.model), "ModelSpec { kind: Topic, components: 2, a0: 1.0, b0: 1.0 }");
}

/// `[sampler] start`: "cavi" starts every chain at the best of 8 CAVI fits and enters the run's
/// identity; absent or "prior" is the prior start with the identity of before the field existed;
/// another name is refused.
#[test]
fn the_sampler_start_is_part_of_the_schedule_and_the_identity() {
    let with = |line: &str| SMOKE.replacen("[sampler]\n", &format!("[sampler]\n{line}"), 1);
    let plain = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    assert_eq!(plain.schedule().unwrap().start(), inference::Start::Prior);
    let cavi = parse(&with("start = \"cavi\"\n"), Path::new("smoke.toml")).unwrap();
    assert_eq!(cavi.schedule().unwrap().start(), inference::Start::CAVI);
    assert!(format!("{:?}", cavi.sampler).contains("start: \"cavi\""));
    let prior = parse(&with("start = \"prior\"\n"), Path::new("smoke.toml")).unwrap();
    assert_eq!(format!("{:?}", prior.sampler), format!("{:?}", plain.sampler));
    assert!(parse(&with("start = \"warm\"\n"), Path::new("smoke.toml")).is_err());
}

/// Data drawn from the prior with nothing bounding their counts: the estimate says it cannot see
/// them (a calibration run at Fig. 4's size took up to 20 times its estimate per unit); with
/// `mean_rate` or `mean_count_range` set, or semi-synthetic data, it does not.
#[test]
fn the_cost_of_unbounded_prior_data_carries_its_caveat() {
    let prior = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    assert!(prior.data.is_unconditioned_prior());
    let text = prior.cost(2).describe();
    assert!(text.ends_with(&format!("of one core (rough; {})", pipeline::PRIOR_COUNTS_CAVEAT)), "{text}");
    let bounded = SMOKE.replacen("[data]\n", "[data]\nmean_rate = 2.0\n", 1);
    let text = parse(&bounded, Path::new("smoke.toml")).unwrap().cost(2).describe();
    assert!(text.ends_with("of one core (rough)"), "{text}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("experiments/fig4-enron-quick.toml");
    let base = root.join("data/enron/base.toml").display().to_string();
    let text = std::fs::read_to_string(&path).unwrap().replace("\"data/enron/base.toml\"", &format!("{base:?}"));
    let fig4 = parse(&text, &path).unwrap();
    assert!(!fig4.data.is_unconditioned_prior());
    assert!(fig4.cost(2).describe().ends_with("(rough)"));
}

/// `[sampler] until_mixed`: the runs it allows (the schedule, then extended while within the cap),
/// in the run's identity only when set, refused below `iterations`; the cost counts every run.
#[test]
fn until_mixed_lists_its_runs_and_is_refused_below_the_first() {
    let with = |line: &str| SMOKE.replacen("[sampler]\n", &format!("[sampler]\n{line}"), 1);
    let plain = parse(SMOKE, Path::new("smoke.toml")).unwrap();
    assert_eq!(plain.gibbs_runs().unwrap().len(), 1);
    let capped = parse(&with("until_mixed = 479\n"), Path::new("smoke.toml")).unwrap();
    let lengths: Vec<usize> = capped.gibbs_runs().unwrap().iter().map(|s| s.iterations()).collect();
    assert_eq!(lengths, [60, 120, 240]);
    assert!(format!("{:?}", capped.sampler).contains("until_mixed: 479"));
    assert!(!format!("{:?}", plain.sampler).contains("until_mixed"));
    let (one, all) = (plain.cost(1).core_seconds, capped.cost(1).core_seconds);
    assert!(all > one, "{all} vs {one}");
    use pipeline::Loaded;
    let summary = capped.validation_summary();
    assert!(
        summary.ends_with(
            "at the 240 sweeps per chain until_mixed allows, its chains continued over 3 runs; a fit that mixes sooner \
             costs less)"
        ),
        "{summary}"
    );
    assert!(!plain.validation_summary().contains("until_mixed"));
    // Under replica exchange each longer run starts afresh: the cost counts every run (60 + 120 +
    // 240 sweeps against the 240 continued chains make) and the summary says so.
    let tempered = parse(&with("until_mixed = 479\nreplicas = 2\n"), Path::new("smoke.toml")).unwrap();
    let once = parse(&with("replicas = 2\n"), Path::new("smoke.toml")).unwrap().cost(1).core_seconds;
    let (continued, afresh) = (all - one, tempered.cost(1).core_seconds - once);
    assert!(afresh > 1.5 * continued * 2.0, "afresh {afresh} vs continued {continued}");
    assert!(
        tempered.validation_summary().contains("each afresh under replica exchange"),
        "{}",
        tempered.validation_summary()
    );
    assert_eq!(parse(&with("until_mixed = 60\n"), Path::new("smoke.toml")).unwrap().gibbs_runs().unwrap().len(), 1);
    match parse(&with("until_mixed = 59\n"), Path::new("smoke.toml")) {
        Err(ManifestError::Invalid { field, value, .. }) => {
            assert_eq!((field, value.as_str()), ("sampler.until_mixed", "59"));
        }
        other => panic!("{other:?}"),
    }
}
