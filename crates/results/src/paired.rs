//! Paired comparison of two methods over the same data sets: the differences `d_r = this_r −
//! baseline_r` of replication `r`, how many replications each won, the mean difference with its
//! 95 % Student-t interval `d̄ ± t_{0.975, n−1} · s_d / √n`, and the two-sided paired t-test
//! `p = 2 (1 − F_{t, n−1}(|d̄| / (s_d / √n)))`.
//!
//! Pairing removes the data-set noise that the two methods share, so this is the statistic for
//! "A beats B"; comparing two means ± sd over replications is not (their sds mix data noise into
//! both). The t-interval assumes the differences are roughly normal; with n = 3 or 5 it is wide,
//! as it should be, and the win count is given beside it.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A paired comparison over `n` replications.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    pub n: usize,
    /// Replications where this method was better (strictly).
    pub wins: usize,
    /// Mean of `this − baseline`.
    pub mean: f64,
    /// Sample sd of the differences (divisor n − 1; `None` for n = 1).
    pub sd: Option<f64>,
    /// 95 % t-interval of the mean difference (`None` for n < 2 or identical differences).
    pub interval: Option<(f64, f64)>,
    /// Two-sided paired t-test of "no difference" (`None` where the interval is).
    pub p_value: Option<f64>,
}

/// Compares paired values `(this, baseline)`; `lower_is_better` says which way a win goes (KL:
/// lower; log predictive: higher). `None` when there is no pair or a difference is not finite.
pub fn paired(pairs: &[(f64, f64)], lower_is_better: bool) -> Option<Paired> {
    let d: Vec<f64> = pairs.iter().map(|(a, b)| a - b).collect();
    if d.is_empty() || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let n = d.len();
    let wins = d.iter().filter(|&&x| if lower_is_better { x < 0.0 } else { x > 0.0 }).count();
    let (mean, sd) = crate::mean_sd(&d);
    let test = sd.filter(|s| *s > 0.0).and_then(|s| {
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).ok()?;
        let se = s / (n as f64).sqrt();
        let half = t.inverse_cdf(0.975) * se;
        let p = 2.0 * (1.0 - t.cdf((mean / se).abs()));
        Some(((mean - half, mean + half), p.clamp(0.0, 1.0)))
    });
    Some(Paired { n, wins, mean, sd, interval: test.map(|x| x.0), p_value: test.map(|x| x.1) })
}

/// Holm's step-down adjustment of the p-values `p` of a family (Holm 1979), in the input order:
/// with `p₍₁₎ ≤ … ≤ p₍ₘ₎`, the adjusted `p̃₍ₖ₎ = max_{j ≤ k} min(1, (m − j + 1) p₍ⱼ₎)`. Rejecting where
/// `p̃ < α` controls the family-wise error rate at `α` (docs/statistics.md).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = p.len();
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from SciPy 1.17.1: `ttest_rel(this, baseline)` gives t = −2.43544093523526,
    /// p = 0.07155945569010248, and `t.ppf(0.975, 4)` = 2.7764451051977934 gives the interval
    /// [−0.2354019168164532, 0.01540191681645317].
    #[test]
    fn agrees_with_the_t_distribution_on_a_fixed_example() {
        let this = [0.10, 0.25, 0.05, 0.30, 0.12];
        let baseline = [0.20, 0.30, 0.15, 0.32, 0.40];
        let pairs: Vec<(f64, f64)> = this.iter().copied().zip(baseline).collect();
        let p = paired(&pairs, true).unwrap();
        assert_eq!((p.n, p.wins), (5, 5));
        // d = [-0.10, -0.05, -0.10, -0.02, -0.28]: mean -0.11, sd 0.100995, se 0.0451664,
        // t = -2.43544, p = 0.0715595; interval -0.11 ± 2.776445 · se.
        assert!((p.mean + 0.11).abs() < 1e-12);
        assert!((p.sd.unwrap() - 0.100_995_049_383_620_79).abs() < 1e-12, "{:?}", p.sd);
        let (lo, hi) = p.interval.unwrap();
        assert!((lo - -0.235_401_916_816_453_2).abs() < 1e-12, "{lo}");
        assert!((hi - 0.015_401_916_816_453_17).abs() < 1e-12, "{hi}");
        assert!((p.p_value.unwrap() - 0.071_559_455_690_102_48).abs() < 1e-12, "{:?}", p.p_value);
        // Higher is better: the same pairs are all losses.
        assert_eq!(paired(&pairs, false).unwrap().wins, 0);
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(paired(&[], true), None);
        assert_eq!(paired(&[(f64::NAN, 1.0)], true), None);
        let one = paired(&[(1.0, 2.0)], true).unwrap();
        assert_eq!((one.n, one.wins, one.mean, one.sd, one.interval, one.p_value), (1, 1, -1.0, None, None, None));
        // Identical differences: no spread, no test (not p = 0).
        let same = paired(&[(1.0, 2.0), (3.0, 4.0)], true).unwrap();
        assert_eq!((same.interval, same.p_value), (None, None));
        // Ties are not wins.
        assert_eq!(paired(&[(1.0, 1.0), (2.0, 3.0), (5.0, 4.0)], true).unwrap().wins, 1);
    }
}
