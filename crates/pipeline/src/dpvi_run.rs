//! Running a DPVI manifest: per replication one data split (UCI) or one synthetic mixture data
//! set, shared by all its runs; each run calibrates σ with the accountant for its (q, T, ε, δ),
//! fits with DPVI and scores on the test split. Runs are independent units of work with their
//! own streams (master seed → replication → method → q → c → ε), computed in parallel, each
//! stored under `units/` as it finishes so an interrupted sweep resumes; then results.parquet,
//! summary.csv and figure.svg/.png.

use crate::dpvi_manifest::{DpviCell, DpviDataset, DpviManifest, DpviMethod};
use crate::kinds::{ExperimentError, Loaded, no_log_y, no_shard};
use crate::manifest::{Experiment, ManifestError};
use crate::outputs::{csv_opt as opt, write_figure};
use crate::run::RunError;
use distributions::{StreamRng, Streams};
use dpvi::{Dpvi, GaussianMixture, LogisticRegression, MeanField, Privacy, Settings, evaluate, uci};
use rand_distr::{Distribution, StandardNormal};
use results::{
    Curve, CurveLabels, CurvePanel, CurveStyle, Values, distinct, mean_sd, plot_curves, write_atomic, write_table,
};
use runner::{Progress, ProgressObserver, RunOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The five spherical components of the synthetic mixture (§4.2; the paper's exact means are not
/// legible in our copy): a centre and four corners of a square, unit variance, equal weights.
pub const MIXTURE_MEANS: [[f64; 2]; 5] = [[0.0, 0.0], [-4.0, -4.0], [-4.0, 4.0], [4.0, -4.0], [4.0, 4.0]];

/// One finished run (a row of the unit files and of results.parquet).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DpviRow {
    pub replication: usize,
    pub method: DpviMethod,
    pub sampling_rate: f64,
    pub clip: Option<f64>,
    pub target_epsilon: Option<f64>,
    /// ε the run spent (its accounting, at `delta`).
    pub epsilon_spent: Option<f64>,
    pub delta: Option<f64>,
    pub noise_multiplier: Option<f64>,
    pub iterations: u64,
    /// Test accuracy (classification only).
    pub accuracy: Option<f64>,
    /// Mean log predictive density of a test point.
    pub test_log_likelihood: f64,
    pub mean_batch: f64,
    pub seconds: f64,
}

/// The data of one replication.
enum Data {
    Classification(uci::Split),
    Mixture { train: Vec<f64>, test: Vec<f64> },
}

fn load_table(m: &DpviManifest) -> Result<Option<Arc<uci::Table>>, RunError> {
    let dir = m.dpvi.data_dir();
    let table = match m.dpvi.dataset {
        DpviDataset::Abalone => uci::abalone(&dir.join("abalone.data")),
        DpviDataset::Adult => uci::adult(&dir),
        DpviDataset::Gmm => return Ok(None),
    }
    .map_err(RunError::Data)?;
    Ok(Some(Arc::new(table)))
}

/// `n` points of the synthetic mixture.
fn mixture_points(n: usize, rng: &mut StreamRng) -> Vec<f64> {
    let mut out = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let k = (rand::RngExt::random::<f64>(rng) * MIXTURE_MEANS.len() as f64) as usize;
        for mean in MIXTURE_MEANS[k.min(MIXTURE_MEANS.len() - 1)] {
            let z: f64 = StandardNormal.sample(rng);
            out.push(mean + z);
        }
    }
    out
}

fn replication_data(m: &DpviManifest, table: Option<&uci::Table>, replication: usize) -> Result<Data, RunError> {
    let mut rng = Streams::new(m.experiment.seed).child(replication as u64).child(0).rng();
    match table {
        Some(t) => Ok(Data::Classification(uci::split(t, m.dpvi.train_fraction(), &mut rng).map_err(RunError::Data)?)),
        None => {
            let (_, train, test, _) = m.dpvi.gmm();
            let train = mixture_points(train, &mut rng);
            Ok(Data::Mixture { train, test: mixture_points(test, &mut rng) })
        }
    }
}

/// Runs one cell on its replication's data.
fn run_cell(m: &DpviManifest, cell: &DpviCell, data: &Data) -> Result<DpviRow, RunError> {
    let d = &m.dpvi;
    let streams = Streams::new(m.experiment.seed)
        .child(cell.replication as u64)
        .child(1)
        .child(cell.method as u64)
        .child(cell.sampling_rate.to_bits())
        .child(cell.clip.map_or(0, f64::to_bits))
        .child(cell.epsilon.map_or(0, f64::to_bits));
    let iterations = match cell.method {
        DpviMethod::NonPrivate => d.non_private_iterations.unwrap_or(d.iterations),
        _ => d.iterations,
    };
    let privacy = match (cell.method.accounting(), cell.clip, cell.epsilon) {
        (Some(accounting), Some(clip), Some(epsilon)) => {
            let neighbouring = d.neighbouring();
            let sigma = accountant::calibrate_noise(
                accounting,
                neighbouring,
                cell.sampling_rate,
                iterations,
                epsilon,
                d.delta(),
            )
            .map_err(|e| RunError::Baseline(format!("calibrating σ for ε = {epsilon}: {e}")))?;
            Some(Privacy {
                clip,
                noise_multiplier: sigma,
                delta: d.delta(),
                epsilon_budget: epsilon,
                accounting,
                neighbouring,
            })
        }
        _ => None,
    };
    let settings = Settings {
        iterations,
        sampling_rate: cell.sampling_rate,
        learning_rate: d.learning_rate(),
        initial_log_std: -2.0,
        privacy,
    };
    let start = Instant::now();
    let (fit, accuracy, test_log_likelihood) = match data {
        Data::Classification(split) => {
            let model = LogisticRegression::new(split.train_x.clone(), split.train_y.clone(), d.prior_std())
                .map_err(RunError::Baseline)?;
            let fit = Dpvi::new(&model, settings)
                .map_err(RunError::Baseline)?
                .fit(MeanField::new(vec![0.0; split.dim], -2.0), &mut streams.child(0).rng())
                .map_err(RunError::Baseline)?;
            let score = evaluate(&fit.q, &split.test_x, &split.test_y);
            (fit, Some(score.accuracy), score.mean_log_likelihood)
        }
        Data::Mixture { train, test } => {
            let (k, _, _, draws) = d.gmm();
            let model = GaussianMixture::new(train.clone(), 2, k, 10.0, 2.0).map_err(RunError::Baseline)?;
            // Start: weights equal, means spread at random (data-independent), unit variances.
            let mut rng = streams.child(1).rng();
            let mut mean = vec![0.0; k];
            mean.extend(
                (0..2 * k).map(|_| 3.0 * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng)),
            );
            mean.extend(std::iter::repeat_n(0.0, 2 * k));
            let fit = Dpvi::new(&model, settings)
                .map_err(RunError::Baseline)?
                .fit(MeanField::new(mean, -2.0), &mut streams.child(0).rng())
                .map_err(RunError::Baseline)?;
            let ll = model.predictive_log_likelihood(&fit.q, test, draws, &mut streams.child(2).rng());
            (fit, None, ll)
        }
    };
    Ok(DpviRow {
        replication: cell.replication,
        method: cell.method,
        sampling_rate: cell.sampling_rate,
        clip: cell.clip,
        target_epsilon: cell.epsilon,
        epsilon_spent: fit.epsilon,
        delta: privacy.map(|p| p.delta),
        noise_multiplier: privacy.map(|p| p.noise_multiplier),
        iterations,
        accuracy,
        test_log_likelihood,
        mean_batch: fit.mean_batch,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A DPVI manifest as an experiment of the runner: one unit per cell (run), named `dpvi-<index>`,
/// on its replication's data (loaded and split once, before the units run).
struct DpviSweep<'a> {
    manifest: &'a DpviManifest,
    data: Vec<Data>,
}

impl runner::Experiment for DpviSweep<'_> {
    type Unit = usize;
    type Row = DpviRow;

    fn output_dir(&self) -> PathBuf {
        self.manifest.output_dir()
    }

    fn identity(&self) -> String {
        let m = self.manifest;
        crate::draws::unit_identity(&[&m.experiment.seed.to_le_bytes(), format!("{:?}", m.dpvi).as_bytes()])
    }

    fn units(&self) -> Vec<usize> {
        (0..self.manifest.cells().len()).collect()
    }

    fn unit_name(&self, unit: usize) -> String {
        format!("dpvi-{unit}")
    }

    fn run_unit(&self, unit: usize, progress: &(dyn Fn() + Sync)) -> Result<Vec<DpviRow>, runner::UnitError> {
        let cell = &self.manifest.cells()[unit];
        let row = run_cell(self.manifest, cell, &self.data[cell.replication])?;
        progress();
        Ok(vec![row])
    }

    fn work_name(&self) -> &'static str {
        "runs"
    }

    fn describe_unit(&self, unit: usize) -> String {
        let c = &self.manifest.cells()[unit];
        let eps = c.epsilon.map_or(String::new(), |e| format!(" ε={e}"));
        format!("run {unit} (rep {} {} q={}{eps})", c.replication, c.method.name(), c.sampling_rate)
    }

    fn describe_rows(&self, rows: &[DpviRow]) -> String {
        rows.iter()
            .map(|r| match r.accuracy {
                Some(a) => format!("accuracy {a:.4} ({:.1} s)", r.seconds),
                None => format!("test ll {:.4} ({:.1} s)", r.test_log_likelihood, r.seconds),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The runner's view of `m`: its data loaded and split once.
fn dpvi_sweep(m: &DpviManifest) -> Result<DpviSweep<'_>, runner::RunnerError> {
    let data_error = |e: RunError| runner::RunnerError::Unit { unit: "data".into(), source: e.into() };
    let table = load_table(m).map_err(data_error)?;
    let data: Vec<Data> = (0..m.dpvi.replications)
        .map(|r| replication_data(m, table.as_deref(), r))
        .collect::<Result<_, _>>()
        .map_err(data_error)?;
    Ok(DpviSweep { manifest: m, data })
}

/// The DPVI kind's entry of [`crate::registry::KINDS`].
pub(crate) fn parse_loaded(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    Ok(Box::new(DpviManifest::parse(text, file)?))
}

impl Loaded for DpviManifest {
    fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    fn validation_summary(&self) -> String {
        let cost = DpviManifest::cost(self, rayon::current_num_threads());
        format!("valid DPVI manifest — {} runs; {}", self.cells().len(), cost.describe())
    }

    fn cost(&self) -> Option<crate::Cost> {
        Some(DpviManifest::cost(self, rayon::current_num_threads()))
    }

    fn claim(&self, force: bool) -> Result<runner::DirLock, runner::RunnerError> {
        let same = |stored: &str| {
            DpviManifest::parse(stored, Path::new(crate::outputs::MANIFEST_FILE))
                .is_ok_and(|p| p.experiment == self.experiment && p.dpvi == self.dpvi)
        };
        runner::claim(&self.output_dir(), &self.text, self.experiment.description.as_deref(), same, force)
    }

    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError> {
        no_shard(options, "DPVI")?;
        let sweep = dpvi_sweep(self)?;
        let rows = runner::run(&sweep, options, &ProgressObserver { experiment: &sweep, progress })?;
        let summary = write_dpvi_outputs(self, &self.output_dir(), &rows)?;
        Ok((rows.len(), Some(dpvi_summary_table(&summary))))
    }

    fn missing_units(&self) -> Vec<String> {
        runner::missing_units(&DpviSweep { manifest: self, data: Vec::new() })
    }

    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError> {
        let rows = runner::collect(&DpviSweep { manifest: self, data: Vec::new() }, dir)?;
        let summary = summarize_dpvi(&rows);
        write_atomic(&dir.join(crate::outputs::SUMMARY_FILE), dpvi_summary_csv(&summary).as_bytes())
            .map_err(RunError::from)?;
        Ok(dpvi_summary_table(&summary))
    }

    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError> {
        no_log_y(log_y, "DPVI")?;
        let rows = runner::collect(&DpviSweep { manifest: self, data: Vec::new() }, dir)?;
        Ok(write_dpvi_figure(self, dir, &summarize_dpvi(&rows))?)
    }
}

/// Runs every cell not already stored under `<output>/units/` (all with `force`) through the
/// runner (parallel, persisted as each finishes, resumable); `on_done(row, computed)` is called
/// per cell. Returns the rows in cell order.
pub fn run_dpvi(
    m: &DpviManifest,
    force: bool,
    on_done: &(dyn Fn(&DpviRow, bool) + Sync),
) -> Result<Vec<DpviRow>, runner::RunnerError> {
    let observer = runner::OnUnitDone(|_, computed, rows: &[DpviRow]| rows.iter().for_each(|r| on_done(r, computed)));
    runner::run(&dpvi_sweep(m)?, RunOptions { force, shard: None }, &observer)
}

/// One line of the DPVI summary: a (method, q, c, ε) group over replications.
#[derive(Clone, Debug, PartialEq)]
pub struct DpviSummary {
    pub method: DpviMethod,
    pub sampling_rate: f64,
    pub clip: Option<f64>,
    pub target_epsilon: Option<f64>,
    pub replications: usize,
    /// Accuracy (classification) or test log-likelihood (mixture): mean and standard error.
    pub mean: f64,
    pub standard_error: f64,
    pub mean_noise_multiplier: Option<f64>,
}

/// The metric of a row: accuracy if present, else the test log-likelihood.
fn metric(r: &DpviRow) -> f64 {
    r.accuracy.unwrap_or(r.test_log_likelihood)
}

pub fn summarize_dpvi(rows: &[DpviRow]) -> Vec<DpviSummary> {
    let key = |r: &DpviRow| {
        (r.method, r.sampling_rate.to_bits(), r.clip.map(f64::to_bits), r.target_epsilon.map(f64::to_bits))
    };
    distinct(rows.iter().map(key))
        .into_iter()
        .map(|k| {
            let group: Vec<&DpviRow> = rows.iter().filter(|r| key(r) == k).collect();
            let metrics: Vec<f64> = group.iter().map(|r| metric(r)).collect();
            let (mean, sd) = mean_sd(&metrics);
            let sigmas: Vec<f64> = group.iter().filter_map(|r| r.noise_multiplier).collect();
            DpviSummary {
                method: group[0].method,
                sampling_rate: group[0].sampling_rate,
                clip: group[0].clip,
                target_epsilon: group[0].target_epsilon,
                replications: group.len(),
                mean,
                // One replication: no spread to estimate, reported as 0.
                standard_error: sd.unwrap_or(0.0) / (metrics.len() as f64).sqrt(),
                mean_noise_multiplier: (!sigmas.is_empty()).then(|| sigmas.iter().sum::<f64>() / sigmas.len() as f64),
            }
        })
        .collect()
}

/// Writes results.parquet, summary.csv and figure.svg/.png; returns the summary.
pub fn write_dpvi_outputs(m: &DpviManifest, dir: &Path, rows: &[DpviRow]) -> Result<Vec<DpviSummary>, RunError> {
    let floats = |f: fn(&DpviRow) -> Option<f64>| Values::Float(rows.iter().map(f).collect());
    let columns = [
        ("experiment", Values::Text(vec![m.experiment.name.clone(); rows.len()])),
        ("dataset", Values::Text(vec![m.dpvi.dataset.name().to_string(); rows.len()])),
        ("seed", Values::Int(vec![m.experiment.seed as i64; rows.len()])),
        ("replication", Values::Int(rows.iter().map(|r| r.replication as i64).collect())),
        ("method", Values::Text(rows.iter().map(|r| r.method.name().to_string()).collect())),
        ("neighbouring", Values::Text(vec![m.dpvi.neighbouring().name().to_string(); rows.len()])),
        ("sampling_rate", floats(|r| Some(r.sampling_rate))),
        ("clip", floats(|r| r.clip)),
        ("target_epsilon", floats(|r| r.target_epsilon)),
        ("epsilon_spent", floats(|r| r.epsilon_spent)),
        ("delta", floats(|r| r.delta)),
        ("noise_multiplier", floats(|r| r.noise_multiplier)),
        ("iterations", Values::Int(rows.iter().map(|r| r.iterations as i64).collect())),
        ("accuracy", floats(|r| r.accuracy)),
        ("test_log_likelihood", floats(|r| Some(r.test_log_likelihood))),
        ("mean_batch", floats(|r| Some(r.mean_batch))),
        ("seconds", floats(|r| Some(r.seconds))),
    ];
    let metadata = runner::results_metadata(dir, &m.text);
    write_table(&dir.join(crate::outputs::RESULTS_FILE), &columns, &metadata)?;
    runner::record_results_checksum(dir)?;
    let summary = summarize_dpvi(rows);
    write_atomic(&dir.join(crate::outputs::SUMMARY_FILE), dpvi_summary_csv(&summary).as_bytes())?;
    write_dpvi_figure(m, dir, &summary)?;
    Ok(summary)
}

/// The accuracy (or test log-likelihood) vs ε figure of a DPVI summary.
fn write_dpvi_figure(m: &DpviManifest, dir: &Path, summary: &[DpviSummary]) -> Result<(), RunError> {
    let classification = m.dpvi.dataset != DpviDataset::Gmm;
    let labels = CurveLabels {
        x: "ε (target, δ fixed)".into(),
        y: if classification { "test accuracy" } else { "test log-likelihood per point" }.into(),
        y_from_zero: false,
        log_x: true,
        log_y: false,
        note: m.experiment.description.clone(),
    };
    let panel = CurvePanel { caption: m.dpvi.dataset.name().to_string(), curves: curves(summary) };
    write_figure(dir, |svg, png| plot_curves(&[panel], &labels, &m.experiment.name, Some(svg), Some(png)))
}

/// One curve per (method, q, c) over ε (± standard error); the non-private runs as dashed
/// reference lines; q and c appear in the labels only where the sweep varies them, and then
/// each value of q (or c) has one colour, shared by its private curve and its reference.
fn curves(summary: &[DpviSummary]) -> Vec<Curve> {
    let many = |f: fn(&DpviSummary) -> Option<u64>| {
        let mut v: Vec<u64> = summary.iter().filter_map(f).collect();
        v.sort_unstable();
        v.dedup();
        v.len() > 1
    };
    let (many_q, many_c) = (many(|s| Some(s.sampling_rate.to_bits())), many(|s| s.clip.map(f64::to_bits)));
    let label = |s: &DpviSummary| {
        let mut l = s.method.name().to_string();
        if many_q {
            l += &format!(" q={}", s.sampling_rate);
        }
        if let (true, Some(c)) = (many_c, s.clip) {
            l += &format!(" c={c}");
        }
        l
    };
    // The value(s) the sweep varies; the non-private runs have no clip, so an unvaried one is left out.
    let setting =
        |s: &DpviSummary| (many_q.then(|| s.sampling_rate.to_bits()), s.clip.filter(|_| many_c).map(f64::to_bits));
    let settings = distinct(summary.iter().map(setting));
    let mut out: Vec<Curve> = Vec::new();
    for s in summary {
        let name = label(s);
        let curve = match out.iter_mut().find(|c| c.label == name) {
            Some(c) => c,
            None => {
                let mut curve = Curve::new(name, Vec::new());
                curve.style = CurveStyle {
                    colour: (many_q || many_c).then(|| settings.iter().position(|&x| x == setting(s)).unwrap_or(0)),
                    dashed: s.target_epsilon.is_none(),
                };
                out.push(curve);
                out.last_mut().expect("just pushed")
            }
        };
        match s.target_epsilon {
            Some(e) => curve.points.push((e, s.mean, s.standard_error)),
            None => curve.reference = Some((s.mean, s.standard_error)),
        }
    }
    out
}

fn dpvi_summary_csv(summary: &[DpviSummary]) -> String {
    let mut out = String::from(
        "method,sampling_rate,clip,target_epsilon,replications,mean,standard_error,mean_noise_multiplier\n",
    );
    for s in summary {
        out += &format!(
            "{},{},{},{},{},{},{},{}\n",
            s.method.name(),
            s.sampling_rate,
            opt(s.clip),
            opt(s.target_epsilon),
            s.replications,
            s.mean,
            s.standard_error,
            opt(s.mean_noise_multiplier)
        );
    }
    out
}

/// A printable table of the summary.
pub fn dpvi_summary_table(summary: &[DpviSummary]) -> String {
    let mut out = format!(
        "{:<26} {:>7} {:>6} {:>7} {:>4} {:>10} {:>9} {:>8}\n",
        "method", "q", "clip", "ε", "n", "mean", "s.e.", "σ"
    );
    for s in summary {
        let f = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v}"));
        out += &format!(
            "{:<26} {:>7} {:>6} {:>7} {:>4} {:>10.4} {:>9.4} {:>8}\n",
            s.method.name(),
            s.sampling_rate,
            f(s.clip),
            f(s.target_epsilon),
            s.replications,
            s.mean,
            s.standard_error,
            s.mean_noise_multiplier.map_or("—".to_string(), |v| format!("{v:.3}"))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(method: DpviMethod, q: f64, epsilon: Option<f64>) -> DpviSummary {
        DpviSummary {
            method,
            sampling_rate: q,
            clip: Some(1.0),
            target_epsilon: epsilon,
            replications: 3,
            mean: 0.8,
            standard_error: 0.01,
            mean_noise_multiplier: None,
        }
    }

    fn without_clip(mut s: DpviSummary) -> DpviSummary {
        s.clip = None;
        s
    }

    /// A sweep over q: each q has its own colour, shared by its private curve and its dashed
    /// non-private reference, and no two values of q share one.
    #[test]
    fn each_sampling_rate_has_one_colour_and_references_are_dashed() {
        let mut rows = Vec::new();
        for q in [0.002, 0.005, 0.01, 0.02, 0.05] {
            // The non-private runs have no clipping bound.
            rows.push(without_clip(summary(DpviMethod::NonPrivate, q, None)));
            rows.extend([1.0, 2.0].map(|e| summary(DpviMethod::MomentsAccountant, q, Some(e))));
        }
        let curves = curves(&rows);
        assert_eq!(curves.len(), 10);
        for pair in curves.chunks(2) {
            assert_eq!(pair[0].style.colour, pair[1].style.colour, "{pair:?}");
            assert!(pair[0].style.dashed && pair[0].reference.is_some() && !pair[1].style.dashed);
        }
        let colours = distinct(curves.iter().map(|c| c.style.colour));
        assert_eq!(colours.len(), 5, "{colours:?}");
    }
}
