//! The DPVI experiment kind: dispatch, validation errors that name the field, cells, resume,
//! and thread-count independence (on the synthetic mixture, which needs no external data).

use pipeline::{DpviManifest, DpviMethod, ManifestError, load_experiment, run_dpvi, write_dpvi_outputs};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-dpvi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tiny(output: &Path) -> String {
    format!(
        r#"
[experiment]
name = "tiny-dpvi"
seed = 5
kind = "dpvi"
output = {output:?}

[dpvi]
dataset = "gmm"
methods = ["non-private", "moments-accountant", "advanced-composition"]
epsilon = [1.0, 4.0]
sampling_rate = [0.1]
clip = [5.0]
iterations = 60
replications = 2

[dpvi.gmm]
components = 3
train_points = 60
test_points = 20
predictive_draws = 10
"#,
        output = output.display().to_string()
    )
}

fn parse(text: &str) -> Result<DpviManifest, ManifestError> {
    DpviManifest::parse(text, Path::new("tiny.toml"))
}

/// The shipped DPVI manifests that need no data outside the repository are valid, and
/// `load_experiment` dispatches on the kind (through `pipeline::KINDS`).
#[test]
fn shipped_dpvi_manifests_are_valid_and_dispatch_by_kind() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let text = std::fs::read_to_string(dir.join("dpvi-gmm.toml")).unwrap();
    assert!(text.contains("kind = \"dpvi\""));
    assert_eq!(DpviManifest::parse(&text, &dir.join("dpvi-gmm.toml")).unwrap().experiment.name, "dpvi-gmm");
    let gmm = dir.join("dpvi-gmm.toml");
    assert!(load_experiment(&gmm).unwrap().validation_summary().contains("DPVI"));
    assert!(load_experiment(&dir.join("smoke.toml")).unwrap().validation_summary().contains("units of work"));
}

/// The shipped UCI manifests are valid (their default `data_dir` resolved against the workspace
/// root, without changing the working directory).
#[test]
#[ignore = "needs ../shared/data/uci; run with --include-ignored (CI does)"]
fn shipped_uci_manifests_are_valid() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let uci = dir.join("../../shared/data/uci");
    for name in ["dpvi-abalone", "dpvi-adult", "dpvi-abalone-q", "dpvi-abalone-clip", "dpvi-adult-q", "dpvi-adult-clip"]
    {
        let path = dir.join(format!("{name}.toml"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("kind = \"dpvi\""), "{name}");
        let text = text.replace("[dpvi]\n", &format!("[dpvi]\ndata_dir = {:?}\n", uci.display().to_string()));
        match DpviManifest::parse(&text, &path) {
            Ok(m) => assert_eq!(m.experiment.name, name),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn invalid_values_name_their_field_and_the_allowed_values() {
    let base = tiny(Path::new("out"));
    let cases = [
        ("epsilon = [1.0, 4.0]", "epsilon = [0.0]", "dpvi.epsilon"),
        ("sampling_rate = [0.1]", "sampling_rate = [1.5]", "dpvi.sampling_rate"),
        ("clip = [5.0]", "clip = []", "dpvi.clip"),
        ("iterations = 60", "iterations = 0", "dpvi.iterations"),
        ("replications = 2", "replications = 0", "dpvi.replications"),
        ("seed = 5", "seed = 5\ndescription = \"x\"\n[dpvi.oops]", "oops"),
        ("dataset = \"gmm\"", "dataset = \"abalone\"", "dpvi.gmm"),
        ("sampling_rate = [0.1]", "sampling_rate = [0.1]\ndelta = 2.0", "dpvi.delta"),
        // Issue 31: passed validation and failed in the first private run (no σ below 1e7
        // reaches ε = 1e-6 in 60 steps at q = 0.1); the shipped manifests with δ = 1e-300 too.
        ("epsilon = [1.0, 4.0]", "epsilon = [1e-6, 4.0]\ndelta = 1e-300", "dpvi.epsilon and dpvi.delta"),
    ];
    for (old, new, field) in cases {
        let e = parse(&base.replace(old, new)).unwrap_err().to_string();
        assert!(e.contains(field), "{new}: {e}");
    }
    // The audit's case: the shipped mixture design with δ = 1e-300 (ε = 0.2 unreachable).
    let shipped = include_str!("../../../../experiments/dpvi-gmm.toml").replace("delta = 1e-5", "delta = 1e-300");
    let e = parse(&shipped).unwrap_err().to_string();
    assert!(e.contains("dpvi.epsilon and dpvi.delta") && e.contains("1e-300"), "{e}");
    let e = parse(&base.replace("\"advanced-composition\"", "\"laplace\"")).unwrap_err().to_string();
    assert!(e.contains("laplace") && e.contains("moments-accountant"), "{e}");
    let e = parse(&base.replace("dataset = \"gmm\"", "dataset = \"mnist\"")).unwrap_err().to_string();
    assert!(e.contains("mnist") && e.contains("abalone"), "{e}");
    // A factorization manifest that declares another kind is refused by name.
    let dir = scratch("kind");
    let path = dir.join("m.toml");
    let smoke = include_str!("../../../../experiments/smoke.toml").replace("seed = 1", "seed = 1\nkind = \"mcmc\"");
    std::fs::write(&path, smoke).unwrap();
    let e = load_experiment(&path).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("experiment.kind") && e.contains("dpvi"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cells_cover_methods_clips_and_epsilons() {
    let m = parse(&tiny(Path::new("out"))).unwrap();
    let cells = m.cells();
    // Per replication: 1 non-private + 2 private methods × 1 clip × 2 ε.
    assert_eq!(cells.len(), 2 * 5);
    assert_eq!(cells.iter().filter(|c| c.method == DpviMethod::NonPrivate).count(), 2);
    assert!(cells.iter().enumerate().all(|(i, c)| c.index == i));
    assert!(
        cells.iter().filter(|c| c.method != DpviMethod::NonPrivate).all(|c| c.clip == Some(5.0) && c.epsilon.is_some())
    );
}

fn numbers(rows: &[pipeline::DpviRow]) -> Vec<(u64, Option<u64>, Option<u64>)> {
    rows.iter()
        .map(|r| {
            (r.test_log_likelihood.to_bits(), r.epsilon_spent.map(f64::to_bits), r.noise_multiplier.map(f64::to_bits))
        })
        .collect()
}

#[test]
fn runs_resume_and_do_not_depend_on_the_thread_count() {
    let dir = scratch("resume");
    let m = parse(&tiny(&dir)).unwrap();
    let quiet = |_: &pipeline::DpviRow, _: bool| {};
    let one =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run_dpvi(&m, true, &quiet)).unwrap();
    let two =
        rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(|| run_dpvi(&m, true, &quiet)).unwrap();
    assert_eq!(numbers(&one), numbers(&two));
    // Every private run spent at most its target ε (σ is calibrated to it), and exactly the
    // accountant's ε for its own (q, σ, T, δ).
    for r in one.iter().filter(|r| r.method != DpviMethod::NonPrivate) {
        let spent = r.epsilon_spent.unwrap();
        assert!(spent <= r.target_epsilon.unwrap() * (1.0 + 1e-9), "{r:?}");
        let accounting = r.method.accounting().unwrap();
        let again = accountant::epsilon(
            accounting,
            accountant::Neighbouring::AddRemove,
            r.sampling_rate,
            r.noise_multiplier.unwrap(),
            r.iterations,
            r.delta.unwrap(),
        )
        .unwrap();
        assert!((spent - again).abs() <= 1e-9 * again, "{r:?}");
    }
    // Remove two unit files: a rerun recomputes exactly those and keeps the others.
    let units = dir.join("units");
    std::fs::remove_file(units.join("dpvi-1.toml")).unwrap();
    std::fs::remove_file(units.join("dpvi-7.toml")).unwrap();
    let computed = std::sync::Mutex::new(Vec::new());
    let record = |r: &pipeline::DpviRow, fresh: bool| {
        if fresh {
            computed.lock().unwrap().push((r.replication, r.method));
        }
    };
    let again = run_dpvi(&m, false, &record).unwrap();
    assert_eq!(numbers(&again), numbers(&one));
    assert_eq!(computed.into_inner().unwrap().len(), 2);
    // A corrupt unit file is never used: it is set aside (kept) and the unit recomputed.
    std::fs::write(units.join("dpvi-3.toml"), "garbage").unwrap();
    let rows = run_dpvi(&m, false, &quiet).unwrap();
    assert_eq!(numbers(&rows), numbers(&one));
    assert_eq!(std::fs::read_to_string(units.join("dpvi-3.toml.corrupt")).unwrap(), "garbage");
    let summary = write_dpvi_outputs(&m, &dir, &rows).unwrap();
    assert_eq!(summary.len(), 5);
    for file in ["results.parquet", "summary.csv", "figure.svg", "figure.png"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without the UCI files the error says the data is missing, names the file and the field, and
/// says where it comes from — not that a directory "is not allowed".
#[test]
fn missing_uci_data_is_named_as_missing() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let text = std::fs::read_to_string(dir.join("dpvi-abalone.toml")).unwrap();
    let text = text.replace("[dpvi]\n", "[dpvi]\ndata_dir = \"/nonexistent/uci\"\n");
    let e = DpviManifest::parse(&text, Path::new("dpvi-abalone.toml")).unwrap_err().to_string();
    for part in
        ["dpvi-abalone.toml", "/nonexistent/uci/abalone.data", "is missing", "dpvi.data_dir", "UCI", "SOURCE.md"]
    {
        assert!(e.contains(part), "{part:?} not in: {e}");
    }
    assert!(!e.contains("not allowed"), "{e}");
}

/// Counts that size allocations or loops are bounded, naming the field (issue 20).
#[test]
fn huge_counts_are_refused() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let text = std::fs::read_to_string(dir.join("dpvi-gmm.toml")).unwrap();
    let line = text.lines().find(|l| l.starts_with("replications")).unwrap();
    let e = DpviManifest::parse(&text.replace(line, "replications = 1000000000"), Path::new("m.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("dpvi.replications") && e.contains("100000"), "{e}");
}
