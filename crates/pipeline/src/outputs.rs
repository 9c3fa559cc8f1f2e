//! What a run leaves in its output directory besides the unit files:
//!
//! - `manifest.toml` — the manifest text, written before any unit runs; a later run of a
//!   *different* manifest into the same directory is refused (its units would be mixed up);
//! - `provenance.toml` — software version and git commit of the working directory;
//! - `results.parquet` — one tidy row per (data set, noise level, method) (`docs/results.md`);
//! - `summary.csv` — mean and sd over replications per (e₀, level, method);
//! - `figure.svg`, `figure.png` — the Fig. 4-style plot of the summary;
//! - `coverage.svg`, `coverage.png` — with Gibbs methods, the coverage of the true rates by
//!   central 50 % and 90 % credible intervals (docs/calibration.md).
//!
//! Every file is written atomically.

use crate::manifest::{Manifest, Method, SamplerSpec, parse};
use crate::run::{MethodResult, RunError};
use results::{FigureText, ResultRow, SummaryRow, plot, summarize, summary_csv, write_atomic, write_results};
use std::path::Path;

/// File names inside the output directory.
pub use runner::{MANIFEST_FILE, PROVENANCE_FILE, RESULTS_FILE};
pub const SUMMARY_FILE: &str = "summary.csv";
/// The simulation-based calibration of a sweep on data from the prior ([`write_sbc`]).
pub const SBC_FILE: &str = "sbc.csv";
pub const FIGURE_SVG: &str = "figure.svg";
pub const FIGURE_PNG: &str = "figure.png";
/// The figure of true vs recovered topics (`lppf topics`).
pub const TOPICS_SVG: &str = "topics.svg";
pub const TOPICS_PNG: &str = "topics.png";

/// Before a run: refuses an output directory that holds the results of a different manifest
/// (unless `force`), then stores this manifest's text and the provenance there ([`runner::claim`]).
pub fn claim_output(manifest: &Manifest, force: bool) -> Result<runner::DirLock, runner::RunnerError> {
    let same = |stored: &str| parse(stored, Path::new(MANIFEST_FILE)).is_ok_and(|p| manifest.same_experiment(&p));
    runner::claim(&manifest.output_dir(), &manifest.text, manifest.experiment.description.as_deref(), same, force)
}

/// The tidy rows of a run.
pub fn result_rows(manifest: &Manifest, rows: &[MethodResult]) -> Vec<ResultRow> {
    let model = manifest.model.kind.name();
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
            chains: r.chains as i64,
            chain_mean_kl: r.chain_mean_kl.clone(),
            diagnostics: r.diagnostics,
            warning: r.diagnostics.map(|d| crate::run::diagnostics_warning(&d, r.chains)),
            coverage: r.coverage,
            convergence: r.convergence.clone(),
            stacking: r.stacking.clone(),
            sbc: r.sbc,
            ladder_min_beta: r.ladder_min_beta,
        })
        .collect()
}

/// After a complete run: `results.parquet`, `summary.csv` and the figures. Returns the summary.
pub fn write_outputs(manifest: &Manifest, dir: &Path, rows: &[MethodResult]) -> Result<Vec<SummaryRow>, RunError> {
    let table = result_rows(manifest, rows);
    write_results(&dir.join(RESULTS_FILE), &table, &runner::results_metadata(dir, &manifest.text))?;
    runner::record_results_checksum(dir)?;
    let summary = write_summary(dir, &table)?;
    write_sbc(manifest, dir, &table)?;
    let text = FigureText {
        title: manifest.experiment.name.clone(),
        note: manifest.experiment.description.clone(),
        log_y: false,
    };
    write_summary_figure(dir, &summary, &text)?;
    Ok(summary)
}

/// With data from the model's prior (`DataSpec::is_sbc_target`) and Gibbs fits:
/// `sbc.csv` and `sbc.svg`/`sbc.png`, the ECDF plots of the ranks of the true total rate per (e₀, level,
/// method) with their χ² tests ([`results::sbc_summary`]; docs/calibration.md). Nothing otherwise:
/// on conditioned or semi-synthetic data uniform ranks are not the target.
pub fn write_sbc(manifest: &Manifest, dir: &Path, table: &[ResultRow]) -> Result<(), RunError> {
    if !manifest.data.is_sbc_target() {
        return Ok(());
    }
    let groups = results::sbc_summary(table);
    if groups.is_empty() {
        return Ok(());
    }
    write_atomic(&dir.join(SBC_FILE), results::sbc_csv(&groups).as_bytes())?;
    let title = &manifest.experiment.name;
    runner::write_figure(dir, "sbc", |svg, png| results::plot_sbc(&groups, title, Some(svg), Some(png)))?;
    Ok(())
}

/// `summary.csv` in `dir` from the rows of `results.parquet`. Returns the summary.
pub fn write_summary(dir: &Path, table: &[ResultRow]) -> Result<Vec<SummaryRow>, RunError> {
    let summary = summarize(table);
    write_atomic(&dir.join(SUMMARY_FILE), summary_csv(&summary).as_bytes())?;
    Ok(summary)
}

/// `figure.svg` and `figure.png` in `dir` from a summary, and with Gibbs methods (rows with
/// coverage) `coverage.svg` and `coverage.png`.
pub fn write_summary_figure(dir: &Path, summary: &[SummaryRow], text: &FigureText) -> Result<(), RunError> {
    write_figure(dir, |svg, png| plot(summary, text, Some(svg), Some(png)))?;
    if summary.iter().any(|s| s.coverage.is_some()) {
        let text = FigureText {
            title: format!("{}: coverage of the true rates by credible intervals", text.title),
            log_y: false,
            ..text.clone()
        };
        runner::write_figure(dir, "coverage", |svg, png| results::plot_coverage(summary, &text, Some(svg), Some(png)))?;
    }
    Ok(())
}

/// Writes `figure.svg` and `figure.png` in `dir` with `draw(svg, png)` ([`runner::write_figure`]).
pub(crate) fn write_figure(
    dir: &Path,
    draw: impl FnOnce(&Path, &Path) -> Result<(), results::ResultsError>,
) -> Result<(), RunError> {
    Ok(runner::write_figure(dir, "figure", draw)?)
}

/// A nullable float in a CSV file: empty for `None`, round-trip precision otherwise.
pub(crate) fn csv_opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v:?}"))
}
