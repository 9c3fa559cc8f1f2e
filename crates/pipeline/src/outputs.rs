//! What a run leaves in its output directory besides the unit files:
//!
//! - `manifest.toml` — the manifest text, written before any unit runs; a later run of a
//!   *different* manifest into the same directory is refused (its units would be mixed up);
//! - `provenance.toml` — software version and git commit of the working directory;
//! - `results.parquet` — one tidy row per (data set, noise level, method) (`docs/results.md`);
//! - `summary.csv` — mean and sd over replications per (e₀, level, method);
//! - `figure.svg`, `figure.png` — the Fig. 4-style plot of the summary.
//!
//! Every file is written atomically.

use crate::dpsep::DpSepManifest;
use crate::dpvi_manifest::DpviManifest;
use crate::manifest::{Manifest, Method, ModelKind, SamplerSpec, load};
use crate::run::{MethodResult, RunError};
use results::{FigureText, ResultRow, SummaryRow, plot, summarize, summary_csv, write_atomic, write_results};
use std::path::Path;

/// File names inside the output directory.
pub const MANIFEST_FILE: &str = "manifest.toml";
pub const PROVENANCE_FILE: &str = "provenance.toml";
pub const RESULTS_FILE: &str = "results.parquet";
pub const SUMMARY_FILE: &str = "summary.csv";
pub const FIGURE_SVG: &str = "figure.svg";
pub const FIGURE_PNG: &str = "figure.png";
/// The figure of true vs recovered topics (`lppf topics`).
pub const TOPICS_SVG: &str = "topics.svg";
pub const TOPICS_PNG: &str = "topics.png";

fn err(e: impl std::fmt::Display) -> RunError {
    RunError(e.to_string())
}

/// Before a run: refuses an output directory that holds the results of a different manifest
/// (unless `force`), then stores this manifest's text there.
pub fn claim_output(manifest: &Manifest, force: bool) -> Result<(), RunError> {
    let same = |stored: &Path| load(stored).map(|previous| manifest.same_experiment(&previous)).map_err(err);
    claim_dir(&manifest.output_dir(), &manifest.text, manifest.experiment.description.as_deref(), same, force)
}

/// [`claim_output`] for a DPVI manifest.
pub fn claim_dpvi_output(manifest: &DpviManifest, force: bool) -> Result<(), RunError> {
    let same = |stored: &Path| {
        let text = std::fs::read_to_string(stored).map_err(|e| RunError(format!("{}: {e}", stored.display())))?;
        let previous = DpviManifest::parse(&text, stored).map_err(err)?;
        Ok(previous.experiment == manifest.experiment && previous.dpvi == manifest.dpvi)
    };
    claim_dir(&manifest.output_dir(), &manifest.text, manifest.experiment.description.as_deref(), same, force)
}

/// [`claim_output`] for a DP-SEP manifest.
pub fn claim_dpsep_output(manifest: &DpSepManifest, force: bool) -> Result<(), RunError> {
    let same = |stored: &Path| {
        let text = std::fs::read_to_string(stored).map_err(|e| RunError(format!("{}: {e}", stored.display())))?;
        let previous = DpSepManifest::parse(&text, stored).map_err(err)?;
        Ok(previous.experiment == manifest.experiment && previous.dpsep == manifest.dpsep)
    };
    claim_dir(&manifest.output_dir(), &manifest.text, manifest.experiment.description.as_deref(), same, force)
}

/// Refuses `dir` if it holds a manifest that `same` says is a different experiment (unless
/// `force`); then writes `text` and the provenance there.
fn claim_dir(
    dir: &Path,
    text: &str,
    description: Option<&str>,
    same: impl FnOnce(&Path) -> Result<bool, RunError>,
    force: bool,
) -> Result<(), RunError> {
    let stored = dir.join(MANIFEST_FILE);
    if stored.exists() && !force && !same(&stored)? {
        return Err(RunError(format!(
            "{} holds results of a different manifest ({}); rerun with --force to recompute everything, \
             or set experiment.output to a new directory",
            dir.display(),
            stored.display()
        )));
    }
    write_atomic(&stored, text.as_bytes()).map_err(err)?;
    let description = description.map_or(String::new(), |d| format!("description = {d:?}\n"));
    let provenance = format!(
        "# Software that produced the results in this directory.\nlppf_version = \"{}\"\n{}{description}",
        env!("CARGO_PKG_VERSION"),
        git_description()
    );
    write_atomic(&dir.join(PROVENANCE_FILE), provenance.as_bytes()).map_err(err)
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
/// the provenance (`provenance.toml`: version, git commit, description), so a results file that
/// travels alone still says what made it. In the Parquet footer and the Arrow schema.
pub(crate) fn results_metadata(dir: &Path, manifest_text: &str) -> Vec<(&'static str, String)> {
    let mut metadata =
        vec![("lppf.manifest", manifest_text.to_string()), ("lppf.version", env!("CARGO_PKG_VERSION").to_string())];
    if let Ok(provenance) = std::fs::read_to_string(dir.join(PROVENANCE_FILE)) {
        metadata.push(("lppf.provenance", provenance));
    }
    metadata
}

/// The tidy rows of a run.
pub fn result_rows(manifest: &Manifest, rows: &[MethodResult]) -> Vec<ResultRow> {
    let model = match manifest.model.kind {
        ModelKind::Topic => "topic",
        ModelKind::Block => "block",
    };
    let gibbs = |method: Method, field: fn(&SamplerSpec) -> usize| {
        manifest.sampler.as_ref().filter(|_| !method.is_cavi()).map(|s| field(s) as i64)
    };
    rows.iter()
        .map(|r| ResultRow {
            experiment: manifest.experiment.name.clone(),
            model: model.to_string(),
            components: manifest.model.components as i64,
            seed: manifest.experiment.seed,
            replication: r.replication as i64,
            e0: r.e0,
            alpha: r.alpha,
            epsilon: r.epsilon,
            precision: r.precision,
            row_concentration: r.alpha.and(manifest.noise.row_concentration),
            method: r.method.name().to_string(),
            mean_kl: r.mean_kl,
            rate_mae: r.rate_mae,
            topic_error: r.topic_error,
            iterations: r.iterations as i64,
            burn_in: gibbs(r.method, |s| s.burn_in),
            thin: gibbs(r.method, |s| s.thin),
            converged: r.converged,
            seconds: r.seconds,
            iterations_per_second: r.iterations_per_second,
        })
        .collect()
}

/// After a complete run: `results.parquet`, `summary.csv` and the figures. Returns the summary.
pub fn write_outputs(manifest: &Manifest, rows: &[MethodResult]) -> Result<Vec<SummaryRow>, RunError> {
    let dir = manifest.output_dir();
    let table = result_rows(manifest, rows);
    write_results(&dir.join(RESULTS_FILE), &table, &results_metadata(&dir, &manifest.text)).map_err(err)?;
    let summary = write_summary(&dir, &table)?;
    let text = FigureText {
        title: manifest.experiment.name.clone(),
        note: manifest.experiment.description.clone(),
        log_y: false,
    };
    write_summary_figure(&dir, &summary, &text)?;
    Ok(summary)
}

/// `summary.csv` in `dir` from the rows of `results.parquet`. Returns the summary.
pub fn write_summary(dir: &Path, table: &[ResultRow]) -> Result<Vec<SummaryRow>, RunError> {
    let summary = summarize(table);
    write_atomic(&dir.join(SUMMARY_FILE), summary_csv(&summary).as_bytes()).map_err(err)?;
    Ok(summary)
}

/// `figure.svg` and `figure.png` in `dir` from a summary.
pub fn write_summary_figure(dir: &Path, summary: &[SummaryRow], text: &FigureText) -> Result<(), RunError> {
    write_figure(dir, |svg, png| plot(summary, text, Some(svg), Some(png)))
}

/// The description of the manifest stored in a results directory (its deviation from a paper,
/// for example), if there is one.
pub fn stored_description(dir: &Path) -> Option<String> {
    load(&dir.join(MANIFEST_FILE)).ok().and_then(|m| m.experiment.description)
}

/// Writes `figure.svg` and `figure.png` in `dir` with `draw(svg, png)`: to temporary names, then
/// renamed, so a figure is never half-written either.
pub(crate) fn write_figure(
    dir: &Path,
    draw: impl FnOnce(&Path, &Path) -> Result<(), results::ResultsError>,
) -> Result<(), RunError> {
    let (svg, png) = (dir.join(FIGURE_SVG), dir.join(FIGURE_PNG));
    let (svg_tmp, png_tmp) = (dir.join("figure.tmp.svg"), dir.join("figure.tmp.png"));
    draw(&svg_tmp, &png_tmp).map_err(err)?;
    std::fs::rename(&svg_tmp, &svg).map_err(|e| RunError(format!("{}: {e}", svg.display())))?;
    std::fs::rename(&png_tmp, &png).map_err(|e| RunError(format!("{}: {e}", png.display())))
}

/// A nullable float in a unit CSV file: empty for `None`, round-trip precision otherwise.
pub(crate) fn csv_opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v:?}"))
}
