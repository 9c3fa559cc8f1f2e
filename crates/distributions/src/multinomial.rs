//! Multinomial allocation of a total count over categories with given weights.

use crate::Binomial;
use crate::error::{ParamError, check};
use crate::ln_gamma::ln_gamma;
use rand::distr::{Distribution, StandardUniform};
use rand::{Rng, RngExt};

/// `Mult(n, p)`: `P(x) = n! Π_k p_k^{x_k} / x_k!` over `x ∈ ℕ^K` with `Σ x_k = n`; `p` is given as
/// non-negative weights, normalized internally. The allocation step of Poisson factorization
/// (eq. 1 of Schofield et al.): a count `y_n` split over its rate components `μ_nk`.
///
/// Two exact algorithms, picked by cost: for totals `n < 2K` each unit is placed by a linear scan
/// of the weights (one uniform and about `K/2` comparisons per unit — about 1 ns each, against
/// 30–40 ns per binomial draw); otherwise sequential conditional binomials
/// `x_k ~ Binom(n − Σ_{j<k} x_j, p_k / Σ_{j>=k} p_j)` (`O(K)` binomial draws, stopping early once
/// nothing is left).
///
/// ```
/// use distributions::{Multinomial, stream};
/// let mut out = [0u64; 3];
/// Multinomial::sample_into(10, &[1.0, 2.0, 7.0], &mut out, &mut stream(9, 0)).unwrap();
/// assert_eq!(out.iter().sum::<u64>(), 10);
/// ```
/// Totals below this many units per category are placed one unit at a time.
const CATEGORICAL_MAX_PER_CATEGORY: u64 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct Multinomial {
    n: u64,
    probs: Vec<f64>,
}

/// Checks that `weights` are finite, `>= 0`, not all zero, and returns their sum.
fn weight_sum(weights: &[f64]) -> Result<f64, ParamError> {
    let mut total = 0.0;
    for &w in weights {
        check("Multinomial", "weights", w, "finite numbers >= 0, not all zero", w.is_finite() && w >= 0.0)?;
        total += w;
    }
    check("Multinomial", "weights (sum)", total, "finite numbers >= 0, not all zero", total > 0.0 && total.is_finite())
}

impl Multinomial {
    /// `Mult(n, weights / Σ weights)`; errors on a negative, non-finite or all-zero weight vector.
    pub fn new(n: u64, weights: &[f64]) -> Result<Self, ParamError> {
        let total = weight_sum(weights)?;
        Ok(Self { n, probs: weights.iter().map(|w| w / total).collect() })
    }

    /// The normalized probabilities.
    pub fn probs(&self) -> &[f64] {
        &self.probs
    }

    /// `E[x_k] = n p_k`.
    pub fn mean(&self) -> Vec<f64> {
        self.probs.iter().map(|p| self.n as f64 * p).collect()
    }

    /// `ln P(x)`; `−∞` if `x` has the wrong length or does not sum to `n`.
    pub fn ln_pmf(&self, x: &[u64]) -> f64 {
        if x.len() != self.probs.len() || x.iter().sum::<u64>() != self.n {
            return f64::NEG_INFINITY;
        }
        let mut ln_p = ln_gamma(self.n as f64 + 1.0);
        for (&count, &p) in x.iter().zip(&self.probs) {
            if count > 0 {
                ln_p += count as f64 * p.ln() - ln_gamma(count as f64 + 1.0);
            }
        }
        ln_p
    }

    /// Whether a draw of `n` units over `k` categories places the units one at a time (one uniform
    /// each, in order) rather than by sequential binomials: `n < 2k`. A caller that places units
    /// itself with the same arithmetic reproduces [`Multinomial::sample_cumulative_into`] exactly.
    pub fn places_units_one_at_a_time(n: u64, k: usize) -> bool {
        n < CATEGORICAL_MAX_PER_CATEGORY.saturating_mul(k as u64)
    }

    /// Draws into `out` (length `K`), without allocating: the form the Gibbs samplers use.
    /// Errors if `weights` are invalid or `out.len() != weights.len()`.
    pub fn sample_into<R: Rng + ?Sized>(
        n: u64,
        weights: &[f64],
        out: &mut [u64],
        rng: &mut R,
    ) -> Result<(), ParamError> {
        let total = weight_sum(weights)?;
        check("Multinomial", "out.len()", out.len() as f64, "the number of weights", out.len() == weights.len())?;
        out.fill(0);
        if Self::places_units_one_at_a_time(n, weights.len()) {
            for _ in 0..n {
                let target = rng.sample::<f64, _>(StandardUniform) * total;
                let (mut acc, mut k) = (0.0, 0);
                // Linear scan with an exact last-resort: the last positive weight absorbs rounding.
                while k + 1 < weights.len() && (acc + weights[k] <= target || weights[k] == 0.0) {
                    acc += weights[k];
                    k += 1;
                }
                while weights[k] == 0.0 {
                    k -= 1; // only reachable past the last positive weight, through rounding
                }
                out[k] += 1;
            }
        } else {
            sequential_binomials(n, total, weights.iter().copied(), out, rng)?;
        }
        Ok(())
    }

    /// As [`Multinomial::sample_into`], with the weights given by their running sums
    /// `c_k = Σ_{j<=k} w_j` — the form a Gibbs sampler gets for free while computing the weights.
    /// A unit is placed at `k = #{j : c_j <= U·c_{K−1}}`, a branch-free count over a monotone array
    /// (vectorized), instead of a scan that carries a running sum. Errors unless `cumulative` is
    /// non-decreasing from a value `>= 0` to a finite total `> 0`, and `out.len()` matches.
    pub fn sample_cumulative_into<R: Rng + ?Sized>(
        n: u64,
        cumulative: &[f64],
        out: &mut [u64],
        rng: &mut R,
    ) -> Result<(), ParamError> {
        let total = cumulative.last().copied().unwrap_or(0.0);
        let first = cumulative.first().copied().unwrap_or(0.0);
        let monotone = cumulative.windows(2).all(|w| w[0] <= w[1]);
        let allowed = "running sums of weights >= 0: non-decreasing, finite, total > 0";
        check("Multinomial", "cumulative weights (total)", total, allowed, total.is_finite() && total > 0.0)?;
        check("Multinomial", "cumulative weights (first)", first, allowed, first >= 0.0 && monotone)?;
        check("Multinomial", "out.len()", out.len() as f64, "the number of weights", out.len() == cumulative.len())?;
        out.fill(0);
        let last = cumulative.len() - 1;
        if Self::places_units_one_at_a_time(n, cumulative.len()) {
            for _ in 0..n {
                let target = rng.sample::<f64, _>(StandardUniform) * total;
                let mut k = cumulative.iter().map(|&c| usize::from(c <= target)).sum::<usize>().min(last);
                // Only through rounding (target == total) can k land on a zero weight: step back.
                while k > 0 && cumulative[k] == cumulative[k - 1] {
                    k -= 1;
                }
                out[k] += 1;
            }
        } else {
            let weights = (0..cumulative.len()).map(|k| cumulative[k] - if k == 0 { 0.0 } else { cumulative[k - 1] });
            sequential_binomials(n, total, weights, out, rng)?;
        }
        Ok(())
    }
}

/// `x_k ~ Binom(n − Σ_{j<k} x_j, w_k / Σ_{j>=k} w_j)` in order, the last category taking the rest.
fn sequential_binomials<R: Rng + ?Sized>(
    n: u64,
    total: f64,
    weights: impl ExactSizeIterator<Item = f64>,
    out: &mut [u64],
    rng: &mut R,
) -> Result<(), ParamError> {
    let (mut left, mut rest, len) = (n, total, weights.len());
    for (k, w) in weights.enumerate() {
        if left == 0 {
            break;
        }
        let p = if rest > 0.0 { (w / rest).min(1.0) } else { 0.0 };
        let x = if k + 1 == len { left } else { Binomial::new(left, p)?.sample(rng) };
        out[k] = x;
        left -= x;
        rest -= w;
    }
    Ok(())
}

impl Distribution<Vec<u64>> for Multinomial {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<u64> {
        let mut out = vec![0; self.probs.len()];
        match Self::sample_into(self.n, &self.probs, &mut out, rng) {
            Ok(()) => out,
            Err(_) => unreachable!("probabilities were validated at construction"),
        }
    }
}
