//! Scoring a finished fit against the raw counts it never saw (`lppf score`): what every methods
//! study does with data whose truth it holds, and an analyst never can.
//!
//! - Poisson log-likelihood of the raw counts under the posterior mean rates of the table's cells
//!   (`rates.parquet`'s `cell_mean`: `E[μ_n δ_n]` under an overdispersed likelihood),
//!   `ℓ = Σ_n [y_n ln μ̂_n − μ̂_n − ln y_n!]`, and the deviance `D = 2 Σ_n [y_n ln(y_n/μ̂_n) − (y_n − μ̂_n)]`
//!   (the term `y ln(y/μ̂)` is 0 when `y = 0`);
//! - the ratio of the fitted total rate to the raw total;
//! - against a reference fit of the same grid: the Pearson correlation of the posterior mean
//!   rates over the cells both hold, and the adjusted Rand index (Hubert & Arabie 1985) of the
//!   two fits' row partitions (`partition.csv`), which does not depend on group labels.

use crate::error::FitError;
use distributions::ln_gamma;
use results::{Values, read_table};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use tables::CountTable;

/// The posterior mean rate of every cell of a fit, by `(row, col)` label.
pub type FitRates = HashMap<(String, String), f64>;

/// Raw counts in `[lo, hi]` (`hi` absent: no upper bound): how many cells, their raw total and
/// their fitted total rate. Totals are floating point (exact below 2⁵³), so no sum of counts
/// can overflow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreBin {
    pub lo: u64,
    pub hi: Option<u64>,
    pub cells: usize,
    pub raw_total: f64,
    pub fitted_total: f64,
}

/// How well a fit's mean rates describe the raw counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Score {
    pub cells: usize,
    pub raw_total: f64,
    pub fitted_total: f64,
    /// `fitted_total / raw_total`.
    pub total_ratio: f64,
    pub log_likelihood: f64,
    pub log_likelihood_per_cell: f64,
    pub deviance: f64,
    pub bins: Vec<ScoreBin>,
}

/// The bins of raw counts a score reports: 0, 1, 2–5, 6–20, 21–100, 101 and above.
pub const SCORE_BINS: [(u64, u64); 6] = [(0, 0), (1, 1), (2, 5), (6, 20), (21, 100), (101, u64::MAX)];

/// The `row`, `col` and rate of every cell of a fit's `rates.parquet`: its `cell_mean`, the cell's
/// rate in this table (under an overdispersed likelihood `E[μδ]`, the multiplier having seen the
/// cell: what this table's raw counts are scored against), or `mean` in a file written before
/// that column existed. A fit of counts over time (a `time` column) names a cell's column as its
/// grid does, [`tables::pair_label`] of the column and the time.
pub fn read_fit_rates(path: &Path) -> Result<FitRates, FitError> {
    let columns = read_table(path).map_err(|e| FitError::Input(e.to_string()))?;
    let get = |name: &str| columns.iter().find(|(c, _)| c == name).map(|(_, v)| v);
    let (Some(Values::Text(rows)), Some(Values::Text(cols)), Some(Values::Float(means))) =
        (get("row"), get("col"), get("cell_mean").or_else(|| get("mean")))
    else {
        return Err(FitError::Input(format!(
            "{}: expected the columns row, col, mean of lppf fit's rates.parquet",
            path.display()
        )));
    };
    let times = match get("time") {
        Some(Values::Text(times)) => Some(times),
        _ => None,
    };
    let mut rates = HashMap::with_capacity(rows.len());
    for (n, ((r, c), m)) in rows.iter().zip(cols).zip(means).enumerate() {
        let mean = m.ok_or_else(|| FitError::Input(format!("{}: no mean rate for ({r}, {c})", path.display())))?;
        let col = times.and_then(|t| t.get(n)).map_or_else(|| c.clone(), |t| tables::pair_label(c, t));
        rates.insert((r.clone(), col), mean);
    }
    Ok(rates)
}

/// Scores the fitted rates of `rates` (every cell the fit modelled) against the raw counts
/// `truth`. Every fitted cell must be on the truth's grid.
pub fn score(rates: &FitRates, truth: &CountTable, truth_file: &Path) -> Result<Score, FitError> {
    // Every row and column of the truth must be the fit's: a label the fit never saw has counts
    // the score would silently leave out. (On a network's grid, rows × rows, a label may be the
    // fit's on either axis: an undirected fit holds each pair once, the first label first.)
    let (mut fit_rows, mut fit_cols): (HashSet<&str>, HashSet<&str>) =
        (rates.keys().map(|(r, _)| r.as_str()).collect(), rates.keys().map(|(_, c)| c.as_str()).collect());
    if truth.rows.names == truth.cols.names {
        fit_rows.extend(fit_cols.iter().copied());
        fit_cols.clone_from(&fit_rows);
    }
    for (axis, names, fitted) in [("row", &truth.rows.names, &fit_rows), ("column", &truth.cols.names, &fit_cols)] {
        let missing: Vec<&String> = names.iter().filter(|n| !fitted.contains(n.as_str())).collect();
        if let Some(first) = missing.first() {
            return Err(FitError::Input(format!(
                "{}: {} {axis} label(s) of the counts are not in the fit, e.g. {first:?}: score a fit against the counts \
                 it was released from",
                truth_file.display(),
                missing.len()
            )));
        }
    }
    let cols = truth.cols.len();
    let (mut log_likelihood, mut deviance, mut fitted_total, mut raw_total) = (0.0, 0.0, 0.0, 0.0);
    let mut bins: Vec<ScoreBin> = SCORE_BINS
        .iter()
        .map(|&(lo, hi)| ScoreBin {
            lo,
            hi: (hi < u64::MAX).then_some(hi),
            cells: 0,
            raw_total: 0.0,
            fitted_total: 0.0,
        })
        .collect();
    // In grid order, so the sums do not depend on the hash map's order.
    let mut cells = 0;
    for (n, &y) in truth.counts.iter().enumerate() {
        let key = (truth.rows.names[n / cols].clone(), truth.cols.names[n % cols].clone());
        let Some(&mu) = rates.get(&key) else { continue };
        cells += 1;
        let yf = y as f64;
        log_likelihood += yf * mu.ln() - mu - ln_gamma(yf + 1.0);
        deviance += 2.0 * (if y > 0 { yf * (yf / mu).ln() } else { 0.0 } - (yf - mu));
        fitted_total += mu;
        raw_total += yf;
        if let Some(b) = bins.iter_mut().find(|b| y >= b.lo && b.hi.is_none_or(|hi| y <= hi)) {
            b.cells += 1;
            b.raw_total += yf;
            b.fitted_total += mu;
        }
    }
    if cells < rates.len() {
        let (r, c) =
            rates.keys().find(|(r, c)| truth.rows.get(r).zip(truth.cols.get(c)).is_none()).cloned().unwrap_or_default();
        return Err(FitError::Input(format!(
            "{}: the fit has {} cells outside this table's grid, e.g. ({r}, {c}); score a fit against the counts it was \
             released from",
            truth_file.display(),
            rates.len() - cells
        )));
    }
    Ok(Score {
        cells,
        raw_total,
        fitted_total,
        total_ratio: fitted_total / raw_total,
        log_likelihood,
        log_likelihood_per_cell: log_likelihood / cells.max(1) as f64,
        deviance,
        bins,
    })
}

/// The Pearson correlation of two fits' mean rates over their cells (in sorted cell order), and
/// how many cells that is. Both fits must hold the same cells (fits of one grid and model): a
/// cell of one missing from the other, or rates with no spread (the correlation is undefined),
/// is refused naming it.
pub fn rate_correlation(a: &FitRates, b: &FitRates) -> Result<(f64, usize), FitError> {
    let only = |x: &FitRates, y: &FitRates| {
        let mut missing: Vec<&(String, String)> = x.keys().filter(|k| !y.contains_key(*k)).collect();
        missing.sort();
        missing.first().map(|(r, c)| (missing.len(), format!("({r}, {c})")))
    };
    if let Some((n, cell)) = only(a, b).or_else(|| only(b, a)) {
        return Err(FitError::Input(format!(
            "the two fits do not hold the same cells ({n} cell(s) in one only, e.g. {cell}): compare fits of one \
             table and one model"
        )));
    }
    let mut shared: Vec<(&(String, String), f64, f64)> =
        a.iter().filter_map(|(k, &x)| b.get(k).map(|&y| (k, x, y))).collect();
    shared.sort_by(|p, q| p.0.cmp(q.0));
    let n = shared.len() as f64;
    let (mx, my) = (shared.iter().map(|s| s.1).sum::<f64>() / n, shared.iter().map(|s| s.2).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (_, x, y) in &shared {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let r = sxy / (sxx * syy).sqrt();
    if !r.is_finite() {
        return Err(FitError::Input(format!(
            "the rate correlation of the two fits is undefined: over their {} cell(s) the rates of one do not vary",
            shared.len()
        )));
    }
    Ok((r, shared.len()))
}

/// The row partition a fit wrote (`partition.csv`: `row,group,…`), by row label; empty when the
/// fit listed no groups.
pub fn read_partition(path: &Path) -> Result<HashMap<String, String>, FitError> {
    let text = std::fs::read_to_string(path).map_err(|e| FitError::Input(format!("{}: {e}", path.display())))?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let mut groups = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| FitError::Input(format!("{}: {e}", path.display())))?;
        if let (Some(row), Some(group)) = (record.get(0), record.get(1)) {
            groups.insert(row.to_string(), group.to_string());
        }
    }
    Ok(groups)
}

/// The adjusted Rand index of two partitions over the items both hold (1: the same partition,
/// about 0: agreement by chance), and how many items that is; `None` with fewer than 2 items.
pub fn adjusted_rand(a: &HashMap<String, String>, b: &HashMap<String, String>) -> Option<(f64, usize)> {
    let pairs: Vec<(&String, &String)> = a.iter().filter_map(|(k, x)| b.get(k).map(|y| (x, y))).collect();
    crate::partition::adjusted_rand_index(&pairs).map(|ari| (ari, pairs.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tables::Labels;

    fn labels(names: &[&str]) -> Labels {
        Labels::from_names(names.iter().map(|s| s.to_string()))
    }

    /// The log-likelihood, deviance and totals of a 2 × 2 table by hand; a fit cell outside the
    /// grid is refused.
    #[test]
    fn a_score_by_hand() {
        let truth =
            CountTable { rows: labels(&["a", "b"]), cols: labels(&["x", "y"]), counts: vec![0, 2, 1, 3], axes: None };
        let mut rates: FitRates = HashMap::new();
        for (r, c, m) in [("a", "x", 0.5), ("a", "y", 2.0), ("b", "x", 1.0), ("b", "y", 2.0)] {
            rates.insert((r.into(), c.into()), m);
        }
        let s = score(&rates, &truth, Path::new("t.csv")).unwrap();
        let ll = -0.5 + (2.0 * 2f64.ln() - 2.0 - 2f64.ln()) + (-1.0) + (3.0 * 2f64.ln() - 2.0 - 6f64.ln());
        assert!((s.log_likelihood - ll).abs() < 1e-12, "{} {ll}", s.log_likelihood);
        let dev = 2.0 * ((0.0 - (0.0 - 0.5)) + 0.0 + 0.0 + (3.0 * 1.5f64.ln() - 1.0));
        assert!((s.deviance - dev).abs() < 1e-12, "{} {dev}", s.deviance);
        assert_eq!((s.cells, s.raw_total, s.fitted_total, s.total_ratio), (4, 6.0, 5.5, 5.5 / 6.0));
        assert_eq!(s.bins.iter().map(|b| b.cells).collect::<Vec<_>>(), vec![1, 1, 2, 0, 0, 0]);
        rates.insert(("c".into(), "x".into()), 1.0);
        assert!(score(&rates, &truth, Path::new("t.csv")).unwrap_err().to_string().contains("(c, x)"));
        // A row of the counts the fit does not have is refused, not left out.
        rates.remove(&("c".to_string(), "x".to_string()));
        let wider = CountTable {
            rows: labels(&["a", "b", "z"]),
            cols: labels(&["x", "y"]),
            counts: vec![0, 2, 1, 3, 5, 0],
            axes: None,
        };
        let e = score(&rates, &wider, Path::new("t.csv")).unwrap_err().to_string();
        assert!(e.contains("1 row label(s)") && e.contains("\"z\""), "{e}");
    }

    /// The adjusted Rand index is 1 for the same partition under other labels and −1/2 for
    /// two groups of two crossed with the other two (by hand: no pair together in both, expected
    /// 2·2/6); the correlation of a fit with a rescaled copy is 1.
    #[test]
    fn agreement_ignores_labels() {
        let part = |v: &[(&str, &str)]| v.iter().map(|(k, g)| (k.to_string(), g.to_string())).collect();
        let a = part(&[("1", "x"), ("2", "x"), ("3", "y"), ("4", "y")]);
        let relabelled = part(&[("1", "q"), ("2", "q"), ("3", "p"), ("4", "p")]);
        let crossed = part(&[("1", "u"), ("2", "v"), ("3", "u"), ("4", "v")]);
        assert_eq!(adjusted_rand(&a, &relabelled), Some((1.0, 4)));
        let (ari, _) = adjusted_rand(&a, &crossed).unwrap();
        assert!((ari - (-0.5)).abs() < 1e-12, "{ari}");
        let rates: FitRates = (0..5).map(|i| ((i.to_string(), "c".to_string()), i as f64 * 1.5 + 0.1)).collect();
        let doubled: FitRates = rates.iter().map(|(k, v)| (k.clone(), 2.0 * v + 1.0)).collect();
        let (r, n) = rate_correlation(&rates, &doubled).unwrap();
        assert!((r - 1.0).abs() < 1e-12 && n == 5, "{r}");
        // Another grid, or no spread: refused, never NaN.
        let mut other = doubled.clone();
        other.remove(&("3".to_string(), "c".to_string()));
        assert!(rate_correlation(&rates, &other).unwrap_err().to_string().contains("(3, c)"));
        let flat: FitRates = rates.keys().map(|k| (k.clone(), 1.0)).collect();
        assert!(rate_correlation(&rates, &flat).unwrap_err().to_string().contains("undefined"));
    }
}
