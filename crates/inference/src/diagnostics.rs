//! Convergence diagnostics of several chains of one scalar (Vehtari, Gelman, Simpson, Carpenter
//! & Bürkner 2021, "Rank-normalization, folding, and localization: an improved R̂").
//!
//! Each chain is split in half (the middle draw of an odd length is dropped), so `M` chains of
//! length `2N` become `2M` of length `N`, and `S = 2MN` draws in all.
//!
//! * Rank normalization (their eq. 14): `z = Φ⁻¹((r − 3/8) / (S + 1/4))`, `r` the rank of a draw
//!   among all `S` (ties get their average rank).
//! * `R̂` of chains `x_m` (their eqs. 3–4): `W = mean_m s²_m`, `B/N = var_m(x̄_m)`,
//!   `var⁺ = (N−1)/N · W + B/N`, `R̂ = √(var⁺ / W)`. The reported [`Diagnostics::rhat`] is the
//!   larger of the bulk `R̂` (on `z`) and the tail `R̂` (on `z` of the folded draws
//!   `|x − median(x)|`) (§4.2).
//! * ESS (their eqs. 10–13): `ρ̂_t = 1 − (W − mean_m γ̂_{m,t}) / var⁺` with the biased
//!   within-chain autocovariances `γ̂_{m,t}`; Geyer's initial positive sequence truncated and made
//!   monotone as in the `posterior` package and ArviZ, `τ̂ = −1 + 2 Σ_{t ≤ t_max} ρ̂_t + ρ̂_{t_max+1}`
//!   (at least `1/log₁₀ S`) and `ESS = S / τ̂`; checked against ArviZ 0.23.4 on fixed arrays. Bulk ESS is the ESS
//!   of `z`; tail ESS is the smaller ESS of the indicators `x ≤ q₀.₀₅` and `x ≥ q₀.₉₅` (§4.3).
//!
//! The autocovariances are computed directly, `O(S · t_max)` with `t_max` the truncation lag:
//! cheap for the few thousand kept draws of a fit.

use statrs::distribution::{ContinuousCDF, Normal};

/// The thresholds of Vehtari et al. (2021, §4.4) for a result to be reported.
pub const RHAT_LIMIT: f64 = 1.01;
/// Bulk and tail ESS below `100` per chain (`ESS_PER_CHAIN × chains`) are too low.
pub const ESS_PER_CHAIN: f64 = 100.0;

/// Split-`R̂` and effective sample sizes of one scalar over several chains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagnostics {
    /// `max(bulk R̂, tail R̂)`; `NaN` when undefined (a constant quantity, or chains too short).
    pub rhat: f64,
    /// Bulk ESS (rank-normalized split chains).
    pub ess_bulk: f64,
    /// Tail ESS (the 5 % and 95 % quantile indicators).
    pub ess_tail: f64,
}

impl Diagnostics {
    /// The problems with these numbers for `chains` chains, as text (empty when none):
    /// `R̂ > 1.01`, or bulk or tail ESS below 100 per chain.
    pub fn warnings(&self, chains: usize) -> Vec<String> {
        let mut out = Vec::new();
        let least = ESS_PER_CHAIN * chains as f64;
        if self.rhat.is_nan() {
            out.push("R̂ is undefined (the quantity is constant or the chains are too short)".into());
        } else if self.rhat > RHAT_LIMIT {
            out.push(format!("R̂ = {:.3} > {RHAT_LIMIT}: the chains disagree; run longer", self.rhat));
        }
        for (name, ess) in [("bulk", self.ess_bulk), ("tail", self.ess_tail)] {
            if ess < least {
                out.push(format!("{name} ESS = {ess:.0} < {least:.0} (100 per chain): too few effective draws"));
            }
        }
        out
    }
}

/// The diagnostics of `chains` (each one chain's draws of the scalar, in order). Chains of
/// different lengths are cut to the shortest. With fewer than 4 draws per chain every number is
/// `NaN`.
pub fn diagnose(chains: &[&[f64]]) -> Diagnostics {
    let nan = Diagnostics { rhat: f64::NAN, ess_bulk: f64::NAN, ess_tail: f64::NAN };
    let split = split_chains(chains);
    let Some(first) = split.first() else { return nan };
    if first.len() < 2 || split.iter().flatten().any(|x| !x.is_finite()) {
        return nan;
    }
    let all: Vec<f64> = split.iter().flatten().copied().collect();
    let z = rank_normalize(&split);
    let med = quantile(&all, 0.5);
    let folded: Vec<Vec<f64>> = split.iter().map(|c| c.iter().map(|x| (x - med).abs()).collect()).collect();
    let rhat = rhat(&z).max(rhat(&rank_normalize(&folded)));
    let (q05, q95) = (quantile(&all, 0.05), quantile(&all, 0.95));
    let indicator = |f: &dyn Fn(f64) -> bool| -> Vec<Vec<f64>> {
        split.iter().map(|c| c.iter().map(|&x| if f(x) { 1.0 } else { 0.0 }).collect()).collect()
    };
    let ess_tail = ess(&indicator(&|x| x <= q05)).min(ess(&indicator(&|x| x >= q95)));
    Diagnostics { rhat, ess_bulk: ess(&z), ess_tail }
}

/// Each chain cut to the common length and split in half (the middle draw of an odd length
/// dropped).
fn split_chains(chains: &[&[f64]]) -> Vec<Vec<f64>> {
    let n = chains.iter().map(|c| c.len()).min().unwrap_or(0);
    let half = n / 2;
    chains.iter().flat_map(|c| [c[..half].to_vec(), c[n - half..n].to_vec()]).collect()
}

/// `Φ⁻¹((r − 3/8) / (S + 1/4))` of every draw's average rank `r` among all draws.
fn rank_normalize(chains: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let all: Vec<f64> = chains.iter().flatten().copied().collect();
    let s = all.len();
    let mut order: Vec<usize> = (0..s).collect();
    order.sort_by(|&a, &b| all[a].total_cmp(&all[b]));
    let mut rank = vec![0.0; s];
    let mut i = 0;
    while i < s {
        let mut j = i;
        while j + 1 < s && all[order[j + 1]] == all[order[i]] {
            j += 1;
        }
        let average = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            rank[k] = average;
        }
        i = j + 1;
    }
    let normal = Normal::standard();
    let mut ranks = rank.into_iter();
    chains
        .iter()
        .map(|c| {
            c.iter().map(|_| normal.inverse_cdf((ranks.next().unwrap_or(0.0) - 0.375) / (s as f64 + 0.25))).collect()
        })
        .collect()
}

/// The `p`-quantile of `x` (linear interpolation between order statistics, R's type 7).
fn quantile(x: &[f64], p: f64) -> f64 {
    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    let h = (sorted.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// `(W, var⁺)` of equal-length chains: the mean within-chain variance and the pooled estimate.
fn variances(chains: &[Vec<f64>]) -> (f64, f64) {
    let n = chains[0].len() as f64;
    let means: Vec<f64> = chains.iter().map(|c| mean(c)).collect();
    let within =
        chains.iter().zip(&means).map(|(c, m)| c.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sum::<f64>()
            / chains.len() as f64;
    let grand = mean(&means);
    let between_over_n = if chains.len() > 1 {
        means.iter().map(|m| (m - grand).powi(2)).sum::<f64>() / (chains.len() - 1) as f64
    } else {
        0.0
    };
    (within, (n - 1.0) / n * within + between_over_n)
}

/// `√(var⁺ / W)`; `+∞` when every chain is constant but they differ (nothing could be more
/// unmixed), `NaN` when all are the same constant.
fn rhat(chains: &[Vec<f64>]) -> f64 {
    let (within, plus) = variances(chains);
    if within > 0.0 {
        (plus / within).sqrt()
    } else if plus > 0.0 {
        f64::INFINITY
    } else {
        f64::NAN
    }
}

/// The ESS of equal-length chains (Geyer's initial monotone sequence); `NaN` when constant.
fn ess(chains: &[Vec<f64>]) -> f64 {
    let n = chains[0].len();
    let s = (n * chains.len()) as f64;
    let (within, plus) = variances(chains);
    if within.is_nan() || within <= 0.0 {
        return f64::NAN;
    }
    let centred: Vec<Vec<f64>> = chains
        .iter()
        .map(|c| {
            let m = mean(c);
            c.iter().map(|x| x - m).collect()
        })
        .collect();
    // ρ̂_t from the biased autocovariances γ̂_{m,t} = (1/N) Σ_i x_i x_{i+t}; W uses the unbiased
    // variance, so γ̂_{m,0} is rescaled to it (as the `posterior` package does).
    let rho = |t: usize| -> f64 {
        let mean_acov = centred
            .iter()
            .map(|c| c[..n - t].iter().zip(&c[t..]).map(|(a, b)| a * b).sum::<f64>() / n as f64)
            .sum::<f64>()
            / chains.len() as f64;
        let mean_acov = if t == 0 { mean_acov * n as f64 / (n as f64 - 1.0) } else { mean_acov };
        1.0 - (within - mean_acov) / plus
    };
    // Geyer's initial positive sequence, then made monotone, exactly as the `posterior` package
    // and ArviZ do (a test checks ArviZ's values): pairs (ρ̂_{t+1}, ρ̂_{t+2}) for odd t are kept
    // while their sum is positive; the last even term is kept if positive; a pair larger than the
    // one before is replaced by that one's mean.
    let mut r = vec![0.0; n];
    r[0] = 1.0;
    let (mut even, mut odd) = (1.0, if n > 1 { rho(1) } else { 0.0 });
    if n > 1 {
        r[1] = odd;
    }
    let mut t = 1;
    while t + 3 < n && even + odd > 0.0 {
        even = rho(t + 1);
        odd = rho(t + 2);
        if even + odd >= 0.0 {
            r[t + 1] = even;
            r[t + 2] = odd;
        }
        t += 2;
    }
    // t_max = t − 2 may be −1 (chains of fewer than 4 draws): nothing but ρ̂_0 is summed then.
    let last = t - 1; // t_max + 1
    if even > 0.0 && last < n {
        r[last] = even;
    }
    let mut t = 1;
    while t + 3 <= last {
        if r[t + 1] + r[t + 2] > r[t - 1] + r[t] {
            r[t + 1] = (r[t - 1] + r[t]) / 2.0;
            r[t + 2] = r[t + 1];
        }
        t += 2;
    }
    let tau_sum = r[..last.min(n)].iter().sum::<f64>() + r.get(last).copied().unwrap_or(0.0) / 2.0;
    let tau = (-1.0 + 2.0 * tau_sum).max(1.0 / s.log10());
    s / tau
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_interpolates() {
        assert_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.5), 2.5);
        assert_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.0), 1.0);
        assert_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 1.0), 4.0);
    }

    #[test]
    fn ties_share_their_average_rank() {
        let z = rank_normalize(&[vec![1.0, 2.0], vec![2.0, 3.0]]);
        assert_eq!(z[0][1], z[1][0]);
        assert!(z[0][0] < z[0][1] && z[1][0] < z[1][1]);
        assert!((z[0][1]).abs() < 1e-12, "the middle rank maps to 0");
    }

    #[test]
    fn constant_and_short_chains_are_undefined() {
        let d = diagnose(&[&[1.0; 10], &[1.0; 10]]);
        assert!(d.rhat.is_nan() && d.ess_bulk.is_nan());
        assert!(diagnose(&[&[1.0, 2.0, 3.0]]).rhat.is_nan());
        assert!(diagnose(&[]).rhat.is_nan());
        assert!(!d.warnings(2).is_empty());
    }
}
