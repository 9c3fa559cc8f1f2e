//! Held-out predictive scores on released data. A released value is `ỹ = y + τ` with
//! `y ~ Pois(μ)` and `τ ~ 2Geo(α)` (eqs. 5–6 of Schein et al. 2019), so its likelihood given the
//! rate is the convolution
//!
//! `p(ỹ | μ, α) = Σ_{y ≥ 0} Pois(y; μ) · (1−α)/(1+α) · α^{|ỹ − y|}`,
//!
//! and a held-out cell's posterior predictive is `(1/S) Σ_s p(ỹ | μ^(s), α)` over posterior
//! samples of its rate. The score of a fit is the sum of the log predictive over held-out cells:
//! higher is better, comparable across models fitted to the same cells (choosing `K`).

use crate::EvalError;
use distributions::CellDispersion;

/// Relative size below which the remaining terms of the sum are dropped (`e^{−40}` ≈ 4·10⁻¹⁸).
pub(crate) const TAIL: f64 = 40.0;

/// `e^{−TAIL}`: the same bound as a ratio, for sums kept in linear space.
pub(crate) const TAIL_RATIO: f64 = 4.248354255291589e-18;

/// `ln p(ỹ | μ, α)`, the log-likelihood of one released value under `Pois(μ) ⊛ 2Geo(α)`, for
/// `μ ≥ 0` and `α ∈ [0, 1)` (`α = 0`: the Poisson pmf itself). For `ỹ ≤ 0` every `y ≥ ỹ`, so
/// the sum is `α^{−ỹ} e^{−μ(1−α)}` in closed form. Otherwise it splits at `y = ỹ` into
///
/// `Σ_{y ≤ ỹ} Pois(y; μ) α^{ỹ−y}` and `Σ_{y > ỹ} Pois(y; μ) α^{y−ỹ}`,
///
/// whose terms are log-concave in `y` (a Poisson pmf times a geometric factor) with their modes
/// near `μ/α` and `αμ`, clamped to each half (`ln_log_concave_sum`). Each half is summed from
/// its mode outward until the bound on what remains is below `e^{−40}` of the total, so the work
/// is `O(√(μ/α) + 1)` terms — bounded by the rate, never by the released value (a value of 2·10⁷
/// at a rate of 5 costs a few dozen terms, where a walk from the rate to the value cost 2·10⁷).
pub fn ln_released_likelihood(released: i64, rate: f64, alpha: f64) -> f64 {
    ln_released_likelihood_counted(released, rate, alpha).0
}

/// [`ln_released_likelihood`] and the number of terms it summed.
fn ln_released_likelihood_counted(released: i64, rate: f64, alpha: f64) -> (f64, u64) {
    if alpha == 0.0 {
        let value =
            if released < 0 { f64::NEG_INFINITY } else { distributions::Poisson::ln_pmf_at(rate, released as u64) };
        return (value, 1);
    }
    let ln_alpha = alpha.ln();
    let ln_norm = (1.0 - alpha).ln() - (1.0 + alpha).ln();
    if released <= 0 {
        // Every y ≥ 0 ≥ ỹ: Σ_y Pois(y; μ) α^{y − ỹ} = α^{−ỹ} e^{−μ(1−α)}, in closed form.
        return (ln_norm - released as f64 * ln_alpha - rate * (1.0 - alpha), 1);
    }
    if rate == 0.0 {
        // Only y = 0 has mass.
        return (ln_norm + released as f64 * ln_alpha, 1);
    }
    // y ≤ ỹ: ln Pois(y; μ) + (ỹ − y) ln α; y > ỹ: ln Pois(y; μ) + (y − ỹ) ln α.
    let (low, low_terms) = ln_log_concave_sum(rate, -ln_alpha, released as f64 * ln_alpha, 0, released);
    // (At ỹ = i64::MAX there is no y above it to sum.)
    let (high, high_terms) = match released.checked_add(1) {
        Some(above) => ln_log_concave_sum(rate, ln_alpha, -(released as f64) * ln_alpha, above, i64::MAX),
        None => (f64::NEG_INFINITY, 0),
    };
    let (max, min) = if low >= high { (low, high) } else { (high, low) };
    (ln_norm + max + (min - max).exp().ln_1p(), low_terms + high_terms)
}

/// `ln Σ_{y=lo}^{hi} exp(ln Pois(y; μ) + s·y + c)` for `μ > 0`, and the number of terms summed.
/// Over all `y ≥ 0` the sum is `c + μ(e^s − 1)` in closed form (the Poisson generating
/// function), used when the terms' peak at `λ = μ e^s` lies inside the range by more than
/// `12√λ + 60` from a bound that cuts it (what lies beyond is below `e^{−35}` of the total).
/// Otherwise the terms, log-concave in `y` (the ratio of a term to the one before it is `λ/y`,
/// which falls as `y` grows), are summed from their largest, at `⌊λ⌋` clamped to `[lo, hi]`,
/// walking each way until, with `ρ < 1` the current ratio of neighbours, the rest (at most a
/// geometric series `term/(1 − ρ)`) is below `e^{−TAIL}` of the largest. The terms are kept
/// relative to the largest, as plain numbers in `(0, 1]`: each step is one product by the ratio,
/// no logarithm or exponential. The walk is short when the peak is clamped far from it (ratios
/// far from 1) and `O(√λ)` only when the bound is within about `12√λ` of the peak.
fn ln_log_concave_sum(rate: f64, s: f64, c: f64, lo: i64, hi: i64) -> (f64, u64) {
    let ln_rate = rate.ln();
    let step = ln_rate + s; // ln λ
    let peak = step.exp();
    let margin = 12.0 * peak.sqrt() + 60.0;
    let clear_below = lo == 0 || (lo as f64) <= peak - margin;
    let clear_above = hi == i64::MAX || (hi as f64) >= peak + margin;
    if clear_below && clear_above && peak.is_finite() {
        return (c + peak - rate, 1);
    }
    // The mode, clamped; the f64 → i64 cast saturates an enormous μ e^s.
    let mode = peak.floor().clamp(lo as f64, hi as f64) as i64;
    let mode_f = mode as f64;
    // The constant `c` is added at the end: it can be huge (ỹ ln α), and terms near it would lose
    // the digits that tell them apart.
    let at_mode = mode_f * ln_rate - rate - distributions::ln_gamma(mode_f + 1.0) + s * mode_f;
    let mut sum = 1.0;
    let mut terms = 1u64;
    // Upwards: the term at y + 1 is the one at y times λ/(y + 1). Each ratio serves the bound on
    // the rest beyond the current term and then the step (the mode's own term is never cut).
    let (mut y, mut term) = (mode, 1.0);
    while y < hi {
        let ratio = peak / (y + 1) as f64;
        if y > mode && ratio < 1.0 && term < TAIL_RATIO * (1.0 - ratio) {
            break;
        }
        term *= ratio;
        y += 1;
        sum += term;
        terms += 1;
    }
    // Downwards: the term at y − 1 is the one at y times y/λ (λ = ∞: nothing below the mode).
    let (mut y, mut term) = (mode, 1.0);
    while y > lo {
        let ratio = y as f64 / peak;
        if y < mode && ratio < 1.0 && term < TAIL_RATIO * (1.0 - ratio) {
            break;
        }
        term *= ratio;
        y -= 1;
        sum += term;
        terms += 1;
    }
    (at_mode + sum.ln() + c, terms)
}

/// `Σ_n ln ((1/S) Σ_s p(ỹ_n | μ_n^(s), α_n))`: the held-out log predictive of cells with released
/// values `released[n]` and noise levels `alphas[n]`, given posterior samples `samples[s][n]` of
/// their rates (one sample: a plug-in score). The sum of [`heldout_log_predictive_cells`].
pub fn heldout_log_predictive(released: &[i64], alphas: &[f64], samples: &[Vec<f64>]) -> Result<f64, EvalError> {
    Ok(heldout_log_predictive_cells(released, alphas, samples)?.iter().sum())
}

/// Each held-out cell's `ln ((1/S) Σ_s p(ỹ_n | μ_n^(s), α_n))` (see [`heldout_log_predictive`]):
/// the pointwise terms that a paired comparison of two models on the same cells needs.
pub fn heldout_log_predictive_cells(
    released: &[i64],
    alphas: &[f64],
    samples: &[Vec<f64>],
) -> Result<Vec<f64>, EvalError> {
    heldout_log_predictive_cells_under(released, alphas, samples, &[])
}

/// [`heldout_log_predictive_cells`] with each sample's `samples[s]` read as the cells' mean
/// counts `μ_n^(s)` under the overdispersed law `shapes[s]` (the negative binomial, or its
/// contaminated form), the multipliers integrated out ([`crate::ln_cell_likelihood`]); `shapes`
/// empty: Poisson.
pub fn heldout_log_predictive_cells_under(
    released: &[i64],
    alphas: &[f64],
    samples: &[Vec<f64>],
    shapes: &[CellDispersion],
) -> Result<Vec<f64>, EvalError> {
    let shape_count = !shapes.is_empty() && shapes.len() != samples.len();
    if samples.is_empty()
        || shape_count
        || released.len() != alphas.len()
        || samples.iter().any(|s| s.len() != released.len())
    {
        return Err(EvalError::Shape(format!(
            "{} released values, {} noise levels, {} samples of lengths {:?}",
            released.len(),
            alphas.len(),
            samples.len(),
            samples.iter().map(Vec::len).collect::<Vec<_>>()
        )));
    }
    let ln_s = (samples.len() as f64).ln();
    let mut cells = Vec::with_capacity(released.len());
    for (n, (&value, &alpha)) in released.iter().zip(alphas).enumerate() {
        if !(0.0..1.0).contains(&alpha) {
            return Err(EvalError::Invalid { index: n, value: alpha });
        }
        let terms: Vec<f64> = samples
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let rate = s[n];
                if rate.is_finite() && rate >= 0.0 {
                    Ok(crate::ln_cell_likelihood(value, rate, shapes.get(i).copied(), alpha))
                } else {
                    Err(EvalError::Invalid { index: n, value: rate })
                }
            })
            .collect::<Result<_, _>>()?;
        let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        cells.push(if max == f64::NEG_INFINITY {
            f64::NEG_INFINITY
        } else {
            max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln() - ln_s
        });
    }
    Ok(cells)
}

/// The log-likelihood of chosen cells of the data a fit sees, given one posterior sample's rates:
/// a released value `ỹ_n` under `Pois(μ_n) ∗ 2Geo(α_n)` ([`ln_released_likelihood`]), a count
/// under `Pois(μ_n)` (`α_n = 0`). What PSIS-LOO (`inference::loo`) and stacking by it score.
#[derive(Clone, Debug, PartialEq)]
pub struct CellLikelihood {
    cells: Vec<usize>,
    values: Vec<i64>,
    alphas: Vec<f64>,
}

/// What a method sees of the data, whose cells a [`CellLikelihood`] scores.
#[derive(Clone, Copy, Debug)]
pub enum Seen<'a> {
    /// A release, each value under `Pois(μ) ∗ 2Geo(α_n)` (the private method).
    Release(&'a mechanism::Privatized),
    /// A release truncated at 0, read as Poisson counts (the naïve method).
    Truncated(&'a mechanism::Privatized),
    /// Raw counts (the non-private methods).
    Counts(&'a [u32]),
}

impl CellLikelihood {
    /// At most `limit` of the `modelled` cells, evenly spaced ([`evenly_spaced`]), with what
    /// `seen` holds of them.
    pub fn of_seen(modelled: &[usize], limit: usize, seen: Seen<'_>) -> Result<Self, EvalError> {
        let cells = evenly_spaced(modelled, limit);
        let (values, alphas) = match seen {
            Seen::Release(r) => cells.iter().map(|&n| (i64::from(r.values()[n]), r.alpha(n))).unzip(),
            Seen::Truncated(r) => cells.iter().map(|&n| (i64::from(r.values()[n].max(0)), 0.0)).unzip(),
            Seen::Counts(counts) => cells.iter().map(|&n| (i64::from(counts[n]), 0.0)).unzip(),
        };
        Self::new(cells, values, alphas)
    }

    /// Cells `cells` (row-major indices into the rates) with values `values[i]` and noise levels
    /// `alphas[i]` in `[0, 1)`.
    pub fn new(cells: Vec<usize>, values: Vec<i64>, alphas: Vec<f64>) -> Result<Self, EvalError> {
        if cells.len() != values.len() || cells.len() != alphas.len() {
            let (c, v, a) = (cells.len(), values.len(), alphas.len());
            return Err(EvalError::Shape(format!("{c} cells, {v} values and {a} noise levels")));
        }
        if let Some(i) = alphas.iter().position(|a| !(0.0..1.0).contains(a)) {
            return Err(EvalError::Invalid { index: cells[i], value: alphas[i] });
        }
        if let Some(i) = (0..cells.len()).find(|&i| alphas[i] == 0.0 && values[i] < 0) {
            return Err(EvalError::Invalid { index: cells[i], value: values[i] as f64 });
        }
        Ok(CellLikelihood { cells, values, alphas })
    }

    /// The cells scored.
    pub fn cells(&self) -> &[usize] {
        &self.cells
    }

    /// `ln p(x_i | μ, r, π)` of every scored cell, given all the mean counts `rates` (row-major)
    /// and the law of the cells' multipliers `dispersion` (`None`: Poisson;
    /// [`crate::ln_cell_likelihood`]); a rate that is negative or not finite scores `−∞`.
    pub fn ln_likelihood(&self, rates: &[f64], dispersion: Option<CellDispersion>) -> Vec<f64> {
        self.cells
            .iter()
            .zip(&self.values)
            .zip(&self.alphas)
            .map(|((&n, &value), &alpha)| match rates.get(n) {
                Some(&rate) if rate.is_finite() && rate >= 0.0 => {
                    crate::ln_cell_likelihood(value, rate, dispersion, alpha)
                }
                _ => f64::NEG_INFINITY,
            })
            .collect()
    }
}

/// At most `limit` of `cells`, evenly spaced: every `⌈n/limit⌉`-th, from the first (all of them
/// when `n ≤ limit`). A deterministic subsample for scores whose cost grows with the cells.
pub fn evenly_spaced(cells: &[usize], limit: usize) -> Vec<usize> {
    let step = cells.len().div_ceil(limit.max(1)).max(1);
    cells.iter().step_by(step).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells a method sees: a release with each row's α, the release truncated at 0 without
    /// noise, or the counts; at most `limit` of them, evenly spaced.
    #[test]
    fn cells_hold_what_each_method_sees() {
        let release =
            mechanism::Privatized::from_released(2, 2, vec![3, -1, 0, 5], mechanism::Noise::PerRow(vec![0.2, 0.6]))
                .unwrap();
        let modelled = [0, 1, 2, 3];
        let private = CellLikelihood::of_seen(&modelled, 10, Seen::Release(&release)).unwrap();
        assert_eq!(
            private,
            CellLikelihood::new(vec![0, 1, 2, 3], vec![3, -1, 0, 5], vec![0.2, 0.2, 0.6, 0.6]).unwrap()
        );
        let naive = CellLikelihood::of_seen(&modelled, 2, Seen::Truncated(&release)).unwrap();
        assert_eq!(naive, CellLikelihood::new(vec![0, 2], vec![3, 0], vec![0.0, 0.0]).unwrap());
        let counts = CellLikelihood::of_seen(&[1, 3], 10, Seen::Counts(&[4, 1, 0, 2])).unwrap();
        assert_eq!(counts, CellLikelihood::new(vec![1, 3], vec![1, 2], vec![0.0, 0.0]).unwrap());
    }

    /// The convolution summed term by term over y = 0..6000 (far past any mass here), each term
    /// in log space and the sum scaled by its largest term, so nothing underflows.
    fn brute_force(released: i64, rate: f64, alpha: f64) -> f64 {
        let ln_geo = |t: i64| ((1.0 - alpha) / (1.0 + alpha)).ln() + alpha.ln() * t.unsigned_abs() as f64;
        let terms: Vec<f64> = (0..6000i64)
            .map(|y| {
                let ln_poisson = if rate == 0.0 {
                    if y == 0 { 0.0 } else { f64::NEG_INFINITY }
                } else {
                    y as f64 * rate.ln() - rate - distributions::ln_gamma(y as f64 + 1.0)
                };
                ln_poisson + ln_geo(released - y)
            })
            .collect();
        let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln()
    }

    #[test]
    fn cell_likelihoods_score_the_chosen_cells() {
        let scored = CellLikelihood::new(vec![2, 0], vec![-3, 4], vec![0.5, 0.0]).unwrap();
        let rates = [1.0, 9.0, 2.5];
        let got = scored.ln_likelihood(&rates, None);
        assert_eq!(got, vec![ln_released_likelihood(-3, 2.5, 0.5), ln_released_likelihood(4, 1.0, 0.0)]);
        let nb = scored.ln_likelihood(&rates, Some(CellDispersion::negative_binomial(0.7)));
        let expected =
            [crate::ln_released_nb_likelihood(-3, 2.5, 0.7, 0.5), crate::ln_negative_binomial_pmf(4, 1.0, 0.7)];
        assert_eq!(nb, expected);
        assert_eq!(scored.ln_likelihood(&[f64::NAN, 0.0, -1.0], None), vec![f64::NEG_INFINITY; 2]);
        assert!(CellLikelihood::new(vec![0], vec![-1], vec![0.0]).is_err(), "a negative count");
        assert!(CellLikelihood::new(vec![0], vec![1], vec![1.0]).is_err(), "α = 1");
        assert!(CellLikelihood::new(vec![0, 1], vec![1], vec![0.1]).is_err(), "lengths");
        assert_eq!(evenly_spaced(&[3, 4, 5, 6, 7], 2), vec![3, 6]);
        assert_eq!(evenly_spaced(&[3, 4], 10), vec![3, 4]);
    }

    #[test]
    fn equals_the_brute_force_sum() {
        for &(value, rate, alpha) in &[
            (0, 0.5, 0.5),
            (3, 2.0, 0.3),
            (-4, 1.5, 0.8),
            (12, 0.1, 0.9),
            (7, 7.0, 0.05),
            (-1, 30.0, 0.6),
            (40, 25.0, 0.95),
            (2, 1e-6, 0.2),
            (300, 400.0, 0.5),
            (500, 400.0, 0.9),
            (150, 140.0, 0.99),
            // One half in closed form (its peak far inside): noise far above and below the rate.
            (200, 2.0, 0.5),
            (1000, 30.0, 0.3),
            (5, 900.0, 0.5),
            (2, 2000.0, 0.9),
        ] {
            let (fast, slow) = (ln_released_likelihood(value, rate, alpha), brute_force(value, rate, alpha));
            assert!((fast - slow).abs() < 1e-12 * slow.abs().max(1.0), "{value} {rate} {alpha}: {fast} vs {slow}");
        }
    }

    #[test]
    fn the_tail_ratio_is_the_tail() {
        assert_eq!(TAIL_RATIO, (-TAIL).exp());
    }

    /// The work is bounded by the rate, not by the released value: a value of 2·10⁷ (or 9·10¹⁸)
    /// far from the rate costs a handful of terms, and a large rate at most O(√(μ/α)).
    #[test]
    fn the_work_does_not_grow_with_the_released_value() {
        for &(value, rate, alpha) in &[
            (20_000_000i64, 5.0, 0.5),
            (i64::MAX, 5.0, 0.5),
            (20_000_000, 0.0, 0.9),
            (1, 1e12, 0.99),
            (20_000_000, 19_990_000.0, 0.5),
            (20_000_000, 2e7, 1e-300),
        ] {
            let (value_ln, terms) = ln_released_likelihood_counted(value, rate, alpha);
            assert!(terms <= 300, "{value} {rate} {alpha}: {terms} terms");
            assert!(value_ln.is_finite() || rate == 0.0 && value == 0, "{value} {rate} {alpha}: {value_ln}");
        }
        // Far above the rate, the value is almost all noise: the lower half is the whole
        // generating function, α^ỹ e^{μ/α − μ} times the normalising constant.
        let (v, r, a) = (20_000_000i64, 5.0, 0.5f64);
        let expected = ((1.0 - a) / (1.0 + a)).ln() + v as f64 * a.ln() + r / a - r;
        let got = ln_released_likelihood(v, r, a);
        assert!((got - expected).abs() < 1e-9 * expected.abs(), "{got} vs {expected}");
    }

    /// A seeded grid of values, rates and levels against the brute-force sum: every branch
    /// (closed form, clamped walk, peak walk) agrees with it.
    #[test]
    fn agrees_with_the_brute_force_sum_everywhere() {
        let mut worst = 0.0f64;
        for value in (-20..1500).step_by(37) {
            for rate in [0.0, 1e-3, 0.4, 3.0, 17.0, 90.0, 333.0, 1000.0, 1700.0] {
                for alpha in [0.01, 0.2, 0.5, 0.8, 0.95, 0.99] {
                    let (fast, slow) = (ln_released_likelihood(value, rate, alpha), brute_force(value, rate, alpha));
                    worst = worst.max((fast - slow).abs() / slow.abs().max(1.0));
                }
            }
        }
        assert!(worst < 1e-12, "largest relative difference {worst:e}");
    }

    #[test]
    fn a_pmf_over_the_released_values() {
        for &(rate, alpha) in &[(0.0, 0.4), (3.0, 0.5), (0.7, 0.9)] {
            let total: f64 = (-600..=600).map(|v| ln_released_likelihood(v, rate, alpha).exp()).sum();
            assert!((total - 1.0).abs() < 1e-12, "{rate} {alpha}: {total}");
        }
        // α = 0: the Poisson pmf; μ = 0: the two-sided geometric pmf.
        assert!((ln_released_likelihood(2, 3.0, 0.0) - (9.0f64 / 2.0).ln() + 3.0).abs() < 1e-12);
        assert_eq!(ln_released_likelihood(-1, 3.0, 0.0), f64::NEG_INFINITY);
        let geo = (0.5f64 / 1.5 * 0.25).ln();
        assert!((ln_released_likelihood(-2, 0.0, 0.5) - geo).abs() < 1e-14);
    }

    #[test]
    fn predictive_averages_samples_not_logs() {
        let released = [1i64, -2];
        let alphas = [0.3, 0.6];
        let samples = vec![vec![0.5, 2.0], vec![3.0, 0.1]];
        let got = heldout_log_predictive(&released, &alphas, &samples).unwrap();
        let p = |n: usize, s: usize| ln_released_likelihood(released[n], samples[s][n], alphas[n]).exp();
        let expected = ((p(0, 0) + p(0, 1)) / 2.0).ln() + ((p(1, 0) + p(1, 1)) / 2.0).ln();
        assert!((got - expected).abs() < 1e-12);
        assert!(heldout_log_predictive(&released, &alphas, &[]).is_err());
        // Under the negative binomial each sample's shape goes with it.
        let shapes = [0.5, 4.0].map(CellDispersion::negative_binomial);
        let got = heldout_log_predictive_cells_under(&released, &alphas, &samples, &shapes).unwrap();
        let q = |n: usize, s: usize| {
            crate::ln_released_nb_likelihood(released[n], samples[s][n], shapes[s].shape, alphas[n]).exp()
        };
        assert!((got[0] - ((q(0, 0) + q(0, 1)) / 2.0).ln()).abs() < 1e-12);
        assert!((got[1] - ((q(1, 0) + q(1, 1)) / 2.0).ln()).abs() < 1e-12);
        let one = [CellDispersion::negative_binomial(1.0)];
        assert!(heldout_log_predictive_cells_under(&released, &alphas, &samples, &one).is_err());
        assert!(heldout_log_predictive(&released, &[0.3, 1.0], &samples).is_err());
    }
}
