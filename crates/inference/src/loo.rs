//! Leave-one-out predictive densities from one set of posterior draws by Pareto-smoothed
//! importance sampling (PSIS-LOO; Vehtari, Gelman & Gabry 2017, "Practical Bayesian model
//! evaluation using leave-one-out cross-validation and WAIC", Statistics and Computing 27; and
//! Vehtari, Simpson, Gelman, Yao & Gabry 2024, "Pareto smoothed importance sampling", JMLR 25).
//!
//! With draws `θ^(s) ~ p(θ | y)`, `s = 1..S`, the LOO predictive of point `i` is
//! `p(y_i | y_{−i}) = E_{p(θ|y_{−i})}[p(y_i | θ)]`, estimated by importance sampling with ratios
//! `r_s = 1 / p(y_i | θ^(s))` (their eq. 7):
//!
//! `p̂(y_i | y_{−i}) = Σ_s w_s p(y_i | θ^(s)) / Σ_s w_s`.
//!
//! The raw ratios can have infinite variance, so the largest `M = min(⌈S/5⌉, ⌈3√S⌉)` of them are
//! replaced by the expected order statistics of a generalized Pareto distribution fitted to them
//! (their eq. 9, fitted by Zhang & Stephens 2009 with a weakly informative prior on the shape),
//! and every weight is truncated at the largest raw ratio. The fitted shape `k̂` is the diagnostic:
//! above 0.7 the estimate of that point is unreliable (their §3.2).
//!
//! The draws are treated as independent (relative efficiency 1): thinned chains make it nearly
//! so, and the stacking weights built on these estimates ([`crate::stacking`]) are not sensitive
//! to the tail length.

/// At most this many cells of a fit are scored by PSIS-LOO (evenly spaced over the modelled
/// cells it sees, `eval::evenly_spaced`): stacking needs the chains' relative predictive, which a
/// few thousand cells measure, and each costs one likelihood (and 8 bytes) per kept sample of
/// every chain. Used by `lppf fit` and the sweeps alike.
pub const MAX_LOO_CELLS: usize = 2000;

/// `k̂` above this marks a point whose LOO estimate is unreliable (Vehtari et al. 2024, §3.2).
pub const PARETO_K_LIMIT: f64 = 0.7;

/// The PSIS-LOO estimates of every point.
#[derive(Clone, Debug, PartialEq)]
pub struct Loo {
    /// `ln p̂(y_i | y_{−i})` of every point.
    pub elpd: Vec<f64>,
    /// The Pareto shape `k̂` of every point's tail: `+∞` when the tail was too short to fit or a
    /// draw gave the point likelihood 0; 0 for a flat tail.
    pub pareto_k: Vec<f64>,
}

impl Loo {
    /// The share of points with `k̂ > 0.7` ([`PARETO_K_LIMIT`]) or a `k̂` that could not be
    /// computed (NaN): an estimate nobody can vouch for counts as unreliable.
    pub fn unreliable_share(&self) -> f64 {
        let bad = self.pareto_k.iter().filter(|&&k| k.is_nan() || k > PARETO_K_LIMIT).count();
        bad as f64 / self.pareto_k.len().max(1) as f64
    }
}

/// PSIS-LOO of every point from `log_lik[s][i] = ln p(y_i | θ^(s))` (every draw scores the same
/// points). No draws or no points: empty estimates. A `−∞` log-likelihood (a draw that cannot
/// have produced the point) gives that draw an infinite ratio; the truncation bounds it.
pub fn psis_loo<L: AsRef<[f64]>>(log_lik: &[L]) -> Loo {
    let draws = log_lik.len();
    let points = log_lik.first().map_or(0, |l| l.as_ref().len());
    let mut elpd = Vec::with_capacity(points);
    let mut pareto_k = Vec::with_capacity(points);
    let mut ratios = vec![0.0; draws];
    for i in 0..points {
        for (r, l) in ratios.iter_mut().zip(log_lik) {
            *r = -l.as_ref()[i];
        }
        let (log_weights, k) = psis_log_weights(&ratios);
        // ln (Σ_s w_s p_s / Σ_s w_s) with ln p_s = −ln r_s.
        let numerator = log_sum_exp(log_weights.iter().zip(&ratios).map(|(w, r)| w - r));
        let denominator = log_sum_exp(log_weights.iter().copied());
        elpd.push(numerator - denominator);
        pareto_k.push(k);
    }
    Loo { elpd, pareto_k }
}

/// The Pareto-smoothed log weights of log importance ratios `log_ratios` and the fitted shape
/// `k̂` (Vehtari et al. 2024, Algorithm 1): the largest `M` ratios replaced by the GPD's expected
/// order statistics `F⁻¹((z − ½)/M)` above the cutoff (the `(M+1)`-th largest ratio), then every
/// weight truncated at the largest raw ratio. With fewer than 5 tail draws or a flat tail the raw
/// ratios are kept (truncated) and `k̂` is `+∞` or 0.
pub fn psis_log_weights(log_ratios: &[f64]) -> (Vec<f64>, f64) {
    let draws = log_ratios.len();
    let top = log_ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if draws == 0 || !top.is_finite() {
        // Some draw has an infinite ratio (its likelihood is 0): it gets all the weight.
        let weights = log_ratios.iter().map(|&r| if r == f64::INFINITY { 0.0 } else { f64::NEG_INFINITY }).collect();
        return (weights, f64::INFINITY);
    }
    let mut weights: Vec<f64> = log_ratios.iter().map(|r| r - top).collect();
    let tail = (draws as f64 * 0.2).ceil().min((3.0 * (draws as f64).sqrt()).ceil()) as usize;
    let mut k = f64::INFINITY;
    if tail >= 5 && tail < draws {
        let mut order: Vec<usize> = (0..draws).collect();
        order.sort_by(|&a, &b| weights[a].total_cmp(&weights[b]).then(a.cmp(&b)));
        let tail_ids = &order[draws - tail..];
        let cutoff = weights[order[draws - tail - 1]];
        let (lowest, highest) = (weights[tail_ids[0]], weights[tail_ids[tail - 1]]);
        if highest - lowest <= f64::EPSILON {
            k = 0.0;
        } else {
            // Exceedances over the cutoff on the ratio scale (the largest ratio is 1 here).
            let exp_cutoff = cutoff.exp();
            let exceedances: Vec<f64> = tail_ids.iter().map(|&s| weights[s].exp() - exp_cutoff).collect();
            let (shape, scale) = gpd_fit(&exceedances);
            k = shape;
            if shape.is_finite() {
                for (z, &s) in tail_ids.iter().enumerate() {
                    let p = (z as f64 + 0.5) / tail as f64;
                    weights[s] = (gpd_quantile(p, shape, scale) + exp_cutoff).ln();
                }
            }
        }
    }
    for w in &mut weights {
        // Truncation at the largest raw ratio (0 after the shift).
        *w = w.min(0.0) + top;
    }
    (weights, k)
}

/// The shape `k` and scale `σ` of a generalized Pareto distribution with location 0 fitted to the
/// exceedances `x` (ascending, positive) by the empirical-Bayes method of Zhang & Stephens (2009,
/// §4; their `k` is our `−k`): `θ = −k/σ` is the mean of a grid of `m = 30 + ⌊√n⌋` values
/// `θ_j = 1/x_(n) + (1 − √(m/(j − ½))) / (3 x_(⌊n/4 + ½⌋))` weighted by the profile likelihood
/// `n (ln(−θ_j/k(θ_j)) − k(θ_j) − 1)` with `k(θ) = (1/n) Σ ln(1 − θ x_i)`; then `k = k(θ)`,
/// `σ = −k/θ`, and the weakly informative prior of the loo package, `k ← (n k + 10 · ½)/(n + 10)`.
pub fn gpd_fit(x: &[f64]) -> (f64, f64) {
    let n = x.len();
    if n == 0 {
        return (f64::INFINITY, f64::NAN);
    }
    let nf = n as f64;
    let largest = x[n - 1];
    let quartile = x[((nf / 4.0 + 0.5).floor() as usize).clamp(1, n) - 1];
    let prior = 3.0;
    let m = 30 + (nf.sqrt().floor() as usize);
    let mean_log1p = |theta: f64| x.iter().map(|&xi| (-theta * xi).ln_1p()).sum::<f64>() / nf;
    let thetas: Vec<f64> =
        (1..=m).map(|j| 1.0 / largest + (1.0 - (m as f64 / (j as f64 - 0.5)).sqrt()) / prior / quartile).collect();
    // The profile log-likelihood n (ln(−θ/k(θ)) − k(θ) − 1) with k(θ) = mean ln(1 − θ x).
    let profile: Vec<f64> = thetas
        .iter()
        .map(|&theta| {
            let k = mean_log1p(theta);
            nf * ((-theta / k).ln() - k - 1.0)
        })
        .collect();
    let top = profile.iter().copied().filter(|l| !l.is_nan()).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = profile.iter().map(|&l| if l.is_nan() { 0.0 } else { (l - top).exp() }).collect();
    let total: f64 = weights.iter().sum();
    let theta = thetas.iter().zip(&weights).map(|(t, w)| t * w).sum::<f64>() / total;
    let k = mean_log1p(theta);
    let sigma = -k / theta;
    let k = (nf * k + 10.0 * 0.5) / (nf + 10.0);
    (k, sigma)
}

/// The generalized Pareto quantile `σ ((1 − p)^{−k} − 1) / k` (location 0; `σ (−ln(1 − p))` at
/// `k = 0`).
pub fn gpd_quantile(p: f64, k: f64, sigma: f64) -> f64 {
    if k == 0.0 { -sigma * (-p).ln_1p() } else { sigma * (-k * (-p).ln_1p()).exp_m1() / k }
}

/// `ln Σ exp(x)`, stable; `−∞` for nothing.
fn log_sum_exp(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let top = values.clone().fold(f64::NEG_INFINITY, f64::max);
    if top.is_finite() { top + values.map(|v| (v - top).exp()).sum::<f64>().ln() } else { top }
}

#[cfg(test)]
mod tests;
