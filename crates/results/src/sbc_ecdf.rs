//! The ECDF test of uniform SBC ranks with simultaneous bands (Säilynoja, Bürkner & Vehtari 2022,
//! "Graphical test for discrete uniformity and its applications in goodness-of-fit evaluation and
//! multiple sample comparison", Statistics and Computing 32:32).
//!
//! `N` ranks `r_i` of the truth among `L` draws are uniform on `0..=L` under calibration. At each
//! of `K` thresholds `t` (the interior bin edges `1..=L`, at most [`MAX_THRESHOLDS`] evenly
//! spaced), the count `c_t = #{i : r_i < t}` is `Binomial(N, t/(L + 1))`. The statistic is the
//! smallest two-sided pointwise tail probability over the thresholds,
//!
//! `T = min_t 2 min(P(X ≤ c_t), P(X ≥ c_t))`, `X ~ Binomial(N, t/(L + 1))`,
//!
//! small when the ECDF leaves its pointwise band anywhere. Its null distribution — the
//! dependence between thresholds included, which is what makes the band *simultaneous* — is
//! simulated from uniform ranks: `p = (1 + #{T_sim ≤ T}) / (1 + S)` over `S` =
//! [`SIMULATIONS`] seeded simulations (Monte Carlo sd of `p` at 0.05 about 0.003; the seed is
//! fixed, so a verdict is reproducible). The simultaneous `1 − a` band is the pointwise band at
//! the `a`-quantile of the simulated `T`. Unlike the χ² test of binned ranks, no binning hides a
//! deviation confined to a tail, which is where a posterior that is too narrow or shifted shows.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{Binomial, DiscreteCDF};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// At most this many thresholds (evenly spaced over `1..=L`).
pub const MAX_THRESHOLDS: usize = 100;
/// Simulations of the statistic's null distribution.
pub const SIMULATIONS: usize = 4000;
/// The seed of the simulations (any fixed number: the verdicts are then reproducible).
const SEED: u64 = 20_221_127;

/// The simultaneous band of [`EcdfTest::curve`] covers uniform ranks' whole ECDF with this
/// probability.
pub const BAND_LEVEL: f64 = 0.95;

/// The ECDF test of one group's ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct EcdfTest {
    /// `T`, the smallest pointwise two-sided tail probability.
    pub statistic: f64,
    /// `P(T_null ≤ T)`, simulated.
    pub p: f64,
    /// The ECDF plot of Säilynoja et al. (their Fig. 3, as a difference from uniform): at each
    /// threshold `z = t/(L + 1)`, the points `(z, F(z) − z, low − z, high − z)`, `F` the share of
    /// ranks below `t` and `[low, high]` the simultaneous [`BAND_LEVEL`] band (the counts whose
    /// pointwise tail probability exceeds the `1 − BAND_LEVEL` quantile of the simulated `T`).
    pub curve: Vec<(f64, f64, f64, f64)>,
}

/// The thresholds `t` of ranks among `draws` draws: `1..=draws`, or [`MAX_THRESHOLDS`] of them
/// evenly spaced.
fn thresholds(draws: u32) -> Vec<u32> {
    let k = (draws as usize).clamp(1, MAX_THRESHOLDS);
    (1..=k).map(|i| ((i as u64 * u64::from(draws)).div_ceil(k as u64)) as u32).collect()
}

/// The pointwise two-sided tail probabilities of every count `0..=n` at every threshold:
/// `tails[j][c]`.
fn tail_table(n: usize, draws: u32, thresholds: &[u32]) -> Vec<Vec<f64>> {
    thresholds
        .iter()
        .map(|&t| {
            let q = f64::from(t) / (f64::from(draws) + 1.0);
            let Ok(binomial) = Binomial::new(q, n as u64) else { return vec![1.0; n + 1] };
            (0..=n as u64)
                .map(|c| {
                    let below = binomial.cdf(c);
                    let above = if c == 0 { 1.0 } else { 1.0 - binomial.cdf(c - 1) };
                    (2.0 * below.min(above)).min(1.0)
                })
                .collect()
        })
        .collect()
}

/// `T` of `ranks` (each at most `draws`) with the table of [`tail_table`].
fn statistic(ranks: &[u32], thresholds: &[u32], tails: &[Vec<f64>], sorted: &mut Vec<u32>) -> f64 {
    sorted.clear();
    sorted.extend_from_slice(ranks);
    sorted.sort_unstable();
    thresholds.iter().zip(tails).map(|(&t, tail)| tail[sorted.partition_point(|&r| r < t)]).fold(1.0, f64::min)
}

/// The [`SIMULATIONS`] simulated values of `T` for `n` uniform ranks among `draws` draws, sorted.
/// They depend on `(n, draws)` alone (the seed is fixed), so a process simulates them once per
/// pair and reuses them (a summary tests several groups of the same size).
fn null_distribution(n: usize, draws: u32, thresholds: &[u32], tails: &[Vec<f64>]) -> Arc<Vec<f64>> {
    /// The pairs kept at once (a sweep has a few group sizes; more are simulated again).
    const KEPT: usize = 64;
    /// The sorted nulls by `(n, draws)`.
    type Nulls = HashMap<(usize, u32), Arc<Vec<f64>>>;
    static NULLS: OnceLock<Mutex<Nulls>> = OnceLock::new();
    let nulls = NULLS.get_or_init(Default::default);
    if let Some(null) = nulls.lock().unwrap_or_else(PoisonError::into_inner).get(&(n, draws)) {
        return Arc::clone(null);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED ^ ((n as u64) << 32) ^ u64::from(draws));
    let (mut simulated, mut sorted) = (vec![0u32; n], Vec::with_capacity(n));
    let mut null: Vec<f64> = (0..SIMULATIONS)
        .map(|_| {
            simulated.iter_mut().for_each(|r| *r = rng.random_range(0..=draws));
            statistic(&simulated, thresholds, tails, &mut sorted)
        })
        .collect();
    null.sort_unstable_by(f64::total_cmp);
    let null = Arc::new(null);
    let mut nulls = nulls.lock().unwrap_or_else(PoisonError::into_inner);
    if nulls.len() >= KEPT {
        nulls.clear();
    }
    nulls.insert((n, draws), Arc::clone(&null));
    null
}

/// The ECDF test of `ranks` among `draws` draws; `None` without ranks or draws.
pub fn ecdf_test(ranks: &[u32], draws: u32) -> Option<EcdfTest> {
    let n = ranks.len();
    if n == 0 || draws == 0 {
        return None;
    }
    let thresholds = thresholds(draws);
    let tails = tail_table(n, draws, &thresholds);
    let clipped: Vec<u32> = ranks.iter().map(|&r| r.min(draws)).collect();
    let mut sorted = Vec::with_capacity(n);
    let observed = statistic(&clipped, &thresholds, &tails, &mut sorted);
    let null = null_distribution(n, draws, &thresholds, &tails);
    let at_most = null.partition_point(|&t| t <= observed);
    let gamma = null[((1.0 - BAND_LEVEL) * SIMULATIONS as f64) as usize];
    sorted.clear();
    sorted.extend_from_slice(&clipped);
    sorted.sort_unstable();
    let curve = thresholds
        .iter()
        .zip(&tails)
        .map(|(&t, tail)| {
            let z = f64::from(t) / (f64::from(draws) + 1.0);
            let below = sorted.partition_point(|&r| r < t) as f64 / n as f64;
            let inside: Vec<usize> = (0..=n).filter(|&c| tail[c] > gamma).collect();
            let (low, high) = match (inside.first(), inside.last()) {
                (Some(&l), Some(&h)) => (l as f64 / n as f64, h as f64 / n as f64),
                _ => (z, z),
            };
            (z, below - z, low - z, high - z)
        })
        .collect();
    Some(EcdfTest { statistic: observed, p: (1 + at_most) as f64 / (1 + SIMULATIONS) as f64, curve })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform_ranks(n: usize, draws: u32, seed: u64) -> Vec<u32> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n).map(|_| rng.random_range(0..=draws)).collect()
    }

    /// Thresholds cover `1..=L`, at most 100 of them, ending at `L`.
    #[test]
    fn thresholds_span_the_ranks() {
        assert_eq!(thresholds(5), vec![1, 2, 3, 4, 5]);
        let many = thresholds(999);
        assert_eq!((many.len(), many[0], many[99]), (100, 10, 999));
    }

    /// Under uniform ranks the p-value is uniform: over 200 seeded groups of 100 ranks among 19
    /// draws, the share with p < 0.05 is within its 99.9 % binomial range (0.01 to 0.10) — the
    /// test's false-alarm rate is what it says.
    #[test]
    fn its_false_alarm_rate_is_its_level() {
        let rejected = (0..200).filter(|&s| ecdf_test(&uniform_ranks(100, 19, s), 19).unwrap().p < 0.05).count();
        assert!((2..=20).contains(&rejected), "{rejected} of 200 rejected at 0.05");
    }

    /// Power where it matters: ranks piled in both tails (a posterior too narrow: the truth often
    /// outside every draw), or shifted (a biased posterior), are rejected; so is a deviation
    /// confined to the lowest rank, which a 10-bin χ² test of 100 ranks among 99 draws dilutes.
    #[test]
    fn too_narrow_or_shifted_posteriors_are_rejected() {
        let narrow: Vec<u32> = uniform_ranks(100, 19, 1).iter().map(|&r| if r % 3 == 0 { 0 } else { r }).collect();
        assert!(ecdf_test(&narrow, 19).unwrap().p < 0.001);
        let shifted: Vec<u32> = uniform_ranks(100, 19, 2).iter().map(|&r| (r + 4).min(19)).collect();
        assert!(ecdf_test(&shifted, 19).unwrap().p < 0.001);
        let mut tail = uniform_ranks(100, 99, 3);
        tail.iter_mut().take(9).for_each(|r| *r = 0);
        assert!(ecdf_test(&tail, 99).unwrap().p < 0.01, "{:?}", ecdf_test(&tail, 99));
        assert!(ecdf_test(&[], 19).is_none() && ecdf_test(&[1], 0).is_none());
    }

    /// The band is simultaneous: uniform ranks leave it anywhere in about 5 % of groups (those the
    /// test rejects at about 0.05); it contains 0 at every threshold and narrows towards the ends.
    #[test]
    fn the_band_holds_uniform_ecdfs_at_its_level() {
        let outside = (0..200)
            .filter(|&s| {
                let test = ecdf_test(&uniform_ranks(100, 19, 1000 + s), 19).unwrap();
                let left = test.curve.iter().any(|&(_, d, lo, hi)| d < lo - 1e-12 || d > hi + 1e-12);
                // The statistic is discrete (ties at the band's edge), so leaving the band and
                // p ≤ 0.05 agree up to those ties.
                assert!(!left || test.p <= 0.07, "seed {s}: left the band with p {}", test.p);
                assert!(left || test.p > 0.03, "seed {s}: inside the band with p {}", test.p);
                left
            })
            .count();
        assert!((2..=20).contains(&outside), "{outside} of 200 left the band");
        let curve = ecdf_test(&uniform_ranks(100, 19, 7), 19).unwrap().curve;
        assert_eq!(curve.len(), 19);
        assert!(curve.iter().all(|&(_, _, lo, hi)| lo <= 0.0 && hi >= 0.0));
        let width = |i: usize| curve[i].3 - curve[i].2;
        assert!(width(0) < width(9) && width(18) < width(9));
    }
}
