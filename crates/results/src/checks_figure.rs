//! The figure of posterior predictive checks: one panel per statistic, the histogram of the
//! statistic over replicated data (grey) and the observed value as a vertical line (red when the
//! check is flagged, black otherwise), the p-value in the caption. The x range covers both, so a
//! release far outside its replications is visible as such.

use crate::ResultsError;
use crate::figure::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One statistic's panel.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckPanel {
    /// e.g. `"total  p = 0.000"`.
    pub caption: String,
    /// The statistic on each replication.
    pub replicated: Vec<f64>,
    /// The statistic on the data.
    pub observed: f64,
    /// Drawn in red.
    pub flagged: bool,
}

const PANEL: (u32, u32) = (300, 220);
const BINS: usize = 20;

/// Counts of `values` in `BINS` equal bins over `[lo, hi]`.
fn histogram(values: &[f64], lo: f64, hi: f64) -> Vec<usize> {
    let mut counts = vec![0usize; BINS];
    let width = (hi - lo) / BINS as f64;
    for &v in values.iter().filter(|v| v.is_finite()) {
        let bin = if width > 0.0 { (((v - lo) / width) as usize).min(BINS - 1) } else { 0 };
        counts[bin] += 1;
    }
    counts
}

/// Draws the panels in a grid of `columns`.
pub fn plot_checks(
    panels: &[CheckPanel],
    columns: usize,
    title: &str,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let file = svg.or(png).unwrap_or(Path::new("checks"));
    register_font(file)?;
    if panels.is_empty() || columns == 0 {
        return Err(ResultsError::new(file, "nothing to plot: no checks"));
    }
    let rows = panels.len().div_ceil(columns);
    let size = (PANEL.0 * columns as u32, PANEL.1 * rows as u32 + 40);
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, panels, (rows, columns), title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, panels, (rows, columns), title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[CheckPanel],
    grid: (usize, usize),
    title: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 16)).map_err(e)?;
    for (area, panel) in root.split_evenly(grid).iter().zip(panels) {
        let finite: Vec<f64> = panel.replicated.iter().copied().filter(|v| v.is_finite()).collect();
        let (mut lo, mut hi) =
            finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let counts = histogram(&finite, lo, hi);
        let (x0, x1) =
            if panel.observed.is_finite() { (lo.min(panel.observed), hi.max(panel.observed)) } else { (lo, hi) };
        let pad = if x1 > x0 { 0.05 * (x1 - x0) } else { 0.5_f64.max(x0.abs() * 0.05) };
        let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.caption, ("sans-serif", 13))
            .margin(8)
            .x_label_area_size(22)
            .y_label_area_size(30)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(4)
            .y_labels(3)
            .label_style(("sans-serif", 10))
            .draw()
            .map_err(e)?;
        let width = (hi - lo) / BINS as f64;
        let bars = counts.iter().enumerate().map(|(i, &c)| {
            let left = lo + i as f64 * width;
            let right = if width > 0.0 { left + width } else { left + pad };
            Rectangle::new([(left, 0.0), (right, c as f64)], RGBColor(160, 160, 160).filled())
        });
        chart.draw_series(bars).map_err(e)?;
        if panel.observed.is_finite() {
            let colour = if panel.flagged { RED } else { BLACK };
            let line = [(panel.observed, 0.0), (panel.observed, top)];
            chart.draw_series(LineSeries::new(line, colour.stroke_width(2))).map_err(e)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_bins_cover_the_range() {
        assert_eq!(histogram(&[0.0, 0.5, 1.0, 1.0], 0.0, 1.0).iter().sum::<usize>(), 4);
        assert_eq!(histogram(&[0.0, 1.0], 0.0, 1.0)[BINS - 1], 1);
        assert_eq!(histogram(&[3.0, 3.0, f64::NAN], 3.0, 3.0), [vec![2], vec![0; BINS - 1]].concat());
    }
}
