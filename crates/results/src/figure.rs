//! The Fig. 4-style figure: one panel per e₀, the noise level on the x axis, mean Poisson KL with
//! ±1 sd error bars, one line per method; the non-private reference (which has no noise level)
//! as a horizontal line with a ±1 sd band. Written as SVG and PNG (text in the bundled DejaVu
//! Sans, so the PNG looks the same on every machine).

use crate::ResultsError;
use crate::summary::{SummaryRow, distinct};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const PANEL: (u32, u32) = (420, 380);

/// Draws `summary` to `svg` and `png` (either may be `None`); `title` heads the figure.
pub fn plot(summary: &[SummaryRow], title: &str, svg: Option<&Path>, png: Option<&Path>) -> Result<(), ResultsError> {
    register_font(svg.or(png).unwrap_or(Path::new("figure")))?;
    let panels: Vec<Option<f64>> =
        distinct(summary.iter().map(|s| s.e0.map(f64::to_bits))).into_iter().map(|b| b.map(f64::from_bits)).collect();
    if panels.is_empty() {
        return Err(ResultsError::new(svg.or(png).unwrap_or(Path::new("figure")), "nothing to plot: no results"));
    }
    let size = (PANEL.0 * panels.len() as u32, PANEL.1 + 40);
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, summary, &panels, title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, summary, &panels, title).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

/// Registers the bundled font as "sans-serif" (errors name `file`, the figure being drawn).
pub(crate) fn register_font(file: &Path) -> Result<(), ResultsError> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| ResultsError::new(file, "the bundled font (DejaVuSans.ttf) cannot be read"))
}

fn colour(method: &str, index: usize) -> RGBColor {
    match method {
        "non-private" => RGBColor(40, 40, 40),
        "naive" => RGBColor(214, 39, 40),
        "private" => RGBColor(31, 119, 180),
        _ => [RGBColor(44, 160, 44), RGBColor(148, 103, 189), RGBColor(140, 86, 75)][index % 3],
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &[SummaryRow],
    panels: &[Option<f64>],
    title: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(e)?;
    let axis = summary.first().map_or("alpha", |s| s.axis);
    let x_label = if axis == "epsilon" { "ε (privacy level)" } else { "α (noise level)" };
    let levels: Vec<f64> = summary.iter().filter_map(|s| s.level).collect();
    let (x_lo, x_hi) = levels.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let (x_lo, x_hi) = if x_lo.is_finite() { (x_lo, x_hi) } else { (0.0, 1.0) };
    let pad = ((x_hi - x_lo) * 0.05).max(0.02);
    let top = summary.iter().map(|s| s.mean_kl + s.sd_kl.unwrap_or(0.0)).fold(0.0, f64::max);
    let y_hi = if top > 0.0 { top * 1.08 } else { 1.0 };
    let methods = distinct(summary.iter().map(|s| s.method.as_str()));
    for (area, e0) in root.split_evenly((1, panels.len())).iter().zip(panels) {
        let caption = e0.map_or(String::new(), |v| format!("e₀ = {v}"));
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(58)
            .build_cartesian_2d((x_lo - pad)..(x_hi + pad), 0.0..y_hi)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc("mean Poisson KL to the true rates")
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        let here: Vec<&SummaryRow> =
            summary.iter().filter(|s| s.e0.map(f64::to_bits) == e0.map(f64::to_bits)).collect();
        for (index, method) in methods.iter().enumerate() {
            let c = colour(method, index);
            let mut points: Vec<&SummaryRow> = here.iter().copied().filter(|s| s.method == *method).collect();
            points.sort_by(|a, b| a.level.unwrap_or(0.0).total_cmp(&b.level.unwrap_or(0.0)));
            let Some(first) = points.first() else { continue };
            let series = if first.level.is_none() {
                // The reference: no noise level, a horizontal line and a ±1 sd band.
                let (m, sd) = (first.mean_kl, first.sd_kl.unwrap_or(0.0));
                let band =
                    Rectangle::new([(x_lo - pad, (m - sd).max(0.0)), (x_hi + pad, m + sd)], c.mix(0.12).filled());
                chart.draw_series(std::iter::once(band)).map_err(e)?;
                chart.draw_series(LineSeries::new([(x_lo - pad, m), (x_hi + pad, m)], c.stroke_width(2))).map_err(e)?
            } else {
                let xy: Vec<(f64, f64)> = points.iter().filter_map(|s| s.level.map(|x| (x, s.mean_kl))).collect();
                chart
                    .draw_series(points.iter().filter_map(|s| {
                        let (x, sd) = (s.level?, s.sd_kl.unwrap_or(0.0));
                        Some(ErrorBar::new_vertical(
                            x,
                            (s.mean_kl - sd).max(0.0),
                            s.mean_kl,
                            s.mean_kl + sd,
                            c.filled(),
                            8,
                        ))
                    }))
                    .map_err(e)?;
                chart.draw_series(xy.iter().map(|&p| Circle::new(p, 3, c.filled()))).map_err(e)?;
                chart.draw_series(LineSeries::new(xy, c.stroke_width(2))).map_err(e)?
            };
            series
                .label(method.to_string())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(e)?;
    }
    Ok(())
}
