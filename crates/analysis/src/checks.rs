//! Posterior predictive checks on the release (issue 32, item 3). The analyst sees only noised
//! counts, so data are replicated as the release would be: from a kept posterior sample's rates
//! `μ^(s)`, `ỹ_rep,n = y_rep,n + τ_n` with `y_rep,n ~ Pois(μ_n^(s))` and `τ_n ~ 2Geo(α_d)`
//! (Schein et al. 2019, eq. 5: the released-data model the private sampler fits), on the cells the
//! fit saw (modelled, not held out). Each statistic `T` a social scientist reads is compared
//! with its value on the release: the posterior predictive p-value
//! `p = P(T(ỹ_rep) > T(ỹ)) + ½ P(T(ỹ_rep) = T(ỹ))` (mid-p; Gelman, Meng & Stern 1996). A value
//! near 0 or 1 says the model does not reproduce that feature of the release.
//!
//! The statistics ([`STATISTICS`]): the total; the spread of row totals and of column totals
//! (variance over mean); the share of cells with `|ỹ| ≤ 1`; the largest cell; the 10 %, 50 % and
//! 90 % quantiles of the row totals; and a realized discrepancy (Gelman, Meng & Stern 1996, §2.3)
//! that depends on the sample's rates, the cells' chi-square
//! `X²(ỹ, μ) = Σ_n (ỹ_n − μ_n)² / (μ_n + 2α_d/(1 − α_d)²)` (the released value's variance under the
//! model in the denominator), compared sample by sample with `X²(ỹ_rep, μ)`: the sharpest check of
//! overdispersion.
//!
//! **Which tail flags** ([`Tail`]). The model fits a scale per row and per column, so replicated
//! row and column totals vary more than the release's (their variance is the fitted spread plus
//! the sampling spread, a double use of the data): on Poisson data from the model itself the
//! dispersions of totals had p = 1.0, the 10 % quantile of row totals p = 0.005 and the 90 %
//! quantile p = 0.985 (`crates/cli/tests/it/fit.rs`). So each of these flags only the tail that this
//! artefact cannot produce: a release more dispersed than its replications, a lower 10 % quantile,
//! a higher 90 % quantile. The largest cell and the chi-square flag only a release above its
//! replications; the total, the share of small cells and the median flag both tails.

use distributions::{CellDispersion, Poisson, Streams, TwoSidedGeometric};
use rand::distr::Distribution;

/// The names of the statistics, in the order [`release_statistics`] returns them.
pub const STATISTICS: [&str; 9] = [
    "total",
    "row_total_dispersion",
    "col_total_dispersion",
    "share_abs_le_1",
    "max_cell",
    "row_total_q10",
    "row_total_q50",
    "row_total_q90",
    "cell_chi_square",
];

/// Of the [`STATISTICS`], those of the data alone (the last, the chi-square, also depends on the
/// sample's rates).
const DATA_STATISTICS: usize = 8;

/// Which p-values of a statistic are flagged (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// A release above its replications (p near 0).
    Above,
    /// A release below its replications (p near 1).
    Below,
    /// Either.
    Both,
}

impl Tail {
    /// How `checks.csv` names it.
    pub fn name(self) -> &'static str {
        match self {
            Tail::Above => "release above",
            Tail::Below => "release below",
            Tail::Both => "both",
        }
    }
}

/// The flagged tail of each of the [`STATISTICS`].
const TAILS: [Tail; 9] =
    [Tail::Both, Tail::Above, Tail::Above, Tail::Both, Tail::Above, Tail::Below, Tail::Both, Tail::Above, Tail::Above];

/// A p-value below this (or, for a two-sided statistic, above `1 −` this) is flagged: at most 1 %
/// per statistic if the p-values were uniform, about 9 % for one of the nine together; posterior
/// predictive p-values are conservative, so less.
pub const EXTREME_P: f64 = 0.005;

/// At most this many kept samples per chain replicate the release (evenly spaced): replicating
/// costs a Poisson and a two-sided geometric draw per cell.
pub const MAX_CHECK_SAMPLES_PER_CHAIN: usize = 100;

/// One statistic's check.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictiveCheck {
    pub statistic: &'static str,
    /// `T(ỹ)` on the release.
    pub observed: f64,
    /// Mean and sd of `T(ỹ_rep)` over the replications.
    pub replicated_mean: f64,
    pub replicated_sd: f64,
    /// The mid-p posterior predictive p-value (NaN when the statistic is undefined on the release).
    pub p_value: f64,
    /// Replications it rests on.
    pub replications: usize,
    /// Which tail is flagged.
    pub tail: Tail,
    /// The statistic on each replication (for the figure).
    pub replicated: Vec<f64>,
}

impl PredictiveCheck {
    /// Whether the p-value is extreme ([`EXTREME_P`], in the statistic's flagged tail).
    pub fn extreme(&self) -> bool {
        let (above, below) = (self.p_value < EXTREME_P, self.p_value > 1.0 - EXTREME_P);
        match self.tail {
            Tail::Above => above,
            Tail::Below => below,
            Tail::Both => above || below,
        }
    }
}

/// `var/mean` of `totals` (sample variance); NaN when the mean is not positive.
fn dispersion(totals: &[f64]) -> f64 {
    let n = totals.len() as f64;
    let mean = totals.iter().sum::<f64>() / n;
    if mean.is_nan() || mean <= 0.0 || totals.len() < 2 {
        return f64::NAN;
    }
    totals.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / (n - 1.0) / mean
}

/// The `q`-quantile of sorted values (the order statistic at `⌊q (n − 1)⌉`).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The data statistics' running sums over cells taken in row-major order.
struct Accumulator {
    cols: usize,
    row_totals: Vec<f64>,
    col_totals: Vec<f64>,
    row_seen: Vec<bool>,
    col_seen: Vec<bool>,
    total: f64,
    small: usize,
    max: f64,
    cells: usize,
}

impl Accumulator {
    fn new(rows: usize, cols: usize) -> Self {
        Self {
            cols,
            row_totals: vec![0.0; rows],
            col_totals: vec![0.0; cols],
            row_seen: vec![false; rows],
            col_seen: vec![false; cols],
            total: 0.0,
            small: 0,
            max: f64::NEG_INFINITY,
            cells: 0,
        }
    }

    /// Cell `n` (row-major) with released value `value`.
    fn add(&mut self, n: usize, value: i64) {
        let v = value as f64;
        let (i, j) = (n / self.cols, n % self.cols);
        self.row_totals[i] += v;
        self.col_totals[j] += v;
        self.row_seen[i] = true;
        self.col_seen[j] = true;
        self.total += v;
        self.small += usize::from(value.unsigned_abs() <= 1);
        self.max = self.max.max(v);
        self.cells += 1;
    }

    /// The data statistics, in the order of [`STATISTICS`].
    fn statistics(self) -> Vec<f64> {
        let keep = |t: Vec<f64>, seen: &[bool]| -> Vec<f64> {
            t.into_iter().zip(seen).filter(|(_, s)| **s).map(|(t, _)| t).collect()
        };
        let (row_totals, col_totals) = (keep(self.row_totals, &self.row_seen), keep(self.col_totals, &self.col_seen));
        let mut sorted = row_totals.clone();
        sorted.sort_by(f64::total_cmp);
        vec![
            self.total,
            dispersion(&row_totals),
            dispersion(&col_totals),
            self.small as f64 / self.cells.max(1) as f64,
            self.max,
            quantile(&sorted, 0.1),
            quantile(&sorted, 0.5),
            quantile(&sorted, 0.9),
        ]
    }
}

/// The data statistics of [`STATISTICS`] of released values `values` (row-major, `cols`
/// columns) on `cells` (row-major indices, sorted). Rows and columns without a checked cell are
/// left out of the totals.
pub fn release_statistics(values: &[i32], cols: usize, cells: &[usize]) -> Vec<f64> {
    let mut sums = Accumulator::new(values.len() / cols.max(1), cols);
    for &n in cells {
        sums.add(n, i64::from(values[n]));
    }
    sums.statistics()
}

/// The law of each cell's count in one kept sample: `y_n ~ Pois(μ_n)`, or with a multiplier law
/// the negative binomial `NB(r, μ_n)` (mean `μ_n`, variance `μ_n + μ_n²/r`) or its contaminated
/// form (variance `μ_n + π μ_n²/r`), drawn as `Pois(μ_n δ)` with a fresh `δ`
/// ([`CellDispersion::draw_multiplier`]) — a new table from the model, not the fit's own
/// multipliers.
#[derive(Clone, Copy, Debug)]
pub struct CountLaw<'a> {
    /// `μ_n`, row-major.
    pub means: &'a [f64],
    pub dispersion: Option<CellDispersion>,
}

impl CountLaw<'_> {
    /// The variance of cell `n`'s count.
    fn variance(&self, n: usize) -> f64 {
        let mu = self.means[n];
        self.dispersion.map_or(mu, |d| d.variance(mu))
    }
}

/// One cell's term of `X²(ỹ, μ) = Σ_n (ỹ_n − μ_n)² / (Var y_n + 2α_d/(1 − α_d)²)`.
fn chi_square_term(value: i64, law: &CountLaw<'_>, n: usize, alpha: f64) -> f64 {
    let variance = law.variance(n) + 2.0 * alpha / ((1.0 - alpha) * (1.0 - alpha));
    let d = value as f64 - law.means[n];
    if variance > 0.0 { d * d / variance } else { 0.0 }
}

/// A release replicated from `law` on `cells`, cell by cell in their order: `y + τ` with
/// `y ~ Pois(μ_n)` (or `NB(r, μ_n)`, [`CountLaw`]) and `τ ~ 2Geo(α_d)` of the cell's row
/// (`alphas` per row); `None` for a cell whose rate or level is invalid.
pub fn replicate_release<'a>(
    law: CountLaw<'a>,
    alphas: &[f64],
    cols: usize,
    cells: &'a [usize],
    streams: Streams,
) -> impl Iterator<Item = Option<i64>> + 'a {
    let mut rng = streams.rng();
    let noise: Option<Vec<TwoSidedGeometric>> = alphas.iter().map(|&a| TwoSidedGeometric::new(a).ok()).collect();
    cells.iter().map(move |&n| {
        let rate = match &law.dispersion {
            None => law.means[n],
            Some(d) => law.means[n] * d.draw_multiplier(&mut rng)?,
        };
        let y = Poisson::new(rate).ok()?.sample(&mut rng);
        i64::try_from(y).ok()?.checked_add(noise.as_ref()?[n / cols].sample(&mut rng))
    })
}

/// What one kept sample contributes, without storing the replicated release: the
/// [`STATISTICS`] of a release replicated from its law ([`replicate_release`]), then the
/// realized chi-square of the release itself under that law. `None` if a rate or level is
/// invalid.
pub fn sample_statistics(
    law: CountLaw<'_>,
    released: &[i32],
    alphas: &[f64],
    cols: usize,
    cells: &[usize],
    streams: Streams,
) -> Option<Vec<f64>> {
    let mut sums = Accumulator::new(released.len() / cols.max(1), cols);
    let (mut replicated, mut realized) = (0.0, 0.0);
    for (&n, value) in cells.iter().zip(replicate_release(law, alphas, cols, cells, streams)) {
        let (value, alpha) = (value?, alphas[n / cols]);
        sums.add(n, value);
        replicated += chi_square_term(value, &law, n, alpha);
        realized += chi_square_term(i64::from(released[n]), &law, n, alpha);
    }
    let mut out = sums.statistics();
    out.push(replicated);
    out.push(realized);
    Some(out)
}

/// The checks of the release against the kept samples' [`sample_statistics`]: `observed` holds
/// the release's data statistics ([`release_statistics`]); the chi-square is compared sample by
/// sample (replicated against realized, both under the sample's rates).
pub fn predictive_checks(observed: &[f64], samples: &[Vec<f64>]) -> Vec<PredictiveCheck> {
    STATISTICS
        .iter()
        .enumerate()
        .map(|(k, &statistic)| {
            // (replicated, observed) pairs; the data statistics share one observed value.
            let pairs: Vec<(f64, f64)> = samples
                .iter()
                .map(|r| (r[k], if k < DATA_STATISTICS { observed[k] } else { r[k + 1] }))
                .filter(|(x, o)| !x.is_nan() && !o.is_nan())
                .collect();
            let s = pairs.len() as f64;
            let replicated: Vec<f64> = pairs.iter().map(|p| p.0).collect();
            let (mean, sd) = results::mean_sd(&replicated);
            let observed_value =
                if k < DATA_STATISTICS { observed[k] } else { pairs.iter().map(|p| p.1).sum::<f64>() / s };
            let p_value = if pairs.is_empty() {
                f64::NAN
            } else {
                let above = pairs.iter().filter(|(x, o)| x > o).count() as f64;
                let ties = pairs.iter().filter(|(x, o)| x == o).count() as f64;
                (above + 0.5 * ties) / s
            };
            PredictiveCheck {
                statistic,
                observed: observed_value,
                replicated_mean: mean,
                replicated_sd: sd.unwrap_or(0.0),
                p_value,
                replications: pairs.len(),
                tail: TAILS[k],
                replicated,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_a_small_release() {
        // 2 × 3, every cell checked: rows 1+(−1)+4 = 4 and 0+2+1 = 3; columns 1, 1, 5.
        let values = [1, -1, 4, 0, 2, 1];
        let t = release_statistics(&values, 3, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(t[0], 7.0);
        // Rows: mean 3.5, sample variance 0.5 → 0.5/3.5; columns: mean 7/3, variance 16/3.
        assert!((t[1] - 0.5 / 3.5).abs() < 1e-12 && (t[2] - (16.0 / 3.0) / (7.0 / 3.0)).abs() < 1e-12);
        assert_eq!(t[3], 4.0 / 6.0);
        assert_eq!(t[4], 4.0);
        assert_eq!((t[5], t[6], t[7]), (3.0, 4.0, 4.0));
        // Only cells 0 and 4: row 0 total 1, row 1 total 2; column 2 has no checked cell.
        let t = release_statistics(&values, 3, &[0, 4]);
        assert_eq!((t[0], t[3], t[4]), (3.0, 0.5, 2.0));
    }

    #[test]
    fn mid_p_values_count_ties_half_and_flag_their_tails() {
        // Per sample: eight replicated data statistics, the replicated chi-square, the realized one.
        let reps: Vec<Vec<f64>> = [1.0, 2.0, 2.0, 3.0].iter().map(|&x| [vec![x; 9], vec![2.5]].concat()).collect();
        let checks = predictive_checks(&[2.0; 8], &reps);
        assert_eq!(checks[0].p_value, (1.0 + 0.5 * 2.0) / 4.0);
        assert!(!checks[0].extreme());
        // The chi-square against its realized value 2.5, sample by sample: one of four above.
        assert_eq!((checks[8].p_value, checks[8].observed), (0.25, 2.5));
        let checks = predictive_checks(&[10.0; 8], &reps);
        assert!(checks[0].p_value == 0.0 && checks[0].extreme());
        // A release below every replication: flagged for the total (both tails) and the 10 %
        // quantile (below), not for the spread (above only).
        let checks = predictive_checks(&[0.0; 8], &reps);
        assert!(checks[0].p_value == 1.0 && checks[0].extreme() && !checks[1].extreme() && checks[5].extreme());
        let checks = predictive_checks(&[10.0; 8], &reps);
        assert!(checks[1].extreme() && !checks[5].extreme());
        assert!(predictive_checks(&[f64::NAN; 8], &reps)[1].p_value.is_nan());
    }

    fn poisson(means: &[f64]) -> CountLaw<'_> {
        CountLaw { means, dispersion: None }
    }

    /// A negative-binomial replicated release has the mean and variance of NB(r, μ) + 2Geo(α): at
    /// μ = 3, r = 2, α = 0.5, mean 3 and variance 3 + 9/2 + 4 = 11.5, on 40,000 cells (sd of the
    /// mean 0.017, of the variance about 0.25 with the NB's fourth moment: bounds at about 5 sd).
    #[test]
    fn negative_binomial_replicates_have_their_law() {
        let (rows, cols) = (200, 200);
        let means = vec![3.0; rows * cols];
        let cells: Vec<usize> = (0..rows * cols).collect();
        let law = CountLaw { means: &means, dispersion: Some(CellDispersion::negative_binomial(2.0)) };
        let rep: Vec<i64> =
            replicate_release(law, &vec![0.5; rows], cols, &cells, Streams::new(5)).collect::<Option<_>>().unwrap();
        let n = rep.len() as f64;
        let mean = rep.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = rep.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!((mean - 3.0).abs() < 0.09, "{mean}");
        assert!((var - 11.5).abs() < 1.25, "{var}");
        // The chi-square's denominator is the NB variance plus the noise's.
        let released = vec![3i32; rows * cols];
        let stats = sample_statistics(law, &released, &vec![0.5; rows], cols, &cells, Streams::new(5)).unwrap();
        assert!((stats[8] / n - 1.0).abs() < 0.05, "replicated chi-square per cell {}", stats[8] / n);
        assert_eq!(stats[9], 0.0);
    }

    /// A replicated release has the mean and variance of Pois(μ) + 2Geo(α): at μ = 3, α = 0.5,
    /// mean 3 and variance 3 + 2α/(1−α)² = 7, checked on 40,000 cells (sd of the mean 0.013, of
    /// the variance about 0.1: bounds at 5 sd).
    #[test]
    fn replicated_releases_have_the_released_data_law() {
        let (rows, cols) = (200, 200);
        let rates = vec![3.0; rows * cols];
        let cells: Vec<usize> = (0..rows * cols).collect();
        let rep: Vec<i64> = replicate_release(poisson(&rates), &vec![0.5; rows], cols, &cells, Streams::new(4))
            .collect::<Option<_>>()
            .unwrap();
        let n = rep.len() as f64;
        let mean = rep.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = rep.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!((mean - 3.0).abs() < 0.07, "{mean}");
        assert!((var - 7.0).abs() < 0.5, "{var}");
        assert_eq!(replicate_release(poisson(&[f64::NAN]), &[0.5], 1, &[0], Streams::new(1)).next(), Some(None));
        assert!(sample_statistics(poisson(&[f64::NAN]), &[0], &[0.5], 1, &[0], Streams::new(1)).is_none());
        // A sample's statistics are those of its replicated release, computed without storing it.
        let released = vec![2i32; rows * cols];
        let stats =
            sample_statistics(poisson(&rates), &released, &vec![0.5; rows], cols, &cells, Streams::new(4)).unwrap();
        let rep: Vec<i32> = rep.iter().map(|&x| i32::try_from(x).unwrap()).collect();
        assert_eq!(stats[..8], release_statistics(&rep, cols, &cells)[..]);
        assert!((stats[9] - n / 7.0).abs() < 1e-6 * n, "{}", stats[9]);
    }
}
