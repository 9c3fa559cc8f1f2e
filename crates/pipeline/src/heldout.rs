//! The held-out experiment kind (`[experiment] kind = "held-out"`): choosing the number of
//! components on a **released** table, where there is no ground truth to score against. Per
//! replication, a random fraction of the cells is hidden (the same cells for every method and
//! `K` of that replication); each (method, `K`) is fitted with several chains on the rest and
//! scored by the held-out log predictive under the released-data likelihood
//! (Poisson ∗ two-sided geometric, [`eval::heldout_log_predictive`]). One unit = one
//! (replication, method, `K`) fit, `lppf fit --holdout` in a sweep.
//!
//! Streams: the mask of replication `r` from `Streams::new(seed).child(r)`; the fit of unit
//! (r, method, K) from the seed `stream_id([seed, r, method, K])`, chain `c` on its child `c`.

use crate::kinds::{ExperimentError, Loaded, no_log_y};
use crate::manifest::{Experiment, LikelihoodName, LikelihoodSpec, ManifestError, PriorName, first_repeat, invalid};
use crate::outputs::{RESULTS_FILE, SUMMARY_FILE, csv_opt, write_figure};
use crate::run::RunError;
use analysis::{FitData, FitError, FitSettings, LevelSource, fit_chains, heldout_count, hold_out, load};
use distributions::{Streams, stream_id};
use inference::{Algorithm, Method, Schedule};
use models::{GammaPrior, ModelKind};
use results::{Curve, CurveLabels, CurvePanel, Values, plot_curves, write_atomic, write_table};
use runner::{Progress, ProgressObserver, RunOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// At most this many components, replications and chains (each allocates per fit).
const MAX_COMPONENTS: usize = 1000;
const MAX_REPLICATIONS: usize = 1000;
const MAX_CHAINS: usize = 64;

/// A held-out manifest.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldOutManifest {
    pub experiment: Experiment,
    pub data: ReleasedData,
    pub model: CandidateModels,
    pub fit: FitSpec,
    pub holdout: HoldoutSpec,
    #[serde(skip)]
    pub text: String,
    /// The release, read and checked by [`HeldOutManifest::parse`].
    #[serde(skip)]
    released: Option<Arc<FitData>>,
}

/// `[data]`: a release made by `lppf privatize` (or any `row,col,value` table), or raw counts
/// (`row,col,count`) for the non-private reference.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReleasedData {
    /// `"released"` (fitted by `naive` and `private`) or `"counts"` (fitted by `non-private`).
    pub source: String,
    /// The table (relative to the working directory).
    pub path: PathBuf,
    /// One α for every row, when the release has no `.privacy.toml` beside it.
    pub alpha: Option<f64>,
}

/// `[model]`: the model, the candidate numbers of components, the prior and the likelihood.
#[derive(Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CandidateModels {
    pub kind: ModelKind,
    pub components: Vec<usize>,
    pub a0: f64,
    pub b0: f64,
    /// `"poisson"` (the default) or `"negative-binomial"`.
    #[serde(default)]
    pub likelihood: LikelihoodName,
    /// The negative binomial's shape `r`, given; absent: learned.
    #[serde(default)]
    pub dispersion: Option<f64>,
    /// The prior `[shape, rate]` of a learned `r` (as in a factorization manifest).
    #[serde(default)]
    pub dispersion_prior: Option<[f64; 2]>,
    /// `"flat"` (the default) or `"hierarchical"` ([`PriorName`]): with `prior = "hierarchical"`
    /// and `likelihood = "negative-binomial"`, K is chosen for the model `lppf fit` runs by
    /// default.
    #[serde(default)]
    pub prior: PriorName,
}

impl CandidateModels {
    /// The likelihood fields together.
    pub fn likelihood(&self) -> LikelihoodSpec {
        LikelihoodSpec { likelihood: self.likelihood, dispersion: self.dispersion, prior: self.dispersion_prior }
    }
}

/// As [`crate::manifest::ModelSpec`]'s: the Poisson model's text (and the run's identity) is
/// what it was before the likelihood existed.
impl std::fmt::Debug for CandidateModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("CandidateModels");
        d.field("kind", &self.kind).field("components", &self.components).field("a0", &self.a0).field("b0", &self.b0);
        self.likelihood().identity(&mut d);
        if self.prior != PriorName::Flat {
            d.field("prior", &self.prior);
        }
        d.finish()
    }
}

/// `[fit]`: the methods (`naive`, `private`) and the Gibbs schedule of every chain.
#[derive(Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FitSpec {
    pub methods: Vec<Method>,
    pub chains: usize,
    pub iterations: usize,
    pub burn_in: usize,
    pub thin: usize,
    /// Sweeps at the start of each chain in which a learned dispersion shape is held; absent = 0.
    #[serde(default)]
    pub dispersion_warm_up: Option<usize>,
    /// The block model's Hamiltonian move after every sweep (as `lppf fit --hamiltonian-move`), so
    /// that `K` is chosen for the fit that will be run; absent = false.
    #[serde(default)]
    pub hamiltonian_move: bool,
}

/// Part of the run's identity: without a warm-up or the move, what it was before they existed.
impl std::fmt::Debug for FitSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("FitSpec");
        d.field("methods", &self.methods)
            .field("chains", &self.chains)
            .field("iterations", &self.iterations)
            .field("burn_in", &self.burn_in)
            .field("thin", &self.thin);
        if let Some(n) = self.dispersion_warm_up {
            d.field("dispersion_warm_up", &n);
        }
        if self.hamiltonian_move {
            d.field("hamiltonian_move", &true);
        }
        d.finish()
    }
}

/// `[holdout]`: the fraction of modelled cells hidden, and how many random masks.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HoldoutSpec {
    pub fraction: f64,
    pub replications: usize,
}

impl PartialEq for HeldOutManifest {
    fn eq(&self, other: &Self) -> bool {
        (&self.experiment, &self.data, &self.model, &self.fit, &self.holdout)
            == (&other.experiment, &other.data, &other.model, &other.fit, &other.holdout)
    }
}

impl HeldOutManifest {
    /// Parses and validates `text` (`file` labels errors), then reads the release.
    pub fn parse(text: &str, file: &Path) -> Result<Self, ManifestError> {
        let mut m = Self::parse_settings(text, file)?;
        let levels = m.data.alpha.map_or(LevelSource::Sidecar, LevelSource::Alpha);
        if !m.data.path.exists() {
            return Err(ManifestError::MissingData {
                file: file.to_path_buf(),
                field: "data.path",
                path: m.data.path.clone(),
                help: "make it with `lppf privatize --input counts.csv --output <path> …` (docs/own-data.md)".into(),
            });
        }
        let reader = if m.data.source == "counts" { Method::NonPrivate } else { Method::Private };
        let data = load(&m.data.path, reader, m.model.kind, &levels, false, &analysis::CountsFormat::default(), None)
            .map_err(|e| invalid(file, "data.path", format!("{:?}", m.data.path.display()), &e.to_string()))?;
        // The cells held out must leave at least one on each side (checked here, not at run time).
        heldout_count(&data, m.holdout.fraction).map_err(|e| {
            let allowed = match e {
                FitError::Setting { allowed, .. } => allowed,
                e => e.to_string(),
            };
            invalid(file, "holdout.fraction", m.holdout.fraction.to_string(), &allowed)
        })?;
        m.released = Some(Arc::new(data));
        Ok(m)
    }

    /// [`HeldOutManifest::parse`] without reading the release (to compare with a stored manifest).
    fn parse_settings(text: &str, file: &Path) -> Result<Self, ManifestError> {
        let mut m: HeldOutManifest = toml::from_str(text).map_err(|e| crate::manifest::parse_error(file, text, &e))?;
        m.text = text.to_string();
        m.experiment.validate(file, "held-out")?;
        let bad = |field, value: String, allowed: &str| Err(invalid(file, field, value, allowed));
        let counts = m.data.source == "counts";
        if m.data.source != "released" && !counts {
            return bad(
                "data.source",
                format!("{:?}", m.data.source),
                "\"released\" (a table made by lppf privatize) or \"counts\" (raw row,col,count)",
            );
        }
        if let (true, Some(a)) = (counts, m.data.alpha) {
            return bad("data.alpha", a.to_string(), "absent for raw counts (no noise)");
        }
        if let Some(a) = m.data.alpha.filter(|a| !(*a > 0.0 && *a < 1.0)) {
            return bad("data.alpha", a.to_string(), "a number in (0, 1)");
        }
        m.model.likelihood().resolve(file)?;
        let c = &m.model.components;
        if c.is_empty() || c.iter().any(|&k| k == 0 || k > MAX_COMPONENTS) || first_repeat(c).is_some() {
            return bad(
                "model.components",
                format!("{c:?}"),
                &format!("a non-empty list of distinct integers from 1 to {MAX_COMPONENTS}"),
            );
        }
        GammaPrior::new(m.model.a0, m.model.b0).map_err(|e| {
            invalid(file, "model.a0", format!("a0 = {}, b0 = {}", m.model.a0, m.model.b0), &e.to_string())
        })?;
        let f = &m.fit;
        let readable = |x: &Method| {
            if counts { matches!(x, Method::NonPrivate) } else { matches!(x, Method::Naive | Method::Private) }
        };
        if f.methods.is_empty() || !f.methods.iter().all(readable) || first_repeat(&f.methods).is_some() {
            let allowed = if counts {
                "[\"non-private\"] (the Gibbs method that reads raw counts)"
            } else {
                "a non-empty list of distinct methods that read released data: \"naive\", \"private\""
            };
            return bad(
                "fit.methods",
                format!("{:?}", f.methods.iter().map(|x| x.name()).collect::<Vec<_>>()),
                allowed,
            );
        }
        if f.chains == 0 || f.chains > MAX_CHAINS {
            return bad("fit.chains", f.chains.to_string(), &format!("an integer from 1 to {MAX_CHAINS}"));
        }
        m.model.likelihood().check_warm_up(file, "fit.dispersion_warm_up", f.dispersion_warm_up)?;
        if f.hamiltonian_move && !m.model.kind.has_hamiltonian_move() {
            return bad(
                "fit.hamiltonian_move",
                "true".into(),
                "true only for the directed block model (kind = \"block\"); absent or false otherwise",
            );
        }
        m.schedule().map_err(|e| {
            let field = match e.field {
                "iterations" => "fit.iterations",
                "burn_in" => "fit.burn_in",
                "dispersion_warm_up" => "fit.dispersion_warm_up",
                _ => "fit.thin",
            };
            invalid(file, field, e.value.to_string(), &e.allowed)
        })?;
        let h = &m.holdout;
        if !(h.fraction > 0.0 && h.fraction < 1.0) {
            return bad("holdout.fraction", h.fraction.to_string(), "a fraction in (0, 1)");
        }
        if h.replications == 0 || h.replications > MAX_REPLICATIONS {
            return bad(
                "holdout.replications",
                h.replications.to_string(),
                &format!("an integer from 1 to {MAX_REPLICATIONS}"),
            );
        }
        Ok(m)
    }

    fn schedule(&self) -> Result<Schedule, inference::ScheduleError> {
        let s = &self.fit;
        Schedule::new(s.iterations, s.burn_in, s.thin)?.with_dispersion_warm_up(s.dispersion_warm_up.unwrap_or(0))
    }

    fn output_dir(&self) -> PathBuf {
        self.experiment.output_dir()
    }

    /// The (replication, method, K) of unit `u` (replication-major, then method, then K).
    fn unit(&self, u: usize) -> (usize, Method, usize) {
        let (k, methods) = (self.model.components.len(), self.fit.methods.len());
        (u / (k * methods), self.fit.methods[(u / k) % methods], self.model.components[u % k])
    }
}

/// One fit's held-out score and convergence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOutRow {
    pub replication: usize,
    pub method: Method,
    pub components: usize,
    pub heldout_cells: usize,
    /// `Σ_n ln p(ỹ_n | rest)` over the held-out cells, all chains' samples pooled.
    pub log_predictive: f64,
    /// The lowest and highest single chain's score (the chain-to-chain spread).
    pub chain_min: f64,
    pub chain_max: f64,
    /// Split-R̂ and bulk ESS of the log joint and of the total rate.
    pub rhat_ln_joint: f64,
    pub ess_ln_joint: f64,
    pub rhat_total_rate: f64,
    pub ess_total_rate: f64,
    pub seconds: f64,
}

struct HeldOutSweep<'a>(&'a HeldOutManifest);

impl runner::Experiment for HeldOutSweep<'_> {
    type Unit = usize;
    type Row = HeldOutRow;

    fn output_dir(&self) -> PathBuf {
        self.0.output_dir()
    }

    /// The seed, the settings, and the table as it was read and checked by [`HeldOutManifest::parse`]
    /// (labels, values, noise levels): no second read of the files.
    fn identity(&self) -> String {
        let m = self.0;
        let mut h = crate::draws::identity_hasher();
        h.write(&m.experiment.seed.to_le_bytes());
        h.end_part();
        h.write(format!("{:?}", (&m.data, &m.model, &m.fit, &m.holdout)).as_bytes());
        h.end_part();
        if let Some(data) = &m.released {
            for name in data.rows.names.iter().chain(&data.cols.names) {
                h.write(name.as_bytes());
                h.end_part();
            }
            match &data.input {
                analysis::Input::Released { privatized, alphas, .. } => {
                    // As 64-bit values, so fingerprints match those made before the fit's data
                    // kept one 32-bit copy (issue 34).
                    privatized.values().iter().for_each(|&v| h.write(&i64::from(v).to_le_bytes()));
                    h.end_part();
                    alphas.iter().for_each(|a| h.write(&a.to_bits().to_le_bytes()));
                }
                analysis::Input::Counts { counts, .. } => counts.iter().for_each(|c| h.write(&c.to_le_bytes())),
            }
            h.end_part();
        }
        h.finish()
    }

    fn units(&self) -> Vec<usize> {
        (0..self.0.holdout.replications * self.0.fit.methods.len() * self.0.model.components.len()).collect()
    }

    fn unit_name(&self, u: usize) -> String {
        let (r, method, k) = self.0.unit(u);
        format!("r{r}-{}-k{k}", method.name())
    }

    fn unit_work(&self, _: usize) -> u64 {
        (self.0.fit.iterations * self.0.fit.chains) as u64
    }

    fn work_name(&self) -> &'static str {
        "iterations"
    }

    fn run_unit(&self, u: usize, progress: &(dyn Fn() + Sync)) -> Result<Vec<HeldOutRow>, runner::UnitError> {
        let m = self.0;
        let (r, method, k) = m.unit(u);
        let mut data = FitData::clone(m.released.as_ref().ok_or("the release was not read")?);
        let seed = m.experiment.seed;
        hold_out(&mut data, m.holdout.fraction, Streams::new(seed).child(r as u64))?;
        let method_id = Method::ALL.iter().position(|&x| x == method).unwrap_or(0) as u64;
        let settings = FitSettings {
            model: m.model.kind,
            components: k,
            prior: GammaPrior::new(m.model.a0, m.model.b0)?,
            scale: m.model.prior.scale(),
            likelihood: m.model.likelihood().model().map_err(|(_, _, allowed)| allowed)?,
            method,
            chains: m.fit.chains,
            algorithm: Algorithm::Gibbs(m.schedule()?),
            seed: stream_id(&[seed, r as u64, method_id, k as u64]),
            weighting: analysis::Weighting::Equal,
            replicas: 1,
            hamiltonian_move: m.fit.hamiltonian_move,
        };
        let result = fit_chains(&settings, &data, progress)?;
        let score = result.heldout.ok_or("no held-out score")?;
        let diagnostic = |name: &str| {
            let d = result.diagnostics.iter().find(|(n, _)| *n == name).map(|(_, d)| *d);
            (d.map_or(f64::NAN, |d| d.rhat), d.map_or(f64::NAN, |d| d.ess_bulk))
        };
        let ((rhat_ln_joint, ess_ln_joint), (rhat_total_rate, ess_total_rate)) =
            (diagnostic("ln_joint"), diagnostic("total_rate"));
        let fold = |f: fn(f64, f64) -> f64, start| score.per_chain.iter().copied().fold(start, f);
        Ok(vec![HeldOutRow {
            replication: r,
            method,
            components: k,
            heldout_cells: score.cells,
            log_predictive: score.log_predictive,
            chain_min: fold(f64::min, f64::INFINITY),
            chain_max: fold(f64::max, f64::NEG_INFINITY),
            rhat_ln_joint,
            ess_ln_joint,
            rhat_total_rate,
            ess_total_rate,
            seconds: result.seconds,
        }])
    }

    fn describe_unit(&self, u: usize) -> String {
        let (r, method, k) = self.0.unit(u);
        format!("replication {r}, {}, K = {k}", method.name())
    }

    fn describe_rows(&self, rows: &[HeldOutRow]) -> String {
        rows.iter()
            .map(|r| format!("held-out {:.1} (R̂ {:.3}, {:.1} s)", r.log_predictive, r.rhat_ln_joint, r.seconds))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// One line of the summary: a (method, K) over the replications, and against the first listed
/// method at the same K on the same masks (paired).
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOutLine {
    pub method: Method,
    pub components: usize,
    pub replications: usize,
    pub mean: f64,
    /// Sample sd over replications (`None` with one).
    pub sd: Option<f64>,
    pub per_cell: f64,
    /// The worst R̂ of the log joint over the replications.
    pub worst_rhat: f64,
    /// Mean and sd of (this − first method) over the replications, and how many it won.
    pub paired: Option<(f64, Option<f64>, usize)>,
}

/// The summary per (method, K), in manifest order.
pub fn heldout_summary(m: &HeldOutManifest, rows: &[HeldOutRow]) -> Vec<HeldOutLine> {
    let score = |method: Method, k: usize| -> Vec<(usize, f64, f64, usize)> {
        let mut v: Vec<_> = rows
            .iter()
            .filter(|r| r.method == method && r.components == k)
            .map(|r| (r.replication, r.log_predictive, r.rhat_ln_joint, r.heldout_cells))
            .collect();
        v.sort_by_key(|x| x.0);
        v
    };
    let first = m.fit.methods[0];
    let mut lines = Vec::new();
    for &method in &m.fit.methods {
        for &k in &m.model.components {
            let mine = score(method, k);
            if mine.is_empty() {
                continue;
            }
            let values: Vec<f64> = mine.iter().map(|x| x.1).collect();
            let (mean, sd) = results::mean_sd(&values);
            let cells: usize = mine.iter().map(|x| x.3).sum();
            // This − first on the same masks; a win is a higher log predictive.
            let paired = (method != first).then(|| {
                let theirs = score(first, k);
                let pairs: Vec<(f64, f64)> =
                    mine.iter().filter_map(|a| theirs.iter().find(|b| b.0 == a.0).map(|b| (a.1, b.1))).collect();
                results::paired(&pairs, false).map(|p| (p.mean, p.sd, p.wins))
            });
            lines.push(HeldOutLine {
                method,
                components: k,
                replications: mine.len(),
                mean,
                sd,
                per_cell: values.iter().sum::<f64>() / cells.max(1) as f64,
                worst_rhat: mine.iter().map(|x| x.2).fold(f64::NAN, f64::max),
                paired: paired.flatten(),
            });
        }
    }
    lines
}

/// The summary as printed text.
pub fn heldout_table_text(m: &HeldOutManifest, lines: &[HeldOutLine]) -> String {
    let first = m.fit.methods[0].name();
    let mut out = format!(
        "{:<10} {:>4} {:>14} {:>10} {:>9} {:>8}  paired vs {first}: mean of (this − {first}) ± sd (wins)\n",
        "method", "K", "held-out lp", "sd", "per cell", "worst R̂"
    );
    for l in lines {
        let sd = l.sd.map_or("-".into(), |s| format!("{s:.1}"));
        let paired = l.paired.map_or(String::new(), |(d, s, w)| {
            format!("{d:+.1} ± {} ({w}/{})", s.map_or("-".into(), |s| format!("{s:.1}")), l.replications)
        });
        out += &format!(
            "{:<10} {:>4} {:>14.1} {:>10} {:>9.4} {:>8.3}  {paired}\n",
            l.method.name(),
            l.components,
            l.mean,
            sd,
            l.per_cell,
            l.worst_rhat
        );
    }
    out += "higher is better; sd is over replications (hold-out masks and chains); a worst R̂ above 1.01 means some fit's chains disagree\n";
    out
}

/// results.parquet, summary.csv and the figure.
fn write_heldout_outputs(m: &HeldOutManifest, dir: &Path, rows: &[HeldOutRow]) -> Result<String, RunError> {
    let n = rows.len();
    let floats = |f: fn(&HeldOutRow) -> f64| Values::Float(rows.iter().map(|r| Some(f(r))).collect());
    let columns = [
        ("experiment", Values::Text(vec![m.experiment.name.clone(); n])),
        ("seed", Values::Int(vec![m.experiment.seed as i64; n])),
        ("model", Values::Text(vec![m.model.kind.name().to_string(); n])),
        ("replication", Values::Int(rows.iter().map(|r| r.replication as i64).collect())),
        ("method", Values::Text(rows.iter().map(|r| r.method.name().to_string()).collect())),
        ("components", Values::Int(rows.iter().map(|r| r.components as i64).collect())),
        ("heldout_cells", Values::Int(rows.iter().map(|r| r.heldout_cells as i64).collect())),
        ("heldout_log_predictive", floats(|r| r.log_predictive)),
        ("chain_min", floats(|r| r.chain_min)),
        ("chain_max", floats(|r| r.chain_max)),
        ("rhat_ln_joint", floats(|r| r.rhat_ln_joint)),
        ("ess_bulk_ln_joint", floats(|r| r.ess_ln_joint)),
        ("rhat_total_rate", floats(|r| r.rhat_total_rate)),
        ("ess_bulk_total_rate", floats(|r| r.ess_total_rate)),
        ("seconds", floats(|r| r.seconds)),
    ];
    write_table(&dir.join(RESULTS_FILE), &columns, &runner::results_metadata(dir, &m.text))?;
    runner::record_results_checksum(dir)?;
    let text = write_heldout_summary(m, dir, rows)?;
    write_heldout_figure(m, dir, rows)?;
    Ok(text)
}

fn write_heldout_summary(m: &HeldOutManifest, dir: &Path, rows: &[HeldOutRow]) -> Result<String, RunError> {
    let lines = heldout_summary(m, rows);
    let mut csv = String::from(
        "method,components,replications,mean_log_predictive,sd_log_predictive,log_predictive_per_cell,worst_rhat_ln_joint,paired_vs,paired_difference_mean,paired_difference_sd,paired_wins\n",
    );
    for l in &lines {
        let (d, s, w) = l.paired.map_or((None, None, None), |(d, s, w)| (Some(d), s, Some(w)));
        csv += &format!(
            "{},{},{},{:?},{},{:?},{:?},{},{},{},{}\n",
            l.method.name(),
            l.components,
            l.replications,
            l.mean,
            csv_opt(l.sd),
            l.per_cell,
            l.worst_rhat,
            if l.paired.is_some() { m.fit.methods[0].name() } else { "" },
            csv_opt(d),
            csv_opt(s),
            w.map_or(String::new(), |w| w.to_string())
        );
    }
    write_atomic(&dir.join(SUMMARY_FILE), csv.as_bytes())?;
    Ok(heldout_table_text(m, &lines))
}

/// Held-out log predictive per cell against K, one curve per method (± sd over replications).
fn write_heldout_figure(m: &HeldOutManifest, dir: &Path, rows: &[HeldOutRow]) -> Result<(), RunError> {
    let lines = heldout_summary(m, rows);
    let cells = rows.first().map_or(1, |r| r.heldout_cells.max(1)) as f64;
    let curves = m
        .fit
        .methods
        .iter()
        .map(|&method| {
            let points = lines
                .iter()
                .filter(|l| l.method == method)
                .map(|l| (l.components as f64, l.mean / cells, l.sd.unwrap_or(0.0) / cells))
                .collect();
            Curve::new(method.name(), points)
        })
        .collect();
    let panels =
        [CurvePanel { caption: format!("{} model, {} held out", m.model.kind.name(), m.holdout.fraction), curves }];
    let labels = CurveLabels {
        x: "components K".into(),
        y: "held-out log predictive per cell".into(),
        y_from_zero: false,
        log_x: false,
        log_y: false,
        note: Some(format!(
            "mean ± sd over {} hold-out masks (the sd mixes mask and chain noise); higher is better",
            m.holdout.replications
        )),
    };
    let title = format!("{}: choosing K on released data", m.experiment.name);
    write_figure(dir, |svg, png| plot_curves(&panels, &labels, &title, Some(svg), Some(png)))
}

/// The held-out kind's entry of [`crate::registry::KINDS`].
pub(crate) fn parse_loaded(text: &str, file: &Path) -> Result<Box<dyn Loaded>, ManifestError> {
    Ok(Box::new(HeldOutManifest::parse(text, file)?))
}

impl Loaded for HeldOutManifest {
    fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    fn cost(&self) -> Option<crate::Cost> {
        let data = self.released.as_ref()?;
        let schedule = self.schedule().ok()?;
        let heldout = heldout_count(data, self.holdout.fraction).ok()?;
        let fits = (self.holdout.replications * self.fit.methods.len() * self.model.components.len()) as f64;
        let threads = rayon::current_num_threads();
        let mut cost = crate::Cost {
            bytes: 0.0,
            threads,
            units: fits,
            entry_component_sweeps: 0.0,
            core_seconds: 0.0,
            work: "cell-component sweeps",
            caveat: None,
        };
        for &k in &self.model.components {
            let settings = FitSettings {
                model: self.model.kind,
                components: k,
                prior: GammaPrior::new(self.model.a0, self.model.b0).ok()?,
                scale: self.model.prior.scale(),
                likelihood: self.model.likelihood().model().ok()?,
                method: Method::Private,
                chains: self.fit.chains,
                algorithm: Algorithm::Gibbs(schedule),
                seed: 0,
                weighting: analysis::Weighting::Equal,
                replicas: 1,
                hamiltonian_move: self.fit.hamiltonian_move,
            };
            let fit = analysis::fit_cost(&settings, data.shape(), heldout, analysis::Machine::this());
            let per_k = fits / self.model.components.len() as f64;
            cost.bytes = cost.bytes.max(fit.bytes * (threads as f64).min(fits));
            cost.core_seconds += fit.core_seconds * per_k;
            cost.entry_component_sweeps += fit.cell_component_sweeps * per_k;
        }
        Some(cost)
    }

    fn validation_summary(&self) -> String {
        let (rows, cols) = self.released.as_ref().map_or((0, 0), |d| d.shape());
        let cost = self.cost().map_or(String::new(), |c| format!("; {}", c.describe()));
        format!(
            "valid held-out manifest — {} × {} {} cells, {} fits ({} replications × {} methods × {} K), {} chains × {} iterations each{cost}",
            rows,
            cols,
            if self.data.source == "counts" { "raw-count" } else { "released" },
            self.holdout.replications * self.fit.methods.len() * self.model.components.len(),
            self.holdout.replications,
            self.fit.methods.len(),
            self.model.components.len(),
            self.fit.chains,
            self.fit.iterations
        )
    }

    fn claim(&self, force: bool) -> Result<runner::DirLock, runner::RunnerError> {
        let same = |stored: &str| {
            HeldOutManifest::parse_settings(stored, Path::new(crate::outputs::MANIFEST_FILE)).is_ok_and(|p| p == *self)
        };
        runner::claim(&self.output_dir(), &self.text, self.experiment.description.as_deref(), same, force)
    }

    fn run(&self, options: RunOptions, progress: &dyn Progress) -> Result<(usize, Option<String>), ExperimentError> {
        let sweep = HeldOutSweep(self);
        let rows = runner::run(&sweep, options, &ProgressObserver { experiment: &sweep, progress })?;
        if options.shard.is_some() {
            return Ok((rows.len(), None));
        }
        let text = write_heldout_outputs(self, &self.output_dir(), &rows)?;
        Ok((rows.len(), Some(text)))
    }

    fn missing_units(&self) -> Vec<String> {
        runner::missing_units(&HeldOutSweep(self))
    }

    fn summarize(&self, dir: &Path) -> Result<String, ExperimentError> {
        let rows = runner::collect(&HeldOutSweep(self), dir)?;
        Ok(write_heldout_summary(self, dir, &rows)?)
    }

    fn plot(&self, dir: &Path, log_y: bool) -> Result<(), ExperimentError> {
        no_log_y(log_y, "held-out")?;
        let rows = runner::collect(&HeldOutSweep(self), dir)?;
        Ok(write_heldout_figure(self, dir, &rows)?)
    }
}
