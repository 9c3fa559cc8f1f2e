//! Line figures with error bars, one panel per value of a grouping variable: the Fig. 4-style
//! figure of the factorization sweeps ([`plot`]: one panel per e₀, the noise level on the x axis,
//! mean Poisson KL ±1 sd, the non-private reference as a horizontal line with a ±1 sd band) and
//! the same layout for any other sweep ([`plot_curves`], e.g. DPVI accuracy vs ε). Written as
//! SVG and PNG (text in the bundled DejaVu Sans, so the PNG looks the same on every machine).

use crate::ResultsError;
use crate::summary::{SummaryRow, distinct};
use plotters::chart::SeriesAnno;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const PANEL: (u32, u32) = (420, 380);

/// One line of a panel: points `(x, mean, error)` joined in x order with ±error bars, or — for
/// a reference without an x coordinate — a horizontal line at `mean` with a ±error band.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64, f64)>,
    pub reference: Option<(f64, f64)>,
    pub style: CurveStyle,
}

/// How a curve is drawn. Dashed curves (a nominal level, "no difference") are drawn after the
/// solid ones, so that the curves lying on them cannot hide them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CurveStyle {
    /// An index into the palette, for curves that share a colour (e.g. the same sampling rate
    /// with and without privacy); `None`: the colour of the label (methods keep theirs).
    pub colour: Option<usize>,
    pub dashed: bool,
}

impl Curve {
    /// A solid curve through `points`, coloured by its label.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64, f64)>) -> Self {
        Self { label: label.into(), points, reference: None, style: CurveStyle::default() }
    }

    /// A horizontal reference line at `mean` with a ±`error` band.
    pub fn reference(label: impl Into<String>, (mean, error): (f64, f64)) -> Self {
        Self { label: label.into(), points: Vec::new(), reference: Some((mean, error)), style: CurveStyle::default() }
    }

    /// The curve drawn dashed.
    pub fn dashed(self) -> Self {
        Self { style: CurveStyle { dashed: true, ..self.style }, ..self }
    }
}

/// One row of a figure: its panels side by side, sharing the row's axes and y range.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveRow {
    pub panels: Vec<CurvePanel>,
    pub labels: CurveLabels,
}

/// A panel: its caption and its curves.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePanel {
    pub caption: String,
    pub curves: Vec<Curve>,
}

/// Axis descriptions and the y range rule of a curve figure.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveLabels {
    pub x: String,
    pub y: String,
    /// Start the y axis at 0 (else at the smallest lower error bar).
    pub y_from_zero: bool,
    /// A log-scaled x axis (all x must be > 0): drawn on log₂ x, ticks labelled with x.
    pub log_x: bool,
    /// A log-scaled y axis (for KL values spanning decades, where the naïve method's ~30 would
    /// flatten every other curve). Lower error bars are cut at the axis' lower end.
    pub log_y: bool,
    /// A note drawn under the title (e.g. the manifest's description of a deviation from the
    /// paper), wrapped to the figure's width.
    pub note: Option<String>,
}

/// How a Fig. 4-style figure is drawn: its title, an optional note under it, a log y axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FigureText {
    pub title: String,
    pub note: Option<String>,
    pub log_y: bool,
}

/// Registers the bundled font as "sans-serif" (errors name `file`, the figure being drawn).
pub(crate) fn register_font(file: &Path) -> Result<(), ResultsError> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| ResultsError::new(file, "the bundled font (DejaVuSans.ttf) cannot be read"))
}

/// Draws the Fig. 4-style figure of `summary` to `svg` and `png` (either may be `None`).
pub fn plot(
    summary: &[SummaryRow],
    text: &FigureText,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let e0s: Vec<Option<f64>> =
        distinct(summary.iter().map(|s| s.e0.map(f64::to_bits))).into_iter().map(|b| b.map(f64::from_bits)).collect();
    let methods = distinct(summary.iter().map(|s| s.method.as_str()));
    let panels: Vec<CurvePanel> = e0s
        .iter()
        .map(|e0| {
            let here: Vec<&SummaryRow> =
                summary.iter().filter(|s| s.e0.map(f64::to_bits) == e0.map(f64::to_bits)).collect();
            let curves = methods
                .iter()
                .map(|method| {
                    let rows: Vec<&&SummaryRow> = here.iter().filter(|s| s.method == *method).collect();
                    let reference =
                        rows.iter().find(|s| s.level.is_none()).map(|s| (s.mean_kl, s.sd_kl.unwrap_or(0.0)));
                    let points =
                        rows.iter().filter_map(|s| Some((s.level?, s.mean_kl, s.sd_kl.unwrap_or(0.0)))).collect();
                    Curve { reference, ..Curve::new(*method, points) }
                })
                .collect();
            CurvePanel { caption: e0.map_or(String::new(), |v| format!("e₀ = {v}")), curves }
        })
        .collect();
    let labels = CurveLabels {
        x: level_axis(summary),
        y: "mean Poisson KL to the true rates (bars: ± sd over data sets)".into(),
        y_from_zero: true,
        log_x: false,
        log_y: text.log_y,
        note: text.note.clone(),
    };
    let mut rows = vec![CurveRow { panels, labels }];
    rows.extend(paired_row(summary, &e0s));
    plot_curve_rows(&rows, &text.title, svg, png)
}

/// The second row of a Fig. 4-style figure when the summary has paired comparisons: per e₀,
/// each method's paired mean KL difference from the baseline over the same data sets with its
/// 95 % t-interval, and a dashed line at 0 (no difference). This is what the paired claims rest
/// on; the first row's bars (sd over data sets) are not.
fn paired_row(summary: &[SummaryRow], e0s: &[Option<f64>]) -> Option<CurveRow> {
    let with_pairs: Vec<&SummaryRow> = summary.iter().filter(|s| s.paired_kl.is_some() && s.level.is_some()).collect();
    let baseline = with_pairs.first().and_then(|s| s.paired_kl.as_ref()).map(|(b, _)| b.clone())?;
    let panels = e0s
        .iter()
        .map(|e0| {
            let here: Vec<&&SummaryRow> =
                with_pairs.iter().filter(|s| s.e0.map(f64::to_bits) == e0.map(f64::to_bits)).collect();
            let mut curves: Vec<Curve> = distinct(here.iter().map(|s| s.method.as_str()))
                .into_iter()
                .map(|method| {
                    let points = here
                        .iter()
                        .filter(|s| s.method == method)
                        .filter_map(|s| {
                            let (_, p) = s.paired_kl.as_ref()?;
                            let half = p.interval.map_or(0.0, |(low, high)| (high - low) / 2.0);
                            Some((s.level?, p.mean, half))
                        })
                        .collect();
                    Curve::new(format!("{method} − {baseline}"), points)
                })
                .collect();
            curves.push(nominal_line("no difference".into(), 0.0));
            CurvePanel { caption: e0.map_or(String::new(), |v| format!("e₀ = {v}: paired")), curves }
        })
        .collect();
    let labels = CurveLabels {
        x: level_axis(summary),
        y: "KL difference, same data sets (bars: 95 % CI)".into(),
        y_from_zero: false,
        log_x: false,
        log_y: false,
        note: None,
    };
    Some(CurveRow { panels, labels })
}

/// The x-axis label of a summary's noise levels: ε or α.
fn level_axis(summary: &[SummaryRow]) -> String {
    match summary.first().map_or("alpha", |s| s.axis) {
        "epsilon" => "ε (privacy level)".into(),
        _ => "α (noise level)".into(),
    }
}

/// Draws the calibration figure of `summary` (its rows with coverage), one panel per interval
/// (central 50 % and 90 %) in two rows:
/// - every method's mean coverage of the true rates over the data sets ± its standard error
///   (sd/√n), the non-private reference, and the nominal level as a dashed line drawn on top;
/// - zoomed, the methods whose coverage is within 0.1 of nominal: coverage − nominal ± 2 se,
///   with a dashed line at 0, so that deviations of a few thousandths can be read.
///
/// The nominal level is [`crate::nominal_coverage`] for the fits' pooled samples (0.5025 rather
/// than 0.5 with 200), or the interval's level where fits kept different numbers. Rows of several
/// e₀ are pooled by level (calibration studies have none).
pub fn plot_coverage(
    summary: &[SummaryRow],
    text: &FigureText,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let rows: Vec<&SummaryRow> = summary.iter().filter(|s| s.coverage.is_some()).collect();
    let methods = distinct(rows.iter().map(|s| s.method.as_str()));
    let nominals = distinct(rows.iter().map(|s| s.coverage_nominal.map(|n| n.map(f64::to_bits))));
    let nominal_of = |i: usize| match nominals[..] {
        [Some(n)] => f64::from_bits(n[i]),
        _ => [0.5, 0.9][i],
    };
    let point = |s: &SummaryRow, i: usize| {
        let (mean, sd) = s.coverage.map_or((f64::NAN, None), |c| c[i]);
        (mean, sd.unwrap_or(0.0) / (s.replications as f64).sqrt())
    };
    // One curve per method of (level, value, error) from a row's (coverage, se).
    let curves_of = |i: usize, value: &dyn Fn(f64, f64) -> (f64, f64), keep: &dyn Fn(&[&&SummaryRow]) -> bool| {
        methods
            .iter()
            .filter_map(|method| {
                let mine: Vec<&&SummaryRow> = rows.iter().filter(|s| s.method == *method).collect();
                keep(&mine).then(|| {
                    let at = |s: &SummaryRow| {
                        let (mean, se) = point(s, i);
                        value(mean, se)
                    };
                    let reference = mine.iter().find(|s| s.level.is_none()).map(|s| at(s));
                    let points = mine.iter().filter_map(|s| Some((s.level?, at(s).0, at(s).1))).collect();
                    Curve { reference, ..Curve::new(*method, points) }
                })
            })
            .collect::<Vec<Curve>>()
    };
    let caption = |i: usize| format!("central {:.0} % intervals", [50.0, 90.0][i]);
    let coverage_panels = (0..2)
        .map(|i| {
            let mut curves = curves_of(i, &|m, se| (m, se), &|_| true);
            curves.push(nominal_line(format!("nominal {:.4}", nominal_of(i)), nominal_of(i)));
            CurvePanel { caption: caption(i), curves }
        })
        .collect();
    let near =
        |i: usize| move |mine: &[&&SummaryRow]| mine.iter().all(|s| (point(s, i).0 - nominal_of(i)).abs() <= 0.1);
    let zoom_panels = (0..2)
        .map(|i| {
            let mut curves = curves_of(i, &|m, se| (m - nominal_of(i), 2.0 * se), &near(i));
            curves.push(nominal_line("nominal".into(), 0.0));
            CurvePanel { caption: format!("{}: within 0.1 of nominal", caption(i)), curves }
        })
        .collect();
    let x = level_axis(summary);
    let labels = |y: &str, note: Option<String>| CurveLabels {
        x: x.clone(),
        y: y.into(),
        y_from_zero: false,
        log_x: false,
        log_y: false,
        note,
    };
    let figure = [
        CurveRow {
            panels: coverage_panels,
            labels: CurveLabels {
                y_from_zero: true,
                ..labels("coverage of the true rates (bars: ± se)", text.note.clone())
            },
        },
        CurveRow { panels: zoom_panels, labels: labels("coverage − nominal (bars: ± 2 se)", None) },
    ];
    plot_curve_rows(&figure, &text.title, svg, png)
}

/// A dashed reference line in the palette's first colour (green) in every panel.
fn nominal_line(label: String, at: f64) -> Curve {
    let mut line = Curve::reference(label, (at, 0.0)).dashed();
    line.style.colour = Some(0);
    line
}

/// Draws `panels` side by side to `svg` and `png` (either may be `None`).
pub fn plot_curves(
    panels: &[CurvePanel],
    labels: &CurveLabels,
    title: &str,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    plot_curve_rows(&[CurveRow { panels: panels.to_vec(), labels: labels.clone() }], title, svg, png)
}

/// Draws `rows` one above the other to `svg` and `png` (either may be `None`); each row has its
/// own axes and y range, and the first row's note goes under the title. Panels with more than
/// four curves get their legend beside them instead of over the data.
pub fn plot_curve_rows(
    rows: &[CurveRow],
    title: &str,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), ResultsError> {
    let file = svg.or(png).unwrap_or(Path::new("figure"));
    register_font(file)?;
    if rows.is_empty() || rows.iter().any(|r| r.panels.is_empty()) {
        return Err(ResultsError::new(file, "nothing to plot: no results"));
    }
    let mut transformed = Vec::with_capacity(rows.len());
    for row in rows {
        transformed.push(checked_row(row, file)?);
    }
    let columns = rows.iter().map(|r| r.panels.len()).max().unwrap_or(1) as u32;
    let legend_outside = rows.iter().flat_map(|r| &r.panels).any(|p| p.curves.len() > LEGEND_INSIDE);
    let panel_width = PANEL.0 + if legend_outside { LEGEND_WIDTH } else { 0 };
    let width = figure_width(panel_width * columns, title);
    let note = rows[0].labels.note.as_deref().map_or_else(Vec::new, |n| wrap(n, (width / NOTE_CHAR_WIDTH) as usize));
    let size = (width, PANEL.1 * rows.len() as u32 + 40 + NOTE_LINE_HEIGHT * note.len() as u32);
    let layout = Layout { title, note: &note, legend_outside };
    if let Some(path) = svg {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, &transformed, &layout).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    if let Some(path) = png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, &transformed, &layout).map_err(|e| ResultsError::new(path, e))?;
        root.present().map_err(|e| ResultsError::new(path, e))?;
    }
    Ok(())
}

/// The width of a figure whose panels need `panels` pixels: at least enough for `title` on one
/// line (a one-panel figure of a long run name cut its title off).
fn figure_width(panels: u32, title: &str) -> u32 {
    panels.max(title.chars().count() as u32 * TITLE_CHAR_WIDTH + 40)
}

/// Panels with at most this many curves carry their legend inside, in the corner it covers least.
const LEGEND_INSIDE: usize = 4;
/// Width of a legend drawn beside its panel.
const LEGEND_WIDTH: u32 = 240;

/// What every row of a figure shares.
struct Layout<'a> {
    title: &'a str,
    note: &'a [String],
    legend_outside: bool,
}

/// `row` checked against its axes (log axes need positive values) and, with a log x axis, drawn
/// on log₂ x.
fn checked_row(row: &CurveRow, file: &Path) -> Result<CurveRow, ResultsError> {
    let curves = || row.panels.iter().flat_map(|p| &p.curves);
    if row.labels.log_y
        && let Some(bad) = curves()
            .flat_map(|c| c.points.iter().map(|p| p.1).chain(c.reference.map(|r| r.0)))
            .find(|m| m.is_nan() || *m <= 0.0)
    {
        return Err(ResultsError::new(file, format!("a log y axis needs values > 0, got {bad}")));
    }
    if !row.labels.log_x {
        return Ok(row.clone());
    }
    if let Some(bad) = curves().flat_map(|c| &c.points).find(|p| p.0.is_nan() || p.0 <= 0.0) {
        return Err(ResultsError::new(file, format!("a log x axis needs x > 0, got {}", bad.0)));
    }
    let log2 = |p: &CurvePanel| CurvePanel {
        caption: p.caption.clone(),
        curves: p
            .curves
            .iter()
            .map(|c| Curve { points: c.points.iter().map(|&(x, m, e)| (x.log2(), m, e)).collect(), ..c.clone() })
            .collect(),
    };
    Ok(CurveRow { panels: row.panels.iter().map(log2).collect(), labels: row.labels.clone() })
}

/// The colours of curves that are not one of the three methods (by label index or by
/// [`CurveStyle::colour`]): distinct from the methods' black, red and blue.
const PALETTE: [RGBColor; 8] = [
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
];

/// The colour of a label: the three methods keep theirs in every figure (a difference
/// "A − B" takes A's), other labels take the palette in order of `index`.
pub(crate) fn colour(label: &str, index: usize) -> RGBColor {
    match label.split(" − ").next().unwrap_or(label) {
        "non-private" => RGBColor(40, 40, 40),
        "naive" => RGBColor(214, 39, 40),
        "private" => RGBColor(31, 119, 180),
        _ => PALETTE[index % PALETTE.len()],
    }
}

/// The x and y ranges covering every point, error bar and reference band.
fn ranges(panels: &[CurvePanel], labels: &CurveLabels) -> ((f64, f64), (f64, f64)) {
    let curves = || panels.iter().flat_map(|p| &p.curves);
    let xs: Vec<f64> = curves().flat_map(|c| c.points.iter().map(|p| p.0)).collect();
    let (x_lo, x_hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let (x_lo, x_hi) = if x_lo.is_finite() { (x_lo, x_hi) } else { (0.5, 1.0) };
    let pad = ((x_hi - x_lo) * 0.05).max(0.02);
    let x = (x_lo - pad, x_hi + pad);
    let spans = curves()
        .flat_map(|c| c.points.iter().map(|p| (p.1 - p.2, p.1 + p.2)).chain(c.reference.map(|(m, e)| (m - e, m + e))));
    let (lo, hi) = spans.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (l, h)| (a.min(l), b.max(h)));
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let y = if labels.log_y {
        // From the smallest mean (or lower bar, if positive) to the largest upper bar.
        let means = curves().flat_map(|c| c.points.iter().map(|p| p.1).chain(c.reference.map(|r| r.0)));
        let low = means.fold(f64::INFINITY, f64::min).min(if lo > 0.0 { lo } else { f64::INFINITY });
        let low = if low.is_finite() && low > 0.0 { low } else { 1e-3 };
        (low / 1.5, if hi > low { hi * 1.5 } else { low * 10.0 })
    } else if labels.y_from_zero {
        (0.0, if hi > 0.0 { hi * 1.08 } else { 1.0 })
    } else {
        let pad = ((hi - lo) * 0.08).max(1e-3);
        (lo - pad, hi + pad)
    };
    (x, y)
}

/// Width of a character of the note in pixels (for wrapping) and the height of one of its lines.
const NOTE_CHAR_WIDTH: u32 = 7;
/// Width of a character of the title (sans-serif, 20 px; an upper bound, so the title fits).
const TITLE_CHAR_WIDTH: u32 = 10;
const NOTE_LINE_HEIGHT: u32 = 18;

/// `text` broken at spaces into lines of at most `width` characters (longer words stand alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[CurveRow],
    layout: &Layout<'_>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(layout.title, ("sans-serif", 20)).map_err(e)?;
    let (top, root) = root.split_vertically(NOTE_LINE_HEIGHT * layout.note.len() as u32);
    for (i, line) in layout.note.iter().enumerate() {
        let style = ("sans-serif", 13).into_font().color(&RGBColor(150, 20, 20));
        top.draw_text(line, &style, (10, (NOTE_LINE_HEIGHT as usize * i) as i32 + 2)).map_err(e)?;
    }
    let all_labels =
        distinct(rows.iter().flat_map(|r| &r.panels).flat_map(|p| p.curves.iter().map(|c| c.label.as_str())));
    let columns = rows.iter().map(|r| r.panels.len()).max().unwrap_or(1);
    for (row_area, row) in root.split_evenly((rows.len(), 1)).iter().zip(rows) {
        let labels = &row.labels;
        let ((x_lo, x_hi), (y_lo, y_hi)) = ranges(&row.panels, labels);
        for (area, panel) in row_area.split_evenly((1, columns)).iter().zip(&row.panels) {
            let (plot_area, legend_area) = if layout.legend_outside {
                let (plot, legend) = area.split_horizontally(PANEL.0);
                (plot, Some(legend))
            } else {
                (area.clone(), None)
            };
            let mut builder = ChartBuilder::on(&plot_area);
            builder.caption(&panel.caption, ("sans-serif", 17)).margin(12).x_label_area_size(42).y_label_area_size(58);
            let context = PanelContext {
                labels,
                all_labels: &all_labels,
                x: (x_lo, x_hi),
                y_lo,
                legend_inside: !layout.legend_outside,
            };
            if labels.log_y {
                let mut chart = builder.build_cartesian_2d(x_lo..x_hi, (y_lo..y_hi).log_scale()).map_err(e)?;
                draw_curves(&mut chart, panel, &context).map_err(e)?;
            } else {
                let mut chart = builder.build_cartesian_2d(x_lo..x_hi, y_lo..y_hi).map_err(e)?;
                draw_curves(&mut chart, panel, &context).map_err(e)?;
            }
            if let Some(legend) = legend_area {
                draw_legend_beside(&legend, panel, &all_labels).map_err(e)?;
            }
        }
    }
    Ok(())
}

/// The legend of `panel` in the area to its right: one line per curve, in drawing order.
fn draw_legend_beside<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &CurvePanel,
    all_labels: &[&str],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, curve) in drawing_order(panel).into_iter().enumerate() {
        let y = 60 + 20 * i as i32;
        let c = curve_colour(curve, all_labels);
        if curve.style.dashed {
            area.draw(&PathElement::new(vec![(4, y), (10, y)], c.stroke_width(2)))?;
            area.draw(&PathElement::new(vec![(14, y), (22, y)], c.stroke_width(2)))?;
        } else {
            area.draw(&PathElement::new(vec![(4, y), (22, y)], c.stroke_width(2)))?;
        }
        area.draw_text(&curve.label, &("sans-serif", 13).into_font().color(&BLACK), (28, y - 7))?;
    }
    Ok(())
}

/// The curves of `panel` in the order they are drawn: solid first, dashed (references) last.
fn drawing_order(panel: &CurvePanel) -> Vec<&Curve> {
    let mut curves: Vec<&Curve> = panel.curves.iter().collect();
    curves.sort_by_key(|c| c.style.dashed);
    curves
}

/// The colour of `curve`: its style's palette entry, else its label's.
fn curve_colour(curve: &Curve, all_labels: &[&str]) -> RGBColor {
    match curve.style.colour {
        Some(i) => PALETTE[i % PALETTE.len()],
        None => colour(&curve.label, all_labels.iter().position(|l| *l == curve.label).unwrap_or(0)),
    }
}

/// What a panel's curves are drawn with.
struct PanelContext<'a> {
    labels: &'a CurveLabels,
    all_labels: &'a [&'a str],
    x: (f64, f64),
    y_lo: f64,
    legend_inside: bool,
}

/// The corner of a panel whose legend box would cover the fewest points of its curves (each
/// curve's points, its segments sampled ten times, and reference lines and band edges across the
/// width), in the order upper left, upper right, lower right, lower left on ties. The box is
/// taken as 40 % of the width and 12 % + 7 % per curve of the height.
fn legend_corner(
    panel: &CurvePanel,
    (x_lo, x_hi): (f64, f64),
    (y_lo, y_hi): (f64, f64),
    y_of: &dyn Fn(f64) -> f64,
) -> SeriesLabelPosition {
    let (w, h) = ((x_hi - x_lo).max(f64::MIN_POSITIVE), (y_hi - y_lo).max(f64::MIN_POSITIVE));
    let mut samples: Vec<(f64, f64)> = Vec::new();
    for curve in &panel.curves {
        if let Some((m, sd)) = curve.reference {
            for y in [m - sd, m, m + sd] {
                samples.extend((0..=20).map(|k| (f64::from(k) / 20.0, (y_of(y) - y_lo) / h)));
            }
        }
        let mut points: Vec<(f64, f64)> =
            curve.points.iter().map(|&(x, m, _)| ((x - x_lo) / w, (y_of(m) - y_lo) / h)).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        samples.extend(points.iter().copied());
        for pair in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            samples.extend((1..10).map(|k| {
                let t = f64::from(k) / 10.0;
                (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
            }));
        }
    }
    let (bw, bh) = (0.4, 0.12 + 0.07 * panel.curves.len() as f64);
    let corners = [
        (SeriesLabelPosition::UpperLeft, (0.0, bw), (1.0 - bh, 1.0)),
        (SeriesLabelPosition::UpperRight, (1.0 - bw, 1.0), (1.0 - bh, 1.0)),
        (SeriesLabelPosition::LowerRight, (1.0 - bw, 1.0), (0.0, bh)),
        (SeriesLabelPosition::LowerLeft, (0.0, bw), (0.0, bh)),
    ];
    let covered = |(xa, xb): (f64, f64), (ya, yb): (f64, f64)| {
        samples.iter().filter(|&&(x, y)| x >= xa && x <= xb && y >= ya && y <= yb).count()
    };
    let mut best = (usize::MAX, SeriesLabelPosition::UpperLeft);
    for (corner, xs, ys) in corners {
        let n = covered(xs, ys);
        if n < best.0 {
            best = (n, corner);
        }
    }
    best.1
}

/// A line through `points`, solid or dashed.
fn draw_line<'a, 'b, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    points: Vec<(f64, f64)>,
    c: RGBColor,
    dashed: bool,
) -> Result<&'b mut SeriesAnno<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = c.stroke_width(2);
    if dashed {
        chart.draw_series(DashedLineSeries::new(points, 8, 5, style))
    } else {
        chart.draw_series(LineSeries::new(points, style))
    }
}

fn draw_curves<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    panel: &CurvePanel,
    context: &PanelContext<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let PanelContext { labels, all_labels, x: (x_lo, x_hi), y_lo, .. } = *context;
    // Short tick labels: 0.5, 1, 2.5 (not 0.5000000001).
    let tick = |x: &f64| {
        let x = if labels.log_x { x.exp2() } else { *x };
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    chart
        .configure_mesh()
        // On a log axis, about one tick per doubling (at integer log₂ x: 0.25, 0.5, 1, 2 …).
        .x_labels(if labels.log_x { (x_hi - x_lo).ceil() as usize + 1 } else { 8 })
        .x_label_formatter(&tick)
        .x_desc(labels.x.as_str())
        .y_desc(labels.y.as_str())
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for curve in drawing_order(panel) {
        let c = curve_colour(curve, all_labels);
        let series = if let Some((m, sd)) = curve.reference {
            if sd > 0.0 {
                let band = Rectangle::new([(x_lo, (m - sd).max(y_lo)), (x_hi, m + sd)], c.mix(0.12).filled());
                chart.draw_series(std::iter::once(band))?;
            }
            draw_line(chart, vec![(x_lo, m), (x_hi, m)], c, curve.style.dashed)?
        } else {
            let mut points = curve.points.clone();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let bars = points.iter().map(|&(x, m, sd)| {
                let low = if labels.y_from_zero || labels.log_y { (m - sd).max(y_lo) } else { m - sd };
                ErrorBar::new_vertical(x, low, m, m + sd, c.filled(), 8)
            });
            chart.draw_series(bars)?;
            chart.draw_series(points.iter().map(|&(x, m, _)| Circle::new((x, m), 3, c.filled())))?;
            draw_line(chart, points.iter().map(|&(x, m, _)| (x, m)).collect(), c, curve.style.dashed)?
        };
        // A dashed curve's key has a gap in the middle.
        let gap = if curve.style.dashed { 4 } else { 0 };
        series.label(curve.label.clone()).legend(move |(x, y)| {
            let style = c.stroke_width(2);
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (7, 0)], style)
                + PathElement::new(vec![(7 + gap, 0), (18, 0)], style)
        });
    }
    if !context.legend_inside {
        return Ok(());
    }
    let y_of = |y: f64| if labels.log_y { y.max(f64::MIN_POSITIVE).ln() } else { y };
    let y_hi = chart.y_range().end;
    let corner = legend_corner(panel, (x_lo, x_hi), (y_of(y_lo), y_of(y_hi)), &y_of);
    chart
        .configure_series_labels()
        .position(corner)
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corner(points: Vec<(f64, f64, f64)>, reference: Option<(f64, f64)>) -> SeriesLabelPosition {
        let curves = vec![Curve::new("a", points), Curve { reference, ..Curve::new("b", Vec::new()) }];
        legend_corner(&CurvePanel { caption: String::new(), curves }, (0.0, 1.0), (0.0, 1.0), &|y| y)
    }

    /// A figure is as wide as its panels, or wider when its title needs it.
    #[test]
    fn a_long_title_widens_the_figure() {
        assert_eq!(figure_width(PANEL.0, "short"), PANEL.0);
        let title = "calibration-block-fig4-size-replicas: ranks of the true total rate";
        assert!(figure_width(PANEL.0, title) >= title.chars().count() as u32 * TITLE_CHAR_WIDTH);
        assert_eq!(figure_width(4 * PANEL.0, title), 4 * PANEL.0);
    }

    /// The legend goes to the corner its box covers least of the curves: upper left when it is
    /// free, elsewhere when a curve rises there, and away from a reference line along the top.
    #[test]
    fn the_legend_avoids_the_data() {
        let low = vec![(0.0, 0.1, 0.0), (0.5, 0.2, 0.0), (1.0, 0.1, 0.0)];
        assert!(matches!(corner(low.clone(), None), SeriesLabelPosition::UpperLeft));
        let spike = vec![(0.05, 0.95, 0.0), (0.2, 0.1, 0.0), (1.0, 0.1, 0.0)];
        assert!(matches!(corner(spike, None), SeriesLabelPosition::UpperRight));
        let rising = vec![(0.0, 0.1, 0.0), (0.9, 0.95, 0.0), (1.0, 0.98, 0.0)];
        assert!(matches!(corner(rising, None), SeriesLabelPosition::UpperLeft));
        assert!(matches!(
            corner(low, Some((0.9, 0.02))),
            SeriesLabelPosition::LowerRight | SeriesLabelPosition::LowerLeft
        ));
    }
}
