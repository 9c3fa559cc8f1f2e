//! Simulation-based calibration of a sweep (Talts, Betancourt, Simpson, Vehtari & Gelman 2018):
//! the rank histograms of the true total rate and of the true parameters' log-likelihood of the
//! data among each fit's thinned draws, per (e₀, level, method), tested for uniformity by the ECDF
//! test with simultaneous bands ([`crate::ecdf_test`], the verdict) and, beside it, a χ² test of
//! the binned ranks; each with Holm's adjustment over the groups of the file.
//!
//! Under an exact posterior and data drawn from the model's prior, the rank `r` of the truth among
//! `L` independent draws is uniform on `0..=L`. Ranks are binned into `B = min(10, ⌊fits/5⌋)` bins,
//! bin `b` holding the ranks with `⌊r B/(L + 1)⌋ = b`, whose exact probability is their number
//! over `L + 1`; `χ² = Σ_b (O_b − E_b)²/E_b` with `B − 1` degrees of freedom. A group is flagged
//! when its Holm-adjusted ECDF p-value is below [`SBC_FAMILY_ALPHA`] = 0.05, the false-alarm rate of
//! the whole file's verdicts together. (Until the ECDF test, the χ² test at 0.01 decided: a level
//! that favoured "calibrated", and binning that hid deviations in the tails; docs/statistics.md.)

use crate::ResultsError;
use crate::figure::{Curve, CurveLabels, CurvePanel, CurveRow, plot_curve_rows};
use crate::paired::holm;
use crate::row::ResultRow;
use crate::summary::distinct;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use std::fmt::Write;
use std::path::Path;

/// The family-wise false-alarm rate of a file's "not uniform" verdicts (Holm over its groups).
pub const SBC_FAMILY_ALPHA: f64 = 0.05;

/// The quantities ranked: the total rate, and the marginal log-likelihood of the data the fit
/// sees (a data-dependent test quantity, label-free and sensitive to every rate; Modrák et al.
/// 2023), with their names in `sbc.csv`.
pub const SBC_QUANTITIES: [(&str, RankOf); 2] =
    [("total", |s| Some(s.total_rank)), ("ln_likelihood", |s| s.ln_likelihood_rank)];

/// A fit's rank of one quantity, if it was recorded.
pub type RankOf = fn(&crate::row::Sbc) -> Option<u32>;

/// The rank histogram of one group and its test.
#[derive(Clone, Debug, PartialEq)]
pub struct SbcGroup {
    pub e0: Option<f64>,
    /// The noise level (α, or ε when the sweep is over ε); `None` for the non-private reference.
    pub level: Option<f64>,
    pub method: String,
    /// The quantity ranked (a name of [`SBC_QUANTITIES`]).
    pub quantity: &'static str,
    pub fits: usize,
    /// Draws each rank is among (`L`).
    pub draws: u32,
    /// Fits per bin, and each bin's probability under uniform ranks.
    pub counts: Vec<u64>,
    pub probabilities: Vec<f64>,
    pub chi2: f64,
    pub p: f64,
    /// `p` adjusted by Holm's step-down over every group of the file.
    pub p_holm: f64,
    /// The ECDF test of the ranks ([`crate::ecdf_test`]), and its p-value adjusted by Holm's
    /// step-down over every group of the file: the verdict.
    pub ecdf: crate::EcdfTest,
    pub ecdf_p_holm: f64,
}

impl SbcGroup {
    /// Whether the ranks are compatible with uniform at the file's family-wise level, by the ECDF
    /// test.
    pub fn uniform(&self) -> bool {
        self.ecdf_p_holm >= SBC_FAMILY_ALPHA
    }
}

/// The bins of ranks `0..=draws` for `fits` fits: `min(10, ⌊fits/5⌋)` (at least 2), and each
/// bin's probability under uniform ranks.
fn bins(draws: u32, fits: usize) -> Vec<f64> {
    let values = u64::from(draws) + 1;
    let b = (fits / 5).clamp(2, 10).min(values as usize) as u64;
    let mut sizes = vec![0u64; b as usize];
    for r in 0..values {
        sizes[(r * b / values) as usize] += 1;
    }
    sizes.into_iter().map(|n| n as f64 / values as f64).collect()
}

/// The rank histogram and χ² test of every (e₀, level, method) group and quantity whose fits
/// all carry ranks among the same number of draws (groups with mixed `draws`, a rank missing or
/// fewer than 10 fits are left out).
pub fn sbc_summary(rows: &[ResultRow]) -> Vec<SbcGroup> {
    let by_epsilon = rows.iter().any(|r| r.epsilon.is_some());
    let level = |r: &ResultRow| if by_epsilon { r.epsilon } else { r.alpha };
    let ranked: Vec<&ResultRow> = rows.iter().filter(|r| r.sbc.is_some()).collect();
    let key = |r: &ResultRow| (r.e0.map(f64::to_bits), level(r).map(f64::to_bits), r.method.clone());
    let mut groups: Vec<SbcGroup> = distinct(ranked.iter().map(|r| key(r)))
        .into_iter()
        .flat_map(|k| {
            let members: Vec<_> = ranked.iter().filter(|r| key(r) == k).filter_map(|r| r.sbc).collect();
            SBC_QUANTITIES.iter().map(move |&q| (k.clone(), members.clone(), q))
        })
        .filter_map(|(k, members, (quantity, rank_of))| {
            let draws = members.first()?.draws;
            if members.len() < 10 || members.iter().any(|s| s.draws != draws) {
                return None;
            }
            let ranks: Vec<u32> = members.iter().map(rank_of).collect::<Option<_>>()?;
            let probabilities = bins(draws, members.len());
            let b = probabilities.len() as u64;
            let mut counts = vec![0u64; probabilities.len()];
            for &rank in &ranks {
                counts[(u64::from(rank.min(draws)) * b / (u64::from(draws) + 1)) as usize] += 1;
            }
            let n = members.len() as f64;
            let chi2 = counts.iter().zip(&probabilities).map(|(&o, &q)| (o as f64 - n * q).powi(2) / (n * q)).sum();
            let p = ChiSquared::new((probabilities.len() - 1) as f64).map_or(f64::NAN, |d| d.sf(chi2));
            let ecdf = crate::ecdf_test(&ranks, draws)?;
            Some(SbcGroup {
                e0: k.0.map(f64::from_bits),
                level: k.1.map(f64::from_bits),
                method: k.2,
                quantity,
                fits: members.len(),
                draws,
                counts,
                probabilities,
                chi2,
                p,
                p_holm: p,
                ecdf_p_holm: ecdf.p,
                ecdf,
            })
        })
        .collect();
    let adjusted = holm(&groups.iter().map(|g| g.p).collect::<Vec<_>>());
    let adjusted_ecdf = holm(&groups.iter().map(|g| g.ecdf.p).collect::<Vec<_>>());
    for ((g, p), q) in groups.iter_mut().zip(adjusted).zip(adjusted_ecdf) {
        g.p_holm = p;
        g.ecdf_p_holm = q;
    }
    groups
}

/// `sbc.csv`: one line per group — its key and quantity, fits, draws, bins, χ², p, Holm's p, the
/// verdict (by the ECDF test), the counts per bin (space-separated), and the ECDF test's
/// statistic, p and Holm's p.
pub fn sbc_csv(groups: &[SbcGroup]) -> String {
    let mut s = String::from(
        "e0,level,method,quantity,fits,draws,bins,chi2,p,p_holm,uniform,counts,ecdf_statistic,ecdf_p,ecdf_p_holm\n",
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for g in groups {
        let counts: Vec<String> = g.counts.iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{:.4},{:.4e},{:.4e},{},{},{:.4e},{:.4e},{:.4e}",
            opt(g.e0),
            opt(g.level),
            g.method,
            g.quantity,
            g.fits,
            g.draws,
            g.counts.len(),
            g.chi2,
            g.p,
            g.p_holm,
            g.uniform(),
            counts.join(" "),
            g.ecdf.statistic,
            g.ecdf.p,
            g.ecdf_p_holm
        );
    }
    s
}

/// The palette index of the uniform expectation's line and band (purple).
const UNIFORM_COLOUR: usize = 1;

/// A p-value for a caption: two decimals, two significant digits below 0.01 (so a rejection
/// does not read "0.00"), and "< 1e-9" below that (as the docs' tables write it).
fn p_label(p: f64) -> String {
    if p < 1e-9 {
        "< 1e-9".into()
    } else if p < 0.01 {
        format!("{p:.1e}")
    } else {
        format!("{p:.2}")
    }
}

/// The ECDF plots of the ranks (Säilynoja, Bürkner & Vehtari 2022), a row per quantity ranked and
/// a panel per (e₀, level): each method's ECDF of the ranks minus the uniform one, `F(z) − z` at
/// `z = t/(L + 1)`, inside the simultaneous 95 % band of uniform ranks
/// ([`crate::EcdfTest::curve`]); a curve leaving the band anywhere is what the ECDF test rejects.
/// Ranks piled at both ends (a posterior too narrow) bend the curve up then down; a biased
/// posterior bows it to one side.
pub fn plot_sbc(groups: &[SbcGroup], title: &str, svg: Option<&Path>, png: Option<&Path>) -> Result<(), ResultsError> {
    let panel_of = |g: &SbcGroup| (g.e0.map(f64::to_bits), g.level.map(f64::to_bits));
    let rows: Vec<CurveRow> = distinct(groups.iter().map(|g| g.quantity))
        .into_iter()
        .map(|quantity| {
            let ranked: Vec<&SbcGroup> = groups.iter().filter(|g| g.quantity == quantity).collect();
            let panels = distinct(ranked.iter().map(|g| panel_of(g)))
                .into_iter()
                .map(|(e0, level)| {
                    let members: Vec<&SbcGroup> =
                        ranked.iter().copied().filter(|g| panel_of(g) == (e0, level)).collect();
                    sbc_panel(&members, e0.map(f64::from_bits), level.map(f64::from_bits))
                })
                .collect();
            let name = if quantity == "total" { "the true total rate" } else { "the true log-likelihood" };
            let labels = CurveLabels {
                x: format!("rank of {name} / (draws + 1)"),
                y: "ECDF of the ranks − uniform".into(),
                y_from_zero: false,
                log_x: false,
                log_y: false,
                note: Some(
                    "p: Holm-adjusted ECDF test that the ranks are uniform (simulation-based calibration)".into(),
                ),
            };
            CurveRow { panels, labels }
        })
        .collect();
    plot_curve_rows(&rows, &format!("{title}: ECDF of the ranks of the truth"), svg, png)
}

/// One panel of [`plot_sbc`]: the groups of one (e₀, level) and quantity, with the uniform band.
fn sbc_panel(members: &[&SbcGroup], e0: Option<f64>, level: Option<f64>) -> CurvePanel {
    // The method's own name, so it keeps its colour in every panel and figure.
    let mut curves: Vec<Curve> = members
        .iter()
        .map(|g| Curve::new(g.method.clone(), g.ecdf.curve.iter().map(|&(z, d, _, _)| (z, d, 0.0)).collect()))
        .collect();
    if let Some(g) = members.first() {
        // One colour in every panel and figure.
        let edge = |label: &str, pick: fn(&(f64, f64, f64, f64)) -> f64| {
            let mut c = Curve::new(label, g.ecdf.curve.iter().map(|p| (p.0, pick(p), 0.0)).collect()).dashed();
            c.style.colour = Some(UNIFORM_COLOUR);
            c
        };
        curves.push(edge("simultaneous 95 % band", |p| p.3));
        curves.push(edge("(its lower edge)", |p| p.2));
    }
    let at = match (e0, level) {
        (_, None) => "true counts".to_string(),
        (None, Some(l)) => format!("level {l}"),
        (Some(e), Some(l)) => format!("e0 {e}, level {l}"),
    };
    let tests: Vec<String> = members.iter().map(|g| format!("{} {}", g.method, p_label(g.ecdf_p_holm))).collect();
    CurvePanel { caption: format!("{at} (p: {})", tests.join(", ")), curves }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A caption's p-value keeps its rejection visible: never "0.00".
    #[test]
    fn p_labels_never_round_a_rejection_to_zero() {
        assert_eq!(p_label(0.81), "0.81");
        assert_eq!(p_label(0.0319), "0.03");
        assert_eq!(p_label(6.0e-4), "6.0e-4");
        assert_eq!(p_label(0.0), "< 1e-9");
    }

    /// Bins partition the ranks with their exact probabilities; Holm's adjustment (`crate::paired`)
    /// is monotone in the sorted p-values and capped at 1.
    #[test]
    fn bins_and_holm() {
        let q = bins(19, 200);
        assert_eq!(q.len(), 10);
        assert!(q.iter().all(|&x| (x - 0.1).abs() < 1e-12));
        let q = bins(23, 200);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12 && q.len() == 10);
        assert_eq!(bins(3, 200).len(), 4);
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.5]);
        for (a, b) in adjusted.iter().zip([0.04, 0.09, 0.09, 0.5]) {
            assert!((a - b).abs() < 1e-12, "{adjusted:?}");
        }
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
