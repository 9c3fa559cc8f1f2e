//! Results files: a Parquet round trip keeps every value (nulls included) and the metadata; the
//! summary's means and sample sds match hand computation; the figure has one panel per e₀ and
//! a legend entry per method; bad files are named.

use results::{
    FigureText, ResultRow, RowDiagnostics, TraceDiagnostics, plot, read_info, read_results, summarize, summary_csv,
    write_results,
};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-results-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn row(e0: Option<f64>, alpha: Option<f64>, method: &str, replication: i64, mean_kl: f64) -> ResultRow {
    ResultRow {
        experiment: "test".into(),
        model: "block".into(),
        components: 4,
        seed: u64::MAX,
        replication,
        e0,
        alpha,
        epsilon: None,
        precision: None,
        row_concentration: None,
        method: method.into(),
        mean_kl,
        rate_mae: 0.25,
        topic_error: None,
        iterations: 100,
        burn_in: Some(10),
        thin: Some(5),
        converged: None,
        seconds: 1.5,
        iterations_per_second: 66.7,
        chains: 1,
        chain_mean_kl: vec![mean_kl],
        diagnostics: None,
        warning: None,
        coverage: None,
        convergence: None,
        stacking: None,
        sbc: None,
        ladder_min_beta: None,
    }
}

/// Two e₀ levels × two α levels × two methods × three replications, plus references.
fn sweep() -> Vec<ResultRow> {
    let mut rows = Vec::new();
    for e0 in [1.5, 0.75] {
        for rep in 0..3 {
            rows.push(row(Some(e0), None, "non-private", rep, 0.1 * e0 + 0.01 * rep as f64));
            for alpha in [0.5, 0.1] {
                rows.push(row(Some(e0), Some(alpha), "naive", rep, e0 * alpha + rep as f64));
                rows.push(row(Some(e0), Some(alpha), "private", rep, 0.2 + 0.1 * rep as f64));
            }
        }
    }
    rows
}

#[test]
fn parquet_round_trip_keeps_values_nulls_and_metadata() {
    let dir = scratch("roundtrip");
    let mut rows = sweep();
    rows[1].epsilon = Some(0.75);
    rows[1].precision = Some(3.25);
    rows[1].row_concentration = Some(10.0);
    rows[1].topic_error = Some(0.0625);
    rows[1].method = "private-cavi".into();
    (rows[1].burn_in, rows[1].thin, rows[1].converged) = (None, None, Some(true));
    rows[2].mean_kl = f64::MIN_POSITIVE;
    // Several chains: their KLs (a list column), diagnostics (one undefined R̂) and a warning.
    (rows[3].chains, rows[3].chain_mean_kl) = (3, vec![0.5, 0.25, 1e-300]);
    rows[3].diagnostics = Some(diagnosed(f64::NAN, 123.5));
    rows[3].warning = Some("ln_joint: R̂ is undefined".into());
    rows[4].chain_mean_kl = Vec::new();
    rows[3].coverage = Some(results::Coverage { rates_50: 0.5, rates_90: 0.875, rows_50: 0.25, rows_90: 1.0 });
    // The convergence verdict and the stacked chains.
    rows[3].convergence = Some("modes".into());
    rows[3].stacking =
        Some(results::Stacking { weights: vec![0.75, 0.25, 0.0], mean_kl: 0.125, unreliable_share: 0.5 });
    // The calibration rank of the true total rate.
    rows[3].sbc = Some(results::Sbc { total_rank: 7, draws: 19, ln_likelihood_rank: Some(3) });
    // Replica exchange: the hottest rung of the chains' ladders.
    rows[3].ladder_min_beta = Some(0.8125);
    let path = dir.join("sub/results.parquet");
    write_results(&path, &rows, &[("lppf.manifest", "name = \"x\"".into())]).unwrap();
    let back = read_results(&path).unwrap();
    // NaN ≠ NaN: compare that row's R̂ by its bits.
    let rhat = |r: &ResultRow| r.diagnostics.map(|d| d.ln_joint.rhat.to_bits());
    assert_eq!(rhat(&back[3]), rhat(&rows[3]));
    let without_nan = |rows: &[ResultRow]| {
        let mut rows = rows.to_vec();
        rows[3].diagnostics = None;
        rows
    };
    assert_eq!(without_nan(&back), without_nan(&rows));
    assert_eq!(back[3].diagnostics.unwrap().total_rate, rows[3].diagnostics.unwrap().total_rate);
    assert_eq!(back[3].diagnostics.unwrap().kl.ess_tail, 124.5);
    let info = read_info(&path).unwrap();
    assert!(info.metadata.contains(&("lppf.manifest".to_string(), "name = \"x\"".to_string())));
    assert_eq!(info.schema.fields().len(), results::schema().fields().len());
    // Also on the Arrow schema, where pyarrow's `read_table(...).schema.metadata` looks.
    assert_eq!(info.schema.metadata().get("lppf.manifest").map(String::as_str), Some("name = \"x\""));
    // Nothing but the file is left in the directory (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(dir.join("sub")).unwrap().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_files_are_named() {
    let dir = scratch("bad");
    let path = dir.join("results.parquet");
    std::fs::write(&path, b"not parquet").unwrap();
    let err = read_results(&path).unwrap_err();
    assert!(err.to_string().contains("results.parquet"), "{err}");
    assert!(read_results(&dir.join("missing.parquet")).unwrap_err().to_string().contains("missing.parquet"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn summary_means_and_sample_sds() {
    let summary = summarize(&sweep());
    // Per e₀ (ascending): the reference, then α ascending × methods in order of appearance.
    let keys: Vec<(Option<f64>, Option<f64>, &str)> =
        summary.iter().map(|s| (s.e0, s.level, s.method.as_str())).collect();
    assert_eq!(
        keys,
        vec![
            (Some(0.75), None, "non-private"),
            (Some(0.75), Some(0.1), "naive"),
            (Some(0.75), Some(0.1), "private"),
            (Some(0.75), Some(0.5), "naive"),
            (Some(0.75), Some(0.5), "private"),
            (Some(1.5), None, "non-private"),
            (Some(1.5), Some(0.1), "naive"),
            (Some(1.5), Some(0.1), "private"),
            (Some(1.5), Some(0.5), "naive"),
            (Some(1.5), Some(0.5), "private"),
        ]
    );
    // naive at e₀ = 1.5, α = 0.5: values 0.75 + {0, 1, 2} → mean 1.75, sd 1.
    let s = &summary[8];
    assert_eq!(s.replications, 3);
    assert!((s.mean_kl - 1.75).abs() < 1e-12 && (s.sd_kl.unwrap() - 1.0).abs() < 1e-12, "{s:?}");
    assert_eq!(s.mean_alpha, Some(0.5));
    assert_eq!(s.axis, "alpha");
    // private: 0.2, 0.3, 0.4 → mean 0.3, sd 0.1.
    let s = &summary[9];
    assert!((s.mean_kl - 0.3).abs() < 1e-12 && (s.sd_kl.unwrap() - 0.1).abs() < 1e-12, "{s:?}");
    // A single replication has no sd.
    let single = summarize(&sweep()[..1]);
    assert_eq!(single[0].sd_kl, None);
    // Paired with naive (the level's first method) by replication: d = private − naive =
    // (0.2 + 0.1r) − (0.75 + r) = −0.55 − 0.9r → −0.55, −1.45, −2.35: mean −1.45, sd 0.9,
    // t = −1.45 / (0.9/√3) = −2.7905 on 2 df, p = 0.10797 (2·(1 − F), F(t) = ½ + t/(2√(2 + t²))
    // for 2 df); interval −1.45 ± 4.302653 · 0.9/√3.
    let (baseline, p) = s.paired_kl.as_ref().unwrap();
    assert_eq!((baseline.as_str(), p.n, p.wins), ("naive", 3, 3));
    assert!((p.mean + 1.45).abs() < 1e-12);
    let half = 4.302_652_729_749_464 * 0.9 / 3f64.sqrt();
    let (lo, hi) = p.interval.unwrap();
    assert!((lo - (-1.45 - half)).abs() < 1e-9 && (hi - (-1.45 + half)).abs() < 1e-9, "{lo} {hi}");
    let t = -1.45 / (0.9 / 3f64.sqrt());
    let p_exact = 2.0 * (1.0 - (0.5 + t.abs() / (2.0 * (2.0 + t * t).sqrt())));
    assert!((p.p_value.unwrap() - p_exact).abs() < 1e-9, "{:?} vs {p_exact}", p.p_value);
    // The baseline and the references carry no comparison.
    assert!(summary[8].paired_kl.is_none() && summary[5].paired_kl.is_none());
    // Holm over the summary's paired comparisons: each adjusted p at least the raw one, at most 1,
    // and exactly the adjustment of the raw ones.
    let raw: Vec<f64> = summary.iter().filter_map(|s| s.paired_kl.as_ref()?.1.p_value).collect();
    let adjusted: Vec<f64> = summary.iter().filter_map(|s| s.paired_p_holm).collect();
    assert_eq!(adjusted, results::holm(&raw));
    assert!(raw.iter().zip(&adjusted).all(|(r, a)| r <= a && *a <= 1.0) && !raw.is_empty());
    let csv = summary_csv(&summary);
    assert_eq!(csv.lines().count(), 11);
    assert!(csv.lines().nth(1).unwrap().starts_with("0.75,alpha,,non-private,3,"), "{csv}");
    assert!(csv.lines().next().unwrap().ends_with(",paired_vs,paired_n,paired_wins,paired_kl_difference,paired_kl_difference_low,paired_kl_difference_high,paired_p_value,chains,mc_se_kl,max_rhat,min_ess_bulk,min_ess_tail,flagged_fits,mean_coverage_50,sd_coverage_50,mean_coverage_90,sd_coverage_90,paired_p_holm"));
    let last = csv.lines().nth(10).unwrap();
    assert!(last.contains(",naive,3,3,-1.45"), "{last}");
    // Single chains without diagnostics: no Monte Carlo error, no convergence columns; then the
    // Holm-adjusted p over the file's comparisons.
    assert!(last.contains(",1,,,,,,,,,,"), "{last}");
    let holm = last.rsplit(',').next().unwrap().parse::<f64>().unwrap();
    assert_eq!(Some(holm), summary[9].paired_p_holm, "{last}");
}

fn diagnosed(rhat: f64, ess: f64) -> RowDiagnostics {
    let t = TraceDiagnostics { rhat, ess_bulk: ess, ess_tail: ess + 1.0 };
    RowDiagnostics { ln_joint: t, total_rate: TraceDiagnostics { rhat: 1.0, ..t }, kl: t }
}

/// The Monte Carlo error from the chains' spread and the convergence flags, by hand: chain KLs
/// {1.0, 1.2} and {2.0, 2.4} give se² = sd²/2 = 0.01 and 0.04, so the cell's MC se is
/// √0.05 / 2; the second fit's R̂ = 1.05 flags it.
#[test]
fn summary_reports_the_monte_carlo_error_and_flags_unconverged_fits() {
    let mut rows = vec![row(None, Some(0.5), "private", 0, 1.05), row(None, Some(0.5), "private", 1, 2.1)];
    rows[0].chain_mean_kl = vec![1.0, 1.2];
    rows[1].chain_mean_kl = vec![2.0, 2.4];
    rows[0].diagnostics = Some(diagnosed(1.002, 950.0));
    rows[1].diagnostics = Some(diagnosed(1.05, 420.0));
    rows[0].warning = Some(String::new());
    rows[1].warning = Some("ln_joint: R̂ = 1.050 > 1.01: the chains disagree; run longer".into());
    for r in &mut rows {
        r.chains = 2;
    }
    let s = &summarize(&rows)[0];
    assert_eq!(s.chains, 2);
    assert!((s.mc_se_kl.unwrap() - 0.05f64.sqrt() / 2.0).abs() < 1e-12, "{s:?}");
    assert_eq!(s.max_rhat, Some(1.05));
    assert_eq!(s.min_ess, Some((420.0, 421.0)));
    assert_eq!(s.flagged, Some(1));
    let csv = summary_csv(&summarize(&rows));
    assert!(csv.lines().nth(1).unwrap().ends_with(",2,0.11180339887498947,1.05,420,421,1,,,,,"), "{csv}");
    // One fit with a single chain: the cell has no MC error from chains.
    rows[1].chain_mean_kl = vec![2.1];
    assert_eq!(summarize(&rows)[0].mc_se_kl, None);
    // An undefined R̂ is reported, not hidden.
    rows[0].diagnostics = Some(diagnosed(f64::NAN, 10.0));
    assert!(summarize(&rows)[0].max_rhat.unwrap().is_nan());
}

#[test]
fn epsilon_sweeps_are_summarized_by_epsilon() {
    let mut rows = sweep();
    for (i, r) in rows.iter_mut().enumerate() {
        if r.alpha.is_some() {
            r.epsilon = Some(if r.alpha == Some(0.5) { 1.0 } else { 2.0 });
            r.alpha = r.alpha.map(|a| a + 0.01 * i as f64); // α differs per data set
        }
    }
    let summary = summarize(&rows);
    assert_eq!(summary.len(), 10);
    assert!(summary.iter().all(|s| s.axis == "epsilon"));
    assert_eq!(summary[1].level, Some(1.0));
}

#[test]
fn figure_has_a_panel_per_e0_and_a_line_per_method() {
    let dir = scratch("figure");
    let (svg, png) = (dir.join("f.svg"), dir.join("f.png"));
    let text = FigureText { title: "test figure".into(), ..FigureText::default() };
    plot(&summarize(&sweep()), &text, Some(&svg), Some(&png)).unwrap();
    let drawn = std::fs::read_to_string(&svg).unwrap();
    for needle in ["test figure", "e₀ = 0.75", "e₀ = 1.5", "non-private", "naive", "private", "α (noise level)"] {
        assert!(drawn.contains(needle), "{needle:?} missing from the SVG");
    }
    // The paired claims get their own row: private − naive over the same data sets, against 0.
    for needle in ["e₀ = 0.75: paired", "private − naive", "no difference", "95 % CI"] {
        assert!(drawn.contains(needle), "{needle:?} missing from the SVG");
    }
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    assert!(plot(&[], &text, Some(&svg), None).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The manifest's description (a deviation from the paper) is drawn under the title, wrapped;
/// a log y axis draws decades (ticks at powers of ten) and refuses values ≤ 0.
#[test]
fn figure_carries_the_note_and_draws_a_log_axis() {
    let dir = scratch("figure-note");
    let svg = dir.join("f.svg");
    let note = "DEVIATION FROM THE PAPER: 2,500 Gibbs iterations, every 10th kept after the first 500 (paper: \
                15,000, every 25th after 3,000); otherwise the Fig. 4 design.";
    let text = FigureText { title: "quick".into(), note: Some(note.into()), log_y: true };
    let mut rows = sweep();
    rows[0].mean_kl = 30.0; // one naive-like outlier that a linear axis would flatten everything under
    plot(&summarize(&rows), &text, Some(&svg), None).unwrap();
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("DEVIATION FROM THE PAPER:") && drawn.contains("design."), "note missing:\n{drawn}");
    let linear = dir.join("linear.svg");
    plot(&summarize(&rows), &FigureText { log_y: false, ..text.clone() }, Some(&linear), None).unwrap();
    assert_ne!(drawn, std::fs::read_to_string(&linear).unwrap());
    let method = rows[1].method.clone();
    rows.iter_mut().filter(|r| r.method == method).for_each(|r| r.mean_kl = 0.0);
    let e = plot(&summarize(&rows), &text, Some(&svg), None).unwrap_err();
    assert!(e.to_string().contains("log y axis"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The calibration figure: coverage against the nominal level of the fits' pooled samples
/// (0.5025 and 0.9005 with 200), and a zoomed row of coverage − nominal that leaves out a method
/// far from nominal (here naive) so that small deviations can be read.
#[test]
fn coverage_figure_zooms_on_the_deviation_from_the_nominal_level() {
    assert_eq!(results::nominal_coverage(200, 0.5), 101.0 / 201.0);
    assert_eq!(results::nominal_coverage(200, 0.9), 181.0 / 201.0);
    assert_eq!(results::central_ranks(200, 0.9), (10, 190));
    let dir = scratch("coverage");
    let svg = dir.join("c.svg");
    let mut rows = sweep();
    for r in &mut rows {
        // 200 kept samples: (1010 − 10) / 5.
        r.iterations = 1010;
        let naive = r.method == "naive";
        let (c50, c90) = if naive { (0.2, 0.5) } else { (0.501, 0.899) };
        r.coverage = Some(results::Coverage { rates_50: c50, rates_90: c90, rows_50: c50, rows_90: c90 });
    }
    let summary = summarize(&rows);
    assert_eq!(summary[0].coverage_nominal, Some([101.0 / 201.0, 181.0 / 201.0]));
    let text = FigureText { title: "calibration".into(), ..FigureText::default() };
    results::plot_coverage(&summary, &text, Some(&svg), None).unwrap();
    let drawn = std::fs::read_to_string(&svg).unwrap();
    for needle in ["nominal 0.5025", "nominal 0.9005", "within 0.1 of nominal", "coverage − nominal (bars: ± 2 se)"]
    {
        assert!(drawn.contains(needle), "{needle:?} missing from the SVG");
    }
    // Naive appears in the two legends of the first row only; private in all four.
    let count = |label: &str| drawn.matches(&format!(">\n{label}\n<")).count();
    assert_eq!((count("naive"), count("private")), (2, 4), "{drawn}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A panel with more than four curves gets its legend beside it (the figure is wider by the
/// legend's strip); with four it stays inside, in the corner it covers least.
#[test]
fn crowded_panels_get_their_legend_beside_them() {
    let dir = scratch("legend");
    let width = |curves: usize| {
        let svg = dir.join(format!("l{curves}.svg"));
        let panel = results::CurvePanel {
            caption: "p".into(),
            curves: (0..curves)
                .map(|i| results::Curve::new(format!("curve {i}"), vec![(1.0, i as f64, 0.1)]))
                .collect(),
        };
        let labels = results::CurveLabels {
            x: "x".into(),
            y: "y".into(),
            y_from_zero: false,
            log_x: false,
            log_y: false,
            note: None,
        };
        results::plot_curves(&[panel], &labels, "legend", Some(&svg), None).unwrap();
        let drawn = std::fs::read_to_string(&svg).unwrap();
        assert!((0..curves).all(|i| drawn.contains(&format!("curve {i}"))), "a label is missing");
        drawn.split("width=\"").nth(1).and_then(|w| w.split('"').next()).unwrap().parse::<u32>().unwrap()
    };
    assert_eq!((width(4), width(5)), (420, 660));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The calibration summary ranks each quantity a group's fits all carry: the log-likelihood's
/// groups only where every fit has its rank (older files have none), each tested on its own
/// ranks and all Holm-adjusted together.
#[test]
fn sbc_groups_rank_the_total_and_the_log_likelihood_where_both_are_recorded() {
    let mut rows = Vec::new();
    for rep in 0..20 {
        let mut exact = row(None, None, "non-private", rep, 0.1);
        // Uniform-looking total ranks; log-likelihood ranks piled at the top (a posterior whose
        // draws fit the data worse than the truth does).
        exact.sbc = Some(results::Sbc { total_rank: (rep % 20) as u32, draws: 19, ln_likelihood_rank: Some(19) });
        rows.push(exact);
        let mut older = row(None, Some(0.5), "private", rep, 0.1);
        older.sbc = Some(results::Sbc { total_rank: (rep * 7 % 20) as u32, draws: 19, ln_likelihood_rank: None });
        rows.push(older);
    }
    let groups = results::sbc_summary(&rows);
    let named: Vec<(&str, &str)> = groups.iter().map(|g| (g.method.as_str(), g.quantity)).collect();
    assert_eq!(named, [("non-private", "total"), ("non-private", "ln_likelihood"), ("private", "total")]);
    assert!(groups[0].uniform() && groups[2].uniform());
    assert!(!groups[1].uniform(), "ranks all at the top pass: {:?}", groups[1].ecdf);
    let csv = results::sbc_csv(&groups);
    assert!(csv.starts_with("e0,level,method,quantity,fits,"));
    assert_eq!(csv.lines().filter(|l| l.contains(",ln_likelihood,")).count(), 1);
}
