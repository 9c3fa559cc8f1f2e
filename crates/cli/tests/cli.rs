//! The `lppf` binary: exit codes, and a run killed mid-sweep that resumes without redoing or
//! duplicating finished units.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn lppf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lppf"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
    std::fs::read_dir(dir.join("out/units"))
        .map_or(0, |d| d.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "csv")).count())
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
    let path = manifest(&dir, 1500);
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
    assert!(log.matches("already on disk").count() >= finished, "{log}");
    assert_eq!(log.matches(": done").count() + log.matches("already on disk").count(), total_units, "{log}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains(&format!("{} rows", 2 + 2 * 6 * 2)), "{summary}");
    assert_eq!(unit_files(&dir), total_units);
    let _ = std::fs::remove_dir_all(&dir);
}
