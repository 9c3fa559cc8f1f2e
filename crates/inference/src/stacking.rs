//! Stacking of chains (Yao, Vehtari & Gelman 2022, "Stacking for non-mixing Bayesian
//! computations: the curse and blessing of multimodal posteriors", JMLR 23(79)): when chains sit
//! in different modes, weight them by how well each predicts data it did not see, instead of
//! pooling them with equal weights.
//!
//! With `p_k(y_i)` the predictive density of point `i` under chain `k` (its own samples), the
//! stacking weights solve (their eq. 4)
//!
//! `max_{w ∈ simplex} Σ_i ln Σ_k w_k p_k(y_i)`,
//!
//! the likelihood of mixture weights with the component densities known. It is concave in `w`;
//! the EM update `w_k ← (1/n) Σ_i w_k p_k(y_i) / Σ_j w_j p_j(y_i)` increases it at every step and
//! converges to the maximum (Dempster, Laird & Rubin 1977).
//!
//! Chains are then pooled as the mixture `Σ_k w_k p_k`: a rate's mean `Σ_k w_k μ̂_k` and sd
//! `√(Σ_k w_k (s_k² + μ̂_k²) − μ̂²)` ([`mixture_moments`]), quantiles from the samples weighted
//! `w_k / n_k` ([`weighted_quantile`]).

/// EM iterations at most; each costs `O(n K)`.
const MAX_ITERATIONS: usize = 10_000;
/// Stop when no weight moves by more than this.
const TOLERANCE: f64 = 1e-10;

/// The stacking weights of `K` chains from `log_densities[k][i] = ln p_k(y_i)`, the log
/// predictive density of held-out point `i` under chain `k` (every chain scores the same points).
/// Equal weights for no points or one chain; a chain whose densities are all `-∞` gets weight 0.
pub fn stacking_weights(log_densities: &[Vec<f64>]) -> Vec<f64> {
    let k = log_densities.len();
    let n = log_densities.first().map_or(0, Vec::len);
    if k <= 1 || n == 0 || log_densities.iter().any(|l| l.len() != n) {
        return vec![1.0 / k.max(1) as f64; k];
    }
    // p_k(y_i) scaled by the largest over k for each point (the scale cancels in the update).
    let mut scaled = vec![0.0; n * k];
    for i in 0..n {
        let top = (0..k).map(|c| log_densities[c][i]).fold(f64::NEG_INFINITY, f64::max);
        for c in 0..k {
            scaled[i * k + c] = if top.is_finite() { (log_densities[c][i] - top).exp() } else { 1.0 };
        }
    }
    let mut w = vec![1.0 / k as f64; k];
    let mut next = vec![0.0; k];
    for _ in 0..MAX_ITERATIONS {
        next.fill(0.0);
        for row in scaled.chunks_exact(k) {
            let mix: f64 = row.iter().zip(&w).map(|(p, w)| p * w).sum();
            if mix > 0.0 {
                for ((x, p), w) in next.iter_mut().zip(row).zip(&w) {
                    *x += w * p / mix;
                }
            }
        }
        let total: f64 = next.iter().sum();
        next.iter_mut().for_each(|x| *x /= total);
        let moved = next.iter().zip(&w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        std::mem::swap(&mut w, &mut next);
        if moved < TOLERANCE {
            break;
        }
    }
    w
}

/// Each chain's own PSIS-LOO predictive densities, the `p_k(y_i) = p̂(y_i | y_{−i})` that
/// stacking weighs (Yao, Vehtari & Gelman 2022, §3; [`crate::loo`]): `elpd[k][i]`, ready for
/// [`stacking_weights`], and the share of (chain, point) estimates with `k̂ > 0.7`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainsLoo {
    pub elpd: Vec<Vec<f64>>,
    pub unreliable_share: f64,
}

/// [`ChainsLoo`] from each chain's pointwise log-likelihoods (`pointwise[k][s][i] = ln p(y_i |
/// θ_k^(s))`, e.g. [`crate::Posterior::kept_pointwise`]).
pub fn loo_by_chain<P: AsRef<[Vec<f64>]>>(pointwise: &[P]) -> ChainsLoo {
    let chains: Vec<crate::loo::Loo> = pointwise.iter().map(|p| crate::loo::psis_loo(p.as_ref())).collect();
    let unreliable_share =
        chains.iter().map(crate::loo::Loo::unreliable_share).sum::<f64>() / chains.len().max(1) as f64;
    ChainsLoo { elpd: chains.into_iter().map(|l| l.elpd).collect(), unreliable_share }
}

/// `ln Σ_k w_k p_k(y_i)` for every point `i`: the pointwise log predictive of the mixture of
/// chains with weights `weights` (`log_densities[k][i] = ln p_k(y_i)`; chains of weight 0 left out).
pub fn mixture_log_densities<L: AsRef<[f64]>>(log_densities: &[L], weights: &[f64]) -> Vec<f64> {
    let n = log_densities.first().map_or(0, |l| l.as_ref().len());
    (0..n)
        .map(|i| {
            let terms: Vec<f64> = log_densities
                .iter()
                .zip(weights)
                .filter(|(_, w)| **w > 0.0)
                .map(|(l, w)| l.as_ref()[i] + w.ln())
                .collect();
            let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if top.is_finite() { top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln() } else { top }
        })
        .collect()
}

/// `Σ_i ln Σ_k w_k p_k(y_i)`: the log predictive of the mixture with weights `weights`.
pub fn mixture_log_density<L: AsRef<[f64]>>(log_densities: &[L], weights: &[f64]) -> f64 {
    mixture_log_densities(log_densities, weights).iter().sum()
}

/// The mean and sd of every cell under the mixture of chains with weights `weights` (need not sum
/// to 1: they are divided by their sum `W`): chain `k` has mean `means[k][n]` and sd `sds[k][n]`;
/// `μ̂_n = Σ_k w_k μ̂_kn / W`, `s_n = √(Σ_k w_k (s_kn² + μ̂_kn²) / W − μ̂_n²)`. Equal weights of 1
/// give the pooled mean and sd of chains that keep the same number of samples, bit for bit as
/// summing then dividing by `M`.
pub fn mixture_moments(means: &[&[f64]], sds: &[&[f64]], weights: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mean = mixture_mean(means, weights);
    let mut square = vec![0.0; mean.len()];
    for ((m, s), &w) in means.iter().zip(sds).zip(weights) {
        for (n, &mu) in m.iter().enumerate() {
            let sd = s.get(n).copied().unwrap_or(0.0);
            square[n] += w * (sd * sd + mu * mu);
        }
    }
    let total: f64 = weights.iter().sum();
    let sd = square.iter().zip(&mean).map(|(q, mu)| (q / total - mu * mu).max(0.0).sqrt()).collect();
    (mean, sd)
}

/// The mean of every cell under the mixture of chains with weights `weights` (divided by their
/// sum `W`): `μ̂_n = Σ_k w_k μ̂_kn / W`, the mean of [`mixture_moments`].
pub fn mixture_mean(means: &[&[f64]], weights: &[f64]) -> Vec<f64> {
    let mut mean = vec![0.0; means.first().map_or(0, |m| m.len())];
    for (m, &w) in means.iter().zip(weights) {
        mean.iter_mut().zip(m.iter()).for_each(|(x, &mu)| *x += w * mu);
    }
    let total: f64 = weights.iter().sum();
    mean.iter_mut().for_each(|x| *x /= total);
    mean
}

/// The `q`-quantile of the samples of several chains, chain `k`'s `n_k` samples each weighing
/// `weights[k] / n_k` (the inverse of the weighted empirical distribution function: the smallest
/// sample whose cumulative weight reaches `q`). `NaN` without samples.
pub fn weighted_quantile(samples: &[&[f64]], weights: &[f64], q: f64) -> f64 {
    let mut weighted: Vec<(f64, f64)> = samples
        .iter()
        .zip(weights)
        .filter(|(s, _)| !s.is_empty())
        .flat_map(|(s, &w)| s.iter().map(move |&x| (x, w / s.len() as f64)))
        .collect();
    weighted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = weighted.iter().map(|(_, w)| w).sum();
    let mut cumulative = 0.0;
    for &(x, w) in &weighted {
        cumulative += w;
        if cumulative >= q * total {
            return x;
        }
    }
    weighted.last().map_or(f64::NAN, |(x, _)| *x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two chains, one predicting every point better: all weight goes to it.
    #[test]
    fn a_dominant_chain_takes_all_weight() {
        let w = stacking_weights(&[vec![-1.0, -2.0, -1.5], vec![-3.0, -4.0, -3.5]]);
        assert!(w[0] > 0.999 && w[1] < 1e-3, "{w:?}");
    }

    /// Two chains that each predict half of the points: the mixture beats either, and the
    /// weights are the maximum of the stacking objective (checked on a grid).
    #[test]
    fn complementary_chains_share_weight_at_the_optimum() {
        let a = vec![-1.0, -1.0, -1.0, -5.0];
        let b = vec![-5.0, -5.0, -5.0, -1.0];
        let lpd = [a, b];
        let w = stacking_weights(&lpd);
        let best = mixture_log_density(&lpd, &w);
        for i in 1..100 {
            let v = i as f64 / 100.0;
            assert!(mixture_log_density(&lpd, &[v, 1.0 - v]) <= best + 1e-9, "w = {v} beats {w:?}");
        }
        assert!(w[0] > 0.5 && w[1] > 0.1, "{w:?}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn identical_chains_and_degenerate_inputs_get_equal_weights() {
        let w = stacking_weights(&[vec![-2.0; 5], vec![-2.0; 5], vec![-2.0; 5]]);
        assert!(w.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-9), "{w:?}");
        assert_eq!(stacking_weights(&[vec![], vec![]]), vec![0.5, 0.5]);
        assert_eq!(stacking_weights(&[vec![-1.0]]), vec![1.0]);
    }

    #[test]
    fn mixture_moments_equal_the_moments_of_pooled_samples() {
        // Chain 1: samples {1, 3} (mean 2, sd 1); chain 2: {10} (mean 10, sd 0); weights ¾, ¼.
        let (mean, sd) = mixture_moments(&[&[2.0], &[10.0]], &[&[1.0], &[0.0]], &[0.75, 0.25]);
        // The mixture: 1 and 3 with weight 3/8 each, 10 with weight 1/4.
        let m = 0.375 * 1.0 + 0.375 * 3.0 + 0.25 * 10.0;
        let v = 0.375 * 1.0 + 0.375 * 9.0 + 0.25 * 100.0 - m * m;
        assert!((mean[0] - m).abs() < 1e-12 && (sd[0] - v.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn weighted_quantiles_follow_the_weights() {
        let (a, b) = ([1.0, 2.0, 3.0, 4.0], [100.0, 200.0]);
        assert_eq!(weighted_quantile(&[&a, &b], &[0.5, 0.5], 0.25), 2.0);
        assert_eq!(weighted_quantile(&[&a, &b], &[0.5, 0.5], 0.75), 100.0);
        assert_eq!(weighted_quantile(&[&a, &b], &[1.0, 0.0], 0.95), 4.0);
        assert!(weighted_quantile(&[], &[], 0.5).is_nan());
    }
}
