//! Heatmap figures: one heatmap per panel, all on one colour scale, with a colour bar on the
//! right. [`plot_topics`] draws true vs recovered topics (the truth, then each method's topics
//! after Hungarian alignment; topics as rows, words as columns) so a recovered topic can be read
//! against the true one above it; [`plot_heatmaps`] draws any matrices with the axis names given.

use crate::ResultsError;
use crate::figure::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One heatmap: `topics` is `K × V` topic-major (normalized rows, aligned to the truth), or for
/// [`plot_heatmaps`] any row-major matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicPanel {
    pub label: String,
    pub topics: Vec<f64>,
}

const WIDTH: u32 = 860;
const PANEL_HEIGHT: u32 = 150;
/// Width of the colour bar strip at the right.
const SCALE_WIDTH: u32 = 120;
/// Steps of the colour bar.
const SCALE_STEPS: usize = 64;

/// The words of a heatmap figure: its title, the axes' names and the colour bar's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeatmapText<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub y: &'a str,
    pub scale: &'a str,
    /// The label of each column and of each row (top row first) at the ticks (thinned to about
    /// 7 and 10, cut to 14 characters); empty: the index (about 20 and 10 ticks).
    pub x_ticks: &'a [String],
    pub y_ticks: &'a [String],
    /// Columns and rows (top row first) where a new group starts (e.g. a community of actors
    /// ordered by community), drawn as lines before them; empty: none.
    pub x_breaks: &'a [usize],
    pub y_breaks: &'a [usize],
}

/// Tick `i` of an axis: its label from `ticks` (cut to 14 characters), else the index.
fn tick(ticks: &[String], i: usize) -> String {
    match ticks.get(i) {
        Some(t) if t.chars().count() > 14 => format!("{}…", t.chars().take(13).collect::<String>()),
        Some(t) => t.clone(),
        None => i.to_string(),
    }
}

/// Draws the panels (`k` topics × `words` words each) to `svg` and `png` (either may be `None`).
pub fn plot_topics(
    panels: &[TopicPanel],
    k: usize,
    words: usize,
    title: &str,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let text = HeatmapText {
        title,
        x: "word",
        y: "topic",
        scale: "word probability",
        x_ticks: &[],
        y_ticks: &[],
        x_breaks: &[],
        y_breaks: &[],
    };
    plot_heatmaps(panels, (k, words), &text, PANEL_HEIGHT, svg, png)
}

/// Draws the panels (each `rows × cols`, row 0 at the top), each `panel_height` pixels high, to
/// `svg` and `png` (either may be `None`).
pub fn plot_heatmaps(
    panels: &[TopicPanel],
    (k, words): (usize, usize),
    text: &HeatmapText<'_>,
    panel_height: u32,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let file = svg.or(png).unwrap_or(Path::new("heatmap"));
    if panels.is_empty() || k == 0 || words == 0 {
        return Err(ResultsError::new(file, "nothing to plot: an empty matrix"));
    }
    if let Some(p) = panels.iter().find(|p| p.topics.len() != k * words) {
        let message = format!("panel {:?} has {} values, expected {k}×{words}", p.label, p.topics.len());
        return Err(ResultsError::new(file, message));
    }
    register_font(file)?;
    let size = (WIDTH, panel_height * panels.len() as u32 + 50);
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, panels, k, words, text).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, panels, k, words, text).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

/// A vertical colour bar in `area`: values 0 to `top` coloured by `shade`, labelled on the right
/// and described by `description` (shared by the heatmap and recovery figures).
pub(crate) fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: f64,
    description: &str,
    shade: &dyn Fn(f64) -> RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut bar = ChartBuilder::on(area)
        .margin_top(30)
        .margin_bottom(40)
        .margin_left(16)
        .margin_right(4)
        .right_y_label_area_size(70)
        .build_cartesian_2d(0.0..1.0, 0.0..top)?;
    bar.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(6)
        .y_label_formatter(&|v| if top >= 10.0 { format!("{v:.0}") } else { format!("{v:.2}") })
        .y_desc(description)
        .label_style(("sans-serif", 11))
        .axis_desc_style(("sans-serif", 12))
        .draw()?;
    bar.draw_series((0..SCALE_STEPS).map(|i| {
        let (lo, hi) = (top * i as f64 / SCALE_STEPS as f64, top * (i + 1) as f64 / SCALE_STEPS as f64);
        Rectangle::new([(0.0, lo), (1.0, hi)], shade(0.5 * (lo + hi)).filled())
    }))?;
    Ok(())
}

/// White (0) to dark blue (`top` and above).
pub(crate) fn shade(value: f64, top: f64) -> RGBColor {
    let t = (value / top).clamp(0.0, 1.0);
    let mix = |light: f64, dark: f64| (light + (dark - light) * t).round() as u8;
    RGBColor(mix(255.0, 8.0), mix(255.0, 48.0), mix(255.0, 107.0))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[TopicPanel],
    k: usize,
    words: usize,
    text: &HeatmapText<'_>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(text.title, ("sans-serif", 18)).map_err(e)?;
    let top = panels.iter().flat_map(|p| p.topics.iter().copied()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let (root, scale) = root.split_horizontally(WIDTH - SCALE_WIDTH);
    colour_bar(&scale, top, text.scale, &|v| shade(v, top)).map_err(e)?;
    for (area, panel) in root.split_evenly((panels.len(), 1)).iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.label, ("sans-serif", 14))
            .margin(6)
            .margin_right(24)
            .x_label_area_size(32)
            .y_label_area_size(if text.y_ticks.is_empty() { 52 } else { 120 })
            .build_cartesian_2d(0..words, 0..k)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(words.min(if text.x_ticks.is_empty() { 20 } else { 7 }))
            .y_labels(k.min(10))
            .x_label_formatter(&|w| match (text.x_ticks.is_empty(), *w < words) {
                (true, _) => w.to_string(),
                (false, true) => tick(text.x_ticks, *w),
                (false, false) => String::new(),
            })
            // Row 0 at the top: the indices count down; labels are of the row drawn there.
            .y_label_formatter(&|r| {
                if text.y_ticks.is_empty() {
                    (k - r.min(&k)).to_string()
                } else if *r < k {
                    tick(text.y_ticks, k - 1 - r)
                } else {
                    String::new()
                }
            })
            .x_desc(text.x)
            .y_desc(text.y)
            .label_style(("sans-serif", 11))
            .axis_desc_style(("sans-serif", 12))
            .draw()
            .map_err(e)?;
        chart
            .draw_series((0..k * words).map(|i| {
                let (topic, word) = (i / words, i % words);
                let row = k - 1 - topic; // row 0 at the top
                Rectangle::new([(word, row), (word + 1, row + 1)], shade(panel.topics[i], top).filled())
            }))
            .map_err(e)?;
        // Group boundaries: a vertical line before each break column, a horizontal one above
        // each break row (row 0 at the top).
        let line = RGBColor(200, 40, 40).mix(0.8).stroke_width(1);
        let vertical =
            text.x_breaks.iter().filter(|&&b| b < words).map(|&b| PathElement::new(vec![(b, 0), (b, k)], line));
        let horizontal =
            text.y_breaks.iter().filter(|&&b| b < k).map(|&b| PathElement::new(vec![(0, k - b), (words, k - b)], line));
        chart.draw_series(vertical.chain(horizontal)).map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks show the user's label, cut to 14 characters, or the index when there is none.
    #[test]
    fn ticks_are_labels_cut_short() {
        let ticks = vec!["ann".to_string(), "a very long label indeed".to_string()];
        assert_eq!(tick(&ticks, 0), "ann");
        assert_eq!(tick(&ticks, 1), "a very long l…");
        assert_eq!(tick(&ticks, 5), "5");
    }

    #[test]
    fn refuses_panels_of_the_wrong_size() {
        let panels = [TopicPanel { label: "truth".into(), topics: vec![0.5; 5] }];
        let e = plot_topics(&panels, 2, 3, "t", None, None).unwrap_err();
        assert!(e.message.contains("2×3"), "{}", e.message);
        assert!(plot_topics(&[], 2, 3, "t", None, None).is_err());
    }

    #[test]
    fn writes_an_svg_with_one_cell_per_topic_and_word() {
        let dir = std::env::temp_dir().join(format!("topics-figure-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("topics.svg");
        let panels = [
            TopicPanel { label: "truth".into(), topics: vec![0.25, 0.75, 0.0, 0.5, 0.5, 0.0] },
            TopicPanel { label: "private-cavi".into(), topics: vec![0.3, 0.7, 0.0, 0.4, 0.6, 0.0] },
        ];
        plot_topics(&panels, 2, 3, "true vs recovered", Some(&svg), None).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("private-cavi") && text.contains("true vs recovered"));
        // Axis descriptions and the colour scale.
        for needle in [">\nword\n<", ">\ntopic\n<", "word probability", ">\n0.00\n<"] {
            assert!(text.contains(needle), "{needle:?} missing");
        }
        // The largest value (0.75) is drawn in the darkest shade, a zero in white.
        assert!(text.contains("#08306B"), "darkest cell missing");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
