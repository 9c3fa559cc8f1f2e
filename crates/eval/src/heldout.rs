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

/// Relative size below which the remaining terms of the sum are dropped (`e^{−40}` ≈ 4·10⁻¹⁸).
const TAIL: f64 = 40.0;

/// `ln p(ỹ | μ, α)`, the log-likelihood of one released value under `Pois(μ) ⊛ 2Geo(α)`, for
/// `μ ≥ 0` and `α ∈ [0, 1)` (`α = 0`: the Poisson pmf itself). For `ỹ ≤ 0` every `y ≥ ỹ`, so
/// the sum is `α^{−ỹ} e^{−μ(1−α)}` in closed form. Otherwise the terms increase in `y` below
/// both modes (`ỹ` and `μ`), so the sum starts at `y₀ = min(ỹ, μ) − 12√μ − 50` (or 0), where the
/// Poisson factor is below `e^{−72}` of its value at the smaller mode, and runs until, past both
/// modes, the bound on what remains (a geometric series with ratio `α μ/(y+1)`) is below
/// `e^{−40}` of the total. The work is `O(|ỹ − μ| + √μ)` terms, whatever the size of the counts.
pub fn ln_released_likelihood(released: i64, rate: f64, alpha: f64) -> f64 {
    if alpha == 0.0 {
        return if released < 0 {
            f64::NEG_INFINITY
        } else {
            distributions::Poisson::new(rate).map_or(f64::NEG_INFINITY, |p| p.ln_pmf(released as u64))
        };
    }
    let ln_alpha = alpha.ln();
    let ln_norm = (1.0 - alpha).ln() - (1.0 + alpha).ln();
    if released <= 0 {
        // Every y ≥ 0 ≥ ỹ: Σ_y Pois(y; μ) α^{y − ỹ} = α^{−ỹ} e^{−μ(1−α)}, in closed form.
        return ln_norm - released as f64 * ln_alpha - rate * (1.0 - alpha);
    }
    let ln_rate = rate.ln();
    let past = released.max(0) as f64 + rate;
    let start = ((released as f64).min(rate) - 12.0 * rate.sqrt() - 50.0).max(0.0).floor();
    // ln Pois(y; μ) by the recursion ln Pois(y+1) = ln Pois(y) + ln μ − ln(y+1).
    let mut ln_poisson =
        if start == 0.0 { -rate } else { start * ln_rate - rate - distributions::ln_gamma(start + 1.0) };
    let (mut max, mut sum) = (f64::NEG_INFINITY, 0.0);
    let mut y = start as i64;
    loop {
        let term = ln_poisson + ln_alpha * (released - y).unsigned_abs() as f64;
        if term > max {
            sum = sum * (max - term).exp() + 1.0;
            max = term;
        } else {
            sum += (term - max).exp();
        }
        let yf = y as f64;
        if yf > past {
            let ratio = alpha * rate / (yf + 1.0);
            if ratio < 1.0 && term - (1.0 - ratio).ln() < max - TAIL {
                break;
            }
        }
        if rate == 0.0 {
            break;
        }
        y += 1;
        ln_poisson += ln_rate - (y as f64).ln();
    }
    // With μ = 0 only y = 0 has mass, and that term is the whole sum.
    ln_norm + max + sum.ln()
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
    if samples.is_empty() || released.len() != alphas.len() || samples.iter().any(|s| s.len() != released.len()) {
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
            .map(|s| {
                let rate = s[n];
                if rate.is_finite() && rate >= 0.0 {
                    Ok(ln_released_likelihood(value, rate, alpha))
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

    /// `ln p(x_i | μ)` of every scored cell, given all the rates `rates` (row-major); a rate that
    /// is negative or not finite scores `−∞`.
    pub fn ln_likelihood(&self, rates: &[f64]) -> Vec<f64> {
        self.cells
            .iter()
            .zip(&self.values)
            .zip(&self.alphas)
            .map(|((&n, &value), &alpha)| match rates.get(n) {
                Some(&rate) if rate.is_finite() && rate >= 0.0 => ln_released_likelihood(value, rate, alpha),
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

    /// The convolution summed term by term in plain floating point, far past any mass.
    fn brute_force(released: i64, rate: f64, alpha: f64) -> f64 {
        let geo = |t: i64| (1.0 - alpha) / (1.0 + alpha) * alpha.powi(t.unsigned_abs() as i32);
        let mut sum = 0.0;
        // In log space per term so that e^{−μ} does not underflow at μ = 400.
        let mut ln_poisson = -rate;
        for y in 0..3000i64 {
            sum += (ln_poisson + geo(released - y).ln()).exp();
            ln_poisson += rate.ln() - ((y + 1) as f64).ln();
        }
        sum.ln()
    }

    #[test]
    fn cell_likelihoods_score_the_chosen_cells() {
        let scored = CellLikelihood::new(vec![2, 0], vec![-3, 4], vec![0.5, 0.0]).unwrap();
        let rates = [1.0, 9.0, 2.5];
        let got = scored.ln_likelihood(&rates);
        assert_eq!(got, vec![ln_released_likelihood(-3, 2.5, 0.5), ln_released_likelihood(4, 1.0, 0.0)]);
        assert_eq!(scored.ln_likelihood(&[f64::NAN, 0.0, -1.0]), vec![f64::NEG_INFINITY; 2]);
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
        ] {
            let (fast, slow) = (ln_released_likelihood(value, rate, alpha), brute_force(value, rate, alpha));
            assert!((fast - slow).abs() < 1e-12 * slow.abs().max(1.0), "{value} {rate} {alpha}: {fast} vs {slow}");
        }
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
        assert!(heldout_log_predictive(&released, &[0.3, 1.0], &samples).is_err());
    }
}
