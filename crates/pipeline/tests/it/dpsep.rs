//! The DP-SEP experiment kind: dispatch, named validation errors, resume, outputs, and that each
//! DP run's spent ε meets its target.

use pipeline::{DpSepManifest, DpSepMethod, load_experiment, run_dpsep, write_dpsep_outputs};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-dpsep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tiny(output: &Path) -> String {
    let shipped = include_str!("../../../../experiments/dp-sep-mog.toml");
    let text = shipped
        .replace("name = \"dp-sep-mog\"", &format!("name = \"tiny\"\noutput = {:?}", output.display().to_string()))
        .replace("points = 1000", "points = 60")
        .replace("epochs = 100", "epochs = 3")
        .replace("damping = 100.0", "damping = 10.0")
        .replace("replications = 10", "replications = 2")
        .replace("gibbs_burn_in = 1000", "gibbs_burn_in = 20")
        .replace("gibbs_samples = 20000", "gibbs_samples = 100");
    // Every replacement must have applied (the shipped manifest may change).
    for field in
        ["points = 60", "epochs = 3", "damping = 10.0", "replications = 2", "gibbs_burn_in = 20", "gibbs_samples = 100"]
    {
        assert!(text.contains(field), "the shipped manifest no longer has the field replaced by {field}");
    }
    text
}

#[test]
fn the_shipped_manifest_dispatches_and_bad_values_are_named() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/dp-sep-mog.toml"));
    assert!(load_experiment(path).unwrap().validation_summary().contains("DP-SEP"));
    let base = tiny(Path::new("out"));
    for (old, new, field) in [
        ("damping = 10.0", "damping = 100.0", "dpsep.damping"),
        ("clip = 1.0", "clip = 0.0", "dpsep.clip"),
        ("epsilon = [50.0, 5.0, 1.0]", "epsilon = []", "dpsep.epsilon"),
        ("delta = 1e-5", "delta = 1.0", "dpsep.delta"),
        ("replications = 2", "replications = 0", "dpsep.replications"),
    ] {
        let e = DpSepManifest::parse(&base.replace(old, new), Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains(field), "{new}: {e}");
    }
    let e = DpSepManifest::parse(&base.replace("\"dp-em\"]", "\"vi\"]"), Path::new("m.toml")).unwrap_err().to_string();
    assert!(e.contains("vi") && e.contains("clipped-sep"), "{e}");
}

#[test]
fn replications_resume_and_outputs_are_written() {
    let dir = scratch("resume");
    let m = DpSepManifest::parse(&tiny(&dir), Path::new("tiny.toml")).unwrap();
    let rows = run_dpsep(&m, true, &|_, _| {}).unwrap();
    // ep, sep, 3 clipped, 3 DP-SEP, 3 DP-EM per replication.
    assert_eq!(rows.len(), 2 * 11);
    for r in rows.iter().filter(|r| matches!(r.method, DpSepMethod::DpSep | DpSepMethod::DpEm)) {
        let (target, spent) = (r.epsilon.unwrap(), r.epsilon_spent.unwrap());
        assert!(spent <= target && spent > 0.999 * target, "{r:?}");
    }
    std::fs::remove_file(dir.join("units").join("dpsep-1.toml")).unwrap();
    let computed = std::sync::Mutex::new(Vec::new());
    let again = run_dpsep(&m, false, &|r, fresh| {
        if fresh {
            computed.lock().unwrap().push(r)
        }
    })
    .unwrap();
    assert_eq!(computed.into_inner().unwrap(), vec![1]);
    let key = |r: &pipeline::DpSepRow| (r.replication, r.method, r.f_average.to_bits());
    assert_eq!(again.iter().map(key).collect::<Vec<_>>(), rows.iter().map(key).collect::<Vec<_>>());
    let table = write_dpsep_outputs(&m, &dir, &again).unwrap();
    assert_eq!(table.len(), 11);
    for file in ["results.parquet", "summary.csv", "figure.svg", "figure.png"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A prior mean that is not a finite number, and sizes whose products would exhaust memory, are
/// refused naming the field (issue 20: `prior_mean = nan` ran and wrote a table of NaN).
#[test]
fn non_finite_prior_mean_and_huge_sizes_are_refused() {
    let shipped = include_str!("../../../../experiments/dp-sep-mog.toml");
    let line = shipped.lines().find(|l| l.starts_with("prior_mean")).unwrap();
    for (to, field) in [("prior_mean = nan", "dpsep.prior_mean"), ("prior_mean = inf", "dpsep.prior_mean")] {
        let e =
            pipeline::DpSepManifest::parse(&shipped.replace(line, to), Path::new("m.toml")).unwrap_err().to_string();
        assert!(e.contains(field), "{e}");
    }
    let points = shipped.lines().find(|l| l.starts_with("points")).unwrap();
    let e = pipeline::DpSepManifest::parse(&shipped.replace(points, "points = 1000000000"), Path::new("m.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("dpsep.points"), "{e}");
}
