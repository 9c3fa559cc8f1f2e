//! `lppf recovery`: the paper's recovery figure (Fig. 1 for a topic model, Fig. 3 for the block
//! model) of one data set of a manifest — the true data and parameters in the first column, then
//! for each noise level the privatized data (red positive, blue negative) above every method's
//! estimate. Refits that data set with the sweep's streams, so the errors printed in the panel
//! labels equal the results' `topic_error` and `mean_kl`.

use crate::{Failure, bad_input, failed};
use pipeline::{Estimate, ModelKind, Recovery, load, recovery};
use results::{GridPanel, PanelGrid, Shading, count_scale, level_scale, plot_panel_grid};
use std::path::{Path, PathBuf};

/// Which data set and where the figure goes.
#[derive(clap::Args)]
pub struct RecoveryArgs {
    /// A manifest of the factorization kind, e.g. experiments/fig1-topics.toml.
    manifest: PathBuf,
    /// The replication (data set) to draw.
    #[arg(long, default_value_t = 0)]
    replication: usize,
    /// The index on the manifest's e0 axis (semi-synthetic designs).
    #[arg(long, default_value_t = 0)]
    e0_index: usize,
    /// The PNG to write (an SVG is written beside it); default <output>/recovery.png.
    #[arg(long)]
    output: Option<PathBuf>,
}

pub fn recovery_figure(args: &RecoveryArgs) -> Result<(), Failure> {
    let m = load(&args.manifest).map_err(bad_input)?;
    let datasets = m.datasets();
    let dataset = datasets
        .iter()
        .find(|d| d.replication == args.replication && d.e0_index == args.e0_index)
        .ok_or_else(|| {
            let e0s = datasets.iter().map(|d| d.e0_index).max().unwrap_or(0) + 1;
            let reps = datasets.len() / e0s;
            bad_input(format!(
                "--replication {} --e0-index {}: the manifest has replications 0 to {} and e0 indices 0 to {}",
                args.replication,
                args.e0_index,
                reps.saturating_sub(1),
                e0s - 1
            ))
        })?;
    eprintln!("refitting replication {} of {} (every method, every noise level)…", args.replication, m.experiment.name);
    let r = recovery(&m, dataset, &[]).map_err(failed)?;
    let png = args.output.clone().unwrap_or_else(|| m.output_dir().join("recovery.png"));
    let svg = png.with_extension("svg");
    if let Some(dir) = png.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    }
    let e0 = dataset.e0.map(|e| format!(", e₀ = {e}")).unwrap_or_default();
    let title = format!("{}: recovery of replication {}{e0}", m.experiment.name, args.replication);
    let grid = grid(&r, m.model.kind, per_row_noise(&m), title);
    for column in &grid.columns {
        for panel in column.iter().filter(|p| !p.label.is_empty()) {
            eprintln!("{}", panel.label);
        }
    }
    let dir = png.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let stem = png.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    runner::write_figure(dir, &stem, |svg, png| plot_panel_grid(&grid, Some(svg), Some(png))).map_err(failed)?;
    println!("wrote {} and {}", svg.display(), png.display());
    Ok(())
}

fn per_row_noise(m: &pipeline::Manifest) -> bool {
    m.noise.row_concentration.is_some()
}

/// The figure's columns: the truth (data, true parameters, the references' estimates), then one
/// per noise level (released data, each method's estimate). Shorter columns are padded with
/// blank panels.
fn grid(r: &Recovery, kind: ModelKind, per_row: bool, title: String) -> PanelGrid {
    let topics = kind == ModelKind::Topic;
    let (k, symbol) = match &r.topics {
        Some((_, k)) if topics => (*k, "Φ"),
        _ => (r.rows, "μ"),
    };
    let (rows, cols) = (k, r.cols);
    let level = |label: String, values: Vec<f64>| GridPanel { label, rows, cols, values, shading: Shading::Level };
    let estimate = |e: &Estimate| {
        let (values, score) = match (&e.topics, e.topic_error) {
            (Some(t), Some(err)) if topics => (t.clone(), format!("topic MAE {err:.3}")),
            _ => (e.rates.clone(), format!("KL {:.3}", e.mean_kl)),
        };
        level(format!("{}: estimated {symbol} — {score}", e.method.name()), values)
    };
    let counts =
        |label: String, values: Vec<f64>| GridPanel { label, rows: r.rows, cols, values, shading: Shading::Counts };
    let y: Vec<f64> = r.counts.iter().map(|&c| f64::from(c)).collect();
    let truth = match &r.topics {
        Some((t, _)) if topics => t.clone(),
        _ => r.rates.clone(),
    };
    let mut truth_column = vec![
        counts(format!("true counts y (full colour at {})", count_scale(&y)), y),
        level(format!("true {symbol}*"), truth),
    ];
    truth_column.extend(r.references.iter().map(estimate));
    let mut columns = vec![truth_column];
    for n in &r.noisy {
        let released: Vec<f64> = r_values(&n.released);
        let name = if per_row { "α₀" } else { "α" };
        let eps = n.epsilon.map(|e| format!("ε = {e}, ")).unwrap_or_default();
        let label = format!("privatized, {eps}{name} = {:.3} (full at |ỹ| = {})", n.alpha, count_scale(&released));
        let mut column = vec![counts(label, released)];
        column.extend(n.estimates.iter().map(estimate));
        columns.push(column);
    }
    let height = columns.iter().map(Vec::len).max().unwrap_or(0);
    for column in &mut columns {
        while column.len() < height {
            column.push(level(String::new(), vec![0.0; rows * cols]));
        }
    }
    let what = if topics {
        "Topics: word probabilities, aligned to the truth (Hungarian); Gibbs: the kept sample with the highest joint probability."
    } else {
        "Rates: posterior means of μ (the block model's diagonal is not modelled)."
    };
    // Rates span orders of magnitude (a few busy pairs, many quiet ones): a square-root scale
    // keeps the small rates a naïve fit invents visible. Topics are drawn on a linear scale.
    let scale = if topics { "" } else { " on a square-root scale" };
    let level_name = if topics { "word probability" } else { "rate μ (square-root scale)" };
    let mut grid =
        PanelGrid { title, columns, note: String::new(), sqrt_levels: !topics, level_name: level_name.into() };
    let top = level_scale(&grid);
    // Four significant digits: 200.2, 0.2617.
    let decimals = (3 - top.log10().floor() as i32).clamp(0, 6) as usize;
    grid.note = format!(
        "Data: red positive, blue negative, full colour at each panel's 98th percentile of |y|.\n\
         Parameters: white 0 to dark blue at {top:.decimals$}{scale} (the bar on the right). {what}"
    );
    grid
}

fn r_values(values: &[i32]) -> Vec<f64> {
    values.iter().map(|&v| f64::from(v)).collect()
}
