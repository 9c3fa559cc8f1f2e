//! The files a fit writes to its directory, each atomically.

use crate::chains::{FitResult, FitSettings};
use crate::data::FitData;
use crate::error::FitError;
use crate::report::{figure_matrix, summary_text, warnings};
use crate::totals::total_check;
use inference::Algorithm;
use results::{
    CheckPanel, HeatmapText, TopicPanel, Values, plot_checks, plot_heatmaps, write_atomic, write_table,
    write_table_parts,
};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Every file [`write_outputs`] writes.
pub const OUTPUT_FILES: [&str; 10] = [
    "rates.parquet",
    "factors.parquet",
    "trace.parquet",
    "diagnostics.csv",
    "checks.csv",
    "partition.csv",
    "fit.toml",
    "summary.txt",
    "figure.svg",
    "figure.png",
];

/// The figure of the posterior predictive checks, written beside [`OUTPUT_FILES`] by fits that
/// have checks (Gibbs fits of released data).
pub const CHECK_FIGURES: [&str; 2] = ["checks.svg", "checks.png"];
/// Their stem.
const CHECKS_STEM: &str = "checks";

/// The prior of a learned dispersion shape (`None` when it is given or the model Poisson).
fn dispersion_prior(settings: &FitSettings) -> Option<models::GammaPrior> {
    match settings.likelihood.dispersion() {
        Some(models::Dispersion::Learned(prior)) => Some(prior),
        _ => None,
    }
}

/// The quantiles of a learned dispersion shape (`None` when it is given or the model Poisson).
fn learned_dispersion(settings: &FitSettings, result: &FitResult) -> Option<[f64; 3]> {
    dispersion_prior(settings).and(result.dispersion_quantiles)
}

/// `fit.toml`: every setting, the input, the software, the seed and the headline numbers.
#[derive(Serialize)]
struct FitRecord<'a> {
    software: String,
    input: String,
    rows: usize,
    cols: usize,
    noise_levels: Option<&'a str>,
    /// Set when the levels given (`--alpha`, `--alpha-file`) contradict the release's sidecar and
    /// `--override-sidecar` was passed: what was overridden.
    #[serde(skip_serializing_if = "Option::is_none")]
    overrides_sidecar: Option<&'a str>,
    model: &'a str,
    components: usize,
    a0: f64,
    b0: f64,
    /// `"flat"` or `"hierarchical"` (then `b0` is unused and the rates' prior is given).
    prior: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale_shape: Option<f64>,
    /// `b'`: the rates' prior mean, or with `scale_mean_learned` the centre of `κ`'s prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    scale_mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale_mean_learned: Option<bool>,
    /// `"poisson"`, `"negative-binomial"` or `"contaminated"`.
    likelihood: &'a str,
    /// The dispersion shape `r` when given (absent: learned, or Poisson).
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion: Option<f64>,
    /// A learned `r`: its prior `Gamma(shape, rate)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_prior_shape: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_prior_rate: Option<f64>,
    /// A learned `r`: the first sweeps of each chain in which it was held at
    /// `inference::WARM_UP_DISPERSION`.
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_warm_up: Option<usize>,
    /// A learned `r`: the 5 %, 50 % and 95 % quantiles over the kept samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_q05: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_q50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dispersion_q95: Option<f64>,
    /// The contaminated likelihood: the 5 %, 50 % and 95 % quantiles of the share `π` of
    /// overdispersed cells over the kept samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    overdispersed_share_q05: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    overdispersed_share_q50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    overdispersed_share_q95: Option<f64>,
    method: &'a str,
    chains: usize,
    seed: u64,
    seed_source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    iterations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    burn_in: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thin: Option<usize>,
    /// The private method's step: `"augmented"` or `"collapsed"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    private_step: Option<&'static str>,
    /// Where each Gibbs chain started: `"prior"` or `"cavi"` (with its fits and iterations).
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<&'static str>,
    /// `--until-mixed`: the sweeps per chain of each run, the last the one reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    run_lengths: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_fits: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_iterations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_iterations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tolerance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    holdout: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heldout_cells: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heldout_log_predictive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heldout_log_predictive_per_chain: Option<Vec<f64>>,
    /// Chains scored by PSIS-LOO (stacking without held-out cells): the cells scored, each
    /// chain's LOO log predictive, the mixture's, and the share of unreliable (`k̂ > 0.7`) estimates.
    #[serde(skip_serializing_if = "Option::is_none")]
    loo_cells: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loo_log_predictive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loo_log_predictive_per_chain: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loo_unreliable_share: Option<f64>,
    /// `"equal"` or `"stacking"`, and each chain's weight in the means, sds and intervals.
    weighting: &'a str,
    chain_weights: Vec<f64>,
    /// Several Gibbs chains: `"mixed"`, `"unsettled"` (slow mixing within chains), `"modes"`
    /// (settled in different modes) or `"unsettled-and-modes"`, and the chains of each mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    convergence: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modes: Option<Vec<Vec<usize>>>,
    /// The chains grouped by how they cluster the rows (label-invariant).
    #[serde(skip_serializing_if = "Option::is_none")]
    co_clustering_modes: Option<Vec<Vec<usize>>>,
    /// Replica exchange: replicas per chain, and each chain's final ladder and swap rates.
    replicas: usize,
    /// The directed block model's Hamiltonian move after each sweep: written for that model's
    /// Gibbs fits (on or off), absent where the move does not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    hamiltonian_move: Option<bool>,
    /// With it: each chain's adapted step size and mean acceptance over the kept sweeps.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hamiltonian_steps: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hamiltonian_acceptance: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ladders: Vec<Vec<f64>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    swap_rates: Vec<Vec<f64>>,
    /// Released data: the table's true total estimated from the release alone (`Σ ỹ` over the
    /// modelled cells) and its 90 % interval, which needs no model (`analysis::totals`).
    #[serde(skip_serializing_if = "Option::is_none")]
    true_total_from_release: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    true_total_q05: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    true_total_q95: Option<f64>,
    /// Gibbs: the 5 % and 95 % quantiles of the total rate over the kept samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    total_rate_q05: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_rate_q95: Option<f64>,
    /// A private Gibbs fit: the 5 % and 95 % quantiles of the table's own total `Σ y` (the true
    /// counts drawn given the release).
    #[serde(skip_serializing_if = "Option::is_none")]
    total_count_q05: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_count_q95: Option<f64>,
    /// The "no structure" verdict: the independence model's held-out score, Δ and its se; beside
    /// it, the cells, Δ and se of the comparison with the PSIS-LOO cells added (not the verdict).
    #[serde(skip_serializing_if = "Option::is_none")]
    independence_log_predictive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_difference: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_difference_se: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_with_loo_cells: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_with_loo_difference: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_with_loo_difference_se: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure: Option<bool>,
    /// The test of the release: its decision, p-value, statistic `T`, bootstrap tables, groups and
    /// the null's NB shape (absent: Poisson).
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_in_release: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_test_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_test_statistic: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_test_replicates: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_test_groups: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structure_test_dispersion: Option<f64>,
    /// The total check (released data): Σ ỹ, Σ μ̂ and their gap in sd.
    #[serde(skip_serializing_if = "Option::is_none")]
    released_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fitted_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_gap_sd: Option<f64>,
    factors_from_chain: usize,
    seconds: f64,
    warnings: Vec<String>,
}

/// Writes every file of [`OUTPUT_FILES`] to `dir` (which must exist). `seed_source` says where
/// the seed came from; `holdout` is the fraction asked for.
pub fn write_outputs(
    dir: &Path,
    settings: &FitSettings,
    data: &FitData,
    result: &FitResult,
    seed_source: &str,
    holdout: Option<f64>,
) -> Result<(), FitError> {
    let (rows, cols) = data.shape();
    // rates.parquet: every modelled cell, by label, written a block of rows at a time (about 2¹⁸
    // cells), so its memory stays small however large the grid.
    let sd = result.sd_rates.as_ref();
    let cell_rates = result.cell_rates.as_ref();
    let rows_per_part = ((1 << 18) / cols.max(1)).max(1);
    write_table_parts(&dir.join("rates.parquet"), &[("lppf.method", settings.method.name().to_string())], |part| {
        if part > 0 && part * rows_per_part >= rows {
            return Ok(None);
        }
        let first = (part * rows_per_part).min(rows) * cols;
        let end = ((part + 1) * rows_per_part).min(rows) * cols;
        let cells: Vec<usize> = (first..end).filter(|&n| data.is_modelled(n)).collect();
        let mut columns =
            vec![("row", Values::Text(cells.iter().map(|&n| data.rows.names[n / cols].clone()).collect()))];
        // Counts over time: the grid column's column and time labels apart.
        match &data.axes {
            Some(axes) => {
                let split = |n: usize| axes.split(n % cols);
                columns
                    .push(("col", Values::Text(cells.iter().map(|&n| axes.cols.names[split(n).0].clone()).collect())));
                columns.push((
                    "time",
                    Values::Text(cells.iter().map(|&n| axes.times.names[split(n).1].clone()).collect()),
                ));
            }
            None => {
                columns.push(("col", Values::Text(cells.iter().map(|&n| data.cols.names[n % cols].clone()).collect())))
            }
        }
        columns.extend([
            ("mean", Values::Float(cells.iter().map(|&n| Some(result.mean_rates[n])).collect())),
            ("sd", Values::Float(cells.iter().map(|&n| sd.map(|s| s[n])).collect())),
            // The cell's rate in this table: `E[μδ]` with its own multiplier; `mean` without one.
            (
                "cell_mean",
                Values::Float(cells.iter().map(|&n| Some(cell_rates.map_or(result.mean_rates[n], |c| c[n]))).collect()),
            ),
            ("heldout", Values::Int(cells.iter().map(|n| i64::from(data.heldout.binary_search(n).is_ok())).collect())),
        ]);
        Ok(Some(columns))
    })?;
    // factors.parquet: tidy (matrix, label, component, value).
    let (mut matrix, mut labels, mut component, mut value) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (m, layout) in result.factors.iter().zip(settings.model.factors()) {
        for i in 0..m.rows {
            for j in 0..m.cols {
                // θ: a row label and a component; φ: a component and a column label (the tensor's:
                // a column label and a component); ψ: a time label and a component; π: two
                // components (the label is the second).
                let second_mode = data.axes.as_ref().map_or(&data.cols, |a| &a.cols);
                let (l, k) = match (layout.rows, layout.cols) {
                    (models::Axis::Rows, _) => (data.rows.names[i].clone(), j),
                    (_, models::Axis::Cols) => (data.cols.names[j].clone(), i),
                    (models::Axis::Cols, _) => (second_mode.names[i].clone(), j),
                    (models::Axis::Times, _) => {
                        (data.axes.as_ref().map_or_else(|| i.to_string(), |a| a.times.names[i].clone()), j)
                    }
                    _ => (j.to_string(), i),
                };
                matrix.push(m.name.to_string());
                labels.push(l);
                component.push(k as i64);
                value.push(Some(m.values[i * m.cols + j]));
            }
        }
    }
    write_table(
        &dir.join("factors.parquet"),
        &[
            ("matrix", Values::Text(matrix)),
            ("label", Values::Text(labels)),
            ("component", Values::Int(component)),
            ("value", Values::Float(value)),
        ],
        &[("lppf.factors_from_chain", result.factors_chain.to_string())],
    )?;
    // trace.parquet: one row per chain and kept iteration.
    let gibbs = matches!(settings.algorithm, Algorithm::Gibbs(_));
    let (mut chain, mut iteration, mut trace, mut total) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut dispersion, mut share, mut ln_lik, mut structure) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (c, t) in result.traces.iter().enumerate() {
        for (i, (&it, &v)) in t.iterations.iter().zip(&t.values).enumerate() {
            chain.push(c as i64);
            iteration.push(it as i64);
            trace.push(Some(v));
            total.push(t.total_rate.get(i).copied());
            dispersion.push(t.dispersion.get(i).copied());
            share.push(t.share.get(i).copied());
            ln_lik.push(t.ln_lik.get(i).copied());
            structure.push(t.structure.get(i).copied());
        }
    }
    let mut columns = vec![
        ("chain", Values::Int(chain)),
        ("iteration", Values::Int(iteration)),
        (if gibbs { "ln_joint" } else { "elbo" }, Values::Float(trace)),
        ("total_rate", Values::Float(total)),
    ];
    // The marginal log-likelihood of the scored cells and the structure's agreement with the
    // point estimate, what convergence is judged on.
    if result.traces.iter().any(|t| !t.ln_lik.is_empty()) {
        columns.push(("ln_lik", Values::Float(ln_lik)));
    }
    if result.traces.iter().any(|t| !t.structure.is_empty()) {
        columns.push(("structure", Values::Float(structure)));
    }
    // The dispersion shape r of each kept sample, and the contaminated likelihood's share π.
    if result.traces.iter().any(|t| !t.dispersion.is_empty()) {
        columns.push(("dispersion", Values::Float(dispersion)));
    }
    if result.traces.iter().any(|t| !t.share.is_empty()) {
        columns.push(("overdispersed_share", Values::Float(share)));
    }
    write_table(&dir.join("trace.parquet"), &columns, &[])?;
    // diagnostics.csv
    let mut csv = String::from("quantity,rhat,ess_bulk,ess_tail,chains,draws_per_chain,flag\n");
    for (name, d) in &result.diagnostics {
        let flag = d.warnings(settings.chains).join("; ").replace(',', ";");
        let draws = result.traces.first().map_or(0, |t| t.values.len());
        let _ = writeln!(csv, "{name},{},{},{},{},{draws},{flag}", d.rhat, d.ess_bulk, d.ess_tail, settings.chains);
    }
    if !gibbs {
        for (c, t) in result.traces.iter().enumerate() {
            let converged = if t.converged == Some(true) { "" } else { "not converged" };
            let elbo = t.values.last().copied().unwrap_or(f64::NAN);
            let _ = writeln!(
                csv,
                "final_elbo_start_{c},,,,{},{},{converged} (ELBO {elbo})",
                settings.chains,
                t.values.len()
            );
        }
    }
    write_atomic(&dir.join("diagnostics.csv"), csv.as_bytes())?;
    // partition.csv: the label-invariant groups of the rows (header only without them).
    let mut groups = csv::Writer::from_writer(Vec::new());
    let csv_error = |e: csv::Error| FitError::Output(format!("partition.csv: {e}"));
    groups.write_record(["row", "group", "co_clustering"]).map_err(csv_error)?;
    if let Some(p) = &result.partition {
        for (i, (&g, &co)) in p.group.iter().zip(&p.co).enumerate() {
            let co = if co.is_nan() { String::new() } else { co.to_string() };
            groups.write_record([data.rows.names[i].as_str(), &(g + 1).to_string(), &co]).map_err(csv_error)?;
        }
    }
    let groups = groups.into_inner().map_err(|e| FitError::Output(format!("partition.csv: {e}")))?;
    write_atomic(&dir.join("partition.csv"), &groups)?;
    // checks.csv: the posterior predictive checks on the release (header only without them).
    let mut checks =
        String::from("statistic,observed,replicated_mean,replicated_sd,p_value,replications,flag,flagged_tail\n");
    for c in &result.checks {
        let flag = if c.extreme() { "extreme" } else { "" };
        let _ = writeln!(
            checks,
            "{},{},{},{},{},{},{flag},{}",
            c.statistic,
            c.observed,
            c.replicated_mean,
            c.replicated_sd,
            c.p_value,
            c.replications,
            c.tail.name()
        );
    }
    write_atomic(&dir.join("checks.csv"), checks.as_bytes())?;
    // fit.toml
    let (iterations, burn_in, thin, max_iterations, tolerance) = match settings.algorithm {
        Algorithm::Gibbs(s) => (Some(s.iterations()), Some(s.burn_in()), Some(s.thin()), None, None),
        Algorithm::Cavi(c) => (None, None, None, Some(c.max_iterations()), Some(c.tolerance())),
    };
    let check = total_check(data, result);
    let release = result.release_total;
    // Where the Gibbs chains started, with a CAVI start's fits and iterations.
    let gibbs_start = match settings.algorithm {
        Algorithm::Gibbs(s) => Some(s.start()),
        Algorithm::Cavi(_) => None,
    };
    let (start_fits, start_iterations) = match gibbs_start {
        Some(inference::Start::Cavi { fits, iterations }) => (Some(fits), Some(iterations)),
        _ => (None, None),
    };
    let record = FitRecord {
        software: format!("lppf {}", env!("CARGO_PKG_VERSION")),
        input: data.file.display().to_string(),
        rows,
        cols,
        noise_levels: data.levels.as_deref(),
        overrides_sidecar: data.overrides_sidecar.as_deref(),
        model: settings.model.name(),
        components: settings.components,
        a0: settings.prior.shape(),
        b0: settings.prior.rate(),
        prior: if settings.scale.is_some() { "hierarchical" } else { "flat" },
        scale_shape: settings.scale.map(|s| s.shape()),
        scale_mean: settings.scale.map(|s| s.mean()),
        scale_mean_learned: settings.scale.map(|s| s.learns_mean()),
        likelihood: settings.likelihood.name(),
        dispersion: match settings.likelihood.dispersion() {
            Some(models::Dispersion::Given(r)) => Some(r),
            _ => None,
        },
        dispersion_prior_shape: dispersion_prior(settings).map(|p| p.shape()),
        dispersion_prior_rate: dispersion_prior(settings).map(|p| p.rate()),
        dispersion_warm_up: match settings.algorithm {
            Algorithm::Gibbs(s) if dispersion_prior(settings).is_some() => Some(s.dispersion_warm_up()),
            _ => None,
        },
        dispersion_q05: learned_dispersion(settings, result).map(|q| q[0]),
        dispersion_q50: learned_dispersion(settings, result).map(|q| q[1]),
        dispersion_q95: learned_dispersion(settings, result).map(|q| q[2]),
        overdispersed_share_q05: result.share_quantiles.map(|q| q[0]),
        overdispersed_share_q50: result.share_quantiles.map(|q| q[1]),
        overdispersed_share_q95: result.share_quantiles.map(|q| q[2]),
        method: settings.method.name(),
        chains: settings.chains,
        seed: settings.seed,
        seed_source,
        iterations,
        burn_in,
        thin,
        private_step: match settings.algorithm {
            Algorithm::Gibbs(s) if settings.method == inference::Method::Private => Some(s.private_step().name()),
            _ => None,
        },
        run_lengths: result.lengths.clone(),
        start: gibbs_start.map(inference::Start::name),
        start_fits,
        start_iterations,
        max_iterations,
        tolerance,
        holdout,
        heldout_cells: result.heldout.as_ref().map(|h| h.cells),
        heldout_log_predictive: result.heldout.as_ref().map(|h| h.log_predictive),
        heldout_log_predictive_per_chain: result.heldout.as_ref().map(|h| h.per_chain.clone()),
        loo_cells: result.loo.as_ref().map(|l| l.cells),
        loo_log_predictive: result.loo.as_ref().map(|l| l.log_predictive),
        loo_log_predictive_per_chain: result.loo.as_ref().map(|l| l.per_chain.clone()),
        loo_unreliable_share: result.loo.as_ref().map(|l| l.unreliable_share),
        weighting: result.weighting.name(),
        chain_weights: result.weights.clone(),
        convergence: result.assessment.as_ref().map(|a| a.verdict.name()),
        modes: result.assessment.as_ref().map(|a| a.modes.clone()),
        co_clustering_modes: result.co_clustering_modes.clone(),
        replicas: settings.replicas,
        hamiltonian_move: settings.move_applies().then_some(settings.hamiltonian_move),
        hamiltonian_steps: result.traces.iter().filter_map(|t| t.hamiltonian.map(|h| h.0)).collect(),
        hamiltonian_acceptance: result.traces.iter().filter_map(|t| t.hamiltonian.map(|h| h.1)).collect(),
        ladders: result.traces.iter().filter(|t| !t.ladder.is_empty()).map(|t| t.ladder.clone()).collect(),
        swap_rates: result.traces.iter().filter(|t| !t.ladder.is_empty()).map(|t| t.swap_rates.clone()).collect(),
        true_total_from_release: release.map(|t| t.released),
        true_total_q05: release.map(|t| t.interval.0),
        true_total_q95: release.map(|t| t.interval.1),
        total_rate_q05: result.total_rate_interval.map(|i| i.0),
        total_rate_q95: result.total_rate_interval.map(|i| i.1),
        total_count_q05: result.total_count_interval.map(|i| i.0),
        total_count_q95: result.total_count_interval.map(|i| i.1),
        independence_log_predictive: result.verdict.as_ref().map(|v| v.independence_log_predictive),
        structure_difference: result.verdict.as_ref().map(|v| v.difference),
        structure_difference_se: result.verdict.as_ref().map(|v| v.se),
        structure_with_loo_cells: result.verdict.as_ref().and_then(|v| v.with_loo.map(|w| w.0)),
        structure_with_loo_difference: result.verdict.as_ref().and_then(|v| v.with_loo.map(|w| w.1)),
        structure_with_loo_difference_se: result.verdict.as_ref().and_then(|v| v.with_loo.map(|w| w.2)),
        structure: result.verdict.as_ref().map(crate::Verdict::structure),
        structure_in_release: result.structure_test.map(|t| t.structure()),
        structure_test_p: result.structure_test.map(|t| t.p_value),
        structure_test_statistic: result.structure_test.map(|t| t.statistic),
        structure_test_replicates: result.structure_test.map(|t| t.replicates),
        structure_test_groups: result.structure_test.map(|t| t.groups),
        structure_test_dispersion: result.structure_test.and_then(|t| t.dispersion),
        released_total: check.map(|t| t.released_total),
        fitted_total: check.map(|t| t.fitted_total),
        total_gap_sd: check.map(|t| t.gap()),
        factors_from_chain: result.factors_chain,
        seconds: result.seconds,
        warnings: warnings(settings, data, result),
    };
    let text = toml::to_string(&record).map_err(|e| FitError::Output(format!("fit.toml: {e}")))?;
    write_atomic(
        &dir.join("fit.toml"),
        format!("# lppf fit: the settings and headline numbers of this fit\n{text}").as_bytes(),
    )?;
    write_atomic(&dir.join("summary.txt"), summary_text(settings, data, result).as_bytes())?;
    // checks.svg / checks.png: the predictive checks (fits that have them).
    if !result.checks.is_empty() {
        let panels: Vec<CheckPanel> = result
            .checks
            .iter()
            .map(|c| CheckPanel {
                caption: format!(
                    "{}  p = {:.3}{}",
                    c.statistic,
                    c.p_value,
                    if c.extreme() { " (flagged)" } else { "" }
                ),
                replicated: c.replicated.clone(),
                observed: c.observed,
                flagged: c.extreme(),
            })
            .collect();
        let title = format!(
            "{}: posterior predictive checks on the release (grey: replicated releases; line: the release)",
            settings.method.name()
        );
        runner::write_figure(dir, CHECKS_STEM, |svg, png| plot_checks(&panels, 3, &title, Some(svg), Some(png)))
            .map_err(|e| FitError::Output(e.to_string()))?;
    }
    // figure.svg / figure.png, through temporary names renamed into place.
    if let Some(figure) = figure_matrix(settings, data, result) {
        let [title, x, y, scale] = &figure.text;
        let (r, c) = (figure.rows, figure.cols);
        let text = HeatmapText {
            title,
            x,
            y,
            scale,
            x_ticks: &figure.ticks[0],
            y_ticks: &figure.ticks[1],
            x_breaks: &figure.breaks[0],
            y_breaks: &figure.breaks[1],
        };
        let height = if r == c { 700 } else { (r as u32 * 14).clamp(150, 700) };
        let panel = [TopicPanel { label: String::new(), topics: figure.values }];
        runner::write_figure(dir, "figure", |svg, png| {
            plot_heatmaps(&panel, (r, c), &text, height, Some(svg), Some(png))
        })
        .map_err(|e| FitError::Output(e.to_string()))?;
    }
    Ok(())
}
