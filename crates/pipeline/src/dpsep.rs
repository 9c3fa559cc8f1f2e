//! The DP-SEP experiment kind (`[experiment] kind = "dp-sep"`): Table 1 and Fig. 1 of Vinaroz &
//! Park — per replication a synthetic mixture data set, a long Gibbs run as the reference
//! posterior, then EP, SEP, clipped SEP (per C), DP-SEP (per ε, σ from the accountant) and DP-EM
//! (per ε), each scored by the F-norms against the reference. A replication is one unit of work
//! (its own stream, stored under `units/` as it finishes; a rerun resumes).

use crate::kinds::{ExperimentError, Loaded, no_log_y, no_shard};
use crate::manifest::{Experiment, ManifestError, invalid};
use crate::outputs::write_figure;
use crate::run::RunError;
use distributions::{StreamRng, Streams};
use ep::sep::{SepSettings, ep, sep, start};
use ep::{MixtureMeans, Natural, dp_em::dp_em, dp_sep_epsilon, dp_sep_noise, metrics::f_norms};
use results::{EllipsePanel, Gaussian2, Values, distinct, plot_ellipses, write_atomic, write_table};
use runner::{Progress, ProgressObserver, RunOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A DP-SEP manifest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpSepManifest {
    pub experiment: Experiment,
    pub dpsep: DpSepSpec,
    #[serde(skip)]
    pub text: String,
}

/// A method of the comparison.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DpSepMethod {
    Ep,
    Sep,
    ClippedSep,
    DpSep,
    DpEm,
}

impl DpSepMethod {
    pub fn name(self) -> &'static str {
        match self {
            DpSepMethod::Ep => "ep",
            DpSepMethod::Sep => "sep",
            DpSepMethod::ClippedSep => "clipped-sep",
            DpSepMethod::DpSep => "dp-sep",
            DpSepMethod::DpEm => "dp-em",
        }
    }
}

/// `[dpsep]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpSepSpec {
    pub methods: Vec<DpSepMethod>,
    pub points: usize,
    pub dim: usize,
    pub clusters: usize,
    /// Component standard deviation s (0.5 in the paper).
    pub noise_sd: f64,
    /// Every coordinate of the prior mean m (prior covariance I).
    pub prior_mean: f64,
    pub epochs: usize,
    /// γ of eq. 4 (the factor moves by γ/N² per step).
    pub damping: f64,
    /// The thresholds of clipped SEP.
    #[serde(default)]
    pub clip_sep: Vec<f64>,
    /// C of DP-SEP.
    pub clip: f64,
    #[serde(default)]
    pub epsilon: Vec<f64>,
    pub delta: f64,
    pub replications: usize,
    pub ep_epochs: usize,
    pub em_iterations: usize,
    /// Norm bound B of the points for DP-EM.
    pub em_clip: f64,
    pub gibbs_burn_in: usize,
    pub gibbs_samples: usize,
    /// Eigenvalue floor of the positive-definite repair of DP-SEP's noisy precisions.
    pub pd_floor: f64,
}

impl DpSepManifest {
    pub fn parse(text: &str, file: &Path) -> Result<Self, ManifestError> {
        let mut m: DpSepManifest = toml::from_str(text).map_err(|e| crate::manifest::parse_error(file, text, &e))?;
        m.text = text.to_string();
        m.experiment.validate(file, "dp-sep")?;
        let s = &m.dpsep;
        let bad = |field, value: String, allowed: &str| Err(invalid(file, field, value, allowed));
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if s.methods.is_empty() {
            return bad(
                "dpsep.methods",
                "[]".into(),
                "a non-empty list of \"ep\", \"sep\", \"clipped-sep\", \"dp-sep\", \"dp-em\"",
            );
        }
        crate::manifest::distinct_values(file, "dpsep.methods", &s.methods)?;
        crate::manifest::distinct_values(file, "dpsep.epsilon", &s.epsilon)?;
        crate::manifest::distinct_values(file, "dpsep.clip_sep", &s.clip_sep)?;
        for (field, v) in [
            ("dpsep.points", s.points),
            ("dpsep.dim", s.dim),
            ("dpsep.clusters", s.clusters),
            ("dpsep.epochs", s.epochs),
            ("dpsep.replications", s.replications),
            ("dpsep.ep_epochs", s.ep_epochs),
            ("dpsep.em_iterations", s.em_iterations),
            ("dpsep.gibbs_samples", s.gibbs_samples),
        ] {
            if v == 0 {
                return bad(field, "0".into(), "an integer >= 1");
            }
        }
        for (field, v) in [
            ("dpsep.noise_sd", s.noise_sd),
            ("dpsep.damping", s.damping),
            ("dpsep.clip", s.clip),
            ("dpsep.em_clip", s.em_clip),
            ("dpsep.pd_floor", s.pd_floor),
        ] {
            if !positive(v) {
                return bad(field, v.to_string(), "a finite number > 0");
            }
        }
        if !(s.prior_mean.is_finite() && s.prior_mean.abs() <= 1e6) {
            return bad("dpsep.prior_mean", format!("{:?}", s.prior_mean), "a finite number from -1e6 to 1e6");
        }
        // Sizes whose products are allocated (points × dim data, clusters × dim² covariances,
        // Gibbs samples × clusters × dim): bounded so that no value a user can type exhausts memory.
        for (field, v, most) in [
            ("dpsep.points", s.points, 10_000_000),
            ("dpsep.dim", s.dim, 1_000),
            ("dpsep.clusters", s.clusters, 1_000),
            ("dpsep.replications", s.replications, 100_000),
            ("dpsep.gibbs_samples", s.gibbs_samples, 10_000_000),
        ] {
            if v > most {
                return bad(field, v.to_string(), &format!("an integer from 1 to {most}"));
            }
        }
        if (s.points as f64) * (s.dim as f64) > 1e8 || (s.gibbs_samples as f64) * (s.clusters * s.dim) as f64 > 1e9 {
            return bad(
                "dpsep.points",
                format!("{} points × {} dimensions, {} Gibbs samples", s.points, s.dim, s.gibbs_samples),
                "points × dim at most 1e8 and gibbs_samples × clusters × dim at most 1e9 (memory)",
            );
        }
        if s.damping > s.points as f64 {
            return bad("dpsep.damping", s.damping.to_string(), "a number in (0, points] (γ/N is a damping fraction)");
        }
        if !(s.delta > 0.0 && s.delta < 1.0) {
            return bad("dpsep.delta", s.delta.to_string(), "a number in (0, 1)");
        }
        let private = s.methods.iter().any(|x| matches!(x, DpSepMethod::DpSep | DpSepMethod::DpEm));
        if private && (s.epsilon.is_empty() || !s.epsilon.iter().all(|e| positive(*e))) {
            return bad(
                "dpsep.epsilon",
                format!("{:?}", s.epsilon),
                "a non-empty list of finite numbers > 0 (a private method is listed)",
            );
        }
        if s.methods.contains(&DpSepMethod::ClippedSep)
            && (s.clip_sep.is_empty() || !s.clip_sep.iter().all(|c| positive(*c)))
        {
            return bad(
                "dpsep.clip_sep",
                format!("{:?}", s.clip_sep),
                "a non-empty list of finite numbers > 0 (clipped-sep is listed)",
            );
        }
        Ok(m)
    }

    pub fn output_dir(&self) -> PathBuf {
        self.experiment.output_dir()
    }
}

/// One method's fit on one replication.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DpSepRow {
    pub replication: usize,
    pub method: DpSepMethod,
    pub clip: Option<f64>,
    pub epsilon: Option<f64>,
    pub noise_multiplier: Option<f64>,
    /// ε spent by the run (its accountant); DP runs only.
    pub epsilon_spent: Option<f64>,
    pub f_mean: f64,
    pub f_cov: f64,
    pub f_average: f64,
    pub skipped: usize,
    pub seconds: f64,
    /// The fitted (mean, covariance) per cluster (not stored; for the figure).
    #[serde(skip)]
    pub clusters: Vec<(Vec<f64>, Vec<f64>)>,
}

impl DpSepRow {
    /// The row's name in Table 1 and Fig. 1: the method, with C for clipped SEP and ε for the
    /// private methods.
    pub fn label(&self) -> String {
        match (self.method, self.clip, self.epsilon) {
            (DpSepMethod::ClippedSep, Some(c), _) => format!("clipped-sep C={c}"),
            (_, _, Some(e)) => format!("{} ε={e}", self.method.name()),
            _ => self.method.name().to_string(),
        }
    }
}

type Posterior = Vec<(Vec<f64>, Vec<f64>)>;

fn moments(q: &[Natural]) -> Result<Posterior, RunError> {
    q.iter()
        .map(|g| g.moments().ok_or_else(|| RunError::Baseline("a fitted precision is not positive definite".into())))
        .collect()
}

/// Runs every method on replication `r`; returns the rows, the reference and the data.
pub fn run_replication(m: &DpSepManifest, r: usize) -> Result<(Vec<DpSepRow>, Posterior, MixtureMeans), RunError> {
    let s = &m.dpsep;
    let root = Streams::new(m.experiment.seed).child(r as u64);
    let rng = |id: u64| -> StreamRng { root.child(id).rng() };
    let data = MixtureMeans::generate(s.points, s.dim, s.clusters, s.noise_sd, vec![s.prior_mean; s.dim], &mut rng(0));
    let model = &data.model;
    let reference = model.gibbs_reference(&data.true_means, s.gibbs_burn_in, s.gibbs_samples, &mut rng(1));
    let q0 = start(model, &mut rng(2));
    let base =
        SepSettings { epochs: s.epochs, damping: s.damping, clip: None, noise_multiplier: None, pd_floor: s.pd_floor };
    let mut rows = Vec::new();
    let mut push = |method, clip, epsilon, sigma, spent, clusters: Posterior, skipped, t: Instant| {
        let (f_mean, f_cov, f_average) = f_norms(&reference, &clusters);
        rows.push(DpSepRow {
            replication: r,
            method,
            clip,
            epsilon,
            noise_multiplier: sigma,
            epsilon_spent: spent,
            f_mean,
            f_cov,
            f_average,
            skipped,
            seconds: t.elapsed().as_secs_f64(),
            clusters,
        });
    };
    for &method in &s.methods {
        match method {
            DpSepMethod::Ep => {
                let t = Instant::now();
                let fit = ep(model, &q0, s.ep_epochs, &mut rng(3));
                push(method, None, None, None, None, moments(&fit.q)?, fit.skipped, t);
            }
            DpSepMethod::Sep => {
                let t = Instant::now();
                let fit = sep(model, &q0, &base, &mut rng(4)).map_err(RunError::Baseline)?;
                push(method, None, None, None, None, moments(&fit.q)?, fit.skipped, t);
            }
            DpSepMethod::ClippedSep => {
                for &c in &s.clip_sep {
                    let t = Instant::now();
                    let fit = sep(model, &q0, &SepSettings { clip: Some(c), ..base }, &mut rng(5))
                        .map_err(RunError::Baseline)?;
                    push(method, Some(c), None, None, None, moments(&fit.q)?, fit.skipped, t);
                }
            }
            DpSepMethod::DpSep => {
                for &eps in &s.epsilon {
                    let t = Instant::now();
                    let sigma = dp_sep_noise(eps, s.delta, s.points, s.epochs).map_err(RunError::from)?;
                    let spent = dp_sep_epsilon(sigma, s.delta, s.points, s.epochs).map_err(RunError::from)?;
                    let settings = SepSettings { clip: Some(s.clip), noise_multiplier: Some(sigma), ..base };
                    let fit = sep(model, &q0, &settings, &mut rng(6)).map_err(RunError::Baseline)?;
                    push(method, Some(s.clip), Some(eps), Some(sigma), Some(spent), moments(&fit.q)?, fit.skipped, t);
                }
            }
            DpSepMethod::DpEm => {
                let starts: Vec<Vec<f64>> = moments(&q0)?.into_iter().map(|(mean, _)| mean).collect();
                for &eps in &s.epsilon {
                    let t = Instant::now();
                    let (accounting, neighbours) =
                        (accountant::Accounting::MomentsAccountant, accountant::Neighbouring::AddRemove);
                    let steps = s.em_iterations as u64;
                    let sigma = accountant::calibrate_noise(accounting, neighbours, 1.0, steps, eps, s.delta)
                        .map_err(RunError::from)?;
                    let spent = accountant::epsilon(accounting, neighbours, 1.0, sigma, steps, s.delta)
                        .map_err(RunError::from)?;
                    let fit = dp_em(model, &starts, s.em_iterations, s.em_clip, Some(sigma), &mut rng(7));
                    push(method, Some(s.em_clip), Some(eps), Some(sigma), Some(spent), fit, 0, t);
                }
            }
        }
    }
    Ok((rows, reference, data.model))
}

/// A DP-SEP manifest as an experiment of the runner: one unit per replication, `dpsep-<r>`.
struct DpSepSweep<'a>(&'a DpSepManifest);

impl runner::Experiment for DpSepSweep<'_> {
    type Unit = usize;
    type Row = DpSepRow;

    fn output_dir(&self) -> PathBuf {
        self.0.output_dir()
    }

    fn identity(&self) -> String {
        crate::draws::unit_identity(&[&self.0.experiment.seed.to_le_bytes(), format!("{:?}", self.0.dpsep).as_bytes()])
    }

    fn units(&self) -> Vec<usize> {
        (0..self.0.dpsep.replications).collect()
    }

    fn unit_name(&self, unit: usize) -> String {
        format!("dpsep-{unit}")
    }

    fn run_unit(&self, unit: usize, progress: &(dyn Fn() + Sync)) -> Result<Vec<DpSepRow>, runner::UnitError> {
        let (rows, _, _) = run_replication(self.0, unit)?;
        progress();
        Ok(rows)
    }

    fn work_name(&self) -> &'static str {
        "replications"
    }

    fn describe_unit(&self, unit: usize) -> String {
        format!("replication {unit}")
    }

    fn describe_rows(&self, rows: &[DpSepRow]) -> String {
        let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
        format!("{} fits ({seconds:.1} s)", rows.len())
    }
}

/// Runs every replication not already stored under `<output>/units/` (all with `force`) through
/// the runner; `on_done(replication, computed)` is called per replication. Returns the rows in
/// replication order.
pub fn run_dpsep(
    m: &DpSepManifest,
    force: bool,
    on_done: &(dyn Fn(usize, bool) + Sync),
) -> Result<Vec<DpSepRow>, runner::RunnerError> {
    let observer = runner::OnUnitDone(|r, computed, _: &[DpSepRow]| on_done(r, computed));
    runner::run(&DpSepSweep(m), RunOptions { force, shard: None }, &observer)
}

/// One line of Table 1: label, mean F-norms (mean, covariance, average) over replications, the
/// median of the average F-norm (robust to one diverged run), replications.
pub type TableLine = (String, f64, f64, f64, f64, usize);

/// Table 1 per (method, C, ε), in manifest order.
pub fn dpsep_table(rows: &[DpSepRow]) -> Vec<TableLine> {
    distinct(rows.iter().map(DpSepRow::label))
        .into_iter()
        .map(|l| {
            let g: Vec<&DpSepRow> = rows.iter().filter(|r| r.label() == l).collect();
            let n = g.len() as f64;
            let avg = |f: fn(&DpSepRow) -> f64| g.iter().map(|r| f(r)).sum::<f64>() / n;
            let mut sorted: Vec<f64> = g.iter().map(|r| r.f_average).collect();
            sorted.sort_by(f64::total_cmp);
            let k = sorted.len();
            let median = if k % 2 == 1 { sorted[k / 2] } else { 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]) };
            (l, avg(|r| r.f_mean), avg(|r| r.f_cov), avg(|r| r.f_average), median, g.len())
        })
        .collect()
}

/// Writes results.parquet, summary.csv (Table 1) and figure.svg/.png (Fig. 1: replication 0's
/// posterior means and 98 % ellipses in the first two coordinates, refitted with its stream).
pub fn write_dpsep_outputs(m: &DpSepManifest, dir: &Path, rows: &[DpSepRow]) -> Result<Vec<TableLine>, RunError> {
    let floats = |f: fn(&DpSepRow) -> Option<f64>| Values::Float(rows.iter().map(f).collect());
    let columns = [
        ("experiment", Values::Text(vec![m.experiment.name.clone(); rows.len()])),
        ("seed", Values::Int(vec![m.experiment.seed as i64; rows.len()])),
        ("replication", Values::Int(rows.iter().map(|r| r.replication as i64).collect())),
        ("method", Values::Text(rows.iter().map(|r| r.method.name().to_string()).collect())),
        ("clip", floats(|r| r.clip)),
        ("epsilon", floats(|r| r.epsilon)),
        ("delta", Values::Float(rows.iter().map(|r| r.epsilon.map(|_| m.dpsep.delta)).collect())),
        ("noise_multiplier", floats(|r| r.noise_multiplier)),
        ("epsilon_spent", floats(|r| r.epsilon_spent)),
        ("f_norm_mean", floats(|r| Some(r.f_mean))),
        ("f_norm_covariance", floats(|r| Some(r.f_cov))),
        ("f_norm_average", floats(|r| Some(r.f_average))),
        ("skipped_steps", Values::Int(rows.iter().map(|r| r.skipped as i64).collect())),
        ("seconds", floats(|r| Some(r.seconds))),
    ];
    let metadata = runner::results_metadata(dir, &m.text);
    write_table(&dir.join(crate::outputs::RESULTS_FILE), &columns, &metadata)?;
    runner::record_results_checksum(dir)?;
    let table = write_dpsep_summary(dir, rows)?;
    write_dpsep_figure(m, dir)?;
    Ok(table)
}

/// summary.csv (Table 1) in `dir`.
fn write_dpsep_summary(dir: &Path, rows: &[DpSepRow]) -> Result<Vec<TableLine>, RunError> {
    let table = dpsep_table(rows);
    let mut csv =
        String::from("method,f_norm_mean,f_norm_covariance,f_norm_average,median_f_norm_average,replications\n");
    for (l, a, b, c, med, n) in &table {
        csv += &format!("{l},{a},{b},{c},{med},{n}\n");
    }
    write_atomic(&dir.join(crate::outputs::SUMMARY_FILE), csv.as_bytes()).map_err(RunError::from)?;
    Ok(table)
}

/// Table 1 as printed text.
pub fn dpsep_table_text(table: &[TableLine]) -> String {
    let mut out =
        format!("{:<24} {:>12} {:>12} {:>12} {:>12}\n", "method", "F mean", "F cov", "F average", "median avg");
    for (label, a, b, c, med, _) in table {
        out += &format!("{label:<24} {a:>12.4} {b:>12.4} {c:>12.4} {med:>12.4}\n");
    }
    out
}

/// Fig. 1: replication 0's posterior means and 98 % ellipses in `dir`.
fn write_dpsep_figure(m: &DpSepManifest, dir: &Path) -> Result<(), RunError> {
    // Fig. 1 from replication 0 (refitted: the unit files keep numbers, not posteriors).
    let (fits, reference, model) = run_replication(m, 0)?;
    let two = |(mean, cov): &(Vec<f64>, Vec<f64>)| -> Gaussian2 {
        let d = mean.len();
        ([mean[0], mean[1]], [cov[0], cov[1], cov[d], cov[d + 1]])
    };
    let panels: Vec<EllipsePanel> = fits
        .iter()
        .map(|r| EllipsePanel { caption: r.label(), clusters: r.clusters.iter().map(two).collect() })
        .collect();
    let points: Vec<(f64, f64)> = (0..model.points()).map(|n| (model.point(n)[0], model.point(n)[1])).collect();
    let refs: Vec<Gaussian2> = reference.iter().map(two).collect();
    let title =
        format!("{}: posterior means and 98 % ellipses (coordinates 1–2; black: Gibbs reference)", m.experiment.name);
    write_figure(dir, |svg, png| plot_ellipses(&panels, &refs, &points, 4, &title, Some(svg), Some(png)))
}

/// The DP-SEP kind's entry of [`crate::registry::KINDS`].
pub(crate) fn parse_loaded(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    Ok(Box::new(DpSepManifest::parse(text, file)?))
}

impl Loaded for DpSepManifest {
    fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    fn validation_summary(&self) -> String {
        format!("valid DP-SEP manifest — {} replications", self.dpsep.replications)
    }

    fn claim(&self, force: bool) -> Result<runner::DirLock, runner::RunnerError> {
        let same = |stored: &str| {
            DpSepManifest::parse(stored, Path::new(crate::outputs::MANIFEST_FILE))
                .is_ok_and(|p| p.experiment == self.experiment && p.dpsep == self.dpsep)
        };
        runner::claim(&self.output_dir(), &self.text, self.experiment.description.as_deref(), same, force)
    }

    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError> {
        no_shard(options, "DP-SEP")?;
        let sweep = DpSepSweep(self);
        let rows = runner::run(&sweep, options, &ProgressObserver { experiment: &sweep, progress })?;
        let table = write_dpsep_outputs(self, &self.output_dir(), &rows)?;
        Ok((rows.len(), Some(dpsep_table_text(&table))))
    }

    fn missing_units(&self) -> Vec<String> {
        runner::missing_units(&DpSepSweep(self))
    }

    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError> {
        let rows = runner::collect(&DpSepSweep(self), dir)?;
        Ok(dpsep_table_text(&write_dpsep_summary(dir, &rows)?))
    }

    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError> {
        no_log_y(log_y, "DP-SEP")?;
        Ok(write_dpsep_figure(self, dir)?)
    }
}
