//! The output directory of a run: who owns it, what made it.

use crate::{DirLock, RunnerError, io_error, lock_dir};
use std::path::Path;

/// The manifest text, stored in the output directory before any unit runs.
pub const MANIFEST_FILE: &str = "manifest.toml";
/// Software version, git commit and the manifest's description (and, once written, the
/// checksum of the results file).
pub const PROVENANCE_FILE: &str = "provenance.toml";
/// What every results directory says of its randomness: experiments draw data and noise from
/// seeded simulation streams, so their "releases" are reproducible from the seed and are never
/// private releases of anyone's data (docs/privacy.md).
const RANDOMNESS: &str = "randomness = \"simulation: every draw (data, noise, chains) from seeded xoshiro256++ streams of \
experiment.seed; the privatized data here are reproducible from the seed and are NOT private releases \
(docs/privacy.md)\"\n";

/// The tidy results table of a finished run.
pub const RESULTS_FILE: &str = "results.parquet";
/// The line of `provenance.toml` that records the results file's checksum.
const RESULTS_CHECKSUM: &str = "results_checksum = ";

/// The FNV-1a checksum of a file, as recorded (`"fnv1a64:<hex>"`).
fn file_checksum(path: &Path) -> Result<String, RunnerError> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    Ok(format!("\"fnv1a64:{:016x}\"", crate::fnv1a(&bytes)))
}

/// After `dir/results.parquet` is written: records its checksum in `provenance.toml` (replacing
/// an earlier one), so that a later change to the file (a bit flip, an edit) is detected by
/// [`verify_results_checksum`].
pub fn record_results_checksum(dir: &Path) -> Result<(), RunnerError> {
    let checksum = file_checksum(&dir.join(RESULTS_FILE))?;
    let path = dir.join(PROVENANCE_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.starts_with(RESULTS_CHECKSUM)).collect();
    let line = format!("{RESULTS_CHECKSUM}{checksum}");
    lines.push(&line);
    results::write_atomic(&path, format!("{}\n", lines.join("\n")).as_bytes()).map_err(|e| io_error(&path, e))
}

/// Checks `dir/results.parquet` against the checksum in `provenance.toml`: `Ok(true)` if they
/// match, `Ok(false)` if there is nothing to check (no results file yet, or a run of a version
/// that recorded none), [`RunnerError::ResultsChanged`] if the file changed after its run.
pub fn verify_results_checksum(dir: &Path) -> Result<bool, RunnerError> {
    let results = dir.join(RESULTS_FILE);
    let recorded = std::fs::read_to_string(dir.join(PROVENANCE_FILE))
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix(RESULTS_CHECKSUM).map(str::to_string)));
    let Some(recorded) = recorded.filter(|_| results.exists()) else { return Ok(false) };
    let actual = file_checksum(&results)?;
    if actual != recorded {
        return Err(RunnerError::ResultsChanged { path: results, recorded, actual });
    }
    Ok(true)
}

/// Before a run: locks `dir` ([`lock_dir`]: a live run of another manifest is refused, one of the
/// same manifest shared); as its owner, refuses `dir` if it holds a manifest that
/// `same(stored_text)` says is another experiment (unless `force`), then writes `text` (the
/// manifest) and `provenance.toml` there. Hold the returned lock until the run's outputs are
/// written.
pub fn claim(
    dir: &Path,
    text: &str,
    description: Option<&str>,
    same: impl FnOnce(&str) -> bool,
    force: bool,
) -> Result<DirLock, RunnerError> {
    check_output_dir(dir)?;
    let lock = lock_dir(dir, text, force)?;
    if !lock.owned() {
        // A live run of the same manifest owns the directory and has written both files.
        return Ok(lock);
    }
    let stored = dir.join(MANIFEST_FILE);
    if stored.exists() && !force {
        let previous = std::fs::read_to_string(&stored).map_err(|e| io_error(&stored, e))?;
        if !same(&previous) {
            return Err(RunnerError::OtherExperiment { dir: dir.to_path_buf(), stored });
        }
    }
    results::write_atomic(&stored, text.as_bytes()).map_err(|e| io_error(&stored, e))?;
    let description = description.map_or(String::new(), |d| format!("description = {d:?}\n"));
    let provenance = format!(
        "# Software that produced the results in this directory.\nlppf_version = \"{}\"\n{}{description}{RANDOMNESS}",
        env!("CARGO_PKG_VERSION"),
        git_description()
    );
    let path = dir.join(PROVENANCE_FILE);
    results::write_atomic(&path, provenance.as_bytes()).map_err(|e| io_error(&path, e))?;
    Ok(lock)
}

/// Refuses an output directory that is empty as a path, the file-system root, not a directory,
/// or an existing non-empty directory that is not an lppf output directory (it has none of
/// `manifest.toml`, `lppf.lock`, `units/`): a run would scatter its files among someone else's.
/// The check is [`results::check_output_dir`], the one `lppf fit` uses too.
fn check_output_dir(dir: &Path) -> Result<(), RunnerError> {
    results::check_output_dir(
        dir,
        &[MANIFEST_FILE, crate::LOCK_FILE, "units"],
        "lppf results (no manifest.toml or units/)",
    )
    .map(drop)
    .map_err(|e| RunnerError::BadOutput { dir: e.dir, reason: e.reason })
}

/// `git_commit = "…"` and `git_dirty = …` of the working directory, if it is a git checkout.
fn git_description() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(commit) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            format!("git_commit = \"{commit}\"\ngit_dirty = {dirty}\n")
        }
        None => "git_commit = \"unknown\" # not run inside a git checkout\n".to_string(),
    }
}

/// The key–value metadata of a results file in `dir`: the manifest text, the lppf version and
/// the provenance (`provenance.toml`), so a results file that travels alone still says what made
/// it. Written into the Parquet footer and the Arrow schema.
pub fn results_metadata(dir: &Path, manifest_text: &str) -> Vec<(&'static str, String)> {
    let mut metadata =
        vec![("lppf.manifest", manifest_text.to_string()), ("lppf.version", env!("CARGO_PKG_VERSION").to_string())];
    if let Ok(provenance) = std::fs::read_to_string(dir.join(PROVENANCE_FILE)) {
        metadata.push(("lppf.provenance", provenance));
    }
    metadata
}

/// Writes `<stem>.svg` and `<stem>.png` in `dir` with `draw(svg, png)`: to pending files created
/// exclusively under unpredictable names ([`results::pending_file`]; a planted link cannot
/// redirect them), then renamed, so a figure is never half-written and two processes drawing
/// into one directory do not collide. The pending files are removed on error.
pub fn write_figure<E: std::fmt::Display>(
    dir: &Path,
    stem: &str,
    draw: impl FnOnce(&Path, &Path) -> Result<(), E>,
) -> Result<(), RunnerError> {
    let (svg, png) = (dir.join(format!("{stem}.svg")), dir.join(format!("{stem}.png")));
    let (_, svg_pending) = results::pending_file(&svg).map_err(|e| io_error(&svg, e))?;
    let (_, png_pending) = results::pending_file(&png).map_err(|e| io_error(&png, e))?;
    draw(&svg_pending, &png_pending).map_err(|e| io_error(&svg, e))?;
    results::persist(svg_pending, &svg).map_err(|e| io_error(&svg, e.message))?;
    results::persist(png_pending, &png).map_err(|e| io_error(&png, e.message))
}
