//! What a tensor fit (counts over time, `--model tensor`) reports: each component's rows, columns
//! and times in `summary.txt`, and the figure of the components' time profiles.
//!
//! A component `k` of `μ_ijt = Σ_k θ_ik φ_jk ψ_tk` expects `Θ_k Φ_k ψ_tk` counts at time `t`
//! (`Θ_k = Σ_i θ_ik`, `Φ_k = Σ_j φ_jk`): its time profile, on the scale of the counts.

use crate::chains::FitResult;
use crate::data::FitData;
use crate::report::{FigureMatrix, TOP, TOP_ROWS, bin_labels, factor, top};
use crate::settings::FitSettings;
use models::MeanMatrix;
use std::fmt::Write;

/// The times listed per component in the summary.
const TOP_TIMES: usize = 3;

/// `θ`, `φ` and `ψ` of a tensor fit, and each component's expected counts at each time
/// (`K × T`, component-major), if the fit has them.
struct Profiles<'a> {
    theta: &'a MeanMatrix,
    phi: &'a MeanMatrix,
    psi: &'a MeanMatrix,
    /// `Θ_k Φ_k ψ_tk` at `[k·T + t]`.
    expected: Vec<f64>,
}

impl<'a> Profiles<'a> {
    fn of(result: &'a FitResult) -> Option<Self> {
        let (theta, phi, psi) = (factor(result, "theta")?, factor(result, "phi")?, factor(result, "psi")?);
        let k = theta.cols;
        let sum = |m: &MeanMatrix, c: usize| (0..m.rows).map(|i| m.values[i * k + c]).sum::<f64>();
        let expected = (0..k)
            .flat_map(|c| (0..psi.rows).map(move |t| (c, t)))
            .map(|(c, t)| sum(theta, c) * sum(phi, c) * psi.values[t * k + c]);
        Some(Self { theta, phi, psi, expected: expected.collect() })
    }

    fn components(&self) -> usize {
        self.theta.cols
    }

    /// Each component's expected counts over all times.
    fn weights(&self) -> Vec<f64> {
        self.expected.chunks_exact(self.psi.rows.max(1)).map(|p| p.iter().sum()).collect()
    }
}

/// Each component, by expected share of all counts: its top rows (by `θ`), columns (by `φ`) and
/// times (by `ψ`).
pub(crate) fn tensor_summary(s: &mut String, data: &FitData, result: &FitResult, source: &str) {
    let (Some(p), Some(axes)) = (Profiles::of(result), &data.axes) else { return };
    let k = p.components();
    let weights = p.weights();
    let total: f64 = weights.iter().sum();
    let _ = writeln!(s, "\ncomponents (from {source}), by expected share of all counts; top rows, columns and times:");
    for (rank, (c, w)) in top(weights.iter().copied(), k).into_iter().enumerate() {
        let names = |m: &MeanMatrix, n: usize, labels: &[String]| -> String {
            let best = top((0..m.rows).map(|i| m.values[i * k + c]), n);
            best.iter().map(|&(i, _)| labels[i].as_str()).collect::<Vec<_>>().join(", ")
        };
        let share = if total > 0.0 { 100.0 * w / total } else { 0.0 };
        let _ = writeln!(
            s,
            "  {:>2}. (component {c}, {share:.1} %): rows {}  — columns {}  — peak times {}",
            rank + 1,
            names(p.theta, TOP_ROWS, &data.rows.names),
            names(p.phi, TOP, &axes.cols.names),
            names(p.psi, TOP_TIMES, &axes.times.names),
        );
    }
}

/// The figure: each component's expected counts at each time, `ln(1 + Θ_k Φ_k ψ_tk)`,
/// components (rows) by expected share, times (columns) in the grid's order.
pub(crate) fn time_profile_figure(settings: &FitSettings, data: &FitData, result: &FitResult) -> Option<FigureMatrix> {
    let (p, axes) = (Profiles::of(result)?, data.axes.as_ref()?);
    let (k, t_count) = (p.components(), p.psi.rows);
    let order: Vec<usize> = top(p.weights().into_iter(), k).into_iter().map(|(c, _)| c).collect();
    let values: Vec<f64> =
        order.iter().flat_map(|&c| p.expected[c * t_count..(c + 1) * t_count].iter().map(|x| x.ln_1p())).collect();
    let names: Vec<&String> = axes.times.names.iter().collect();
    let title = format!("{}: components' time profiles (K = {})", settings.method.name(), settings.components);
    Some(FigureMatrix {
        values,
        rows: k,
        cols: t_count,
        text: [title, "time".into(), "component, by share of all counts".into(), "ln(1 + expected counts)".into()],
        ticks: [bin_labels(&names, t_count), order.iter().map(|c| c.to_string()).collect()],
        breaks: [Vec::new(), Vec::new()],
    })
}
