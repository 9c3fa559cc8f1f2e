//! The summary over replications: per (e₀, noise level, method), the mean and the sample standard
//! deviation (divisor n − 1) of the metrics.
//!
//! The noise axis is `ε` if the rows carry one (with an empirical precision `N` the `α` of a level
//! differs between data sets, so `ε` is the swept coordinate), otherwise `α`. The non-private
//! reference has no noise level: it is summarized once per e₀.

use crate::row::ResultRow;
use std::fmt::Write;

/// One line of the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    pub e0: Option<f64>,
    /// `"epsilon"` or `"alpha"`: what `level` is.
    pub axis: &'static str,
    /// The noise level; `None` for the non-private reference.
    pub level: Option<f64>,
    pub method: String,
    /// Number of rows (replications) summarized.
    pub replications: usize,
    pub mean_kl: f64,
    /// `None` with a single replication.
    pub sd_kl: Option<f64>,
    /// Mean `α` of the rows (equal to `level` on an `α` axis).
    pub mean_alpha: Option<f64>,
    pub mean_topic_error: Option<f64>,
    pub sd_topic_error: Option<f64>,
    pub mean_seconds: f64,
}

/// The distinct items, in order of first appearance.
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Mean and sample standard deviation (divisor n − 1; `None` for fewer than two values).
pub fn mean_sd(xs: &[f64]) -> (f64, Option<f64>) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.len() > 1).then(|| (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    (mean, sd)
}

/// Groups `rows` by (e₀, level, method): e₀ and levels ascending, methods in order of first
/// appearance (the manifest's order), the non-private reference first within each e₀.
pub fn summarize(rows: &[ResultRow]) -> Vec<SummaryRow> {
    let by_epsilon = rows.iter().any(|r| r.epsilon.is_some());
    let axis = if by_epsilon { "epsilon" } else { "alpha" };
    let level = |r: &ResultRow| if by_epsilon { r.epsilon } else { r.alpha };
    let methods = distinct(rows.iter().map(|r| r.method.as_str()));
    // A group's key: (e₀, level, method index), floats by their bits.
    let group_of = |r: &ResultRow| {
        let method = methods.iter().position(|m| *m == r.method).unwrap_or(0);
        (r.e0.map(f64::to_bits), level(r).map(f64::to_bits), method)
    };
    let mut groups = distinct(rows.iter().map(group_of));
    let value = |bits: Option<u64>| bits.map_or(f64::NEG_INFINITY, f64::from_bits);
    groups
        .sort_by(|a, b| value(a.0).total_cmp(&value(b.0)).then(value(a.1).total_cmp(&value(b.1))).then(a.2.cmp(&b.2)));
    groups
        .into_iter()
        .map(|group| {
            let members: Vec<&ResultRow> = rows.iter().filter(|r| group_of(r) == group).collect();
            let kl: Vec<f64> = members.iter().map(|r| r.mean_kl).collect();
            let (mean_kl, sd_kl) = mean_sd(&kl);
            let alphas: Vec<f64> = members.iter().filter_map(|r| r.alpha).collect();
            let topic: Vec<f64> = members.iter().filter_map(|r| r.topic_error).collect();
            let (mean_topic_error, sd_topic_error) = if topic.is_empty() {
                (None, None)
            } else {
                let (m, s) = mean_sd(&topic);
                (Some(m), s)
            };
            let seconds: Vec<f64> = members.iter().map(|r| r.seconds).collect();
            SummaryRow {
                e0: group.0.map(f64::from_bits),
                axis,
                level: group.1.map(f64::from_bits),
                method: methods[group.2].to_string(),
                replications: members.len(),
                mean_kl,
                sd_kl,
                mean_alpha: (!alphas.is_empty()).then(|| mean_sd(&alphas).0),
                mean_topic_error,
                sd_topic_error,
                mean_seconds: mean_sd(&seconds).0,
            }
        })
        .collect()
}

fn cell(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}

/// The summary as CSV (empty fields for missing values).
pub fn summary_csv(summary: &[SummaryRow]) -> String {
    let mut out = String::from(
        "e0,axis,level,method,replications,mean_kl,sd_kl,mean_alpha,mean_topic_error,sd_topic_error,mean_seconds\n",
    );
    for s in summary {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{}",
            cell(s.e0),
            s.axis,
            cell(s.level),
            s.method,
            s.replications,
            s.mean_kl,
            cell(s.sd_kl),
            cell(s.mean_alpha),
            cell(s.mean_topic_error),
            cell(s.sd_topic_error),
            s.mean_seconds
        );
    }
    out
}

/// The summary as an aligned plain-text table for the terminal.
pub fn summary_table(summary: &[SummaryRow]) -> String {
    let fixed = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.4}"));
    let axis = summary.first().map_or("alpha", |s| s.axis);
    let mut out = format!(
        "{:>6} {:>8} {:>12} {:>4} {:>10} {:>10} {:>8} {:>11}\n",
        "e0", axis, "method", "n", "mean KL", "sd KL", "mean α", "topic err"
    );
    for s in summary {
        let _ = writeln!(
            out,
            "{:>6} {:>8} {:>12} {:>4} {:>10.4} {:>10} {:>8} {:>11}",
            s.e0.map_or("—".to_string(), |v| format!("{v}")),
            s.level.map_or("—".to_string(), |v| format!("{v}")),
            s.method,
            s.replications,
            s.mean_kl,
            fixed(s.sd_kl),
            fixed(s.mean_alpha),
            fixed(s.mean_topic_error)
        );
    }
    out
}
