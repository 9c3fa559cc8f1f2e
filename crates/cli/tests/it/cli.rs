//! The `lppf` binary: exit codes, and a run killed mid-sweep that resumes without redoing or
//! duplicating finished units.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn lppf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lppf"))
}

fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::scratch("cli", name)
}

fn manifest(dir: &Path, iterations: usize) -> PathBuf {
    let text = format!(
        r#"methods = ["non-private", "naive", "private"]
[experiment]
name = "resume"
seed = 3
output = {out:?}
[model]
kind = "block"
components = 3
a0 = 0.5
b0 = 0.5
[data]
source = "prior"
rows = 40
[noise]
alpha = [0.1, 0.3, 0.5, 0.7, 0.8, 0.9]
[sweep]
replications = 2
[sampler]
iterations = {iterations}
burn_in = 10
thin = 10
"#,
        out = dir.join("out").display().to_string()
    );
    let path = dir.join("resume.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn unit_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("out/units")).map_or(0, |d| {
        // Unit files, not the hidden pending files a unit is written through.
        d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml") && !n.starts_with('.'))
            .count()
    })
}

/// `lppf --version` gives the package version and the commit the binary was built from (12 hex
/// digits in a git checkout, as CI's clone is).
#[test]
fn version_names_the_commit() {
    let out = lppf().arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rest =
        text.trim().strip_prefix(concat!("lppf ", env!("CARGO_PKG_VERSION"), " (")).unwrap_or_else(|| panic!("{text}"));
    let commit = rest.strip_suffix(')').unwrap_or_else(|| panic!("{text}"));
    assert!(
        commit == "unknown commit" || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{text}"
    );
}

/// `lppf fit --help` names every model `--model` accepts.
#[test]
fn fit_help_names_every_model() {
    let out = lppf().args(["fit", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let model = text.rsplit("--model <MODEL>").next().and_then(|t| t.split("--components").next()).unwrap_or_default();
    for kind in models::ModelKind::ALL {
        assert!(model.contains(kind.name()), "--model's help does not name {}:\n{model}", kind.name());
    }
}

#[test]
fn validate_exit_codes() {
    let ok = lppf()
        .args(["validate", concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/smoke.toml")])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let dir = scratch("validate");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[experiment]\nname = \"x\"\nseed = -1\n").unwrap();
    let out = lppf().args(["validate", bad.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml"));
    let out = lppf().args(["run", "/nonexistent.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn killed_run_resumes_without_redoing_or_duplicating() {
    let dir = scratch("kill");
    let path = manifest(&dir, 750);
    let total_units = 2 + 2 * 6;
    let mut child = lppf()
        .args(["run", path.to_str().unwrap(), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while unit_files(&dir) < 2 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let finished = unit_files(&dir);
    assert!(
        (2..total_units).contains(&finished),
        "killed after {finished} of {total_units} units: make the sweep longer"
    );

    let out = lppf().args(["run", path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stderr);
    let skipped = format!("{finished} of {total_units} units already on disk; computing {}", total_units - finished);
    assert!(log.contains(&skipped), "expected {skipped:?} in\n{log}");
    assert!(log.contains("if this run is interrupted, the same command resumes it"), "{log}");
    assert_eq!(log.lines().filter(|l| l.starts_with('[')).count(), total_units - finished, "{log}");
    assert_eq!(unit_files(&dir), total_units);

    // The merged results: every (data set, level, method) exactly once.
    let rows = results::read_results(&dir.join("out/results.parquet")).unwrap();
    assert_eq!(rows.len(), 2 + 2 * 6 * 2);
    let mut keys: Vec<String> = rows.iter().map(|r| format!("{} {:?} {}", r.replication, r.alpha, r.method)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), rows.len(), "duplicated rows");
}

/// Two processes on one output directory: a run of another manifest is refused (exit 2, naming
/// the holder) while the first runs; a second run of the same manifest shares the units; the
/// results hold every unit once, and no lock or claim file is left.
#[test]
fn concurrent_runs_share_one_manifest_and_refuse_another() {
    let dir = scratch("concurrent");
    let path = manifest(&dir, 750);
    let total_units = 2 + 2 * 6;
    let mut first = lppf().args(["run", path.to_str().unwrap(), "--quiet"]).stdout(Stdio::null()).spawn().unwrap();
    let lock = dir.join("out/lppf.lock");
    let start = Instant::now();
    while !lock.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let other = dir.join("other.toml");
    std::fs::write(&other, std::fs::read_to_string(&path).unwrap().replace("seed = 3", "seed = 4")).unwrap();
    let refused = lppf().args(["run", other.to_str().unwrap(), "--quiet"]).output().unwrap();
    let message = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains(&format!("process {}", first.id())) && message.contains("lppf.lock"), "{message}");
    let second = lppf().args(["run", path.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(String::from_utf8_lossy(&second.stderr).contains("another run of this manifest"));
    assert!(first.wait().unwrap().success());
    assert_eq!(unit_files(&dir), total_units);
    let rows = results::read_results(&dir.join("out/results.parquet")).unwrap();
    let mut keys: Vec<String> = rows.iter().map(|r| format!("{} {:?} {}", r.replication, r.alpha, r.method)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!((keys.len(), rows.len()), (2 + 2 * 6 * 2, 2 + 2 * 6 * 2));
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("out/units"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "claim"))
        .collect();
    assert!(leftovers.is_empty() && !lock.exists(), "{leftovers:?}");
}

/// The smoke manifest end to end: the Parquet file has the documented schema and one row per
/// (data set, level, method); summary, figures, manifest copy and provenance are written;
/// `summarize` and `plot` work on the directory; another manifest may not reuse it.
#[test]
fn smoke_end_to_end() {
    let dir = scratch("smoke");
    let out_dir = dir.join("out");
    let note = "SHORTER THAN THE PAPER, a deviation the reader must see";
    let smoke = include_str!("../../../../experiments/smoke.toml").replace(
        "seed = 1",
        &format!("seed = 1\ndescription = {note:?}\noutput = {:?}", out_dir.display().to_string()),
    );
    let path = dir.join("smoke.toml");
    std::fs::write(&path, &smoke).unwrap();
    let out = lppf().args(["run", path.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "--quiet must print nothing on stderr");
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("NOTE: {note}")), "the description is printed");
    assert!(std::fs::read_to_string(out_dir.join("figure.svg")).unwrap().contains("SHORTER THAN THE PAPER"));

    let file = out_dir.join("results.parquet");
    let rows = results::read_results(&file).unwrap();
    // 2 replications × (2 references + 2 levels × (naive, private, naive-cavi, private-cavi))
    assert_eq!(rows.len(), 2 * 2 + 2 * 2 * 4);
    let info = results::read_info(&file).unwrap();
    let columns = |s: &arrow_schema::Schema| -> Vec<(String, String, bool)> {
        s.fields().iter().map(|f| (f.name().clone(), f.data_type().to_string(), f.is_nullable())).collect()
    };
    assert_eq!(columns(&info.schema), columns(&results::schema()), "the documented schema");
    assert!(info.metadata.iter().any(|(k, v)| k == "lppf.manifest" && v == &smoke), "manifest in the file metadata");
    // provenance.toml as it was when results.parquet was written: then its checksum was added.
    let provenance = std::fs::read_to_string(out_dir.join("provenance.toml")).unwrap();
    let (before, checksum) = provenance.split_once("results_checksum = ").unwrap();
    assert!(checksum.starts_with("\"fnv1a64:") && checksum.lines().count() == 1, "{provenance}");
    assert_eq!(
        info.schema.metadata().get("lppf.provenance").map(String::as_str),
        Some(before),
        "provenance in the schema metadata"
    );
    assert!(rows.iter().all(|r| r.experiment == "smoke" && r.model == "topic"));
    let gibbs = |r: &results::ResultRow| !r.method.contains("cavi");
    assert!(
        rows.iter().filter(|r| gibbs(r)).all(|r| r.iterations == 60 && r.burn_in == Some(20) && r.converged.is_none())
    );
    assert!(
        rows.iter().filter(|r| !gibbs(r)).all(|r| r.iterations <= 50 && r.burn_in.is_none() && r.converged.is_some())
    );
    assert!(rows.iter().all(|r| r.topic_error.is_some() && r.mean_kl.is_finite()));
    assert_eq!(rows.iter().filter(|r| r.alpha.is_none()).count(), 4, "the references have no noise level");
    for name in ["summary.csv", "figure.svg", "figure.png", "manifest.toml", "provenance.toml"] {
        assert!(out_dir.join(name).metadata().is_ok_and(|m| m.len() > 0), "{name} missing");
    }
    assert_eq!(std::fs::read_to_string(out_dir.join("manifest.toml")).unwrap(), smoke);
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 1 + 2 + 2 * 4, "{summary}"); // header, 2 references, 2 levels × 4 methods

    std::fs::remove_file(out_dir.join("figure.png")).unwrap();
    std::fs::write(out_dir.join("summary.csv"), "edited by hand\n").unwrap();
    let out = lppf().args(["plot", out_dir.to_str().unwrap(), "--log-y"]).output().unwrap();
    assert!(out.status.success() && out_dir.join("figure.png").exists());
    assert_eq!(
        std::fs::read_to_string(out_dir.join("summary.csv")).unwrap(),
        "edited by hand\n",
        "plot leaves summary.csv"
    );
    let out = lppf().args(["summarize", out_dir.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("non-private") && printed.contains(&format!("NOTE: {note}")), "{printed}");
    assert_eq!(std::fs::read_to_string(out_dir.join("summary.csv")).unwrap(), summary, "summarize rewrites it");
    let out = lppf().args(["summarize", dir.join("nowhere").to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A changed results file (one byte) is detected by summarize against its recorded checksum.
    let intact = std::fs::read(&file).unwrap();
    let mut flipped = intact.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 1;
    std::fs::write(&file, &flipped).unwrap();
    let out = lppf().args(["summarize", out_dir.to_str().unwrap()]).output().unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("results.parquet changed after its run"), "{message}");
    std::fs::write(&file, &intact).unwrap();

    // Another manifest into the same directory is refused (exit 2) unless --force.
    std::fs::write(&path, smoke.replace("iterations = 60", "iterations = 70")).unwrap();
    let out = lppf().args(["run", path.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different manifest"));
    let out = lppf().args(["run", path.to_str().unwrap(), "--quiet", "--force"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(results::read_results(&file).unwrap().iter().filter(|r| gibbs(r)).all(|r| r.iterations == 70));
}

/// `lppf epsilon`: the last line is the number alone and equals the accountant's (the Abadi et
/// al. example: dp-accounting 0.6.0 gives 1.035490, see the accountant's tests); δ(ε) is its
/// inverse; the local form is N ln(1/α); bad values exit 2 naming the flag.
#[test]
fn epsilon_calculator() {
    let last = |args: &[&str]| -> f64 {
        let out = lppf().arg("epsilon").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().last().unwrap().trim().parse().unwrap()
    };
    let central = ["--sampling-rate", "0.01", "--noise-multiplier", "4", "--steps", "10000"];
    let eps = last(&[&central[..], &["--delta", "1e-5"]].concat());
    assert!((eps / 1.035_490_066_036_243_6 - 1.0).abs() < 1e-3, "{eps}");
    let delta = last(&[&central[..], &["--epsilon", &eps.to_string()]].concat());
    assert!((delta / 1e-5 - 1.0).abs() < 1e-6, "{delta}");
    let replace = last(&[
        "--sampling-rate",
        "0.01",
        "--noise-multiplier",
        "8",
        "--steps",
        "10000",
        "--delta",
        "1e-5",
        "--neighbouring",
        "replace-one",
    ]);
    assert_eq!(replace, eps);
    assert_eq!(last(&["--alpha", "0.5", "--precision", "2"]), 2.0 * 2f64.ln());
    assert!((last(&["--epsilon", "1.3862943611198906", "--precision", "2"]) - 0.5).abs() < 1e-15);
    assert_eq!(last(&["--alpha", "0.5", "--precision", "2", "--row-counts", "10"]), 20.0 * 2f64.ln());
    for (args, named) in [
        (
            vec!["--sampling-rate", "0", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"],
            "--sampling-rate",
        ),
        (
            vec!["--sampling-rate", "1.5", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"],
            "--sampling-rate",
        ),
        (
            vec!["--sampling-rate", "0.1", "--noise-multiplier", "0", "--steps", "10", "--delta", "1e-5"],
            "--noise-multiplier",
        ),
        (
            vec!["--sampling-rate", "0.1", "--noise-multiplier", "-1", "--steps", "10", "--delta", "1e-5"],
            "--noise-multiplier",
        ),
        (
            vec!["--sampling-rate", "0.1", "--noise-multiplier", "NaN", "--steps", "10", "--delta", "1e-5"],
            "--noise-multiplier",
        ),
        (vec!["--sampling-rate", "0.1", "--noise-multiplier", "1", "--steps", "0", "--delta", "1e-5"], "--steps"),
        (vec!["--sampling-rate", "0.1", "--noise-multiplier", "1", "--steps", "10", "--delta", "1"], "--delta"),
        (vec!["--sampling-rate", "0.1", "--noise-multiplier", "1", "--steps", "10", "--delta", "0"], "--delta"),
        (vec!["--sampling-rate", "0.1", "--noise-multiplier", "1", "--steps", "10"], "--delta"),
        (vec!["--sampling-rate", "0.1", "--noise-multiplier", "1", "--steps", "10", "--epsilon", "-1"], "--epsilon"),
        (vec!["--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"], "--sampling-rate"),
        (vec!["--alpha", "1", "--precision", "1"], "--alpha"),
        (vec!["--alpha", "0.5"], "--precision"),
        (vec!["--alpha", "0.5", "--precision", "0"], "--precision"),
    ] {
        let out = lppf().arg("epsilon").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
    // A negative number that the shell passes as a value, and an unparsable one: clap's errors.
    let out = lppf().args(["epsilon", "--steps", "-3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Every experiment kind goes through the same commands: `run` (with a log line per unit),
/// then `summarize` and `plot` on its directory, and `run` again resumes (nothing recomputed).
#[test]
fn every_kind_runs_summarizes_and_plots() {
    let dir = scratch("kinds");
    let dpvi = format!(
        r#"[experiment]
name = "tiny-dpvi"
seed = 5
kind = "dpvi"
output = {:?}
[dpvi]
dataset = "gmm"
methods = ["non-private", "moments-accountant"]
epsilon = [1.0]
sampling_rate = [0.1]
clip = [5.0]
iterations = 40
replications = 2
[dpvi.gmm]
components = 3
train_points = 40
test_points = 10
predictive_draws = 5
"#,
        dir.join("dpvi").display().to_string()
    );
    let dpsep = include_str!("../../../../experiments/dp-sep-mog.toml")
        .replace(
            "name = \"dp-sep-mog\"",
            &format!("name = \"tiny-dpsep\"\noutput = {:?}", dir.join("dpsep").display().to_string()),
        )
        .replace("points = 1000", "points = 40")
        .replace("epochs = 100", "epochs = 2")
        .replace("damping = 100.0", "damping = 10.0")
        .replace("replications = 10", "replications = 1")
        .replace("gibbs_burn_in = 1000", "gibbs_burn_in = 10")
        .replace("gibbs_samples = 20000", "gibbs_samples = 50");
    assert!(dpsep.contains("replications = 1\n"), "the shipped DP-SEP manifest changed");
    for (name, text, table_word) in [("dpvi", dpvi, "moments-accountant"), ("dpsep", dpsep, "clipped-sep")] {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        let out = lppf().args(["run", path.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("[1/"), "{name}: a log line per unit");
        let results = dir.join(name);
        std::fs::remove_file(results.join("summary.csv")).unwrap();
        std::fs::remove_file(results.join("figure.png")).unwrap();
        let out = lppf().args(["summarize", results.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains(table_word), "{name}");
        assert!(results.join("summary.csv").exists(), "{name}");
        let out = lppf().args(["plot", results.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success() && results.join("figure.png").exists(), "{name}");
        let out = lppf().args(["plot", results.to_str().unwrap(), "--log-y"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: --log-y is for KL figures");
        // A second run computes nothing.
        let out = lppf().args(["run", path.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success());
        assert!(!String::from_utf8_lossy(&out.stderr).contains("[1/"), "{name}: nothing recomputed");
        let out = lppf().args(["run", path.to_str().unwrap(), "--shard", "0/2"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: not sharded");
    }
}

/// `lppf recovery`: the paper-style recovery figure of one data set (a topic model and a block
/// model), written where --output says, with the panels' labels; a data set the manifest does not
/// have exits 2 naming the flags, and nothing is written.
#[test]
fn recovery_figures_of_a_topic_and_a_block_manifest() {
    let dir = scratch("recovery");
    let smoke = dir.join("smoke.toml");
    std::fs::write(&smoke, include_str!("../../../../experiments/smoke.toml")).unwrap();
    let png = dir.join("figs").join("smoke.png");
    let out = lppf()
        .args(["recovery", smoke.to_str().unwrap(), "--replication", "1", "--output", png.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(png.metadata().is_ok_and(|m| m.len() > 0));
    let svg = std::fs::read_to_string(png.with_extension("svg")).unwrap();
    for needle in
        ["true counts y", "true Φ*", "privatized, α = 0.200", "private-cavi: estimated Φ — topic MAE", "Hungarian"]
    {
        assert!(svg.contains(needle), "{needle:?} missing");
    }
    let block = manifest(&dir, 20).with_file_name("block.toml");
    std::fs::write(&block, std::fs::read_to_string(manifest(&dir, 20)).unwrap().replace("rows = 40", "rows = 12"))
        .unwrap();
    let png = dir.join("block.png");
    let out = lppf().args(["recovery", block.to_str().unwrap(), "--output", png.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(png.with_extension("svg")).unwrap();
    for needle in ["true μ*", "non-private: estimated μ — KL", "privatized, α = 0.900", "posterior means"] {
        assert!(svg.contains(needle), "{needle:?} missing");
    }
    let missing = dir.join("missing.png");
    let out = lppf()
        .args(["recovery", smoke.to_str().unwrap(), "--replication", "5", "--output", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--replication 5"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!missing.exists());
}

/// Designs whose memory no machine has are refused before anything is allocated for them (exit
/// 2, naming the fields to change and --allow-memory); `validate` prints the estimate without
/// allocating for 10⁹ replications (issue 20).
#[test]
fn designs_beyond_the_machines_memory_are_refused_before_allocating() {
    let dir = scratch("memory");
    let smoke = include_str!("../../../../experiments/smoke.toml");
    let out = dir.join("out").display().to_string();
    for (from, to) in [
        ("replications = 2", "replications = 1000000000"),
        ("rows = 8", "rows = 1000000000"),
        ("components = 2", "components = 1000000"),
        ("iterations = 60", "iterations = 9223372036854775807"),
    ] {
        assert!(smoke.contains(from));
        let path = dir.join("big.toml");
        std::fs::write(&path, smoke.replace(from, to).replace("seed = 1", &format!("seed = 1\noutput = {out:?}")))
            .unwrap();
        let start = Instant::now();
        let validate = lppf().args(["validate", path.to_str().unwrap()]).output().unwrap();
        let line = String::from_utf8_lossy(&validate.stdout);
        assert!(validate.status.success() && line.contains("peak memory"), "{to}: {line}");
        let run = lppf().args(["run", path.to_str().unwrap(), "--quiet"]).output().unwrap();
        let message = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{to}: {message}");
        assert!(message.contains("--allow-memory") && message.contains("is available"), "{to}: {message}");
        assert!(start.elapsed() < Duration::from_secs(20), "{to}: took {:?}", start.elapsed());
        assert!(!dir.join("out").exists(), "{to}: nothing written");
    }
}

/// `prepare-enron` does not replace a base file made from another input (the committed one,
/// from the verified corpus) unless --force, and a corpus that yields no network is bad input
/// (exit 2), not a failure (issue 20).
#[test]
fn prepare_enron_protects_a_base_file_made_from_another_input() {
    let dir = scratch("prepare");
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/enron/base.toml");
    let base = dir.join("base.toml");
    std::fs::copy(committed, &base).unwrap();
    let corrupted = dir.join("Enron.csv");
    std::fs::write(&corrupted, "1,1,2,a damaged table\n2,2,\"1,broken\n").unwrap();
    let out = lppf()
        .args(["prepare-enron", corrupted.to_str().unwrap(), "--output", base.to_str().unwrap()])
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("refusing to replace") && message.contains("--force"), "{message}");
    assert_eq!(std::fs::read(&base).unwrap(), std::fs::read(committed).unwrap(), "the base file is untouched");
    // Forced (or to a new file), the tiny corpus gives no network: bad input, exit 2.
    let out = lppf()
        .args(["prepare-enron", corrupted.to_str().unwrap(), "--output", base.to_str().unwrap(), "--force"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&base).unwrap(), std::fs::read(committed).unwrap());
}

/// When a corpus has more malformed items than the terminal shows (5), the full list is written
/// beside the output and its path printed (issue 20).
#[test]
fn the_full_list_of_malformed_corpus_items_is_written() {
    let dir = scratch("report");
    let table = dir.join("Enron.csv");
    let mut text = String::from("1,1,2,fine\n");
    for i in 0..7 {
        text.push_str(&format!("{i},broken row {i}\n"));
    }
    std::fs::write(&table, text).unwrap();
    let employees = dir.join("employees.json");
    std::fs::write(&employees, "[]").unwrap();
    let output = dir.join("counts.csv");
    let out = lppf()
        .args(["prepare-enron-network", table.to_str().unwrap(), "--employees", employees.to_str().unwrap()])
        .args(["--output", output.to_str().unwrap()])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let report = dir.join("counts.csv.read-report.txt");
    assert!(log.contains("counts.csv.read-report.txt"), "{log}");
    assert_eq!(std::fs::read_to_string(&report).unwrap().lines().count(), 7, "{log}");
}

/// `lppf slurm` (issue 37; tools/slurm/ci.sh runs the scripts under a real Slurm): the array
/// covers the shards, each task runs its shard, the merge waits for the array and merges only;
/// `--merge-only` refuses while units are missing and lists them, and merges once they are all
/// there; `release-claims` removes a claim a killed run on another host left.
#[test]
fn slurm_scripts_shards_and_the_merge() {
    let dir = scratch("slurm");
    let m = manifest(&dir, 20);
    let scripts = dir.join("scripts");
    let out = lppf()
        .args(["slurm", m.to_str().unwrap(), "--tasks", "5", "--cpus-per-task", "1", "--account", "lab"])
        .args(["--dir", scripts.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the time is the rough estimate: run a shard first"));
    let array = std::fs::read_to_string(scripts.join("array.sbatch")).unwrap();
    assert!(array.contains("#SBATCH --array=0-4") && array.contains("--shard \"$SLURM_ARRAY_TASK_ID/5\""), "{array}");
    assert!(array.contains("#SBATCH --account=lab") && array.contains("#SBATCH --time=0-00:10:00"), "{array}");
    let merge = std::fs::read_to_string(scripts.join("merge.sbatch")).unwrap();
    assert!(merge.contains("--merge-only") && !merge.contains("--kill-on-invalid-dep"), "{merge}");
    let submit = std::fs::read_to_string(scripts.join("submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterany:") && submit.contains("release-claims"), "{submit}");
    // Refuses while units are missing, naming them (exit 1: not the user's input).
    let merge_only = || lppf().args(["run", m.to_str().unwrap(), "--merge-only", "--quiet"]).output().unwrap();
    let refused = merge_only();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(refused.status.code() == Some(1) && stderr.contains("14 unit(s) are not done"), "{stderr}");
    for shard in 0..5 {
        let s = format!("{shard}/5");
        let o = lppf().args(["run", m.to_str().unwrap(), "--shard", &s, "--quiet"]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if shard == 0 {
            // The pilot shard's units calibrate the estimate.
            let again =
                lppf().args(["slurm", m.to_str().unwrap(), "--dir", scripts.to_str().unwrap()]).output().unwrap();
            let said = String::from_utf8_lossy(&again.stdout);
            assert!(
                again.status.success() && said.contains("calibrated on the 3 unit(s) on disk: they took"),
                "{said}"
            );
        }
    }
    // A claim left by a run killed on another node.
    let units = dir.join("out").join("units");
    std::fs::write(units.join("x.claim"), "pid = 7\nhost = \"node-3.elsewhere\"\nmanifest = \"\"\n").unwrap();
    let o = lppf().args(["release-claims", m.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stderr).contains("released 1"));
    assert!(!units.join("x.claim").exists());
    let merged = merge_only();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert!(dir.join("out").join("results.parquet").exists());
}

/// Shell completions and manual pages come from the command's own definitions: they name every
/// command and the options of each; an unknown shell is refused.
#[test]
fn completions_and_manual_pages_list_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = lppf().args(["completions", shell]).output().unwrap();
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && script.contains("privatize") && script.contains("structure-tables"), "{shell}");
    }
    let out = lppf().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = lppf().arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && page.contains(".TH lppf") && page.contains("privatize"), "{page}");
    let dir = scratch("man");
    // A link planted at a page's name is replaced, not written through.
    std::fs::create_dir_all(dir.join("man1")).unwrap();
    std::fs::write(dir.join("elsewhere"), "untouched").unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("man1/lppf-fit.1")).unwrap();
    let out = lppf().args(["man", "--dir", dir.join("man1").to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fit = std::fs::read_to_string(dir.join("man1/lppf-fit.1")).unwrap();
    assert!(fit.contains("structure\\-tables") || fit.contains("structure-tables"), "{fit}");
    assert!(dir.join("man1/lppf.1").exists() && dir.join("man1/lppf-privatize.1").exists());
    assert_eq!(std::fs::read_to_string(dir.join("elsewhere")).unwrap(), "untouched");
    assert!(!std::fs::symlink_metadata(dir.join("man1/lppf-fit.1")).unwrap().file_type().is_symlink());
    // A reader that closes the pipe before reading (`lppf man | head` stopping early) ends the
    // output quietly: no panic, no error.
    for args in [vec!["completions", "bash"], vec!["man"]] {
        let mut child = lppf().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
