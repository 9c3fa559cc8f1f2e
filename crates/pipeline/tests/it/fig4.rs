//! A tiny version of `experiments/fig4-enron.toml` end to end (one e₀, two α, one replication,
//! 60 iterations) on the committed base parameters: the manifest, the base file and the outputs
//! fit together. The real sweep is `just reproduce-fig4` (docs/fig4.md).

use pipeline::{RESULTS_FILE, parse, run_sweep, write_outputs};
use std::path::Path;

#[test]
fn tiny_fig4_runs_end_to_end() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = std::fs::read_to_string(root.join("experiments/fig4-enron.toml")).unwrap();
    let base = root.join("data/enron/base.toml").display().to_string();
    let dir = std::env::temp_dir().join(format!("lppf-fig4-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tiny = text
        .replace("\"data/enron/base.toml\"", &format!("{base:?}"))
        .replace("seed = 20190605", &format!("seed = 20190605\noutput = {:?}", dir.display().to_string()))
        .replace("e0 = [0.75, 1.0, 1.5]", "e0 = [1.0]")
        .replace("alpha = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]", "alpha = [0.3, 0.8]")
        .replace("replications = 5", "replications = 1")
        .replace("iterations = 15000", "iterations = 60")
        .replace("burn_in = 3000", "burn_in = 20")
        .replace("thin = 25", "thin = 10");
    let manifest = parse(&tiny, Path::new("fig4-tiny.toml")).unwrap();
    assert_eq!((manifest.rows(), manifest.model.components), (117, 12));
    let rows = run_sweep(&manifest, Default::default(), &()).unwrap();
    assert_eq!(rows.len(), 1 + 2 * 2);
    write_outputs(&manifest, &manifest.output_dir(), &rows).unwrap();
    let table = results::read_results(&dir.join(RESULTS_FILE)).unwrap();
    assert_eq!(table.len(), 5);
    assert!(table.iter().all(|r| r.e0 == Some(1.0) && r.model == "block" && r.mean_kl.is_finite()));
    assert!(dir.join("figure.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
