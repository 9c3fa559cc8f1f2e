//! Hungarian alignment of estimated topics to true ones.

use crate::EvalError;
use pathfinding::kuhn_munkres::{Weights, kuhn_munkres_min};

/// Each row of a row-major `rows × cols` matrix divided by its sum (a topic's word
/// distribution; Poisson-factorization topics carry an arbitrary scale that `θ` absorbs).
/// Rows summing to 0 stay 0.
pub fn normalize_rows(values: &[f64], cols: usize) -> Vec<f64> {
    values
        .chunks(cols.max(1))
        .flat_map(|row| {
            let sum: f64 = row.iter().sum();
            row.iter().map(move |x| if sum > 0.0 { x / sum } else { 0.0 })
        })
        .collect()
}

/// The result of aligning `K` estimated topics to `K` true ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    /// `estimate_for[k]` is the estimated topic matched to true topic `k`.
    pub estimate_for: Vec<usize>,
    /// Mean absolute error between the normalized true topics and the matched normalized
    /// estimates, over all `K × V` cells.
    pub mean_absolute_error: f64,
}

/// Integer costs for Kuhn–Munkres (which needs an ordered type): distances scaled so the
/// largest is 1e12 — resolution 1e-12 of the largest distance, far below any meaningful gap.
struct Costs {
    k: usize,
    values: Vec<i64>,
}

impl Weights<i64> for Costs {
    fn rows(&self) -> usize {
        self.k
    }
    fn columns(&self) -> usize {
        self.k
    }
    fn at(&self, row: usize, col: usize) -> i64 {
        self.values[row * self.k + col]
    }
    fn neg(&self) -> Self {
        Self { k: self.k, values: self.values.iter().map(|v| -v).collect() }
    }
}

/// The assignment minimizing the total of a `k × k` row-major matrix of finite non-negative
/// costs (Kuhn–Munkres from `pathfinding`): `result[row]` is the column matched to `row`.
pub fn min_cost_matching(costs: &[f64], k: usize) -> Vec<usize> {
    let largest = costs.iter().cloned().filter(|c| c.is_finite()).fold(0.0, f64::max);
    let scale = if largest > 0.0 { 1e12 / largest } else { 0.0 };
    let costs = Costs { k, values: costs.iter().map(|d| (d.min(largest) * scale).round() as i64).collect() };
    kuhn_munkres_min(&costs).1
}

/// Matches estimated topics to true topics (both `K × V`, topic-major) by the Hungarian
/// algorithm on the L1 distance between their normalized word distributions (Kuhn–Munkres from
/// `pathfinding`, as the paper does after Newman et al. 2009), and reports the aligned error.
pub fn align_topics(truth: &[f64], estimate: &[f64], topics: usize, words: usize) -> Result<Alignment, EvalError> {
    if topics == 0 || words == 0 || truth.len() != topics * words || estimate.len() != topics * words {
        return Err(EvalError::Shape(format!(
            "topic alignment: expected two {topics}×{words} matrices, got {} and {} values",
            truth.len(),
            estimate.len()
        )));
    }
    if let Some((index, &value)) =
        truth.iter().chain(estimate).enumerate().find(|(_, x)| !(x.is_finite() && **x >= 0.0))
    {
        return Err(EvalError::Invalid { index: index % (topics * words), value });
    }
    let (t, e) = (normalize_rows(truth, words), normalize_rows(estimate, words));
    let l1 = |a: usize, b: usize| -> f64 {
        t[a * words..(a + 1) * words].iter().zip(&e[b * words..(b + 1) * words]).map(|(x, y)| (x - y).abs()).sum()
    };
    let distances: Vec<f64> = (0..topics * topics).map(|i| l1(i / topics, i % topics)).collect();
    let estimate_for = min_cost_matching(&distances, topics);
    let total: f64 = estimate_for.iter().enumerate().map(|(k, &j)| l1(k, j)).sum();
    Ok(Alignment { estimate_for, mean_absolute_error: total / (topics * words) as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_permutation_and_ignores_scale() {
        let truth = [0.7, 0.2, 0.1, 0.0, 0.1, 0.1, 0.8, 0.0, 0.0, 0.0, 0.1, 0.9];
        // estimate topics = truth topics (2, 0, 1), rescaled
        let mut estimate = Vec::new();
        for (k, s) in [(2, 3.0), (0, 0.5), (1, 10.0)] {
            estimate.extend(truth[k * 4..(k + 1) * 4].iter().map(|x| x * s));
        }
        let a = align_topics(&truth, &estimate, 3, 4).unwrap();
        assert_eq!(a.estimate_for, vec![1, 2, 0]);
        assert!(a.mean_absolute_error < 1e-15);
    }

    /// Brute force over all permutations of 4 topics: the Hungarian matching has the minimum cost.
    #[test]
    fn is_the_minimum_over_all_permutations() {
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20 {
            let truth: Vec<f64> = (0..24).map(|_| next()).collect();
            let estimate: Vec<f64> = (0..24).map(|_| next()).collect();
            let a = align_topics(&truth, &estimate, 4, 6).unwrap();
            let mut best = f64::INFINITY;
            let perms = permutations(4);
            let (t, e) = (normalize_rows(&truth, 6), normalize_rows(&estimate, 6));
            for p in &perms {
                let cost: f64 =
                    (0..4).map(|k| (0..6).map(|v| (t[k * 6 + v] - e[p[k] * 6 + v]).abs()).sum::<f64>()).sum::<f64>()
                        / 24.0;
                best = best.min(cost);
            }
            assert!((a.mean_absolute_error - best).abs() < 1e-12, "{} vs {best}", a.mean_absolute_error);
        }
    }

    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..n {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }

    #[test]
    fn bad_shapes_and_values_are_errors() {
        assert!(align_topics(&[1.0; 6], &[1.0; 5], 2, 3).is_err());
        assert!(align_topics(&[1.0, -1.0], &[1.0, 1.0], 1, 2).is_err());
        assert!(crate::mean_absolute_error(&[1.0], &[]).is_err());
    }
}
