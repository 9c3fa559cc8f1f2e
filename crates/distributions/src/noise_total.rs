//! The total of a release's noise: a sum of independent two-sided geometric variables, and the
//! interval for a table's true total that it gives.

use crate::error::{ParamError, check};
use statrs::distribution::{ContinuousCDF, Normal};

/// Up to this many `(cells × window width)` steps the law is computed exactly; above it the
/// Cornish–Fisher expansion is used (its error is then far below one count: tested).
const EXACT_WORK: f64 = 4.0e7;
/// The exact window reaches this many standard deviations of the sum, plus the distance at which
/// one cell's tail `α^k` falls below `1e-16`, so the mass it leaves out is below `1e-12`.
const WINDOW_SDS: f64 = 12.0;

/// `S = Σ_n τ_n`, `τ_n ~ 2Geo(α_n)` independent: the total of the noise the geometric mechanism
/// adds to a table's cells (eq. 4 of Schein et al. 2019). `S` is symmetric about 0, with
///
/// `Var S = Σ_n 2α_n/(1−α_n)²` and fourth cumulant `κ₄ = Σ_n 2α_n(1 + 4α_n + α_n²)/(1−α_n)⁴`
///
/// (a two-sided geometric is the difference of two geometric counts, whose cumulants are the
/// negative binomial's with one success). The cells are given as `(α, number of cells)` groups.
///
/// Because the release `ỹ = y + τ` has noise of mean 0 and a public law, `T̃ = Σ ỹ_n` is an
/// unbiased estimate of the true total `T = Σ y_n` whatever the counts' law, and
/// [`Self::total_interval`] is a confidence interval for `T` that needs no model.
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseTotal {
    groups: Vec<(f64, u64)>,
    variance: f64,
    fourth_cumulant: f64,
}

impl NoiseTotal {
    /// The sum over `cells` of `(α, count)` groups; errors unless every `α ∈ [0, 1)`. Cells with
    /// `α = 0` carry no noise.
    pub fn new(cells: impl IntoIterator<Item = (f64, u64)>) -> Result<Self, ParamError> {
        let mut cells: Vec<(f64, u64)> = cells.into_iter().collect();
        for &(alpha, _) in &cells {
            check("NoiseTotal", "alpha", alpha, "a number in [0, 1)", (0.0..1.0).contains(&alpha))?;
        }
        cells.retain(|&(alpha, count)| alpha > 0.0 && count > 0);
        cells.sort_by(|a, b| a.0.total_cmp(&b.0));
        // One group per distinct α (sorted, so equal levels are neighbours: linear in the rows).
        let mut groups: Vec<(f64, u64)> = Vec::with_capacity(cells.len());
        for (alpha, count) in cells {
            match groups.last_mut() {
                Some((a, n)) if *a == alpha => *n += count,
                _ => groups.push((alpha, count)),
            }
        }
        let (mut variance, mut fourth_cumulant) = (0.0, 0.0);
        for &(a, n) in &groups {
            let (n, q) = (n as f64, 1.0 - a);
            variance += n * 2.0 * a / (q * q);
            fourth_cumulant += n * 2.0 * a * (1.0 + 4.0 * a + a * a) / (q * q * q * q);
        }
        Ok(Self { groups, variance, fourth_cumulant })
    }

    /// `Var S = Σ 2α/(1−α)²`.
    pub fn variance(&self) -> f64 {
        self.variance
    }

    /// The smallest integer `s ≥ 0` with `P(S ≤ s) ≥ p`, for `p ∈ [1/2, 1)`: exact (the pmf by
    /// recurrence on a window that leaves out less than `1e-12`) when that is cheap, otherwise the
    /// Cornish–Fisher expansion `s ≈ σ (z + (z³ − 3z) γ₂/24)`, `γ₂ = κ₄/σ⁴` (the third cumulant is
    /// 0), rounded up.
    pub fn upper_quantile(&self, p: f64) -> Result<u64, ParamError> {
        check("NoiseTotal", "p", p, "a probability in [0.5, 1)", (0.5..1.0).contains(&p))?;
        if self.groups.is_empty() {
            return Ok(0);
        }
        match self.exact_pmf() {
            Some((offset, pmf)) => {
                let mut cdf = 0.0;
                for (i, &mass) in pmf.iter().enumerate() {
                    cdf += mass;
                    if cdf >= p {
                        return Ok((i as i64 - offset).max(0) as u64);
                    }
                }
                Ok((pmf.len() as i64 - 1 - offset).max(0) as u64)
            }
            None => Ok(self.cornish_fisher(p).ceil().max(0.0) as u64),
        }
    }

    /// The Cornish–Fisher approximation to the `p` quantile of `S` (continuous).
    pub fn cornish_fisher(&self, p: f64) -> f64 {
        let z = Normal::standard().inverse_cdf(p);
        let sd = self.variance.sqrt();
        let excess_kurtosis = self.fourth_cumulant / (self.variance * self.variance);
        sd * (z + (z * z * z - 3.0 * z) * excess_kurtosis / 24.0)
    }

    /// The pmf of `S` on `[−offset, len − 1 − offset]`, or `None` when computing it would cost more
    /// than `EXACT_WORK` (4·10⁷) steps. Adding one cell's `τ = G₁ − G₂` (`P(G = k) = (1−α)αᵏ`) is two
    /// first-order recurrences: `h(s) = (1−α) f(s) + α h(s−1)` adds `G₁`, and
    /// `g(s) = (1−α) h(s) + α g(s+1)` subtracts `G₂`.
    pub fn exact_pmf(&self) -> Option<(i64, Vec<f64>)> {
        let largest = self.groups.last().map_or(0.0, |g| g.0);
        let tail = if largest > 0.0 { (1e-16f64).ln() / largest.ln() } else { 0.0 };
        let half = (WINDOW_SDS * self.variance.sqrt() + tail).ceil();
        let cells: u64 = self.groups.iter().map(|g| g.1).sum();
        if !half.is_finite() || (2.0 * half + 1.0) * cells as f64 > EXACT_WORK {
            return None;
        }
        let offset = half as i64;
        let mut f = vec![0.0; 2 * offset as usize + 1];
        f[offset as usize] = 1.0;
        for &(a, n) in &self.groups {
            let q = 1.0 - a;
            for _ in 0..n {
                let mut carry = 0.0;
                for v in f.iter_mut() {
                    carry = q * *v + a * carry;
                    *v = carry;
                }
                carry = 0.0;
                for v in f.iter_mut().rev() {
                    carry = q * *v + a * carry;
                    *v = carry;
                }
            }
        }
        Some((offset, f))
    }

    /// A `level` confidence interval for the true total `T` from the released total `T̃`:
    /// `[max(0, T̃ − s), T̃ + s]` with `s` the `(1 + level)/2` upper quantile of `S`. By the
    /// symmetry of `S` it holds `T` with probability at least `level` (exactly computed; to the
    /// Cornish–Fisher expansion's accuracy for large tables), for any counts.
    pub fn total_interval(&self, released_total: f64, level: f64) -> Result<(f64, f64), ParamError> {
        check("NoiseTotal", "level", level, "a probability in (0, 1)", level > 0.0 && level < 1.0)?;
        let s = self.upper_quantile((1.0 + level) / 2.0)? as f64;
        Ok(((released_total - s).max(0.0), released_total + s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TwoSidedGeometric, stream};
    use rand::distr::Distribution;

    /// The pmf of a sum by direct convolution of truncated two-sided geometric pmfs.
    fn convolved(alphas: &[f64], half: i64) -> Vec<f64> {
        let mut f = vec![0.0; 2 * half as usize + 1];
        f[half as usize] = 1.0;
        for &a in alphas {
            let noise = TwoSidedGeometric::new(a).unwrap();
            let mut g = vec![0.0; f.len()];
            for (i, &mass) in f.iter().enumerate().filter(|(_, m)| **m > 0.0) {
                for (j, out) in g.iter_mut().enumerate() {
                    *out += mass * noise.pmf(j as i64 - i as i64);
                }
            }
            f = g;
        }
        f
    }

    #[test]
    fn the_recurrence_is_the_convolution() {
        let total = NoiseTotal::new([(0.3, 2), (0.8, 1), (0.0, 5)]).unwrap();
        let (offset, pmf) = total.exact_pmf().unwrap();
        let direct = convolved(&[0.3, 0.3, 0.8], offset);
        assert_eq!(pmf.len(), direct.len());
        for (a, b) in pmf.iter().zip(&direct) {
            assert!((a - b).abs() < 1e-14, "{a} vs {b}");
        }
        let mass: f64 = pmf.iter().sum();
        assert!((mass - 1.0).abs() < 1e-12, "{mass}");
        let variance: f64 = pmf.iter().enumerate().map(|(i, m)| m * ((i as i64 - offset) as f64).powi(2)).sum();
        assert!((variance - total.variance()).abs() < 1e-9 * total.variance(), "{variance} vs {}", total.variance());
    }

    /// The exact law against 200,000 seeded draws: `P(|S| ≤ s)` at the 0.95 quantile. The check
    /// is `|p̂ − p| < 4.4 sd` of a binomial proportion, a false-alarm rate of 1e-5.
    #[test]
    fn the_quantile_holds_its_probability_in_draws() {
        let groups = [(0.5, 6), (0.8, 3)];
        let total = NoiseTotal::new(groups).unwrap();
        let s = total.upper_quantile(0.95).unwrap() as i64;
        let (offset, pmf) = total.exact_pmf().unwrap();
        let p: f64 = pmf[(offset - s) as usize..=(offset + s) as usize].iter().sum();
        assert!(p >= 0.90, "{p}");
        let noises: Vec<TwoSidedGeometric> = groups
            .iter()
            .flat_map(|&(a, n)| std::iter::repeat_n(TwoSidedGeometric::new(a).unwrap(), n as usize))
            .collect();
        let mut rng = stream(54, 1);
        let draws = 200_000;
        let inside =
            (0..draws).filter(|_| noises.iter().map(|d| -> i64 { d.sample(&mut rng) }).sum::<i64>().abs() <= s).count();
        let phat = inside as f64 / draws as f64;
        let sd = (p * (1.0 - p) / draws as f64).sqrt();
        assert!((phat - p).abs() < 4.4 * sd, "{phat} vs {p}");
    }

    /// Where both are computed, the expansion and the exact law agree within a count.
    #[test]
    fn cornish_fisher_agrees_with_the_exact_law_on_large_sums() {
        for (alpha, cells) in [(0.2, 5_000), (0.5, 4_000), (0.8, 1_500)] {
            let total = NoiseTotal::new([(alpha, cells)]).unwrap();
            let exact = total.upper_quantile(0.95).unwrap() as f64;
            let approximate = total.cornish_fisher(0.95);
            assert!((exact - approximate).abs() <= 1.0, "α {alpha}, {cells} cells: {exact} vs {approximate}");
        }
    }

    #[test]
    fn large_tables_use_the_expansion_and_no_noise_gives_the_total() {
        let big = NoiseTotal::new([(0.8, 3_000_000)]).unwrap();
        assert!(big.exact_pmf().is_none());
        let s = big.upper_quantile(0.95).unwrap() as f64;
        let normal = 1.6448536 * big.variance().sqrt();
        assert!(s >= normal && s < normal * 1.001, "{s} vs {normal}");
        // A level per row for 100,000 rows: grouped in linear time, the variance summed.
        let rows = NoiseTotal::new((0..100_000).map(|i| (0.1 + 1e-6 * i as f64, 3))).unwrap();
        let expected: f64 =
            (0..100_000).map(|i| 3.0 * TwoSidedGeometric::new(0.1 + 1e-6 * i as f64).unwrap().variance()).sum();
        assert!((rows.variance() - expected).abs() < 1e-9 * expected);
        assert!(rows.upper_quantile(0.95).is_ok());
        let none = NoiseTotal::new([(0.0, 10)]).unwrap();
        assert_eq!(none.total_interval(42.0, 0.9).unwrap(), (42.0, 42.0));
        let interval = NoiseTotal::new([(0.5, 100)]).unwrap().total_interval(10.0, 0.9).unwrap();
        assert_eq!(interval.0, 0.0);
        assert!(NoiseTotal::new([(1.0, 1)]).is_err());
        assert!(NoiseTotal::new([(f64::NAN, 1)]).is_err());
        assert!(NoiseTotal::new([(0.5, 1)]).unwrap().total_interval(1.0, 1.0).is_err());
    }
}
