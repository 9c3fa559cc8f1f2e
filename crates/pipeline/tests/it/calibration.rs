//! Simulation-based calibration (docs/calibration.md): with data drawn from the model's own
//! prior, the exact posterior's central credible intervals cover the true rates at their nominal
//! level on average over data sets. The non-private Gibbs sampler must show it (the check that
//! the check works), the naïve one at high noise must not (the check can fail), and the locally
//! private one must.
//!
//! Tolerances: a coverage mean over `n` data sets is compared with the nominal level in units of
//! its standard error `sd/√n`; under calibration `|z| > 4` has probability ≈ 6·10⁻⁵ (normal
//! approximation). Everything is seeded, so the outcome is fixed.

use pipeline::{Method, MethodResult, OnIteration, covers, parse, run_cell, run_reference, true_data};
use std::path::Path;

const MANIFEST: &str = r#"
methods = ["non-private", "naive", "private"]
[experiment]
name = "calibration-test"
seed = 7
[model]
kind = "topic"
components = 2
a0 = 1.0
b0 = 1.0
[data]
source = "prior"
rows = 8
cols = 6
[noise]
alpha = [0.8]
[sweep]
replications = 100
[sampler]
iterations = 600
burn_in = 200
thin = 2
"#;

const QUIET: OnIteration = &|| {};

/// Kept samples per fit: (600 − 200) / 2.
const KEPT: usize = 200;

fn results() -> Vec<MethodResult> {
    let manifest = parse(MANIFEST, Path::new("calibration-test.toml")).unwrap();
    let mut out = Vec::new();
    for cell in &manifest.cells() {
        let data = true_data(&manifest, &cell.dataset).unwrap();
        out.extend(run_reference(&manifest, &data, &cell.dataset, QUIET).unwrap());
        out.extend(run_cell(&manifest, &data, cell, QUIET).unwrap());
    }
    out
}

/// Mean coverage and its standard error over the fits of `method`, for the 50 % (`i = 0`) or
/// 90 % interval of the rates.
fn coverage(rows: &[MethodResult], method: Method, i: usize) -> (f64, f64) {
    let values: Vec<f64> = rows
        .iter()
        .filter(|r| r.method == method)
        .map(|r| r.coverage.map(|c| [c.rates_50, c.rates_90][i]).unwrap())
        .collect();
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (mean, sd / n.sqrt())
}

/// The probability that a uniform rank on `0..=S` falls in the covered range.
fn nominal(level: f64) -> f64 {
    (0..=KEPT).filter(|&r| covers(r as u32, KEPT, level)).count() as f64 / (KEPT + 1) as f64
}

#[test]
fn the_covered_range_of_ranks_has_the_nominal_probability() {
    assert!((nominal(0.5) - 101.0 / 201.0).abs() < 1e-15);
    assert!((nominal(0.9) - 181.0 / 201.0).abs() < 1e-15);
    // The edges: rank 10 of 200 is inside the 90 % interval, rank 9 is not.
    assert!(covers(10, KEPT, 0.9) && covers(190, KEPT, 0.9));
    assert!(!covers(9, KEPT, 0.9) && !covers(191, KEPT, 0.9));
}

/// The coverage of the rates' credible intervals: at the nominal level for the exact and the
/// private posteriors, too low for the naïve one. Called from the one test below, which computes
/// the fits once (the test runner gives each test its own process, so two tests would fit twice).
fn exact_and_private_posteriors_are_calibrated_and_the_naive_one_is_not(rows: &[MethodResult]) {
    for (i, level) in [(0, 0.5), (1, 0.9)] {
        for method in [Method::NonPrivate, Method::Private] {
            let (mean, se) = coverage(rows, method, i);
            let z = (mean - nominal(level)) / se;
            assert!(z.abs() < 4.0, "{method:?} {level}: coverage {mean:.4} ± {se:.4}, nominal {:.4}", nominal(level));
        }
        // Treating the noised counts as exact: too narrow intervals around a biased centre.
        let (mean, se) = coverage(rows, Method::Naive, i);
        assert!(mean < nominal(level) - 10.0 * se, "naive {level}: coverage {mean:.4} ± {se:.4}");
    }
}

/// Simulation-based calibration proper (Talts et al. 2018): the ranks of the true total rate and
/// of the true parameters' log-likelihood of the data among 19 thinned draws are uniform for the
/// exact and the private posteriors and not for the naïve one. The verdicts are ECDF tests with
/// simultaneous bands, Holm-adjusted over the six groups at family-wise level 0.05
/// ([`results::SBC_FAMILY_ALPHA`]): under calibration the four "uniform" verdicts hold together
/// with probability ≥ 0.95 (seeded, so the outcome is fixed).
fn the_ranks_are_uniform_for_exact_and_private_and_not_naive(fits: &[MethodResult]) {
    let manifest = parse(MANIFEST, Path::new("calibration-test.toml")).unwrap();
    let rows = pipeline::result_rows(&manifest, fits);
    let ranked = |s: results::Sbc| s.draws == 19 && s.total_rank <= 19 && s.ln_likelihood_rank.is_some_and(|r| r <= 19);
    assert!(rows.iter().all(|r| r.sbc.is_some_and(ranked)));
    let groups = results::sbc_summary(&rows);
    assert_eq!(groups.len(), 6);
    for quantity in ["total", "ln_likelihood"] {
        let verdict = |method: &str| groups.iter().find(|g| g.method == method && g.quantity == quantity).unwrap();
        for method in ["non-private", "private"] {
            let g = verdict(method);
            let message = format!("{method}, {quantity}: ECDF Holm p {:.3}, {:?}", g.ecdf_p_holm, g.counts);
            assert!(g.uniform() && g.fits == 100, "{message}");
        }
        let naive = verdict("naive");
        let message = format!("naive, {quantity}: ECDF Holm p {:.3}, {:?}", naive.ecdf_p_holm, naive.counts);
        assert!(!naive.uniform(), "{message}");
        println!("{message}");
    }
}

/// Both checks above on one set of 100 data sets × three methods.
#[test]
fn posteriors_of_the_exact_and_private_methods_are_calibrated_and_the_naive_one_is_not() {
    let fits = results();
    exact_and_private_posteriors_are_calibrated_and_the_naive_one_is_not(&fits);
    the_ranks_are_uniform_for_exact_and_private_and_not_naive(&fits);
}

/// SBC on a selection of the prior's data sets: keeping only data sets whose release has its mean
/// in a narrow window leaves the non-private and private ranks uniform (the fits see the release,
/// so their posteriors are unchanged), while the same window on the true counts
/// (`mean_count_range`, which the private fits do not see) leaves the private posterior of the
/// total ignorant of what the selection knows: its ranks are not uniform and the ECDF test
/// rejects (Holm p 0.008 with this seed). The window [2.0, 2.5] was the first one tried.
#[test]
fn a_selection_on_the_release_keeps_the_ranks_uniform_and_one_on_the_counts_does_not() {
    let select = |field: &str| {
        let text = MANIFEST
            .replace("methods = [\"non-private\", \"naive\", \"private\"]", "methods = [\"non-private\", \"private\"]")
            .replace("cols = 6\n", &format!("cols = 6\n{field} = [2.0, 2.5]\n"));
        let manifest = parse(&text, Path::new("selected.toml")).unwrap();
        let mut fits = Vec::new();
        for cell in &manifest.cells() {
            let data = true_data(&manifest, &cell.dataset).unwrap();
            fits.extend(run_reference(&manifest, &data, &cell.dataset, QUIET).unwrap());
            fits.extend(run_cell(&manifest, &data, cell, QUIET).unwrap());
        }
        results::sbc_summary(&pipeline::result_rows(&manifest, &fits))
    };
    let find = |groups: &[results::SbcGroup], method: &str| {
        groups.iter().find(|g| g.method == method && g.quantity == "total").unwrap().clone()
    };
    let on_release = select("release_mean_count_range");
    for method in ["non-private", "private"] {
        let g = find(&on_release, method);
        assert!(
            g.uniform() && g.fits == 100,
            "release window, {method}: ECDF Holm p {:.3}, {:?}",
            g.ecdf_p_holm,
            g.counts
        );
    }
    let on_counts = select("mean_count_range");
    let private = find(&on_counts, "private");
    let message = format!("counts window, private: ECDF Holm p {:.2e}, {:?}", private.ecdf_p_holm, private.counts);
    assert!(!private.uniform(), "{message}");
    println!("{message}");
}
