//! The figure of posterior means with credible ellipses (DP-SEP's Fig. 1): one panel per
//! method, the data as grey dots, each cluster's posterior mean and its 98 % ellipse in two
//! chosen coordinates, the reference posterior's ellipses dashed-black beneath.

use crate::ResultsError;
use crate::figure::{colour, register_font};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A 2-D Gaussian: mean and row-major 2 × 2 covariance.
pub type Gaussian2 = ([f64; 2], [f64; 4]);

/// One panel: a caption and the clusters' posteriors.
#[derive(Clone, Debug, PartialEq)]
pub struct EllipsePanel {
    pub caption: String,
    pub clusters: Vec<Gaussian2>,
}

/// χ²₂ quantile of 0.98: −2 ln 0.02.
const CHI2_98: f64 = 7.824_046_010_856_292;
const PANEL: u32 = 300;

/// Boundary points of the 98 % ellipse {x: (x − m)ᵀ Σ⁻¹ (x − m) = χ²₂(0.98)}.
fn ellipse((m, s): &Gaussian2) -> Vec<(f64, f64)> {
    // Eigen-decomposition of the 2 × 2 symmetric covariance.
    let (a, b, c) = (s[0], 0.5 * (s[1] + s[2]), s[3]);
    let half_trace = 0.5 * (a + c);
    let disc = ((0.5 * (a - c)).powi(2) + b * b).sqrt();
    let (l1, l2) = ((half_trace + disc).max(0.0), (half_trace - disc).max(0.0));
    let angle = if b == 0.0 && a >= c { 0.0 } else { (l1 - a).atan2(b) };
    let (r1, r2) = ((CHI2_98 * l1).sqrt(), (CHI2_98 * l2).sqrt());
    (0..=64)
        .map(|i| {
            let t = i as f64 * std::f64::consts::TAU / 64.0;
            let (u, v) = (r1 * t.cos(), r2 * t.sin());
            (m[0] + u * angle.cos() - v * angle.sin(), m[1] + u * angle.sin() + v * angle.cos())
        })
        .collect()
}

/// Draws the panels in a grid of `columns`, each over the same `points` and `reference`.
pub fn plot_ellipses(
    panels: &[EllipsePanel],
    reference: &[Gaussian2],
    points: &[(f64, f64)],
    columns: usize,
    title: &str,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let file = svg.or(png).unwrap_or(Path::new("ellipses"));
    register_font(file)?;
    if panels.is_empty() || columns == 0 {
        return Err(ResultsError::new(file, "nothing to plot: no panels"));
    }
    let rows = panels.len().div_ceil(columns);
    let size = (PANEL * columns as u32, PANEL * rows as u32 + 40);
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, panels, reference, points, (rows, columns), title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, panels, reference, points, (rows, columns), title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[EllipsePanel],
    reference: &[Gaussian2],
    points: &[(f64, f64)],
    grid: (usize, usize),
    title: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 18)).map_err(e)?;
    let (xs, ys): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
    let range = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if lo.is_finite() { (lo - 0.3, hi + 0.3) } else { (-1.0, 1.0) }
    };
    let ((x0, x1), (y0, y1)) = (range(&xs), range(&ys));
    for (area, panel) in root.split_evenly(grid).iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.caption, ("sans-serif", 13))
            .margin(6)
            .x_label_area_size(20)
            .y_label_area_size(30)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(e)?;
        chart.configure_mesh().disable_mesh().label_style(("sans-serif", 10)).draw().map_err(e)?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 1, RGBColor(170, 170, 170).filled()))).map_err(e)?;
        for g in reference {
            chart.draw_series(LineSeries::new(ellipse(g), BLACK.stroke_width(1))).map_err(e)?;
        }
        for (k, g) in panel.clusters.iter().enumerate() {
            let c = colour("", k);
            chart.draw_series(LineSeries::new(ellipse(g), c.stroke_width(2))).map_err(e)?;
            chart.draw_series(std::iter::once(Cross::new((g.0[0], g.0[1]), 4, c.stroke_width(2)))).map_err(e)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every boundary point lies on the χ²₂(0.98) contour of its Gaussian.
    #[test]
    fn ellipse_points_are_on_the_98_percent_contour() {
        for g in [
            ([1.0, -2.0], [2.0, 0.6, 0.6, 0.5]),
            ([0.0, 0.0], [0.3, 0.0, 0.0, 1.7]),
            ([0.0, 0.0], [1.0, -0.9, -0.9, 1.0]),
        ] {
            let (m, s) = g;
            let det = s[0] * s[3] - s[1] * s[2];
            let inv = [s[3] / det, -s[1] / det, -s[2] / det, s[0] / det];
            for (x, y) in ellipse(&g) {
                let (u, v) = (x - m[0], y - m[1]);
                let q = u * (inv[0] * u + inv[1] * v) + v * (inv[2] * u + inv[3] * v);
                assert!((q - CHI2_98).abs() < 1e-9, "{g:?}: {q}");
            }
        }
    }
}
