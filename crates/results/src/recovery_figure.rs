//! The paper's recovery figures (Schein et al. 2019, Fig. 1 and Fig. 3): a grid of heatmaps, one
//! column per condition (the truth, then each noise level) and one row per kind of matrix (the
//! data, then each method's estimate). Data panels are drawn as the paper draws them, red for
//! positive and blue for negative counts, each on its own scale: full colour at the 98th
//! percentile of its |values| ([`count_scale`]; a few rows released at a very high noise level
//! would otherwise wash out the rest). Estimate panels
//! (true and estimated topics or rates) share one scale, white at 0 to dark blue, so a recovered
//! matrix can be read against the truth.

use crate::ResultsError;
use crate::figure::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// How a panel's values are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    /// Signed counts: red positive, blue negative, white 0; the panel's own scale
    /// ([`count_scale`]).
    Counts,
    /// Non-negative estimates: white 0 to dark blue, on the scale all such panels share.
    Level,
}

/// One heatmap of the grid: a row-major `rows × cols` matrix drawn with row 0 at the top.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPanel {
    pub label: String,
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f64>,
    pub shading: Shading,
}

/// The grid: `columns[c][r]` is the panel in column `c`, row `r`; every column has the same
/// number of rows. `note` is printed under the grid, at most two lines (say what the colours mean
/// there).
#[derive(Clone, Debug, PartialEq)]
pub struct PanelGrid {
    pub title: String,
    pub columns: Vec<Vec<GridPanel>>,
    pub note: String,
    /// Shade [`Shading::Level`] panels by `√(value / top)` instead of `value / top`, so that small
    /// rates beside a few large ones stay visible (say so in `note`).
    pub sqrt_levels: bool,
    /// What the [`Shading::Level`] panels show, the description of their colour bar (drawn at
    /// the right when there are such panels).
    pub level_name: String,
}

const COLUMN_WIDTH: u32 = 300;
const ROW_HEIGHT: u32 = 220;
const HEADER: u32 = 40;
const FOOTER: u32 = 40;

/// Draws `grid` to `svg` and `png` (either may be `None`).
pub fn plot_panel_grid(grid: &PanelGrid, svg: Option<&Path>, png: Option<&Path>) -> Result<(), ResultsError> {
    let file = svg.or(png).unwrap_or(Path::new("grid"));
    let rows = grid.columns.first().map_or(0, Vec::len);
    if rows == 0 || grid.columns.iter().any(|c| c.len() != rows) {
        return Err(ResultsError::new(file, "a panel grid needs columns of the same, non-zero number of panels"));
    }
    if let Some(p) = grid.columns.iter().flatten().find(|p| p.rows * p.cols != p.values.len() || p.values.is_empty()) {
        let message = format!("panel {:?} has {} values, expected {}×{}", p.label, p.values.len(), p.rows, p.cols);
        return Err(ResultsError::new(file, message));
    }
    register_font(file)?;
    let weights = row_weights(grid);
    let height = HEADER + FOOTER + ROW_HEIGHT * weights.iter().sum::<u32>() / 2;
    let size = (COLUMN_WIDTH * grid.columns.len() as u32 + bar_width(grid), height);
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, grid, &weights).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, grid, &weights).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

/// Width of the colour bar of the [`Shading::Level`] panels (0 when there are none).
fn bar_width(grid: &PanelGrid) -> u32 {
    if grid.columns.iter().flatten().any(|p| p.shading == Shading::Level) { BAR_WIDTH } else { 0 }
}

const BAR_WIDTH: u32 = 110;

/// Row heights in half rows: a row whose matrices are at least four times as tall as the
/// shortest row's (documents × words above topics × words) gets double height.
fn row_weights(grid: &PanelGrid) -> Vec<u32> {
    let heights: Vec<usize> = (0..grid.columns[0].len()).map(|r| grid.columns[0][r].rows).collect();
    let shortest = heights.iter().copied().min().unwrap_or(1).max(1);
    heights.iter().map(|&h| if h >= 4 * shortest { 4 } else { 2 }).collect()
}

/// The largest finite |value|, at least the smallest positive double.
fn largest<'a>(values: impl IntoIterator<Item = &'a f64>) -> f64 {
    values.into_iter().map(|v| v.abs()).filter(|v| v.is_finite()).fold(f64::MIN_POSITIVE, f64::max)
}

/// Where the [`Shading::Level`] panels' colour is full: their largest |value| (all of them share
/// it). Say it in the grid's note.
pub fn level_scale(grid: &PanelGrid) -> f64 {
    largest(grid.columns.iter().flatten().filter(|p| p.shading == Shading::Level).flat_map(|p| &p.values))
}

/// Where a data panel's colour is full: the 98th percentile of its finite |values| (the value at
/// rank ⌈0.98 n⌉), or the largest when that is 0; at least the smallest positive double.
pub fn count_scale(values: &[f64]) -> f64 {
    let mut magnitudes: Vec<f64> = values.iter().map(|v| v.abs()).filter(|v| v.is_finite()).collect();
    if magnitudes.is_empty() {
        return f64::MIN_POSITIVE;
    }
    magnitudes.sort_by(f64::total_cmp);
    let rank = (0.98 * magnitudes.len() as f64).ceil() as usize;
    let p98 = magnitudes[rank.clamp(1, magnitudes.len()) - 1];
    if p98 > 0.0 { p98 } else { largest(values) }
}

/// The colour of `value` on a scale whose full colour is at `top`.
/// Negative counts and estimates take the heatmaps' white-to-dark-blue scale
/// ([`crate::topics_figure::shade`]); positive counts the same scale in red.
fn colour(value: f64, top: f64, shading: Shading) -> RGBColor {
    match shading {
        Shading::Counts if value >= 0.0 => {
            let t = (value / top).clamp(0.0, 1.0);
            let mix = |light: f64, dark: f64| (light + (dark - light) * t).round() as u8;
            RGBColor(mix(255.0, 165.0), mix(255.0, 15.0), mix(255.0, 21.0))
        }
        _ => crate::topics_figure::shade(value.abs(), top),
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, grid: &PanelGrid, weights: &[u32]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (_, height) = root.dim_in_pixel();
    let (root, footer) = root.split_vertically(height.saturating_sub(FOOTER));
    let root = root.titled(&grid.title, ("sans-serif", 18)).map_err(e)?;
    for (i, line) in grid.note.lines().enumerate() {
        footer.draw_text(line, &("sans-serif", 12).into_text_style(&footer), (10, 4 + 15 * i as i32)).map_err(e)?;
    }
    let level_top = level_scale(grid);
    let (width, _) = root.dim_in_pixel();
    let (root, bar) = root.split_horizontally(width.saturating_sub(bar_width(grid)));
    if bar_width(grid) > 0 {
        // The bar shows values; on a square-root scale v is drawn as √(v · top) (see draw_panel).
        let shown = |v: f64| if grid.sqrt_levels { (v.max(0.0) * level_top).sqrt() } else { v };
        let shade = |v: f64| colour(shown(v), level_top, Shading::Level);
        crate::topics_figure::colour_bar(&bar, level_top, &grid.level_name, &shade).map_err(e)?;
    }
    let (_, grid_height) = root.dim_in_pixel();
    let total: u32 = weights.iter().sum();
    let mut breaks = Vec::new();
    let mut y = 0;
    for w in &weights[..weights.len() - 1] {
        y += grid_height * w / total;
        breaks.push(y);
    }
    let columns = root.split_evenly((1, grid.columns.len()));
    for (area, column) in columns.iter().zip(&grid.columns) {
        for (cell, panel) in area.split_by_breakpoints(Vec::<u32>::new(), breaks.clone()).iter().zip(column) {
            let top = if panel.shading == Shading::Level { level_top } else { count_scale(&panel.values) };
            let sqrt = grid.sqrt_levels && panel.shading == Shading::Level;
            draw_panel(cell, panel, top, sqrt).map_err(e)?;
        }
    }
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &GridPanel,
    top: f64,
    sqrt: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    // On a square-root scale, v is drawn as √(v · top), whose fraction of top is √(v / top).
    let shown = |v: f64| if sqrt { (v.max(0.0) * top).sqrt() } else { v };
    let (rows, cols) = (panel.rows, panel.cols);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.label, ("sans-serif", 12))
        .margin(6)
        .build_cartesian_2d(0..cols, 0..rows)?;
    chart.configure_mesh().disable_mesh().disable_x_axis().disable_y_axis().draw()?;
    chart.draw_series((0..rows * cols).map(|i| {
        let (r, c) = (i / cols, i % cols);
        let y = rows - 1 - r; // row 0 at the top
        Rectangle::new([(c, y), (c + 1, y + 1)], colour(shown(panel.values[i]), top, panel.shading).filled())
    }))?;
    // A thin frame, so a panel of zeros is still seen.
    chart.draw_series(std::iter::once(Rectangle::new([(0, 0), (cols, rows)], BLACK.stroke_width(1))))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(label: &str, values: Vec<f64>, shading: Shading) -> GridPanel {
        GridPanel { label: label.into(), rows: 2, cols: 2, values, shading }
    }

    #[test]
    fn refuses_ragged_grids_and_panels_of_the_wrong_size() {
        let grid = |columns| PanelGrid {
            title: "t".into(),
            columns,
            note: String::new(),
            sqrt_levels: false,
            level_name: String::new(),
        };
        let ok = panel("a", vec![1.0; 4], Shading::Level);
        let e = plot_panel_grid(&grid(vec![vec![ok.clone()], vec![]]), None, None).unwrap_err();
        assert!(e.message.contains("same"), "{}", e.message);
        let bad = GridPanel { values: vec![1.0; 3], ..ok.clone() };
        let e = plot_panel_grid(&grid(vec![vec![bad]]), None, None).unwrap_err();
        assert!(e.message.contains("2×2"), "{}", e.message);
        assert!(plot_panel_grid(&grid(vec![]), None, None).is_err());
    }

    #[test]
    fn the_count_scale_is_the_98th_percentile_of_the_magnitudes() {
        // 100 values 1..=100 (signs mixed): rank 98.
        let values: Vec<f64> = (1..=100).map(|v| if v % 2 == 0 { v as f64 } else { -(v as f64) }).collect();
        assert_eq!(count_scale(&values), 98.0);
        // Mostly zeros: the largest instead of 0; nothing: the smallest positive double.
        let mut sparse = vec![0.0; 100];
        sparse[3] = -7.0;
        assert_eq!(count_scale(&sparse), 7.0);
        assert_eq!(count_scale(&[]), f64::MIN_POSITIVE);
        assert_eq!(count_scale(&[f64::NAN, 3.0]), 3.0);
    }

    #[test]
    fn counts_are_red_and_blue_on_their_own_scale_and_estimates_share_one() {
        let dir = std::env::temp_dir().join(format!("grid-figure-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("grid.svg");
        let grid = PanelGrid {
            title: "recovery".into(),
            columns: vec![
                vec![
                    panel("true data", vec![2.0, 0.0, 1.0, 0.0], Shading::Counts),
                    panel("truth", vec![0.5, 0.0, 0.25, 0.0], Shading::Level),
                ],
                vec![
                    panel("released", vec![-40.0, 40.0, 3.0, 0.0], Shading::Counts),
                    panel("private", vec![0.4, 0.0, 0.3, 0.1], Shading::Level),
                ],
            ],
            note: "red positive, blue negative".into(),
            sqrt_levels: true,
            level_name: "rate".into(),
        };
        plot_panel_grid(&grid, Some(&svg), None).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        // The estimates' colour bar is drawn and described.
        for needle in ["recovery", "true data", "released", "private", "red positive, blue negative", ">\nrate\n<"] {
            assert!(text.contains(needle), "{needle:?} missing");
        }
        // Full red at each data panel's own maximum (2 in the first, 40 in the second), full
        // blue at -40, and the estimates' largest value (0.5) in the darkest blue.
        assert!(text.contains("#A50F15"), "darkest red missing");
        assert!(text.contains("#08306B"), "darkest blue missing");
        assert_eq!(colour(2.0, count_scale(&[2.0, 0.0]), Shading::Counts), RGBColor(165, 15, 21));
        // Half way to blue at -1 on a scale of 2.
        assert_eq!(colour(-1.0, 2.0, Shading::Counts), RGBColor(132, 152, 181));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
