//! The summary over replications: per (e₀, noise level, method), the mean and the sample standard
//! deviation (divisor n − 1) of the metrics.
//!
//! Within a noise level, each method after the first is compared with the first (the baseline,
//! e.g. private with naïve) on the same data sets: [`crate::paired`] of the mean KL by
//! replication (wins, mean difference with its 95 % interval, paired t-test).
//!
//! The noise axis is `ε` if the rows carry one (with an empirical precision `N` the `α` of a level
//! differs between data sets, so `ε` is the swept coordinate), otherwise `α`. The non-private
//! reference has no noise level: it is summarized once per e₀.

use crate::paired::{Paired, paired};
use crate::row::{ResultRow, RowDiagnostics, max_or_nan};
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
    /// The first method at this noise level and the paired comparison of the mean KL with it
    /// (this − baseline, lower is better) over the replications both have; `None` for the
    /// baseline itself and for the non-private reference.
    pub paired_kl: Option<(String, Paired)>,
    /// The paired p-value adjusted by Holm's procedure over every paired comparison of the
    /// summary (the file's cells are one family; docs/statistics.md).
    pub paired_p_holm: Option<f64>,
    /// The most chains (CAVI: starts) of a fit in the group.
    pub chains: usize,
    /// The Monte Carlo standard error of `mean_kl` from the chains' spread: for a fit with
    /// `M ≥ 2` chains `se_r = sd(chain KLs) / √M`, and for the group `√(Σ_r se_r²) / n`. `None`
    /// when a fit has a single chain. `sd_kl` mixes this with the spread over data sets.
    pub mc_se_kl: Option<f64>,
    /// Gibbs: the largest split-R̂ of any traced quantity of any fit in the group (NaN when one is
    /// undefined); `None` without diagnostics (CAVI, or files written before chains existed).
    pub max_rhat: Option<f64>,
    /// Gibbs: the smallest bulk and tail ESS of any traced quantity of any fit in the group.
    pub min_ess: Option<(f64, f64)>,
    /// Gibbs: how many fits of the group have a diagnostics warning (R̂ > 1.01 or ESS below 100
    /// per chain; see `warning` in results.parquet).
    pub flagged: Option<usize>,
    /// Gibbs: mean and sd over the group's fits of the coverage of the true rates by central 50 %
    /// and 90 % credible intervals ([`crate::Coverage`]).
    pub coverage: Option<[(f64, Option<f64>); 2]>,
    /// Gibbs: the coverage a calibrated posterior has with the group's number of pooled samples
    /// ([`crate::nominal_coverage`]), for 50 % and 90 % (`None` when the fits kept different
    /// numbers). Not a column of summary.csv.
    pub coverage_nominal: Option<[f64; 2]>,
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
    let groups_at = |e0: Option<u64>, level: Option<u64>| {
        groups.iter().filter(|g| g.0 == e0 && g.1 == level).map(|g| g.2).collect::<Vec<_>>()
    };
    let mut summary = groups
        .iter()
        .map(|&group| {
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
            // The baseline: the first method of the manifest's order at this (e₀, level).
            let baseline = group.1.and_then(|_| groups_at(group.0, group.1).into_iter().min());
            let paired_kl = baseline.filter(|&b| b != group.2).and_then(|b| {
                let theirs: Vec<&ResultRow> = rows.iter().filter(|r| group_of(r) == (group.0, group.1, b)).collect();
                let pairs: Vec<(f64, f64)> = members
                    .iter()
                    .filter_map(|a| {
                        theirs.iter().find(|t| t.replication == a.replication).map(|t| (a.mean_kl, t.mean_kl))
                    })
                    .collect();
                paired(&pairs, true).map(|p| (methods[b].to_string(), p))
            });
            let diagnosed: Vec<RowDiagnostics> = members.iter().filter_map(|r| r.diagnostics).collect();
            let max_rhat = (!diagnosed.is_empty()).then(|| max_or_nan(diagnosed.iter().map(RowDiagnostics::max_rhat)));
            let min_ess = (!diagnosed.is_empty()).then(|| {
                diagnosed
                    .iter()
                    .map(RowDiagnostics::min_ess)
                    .fold((f64::INFINITY, f64::INFINITY), |a, b| (a.0.min(b.0), a.1.min(b.1)))
            });
            let warned: Vec<&str> = members.iter().filter_map(|r| r.warning.as_deref()).collect();
            let flagged = (!warned.is_empty()).then(|| warned.iter().filter(|w| !w.is_empty()).count());
            let covered: Vec<crate::Coverage> = members.iter().filter_map(|r| r.coverage).collect();
            let coverage = (!covered.is_empty()).then(|| {
                [
                    mean_sd(&covered.iter().map(|c| c.rates_50).collect::<Vec<_>>()),
                    mean_sd(&covered.iter().map(|c| c.rates_90).collect::<Vec<_>>()),
                ]
            });
            let pooled = |r: &&ResultRow| {
                let kept = (r.iterations - r.burn_in?) / r.thin?.max(1);
                usize::try_from(kept * r.chains.max(1)).ok()
            };
            let samples = distinct(members.iter().filter(|r| r.coverage.is_some()).map(pooled));
            let coverage_nominal = match samples[..] {
                [Some(kept)] => Some([0.5, 0.9].map(|level| crate::nominal_coverage(kept, level))),
                _ => None,
            };
            SummaryRow {
                coverage,
                coverage_nominal,
                chains: members.iter().map(|r| r.chains.max(1) as usize).max().unwrap_or(1),
                mc_se_kl: monte_carlo_se(&members),
                max_rhat,
                min_ess,
                flagged,
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
                paired_kl,
                paired_p_holm: None,
            }
        })
        .collect::<Vec<SummaryRow>>();
    with_holm(&mut summary);
    summary
}

/// Sets `paired_p_holm` over the rows that have a paired p-value (one family).
fn with_holm(summary: &mut [SummaryRow]) {
    let tested: Vec<(usize, f64)> = summary
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.paired_kl.as_ref().and_then(|(_, p)| p.p_value).map(|p| (i, p)))
        .collect();
    let adjusted = crate::paired::holm(&tested.iter().map(|t| t.1).collect::<Vec<_>>());
    for ((i, _), p) in tested.into_iter().zip(adjusted) {
        summary[i].paired_p_holm = Some(p);
    }
}

/// `√(Σ_r se_r²) / n` with `se_r = sd(chain KLs of fit r) / √M_r`; `None` unless every fit has
/// at least two chains.
fn monte_carlo_se(members: &[&ResultRow]) -> Option<f64> {
    let mut total = 0.0;
    for r in members {
        let m = r.chain_mean_kl.len();
        let sd = mean_sd(&r.chain_mean_kl).1.filter(|_| m >= 2)?;
        total += sd * sd / m as f64;
    }
    (!members.is_empty()).then(|| total.sqrt() / members.len() as f64)
}

fn cell(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}

/// The summary as CSV (empty fields for missing values).
pub fn summary_csv(summary: &[SummaryRow]) -> String {
    let mut out = String::from(
        "e0,axis,level,method,replications,mean_kl,sd_kl,mean_alpha,mean_topic_error,sd_topic_error,mean_seconds,\
         paired_vs,paired_n,paired_wins,paired_kl_difference,paired_kl_difference_low,paired_kl_difference_high,paired_p_value,\
         chains,mc_se_kl,max_rhat,min_ess_bulk,min_ess_tail,flagged_fits,\
         mean_coverage_50,sd_coverage_50,mean_coverage_90,sd_coverage_90,paired_p_holm\n",
    );
    for s in summary {
        let p = s.paired_kl.as_ref();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
            s.mean_seconds,
            p.map_or("", |p| p.0.as_str()),
            p.map_or(String::new(), |p| p.1.n.to_string()),
            p.map_or(String::new(), |p| p.1.wins.to_string()),
            cell(p.map(|p| p.1.mean)),
            cell(p.and_then(|p| p.1.interval).map(|i| i.0)),
            cell(p.and_then(|p| p.1.interval).map(|i| i.1)),
            cell(p.and_then(|p| p.1.p_value)),
            s.chains,
            cell(s.mc_se_kl),
            cell(s.max_rhat),
            cell(s.min_ess.map(|e| e.0)),
            cell(s.min_ess.map(|e| e.1)),
            s.flagged.map_or(String::new(), |f| f.to_string()),
            cell(s.coverage.map(|c| c[0].0)),
            cell(s.coverage.and_then(|c| c[0].1)),
            cell(s.coverage.map(|c| c[1].0)),
            cell(s.coverage.and_then(|c| c[1].1)),
            cell(s.paired_p_holm),
        );
    }
    out
}

/// The summary as an aligned plain-text table for the terminal.
pub fn summary_table(summary: &[SummaryRow]) -> String {
    let fixed = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.4}"));
    let axis = summary.first().map_or("alpha", |s| s.axis);
    let mut out = format!(
        "{:>6} {:>8} {:>12} {:>4} {:>10} {:>10} {:>10} {:>8} {:>11} {:>13}  {}\n",
        "e0",
        axis,
        "method",
        "n",
        "mean KL",
        "sd KL",
        "MC se",
        "mean α",
        "topic err",
        "R̂max flagged",
        "paired KL vs the level's first method: Δ [95 % CI] wins p"
    );
    for s in summary {
        let _ = writeln!(
            out,
            "{:>6} {:>8} {:>12} {:>4} {:>10.4} {:>10} {:>10} {:>8} {:>11} {:>13}  {}",
            s.e0.map_or("—".to_string(), |v| format!("{v}")),
            s.level.map_or("—".to_string(), |v| format!("{v}")),
            s.method,
            s.replications,
            s.mean_kl,
            fixed(s.sd_kl),
            fixed(s.mc_se_kl),
            fixed(s.mean_alpha),
            fixed(s.mean_topic_error),
            convergence_text(s),
            s.paired_kl.as_ref().map_or(String::new(), |(b, p)| paired_text(b, p, s.paired_p_holm))
        );
    }
    out
}

/// `1.004 0/5` (the largest R̂ and how many fits are flagged), `1.230 2/5 !` when any is;
/// `—` without diagnostics.
fn convergence_text(s: &SummaryRow) -> String {
    match (s.max_rhat, s.flagged) {
        (Some(r), Some(f)) => format!("{r:.3} {f}/{}{}", s.replications, if f > 0 { " !" } else { "" }),
        _ => "—".into(),
    }
}

/// `vs naive: Δ −0.1100 [−0.2354, 0.0154] 5/5 p 0.072 (Holm 0.41)` (wins of this method; the
/// interval and p when there is a spread, and p adjusted over the summary's comparisons).
fn paired_text(baseline: &str, p: &Paired, holm: Option<f64>) -> String {
    let interval = p.interval.map_or(String::new(), |(lo, hi)| format!(" [{lo:.4}, {hi:.4}]"));
    let adjusted = holm.map_or(String::new(), |h| format!(" (Holm {h:.3})"));
    let test = p.p_value.map_or(String::new(), |v| format!(" p {v:.3}{adjusted}"));
    format!("vs {baseline}: Δ {:.4}{interval} {}/{}{test}", p.mean, p.wins, p.n)
}
