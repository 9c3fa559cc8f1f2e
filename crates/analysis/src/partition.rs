//! Label-invariant communities (issue 33, item 4): the posterior co-clustering matrix of the
//! rows and a point estimate of their partition from it, so that the reported groups do not
//! depend on which chain (or which labelling) won.
//!
//! Each kept sample `s` of every chain assigns row `i` to a component `a_s(i)` (its largest
//! membership). The co-clustering (posterior similarity) matrix is
//! `p_ij = (1/S) Σ_s 1[a_s(i) = a_s(j)]`. Under Binder's loss with equal costs, the expected
//! loss of a partition `c` is, up to a constant, `Σ_{i<j} 1[c_i = c_j] (1 − 2 p_ij)` (Binder 1978;
//! Lau & Green 2007); the point estimate is the sampled partition that minimises it (Dahl 2006,
//! "least squares clustering"), which needs no search beyond the samples.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// Partitions of more rows than this are not summarised (the matrix has `n²` entries: 2,000
/// rows take 32 MB).
pub const MAX_PARTITION_ROWS: usize = 2_000;
/// Chains are compared by co-clustering up to this many rows (one `n × n` matrix per chain).
pub const MAX_CHAIN_COMPARISON_ROWS: usize = 500;
/// Two chains whose co-clustering matrices differ by more than this (mean absolute difference
/// over pairs of rows) put the rows in different groups: they are in different modes.
pub const CO_CLUSTERING_GAP: f64 = 0.1;
/// At most this many samples (evenly spaced) are candidates for the point estimate; each costs
/// `O(n²)`.
const MAX_CANDIDATES: usize = 200;

/// A point estimate of the rows' partition with each row's stability.
#[derive(Clone, Debug, PartialEq)]
pub struct Partition {
    /// Each row's group (0 = the largest group), from the chosen sample.
    pub group: Vec<usize>,
    /// The groups' rows, largest group first (ties: by smallest row).
    pub groups: Vec<Vec<usize>>,
    /// Each row's mean co-clustering probability with the other rows of its group (`NaN` for a
    /// row alone in its group).
    pub co: Vec<f64>,
    /// The expected Binder loss of the estimate, `Σ_{i<j} |1[c_i = c_j] − p_ij|`, per pair.
    pub expected_loss_per_pair: f64,
}

/// `p_ij` for `n` rows from the samples' assignments (row-major `n × n`; the diagonal is 1).
pub fn co_clustering_matrix(assignments: &[Vec<u16>], n: usize) -> Vec<f64> {
    let mut p = vec![0.0; n * n];
    let mut members: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
    for a in assignments {
        members.clear();
        for (i, &c) in a.iter().enumerate().take(n) {
            members.entry(c).or_default().push(i);
        }
        for rows in members.values() {
            for &i in rows {
                for &j in rows {
                    p[i * n + j] += 1.0;
                }
            }
        }
    }
    let s = assignments.len().max(1) as f64;
    p.iter_mut().for_each(|x| *x /= s);
    p
}

/// The point estimate (module docs) of the partition of `n` rows; `None` without samples or
/// with more than [`MAX_PARTITION_ROWS`] rows.
pub fn point_estimate(assignments: &[Vec<u16>], n: usize) -> Option<Partition> {
    if assignments.is_empty() || n == 0 || n > MAX_PARTITION_ROWS || assignments.iter().any(|a| a.len() < n) {
        return None;
    }
    let p = co_clustering_matrix(assignments, n);
    // Σ_{i<j} 1[c_i = c_j](1 − 2p_ij) + Σ_{i<j} p_ij = Σ_{i<j} |1[c_i = c_j] − p_ij|.
    let loss = |a: &[u16]| -> f64 {
        let mut total = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let same = if a[i] == a[j] { 1.0 } else { 0.0 };
                total += (same - p[i * n + j]).abs();
            }
        }
        total
    };
    let step = assignments.len().div_ceil(MAX_CANDIDATES).max(1);
    let (best, best_loss) = assignments.iter().step_by(step).map(|a| (a, loss(a))).fold(
        None,
        |acc: Option<(&Vec<u16>, f64)>, (a, l)| match acc {
            Some((_, bl)) if bl <= l => acc,
            _ => Some((a, l)),
        },
    )?;
    // Groups by label, then relabelled largest first (ties by their smallest row).
    let mut by_label: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
    for (i, &c) in best.iter().enumerate().take(n) {
        by_label.entry(c).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_label.into_values().collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    let mut group = vec![0; n];
    for (g, rows) in groups.iter().enumerate() {
        rows.iter().for_each(|&i| group[i] = g);
    }
    let co = (0..n)
        .map(|i| {
            let rows = &groups[group[i]];
            let others = rows.len() as f64 - 1.0;
            rows.iter().filter(|&&j| j != i).map(|&j| p[i * n + j]).sum::<f64>() / others
        })
        .collect();
    let pairs = (n * n.saturating_sub(1) / 2).max(1) as f64;
    Some(Partition { group, groups, co, expected_loss_per_pair: best_loss / pairs })
}

/// The adjusted Rand index (Hubert & Arabie 1985) of two partitions of the same items, given as
/// each item's pair of labels `(a_i, b_i)`: 1 for the same partition under any labels, about 0
/// for agreement by chance; `None` with fewer than 2 items. Both partitions all singletons, or
/// both one group, are identical: 1.
pub fn adjusted_rand_index<A: Hash + Eq, B: Hash + Eq>(pairs: &[(A, B)]) -> Option<f64> {
    let n = pairs.len();
    if n < 2 {
        return None;
    }
    let choose2 = |m: usize| (m * m.saturating_sub(1)) as f64 / 2.0;
    let mut table: HashMap<(&A, &B), usize> = HashMap::new();
    let (mut rows, mut cols): (HashMap<&A, usize>, HashMap<&B, usize>) = Default::default();
    for (x, y) in pairs {
        *table.entry((x, y)).or_default() += 1;
        *rows.entry(x).or_default() += 1;
        *cols.entry(y).or_default() += 1;
    }
    let index: f64 = table.values().map(|&m| choose2(m)).sum();
    let (sa, sb): (f64, f64) = (rows.values().map(|&m| choose2(m)).sum(), cols.values().map(|&m| choose2(m)).sum());
    let expected = sa * sb / choose2(n);
    let max = (sa + sb) / 2.0;
    Some(if max == expected { 1.0 } else { (index - expected) / (max - expected) })
}

/// Each chain's trace of its kept samples' agreement with `reference` (a partition of the rows,
/// e.g. the point estimate's groups): the adjusted Rand index of every sample's assignments with
/// it. Chain `c`'s samples are the `kept[c]` consecutive assignments after the earlier chains'.
/// A label-invariant summary of the structure per draw: chains that sit in different partitions
/// give traces at different levels, whatever their log-likelihoods say.
pub fn agreement_traces(assignments: &[Vec<u16>], kept: &[usize], reference: &[usize]) -> Vec<Vec<f64>> {
    let mut start = 0;
    kept.iter()
        .map(|&k| {
            let chain = assignments.get(start..start + k).unwrap_or_default();
            start += k;
            chain
                .iter()
                .map(|a| {
                    let pairs: Vec<(u16, usize)> = a.iter().copied().zip(reference.iter().copied()).collect();
                    adjusted_rand_index(&pairs).unwrap_or(f64::NAN)
                })
                .collect()
        })
        .collect()
}

/// The chains grouped by how they cluster the rows: chain `c`'s kept samples are the
/// `kept[c]` consecutive assignments after the earlier chains'; two chains are linked when the
/// mean absolute difference of their co-clustering matrices over pairs of rows is at most
/// [`CO_CLUSTERING_GAP`], and groups are the linked components (each sorted, groups by their
/// first chain). `None` without assignments or with more than [`MAX_CHAIN_COMPARISON_ROWS`] rows.
/// Label-invariant: it does not matter which label a chain gives a community.
pub fn chains_by_co_clustering(assignments: &[Vec<u16>], kept: &[usize], n: usize) -> Option<Vec<Vec<usize>>> {
    let total: usize = kept.iter().sum();
    if !(2..=MAX_CHAIN_COMPARISON_ROWS).contains(&n) || total == 0 || assignments.len() != total {
        return None;
    }
    let mut start = 0;
    let matrices: Vec<Vec<f64>> = kept
        .iter()
        .map(|&k| {
            let m = co_clustering_matrix(&assignments[start..start + k], n);
            start += k;
            m
        })
        .collect();
    let pairs = (n * (n - 1) / 2) as f64;
    let distance = |a: &[f64], b: &[f64]| -> f64 {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| (a[i * n + j] - b[i * n + j]).abs())
            .sum::<f64>()
            / pairs
    };
    // Single linkage: union the chains closer than the gap.
    let chains = matrices.len();
    let mut group: Vec<usize> = (0..chains).collect();
    for a in 0..chains {
        for b in a + 1..chains {
            if distance(&matrices[a], &matrices[b]) <= CO_CLUSTERING_GAP {
                let (from, to) = (group[b], group[a]);
                group.iter_mut().filter(|g| **g == from).for_each(|g| *g = to);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (c, g) in group.into_iter().enumerate() {
        groups.entry(g).or_default().push(c);
    }
    let mut out: Vec<Vec<usize>> = groups.into_values().collect();
    out.sort_by_key(|g| g[0]);
    Some(out)
}

/// The columns that set a group of rows apart, from the posterior mean rates `μ̄` (row-major,
/// `cols` columns; label-free, so pooled over every chain and sample): with `p_v` the group's
/// share of its rows' total in column `v` and `q_v` the same share over all rows, the columns
/// with `p_v > q_v` ranked by `p_v ln(p_v / q_v)` (their term in the Kullback–Leibler divergence
/// of the group from all rows: frequent in the group and rarer elsewhere), at most `top`, with
/// `p_v`. Empty when the group or the table has no mass.
pub fn distinctive_columns(rows: &[usize], mean_rates: &[f64], cols: usize, top: usize) -> Vec<(usize, f64)> {
    let column_totals = |rows: &mut dyn Iterator<Item = usize>| {
        let mut totals = vec![0.0; cols];
        for i in rows {
            for (t, m) in totals.iter_mut().zip(&mean_rates[i * cols..(i + 1) * cols]) {
                *t += m;
            }
        }
        let sum: f64 = totals.iter().sum();
        (sum > 0.0).then(|| totals.iter().map(|t| t / sum).collect::<Vec<f64>>())
    };
    let (Some(p), Some(q)) =
        (column_totals(&mut rows.iter().copied()), column_totals(&mut (0..mean_rates.len() / cols.max(1))))
    else {
        return Vec::new();
    };
    let mut scored: Vec<(usize, f64, f64)> =
        (0..cols).filter(|&v| p[v] > q[v]).map(|v| (v, p[v] * (p[v] / q[v]).ln(), p[v])).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().take(top).map(|(v, _, share)| (v, share)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two groups {0, 1, 2} and {3, 4}, labels permuted between samples, and one sample that
    /// merges them: the estimate is the two groups whatever the labels, and every row's
    /// co-clustering with its group is 1 (all four samples keep each group together).
    #[test]
    fn the_estimate_ignores_labels_and_picks_the_typical_partition() {
        let samples = vec![vec![0, 0, 0, 1, 1], vec![1, 1, 1, 0, 0], vec![2, 2, 2, 0, 0], vec![0, 0, 0, 0, 0]];
        let p = co_clustering_matrix(&samples, 5);
        assert_eq!(p[1], 1.0); // rows 0 and 1: together in every sample
        assert_eq!(p[3], 0.25); // rows 0 and 3: together only in the merged sample
        let estimate = point_estimate(&samples, 5).unwrap();
        assert_eq!(estimate.groups, vec![vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(estimate.group, vec![0, 0, 0, 1, 1]);
        assert!(estimate.co.iter().all(|&c| c == 1.0), "{:?}", estimate.co);
        // Expected loss: the 6 cross pairs each have p = 0.25 → 6 × 0.25 over 10 pairs.
        assert!((estimate.expected_loss_per_pair - 0.15).abs() < 1e-12);
    }

    #[test]
    fn a_row_alone_has_no_co_clustering_and_too_many_rows_are_skipped() {
        let estimate = point_estimate(&[vec![0, 0, 1]], 3).unwrap();
        assert!(estimate.co[2].is_nan() && estimate.co[0] == 1.0);
        assert!(point_estimate(&[], 3).is_none());
        assert!(point_estimate(&[vec![0; MAX_PARTITION_ROWS + 1]], MAX_PARTITION_ROWS + 1).is_none());
    }

    /// Two chains that group rows {0, 1} | {2, 3} (with different labels) and one that groups
    /// {0, 2} | {1, 3}: the first two are one mode, the third another.
    #[test]
    fn chains_are_grouped_by_how_they_cluster_the_rows() {
        let samples = vec![
            vec![0, 0, 1, 1],
            vec![0, 0, 1, 1],
            vec![1, 1, 0, 0],
            vec![2, 2, 0, 0],
            vec![0, 1, 0, 1],
            vec![0, 1, 0, 1],
        ];
        assert_eq!(chains_by_co_clustering(&samples, &[2, 2, 2], 4), Some(vec![vec![0, 1], vec![2]]));
        assert_eq!(chains_by_co_clustering(&samples, &[3, 3], 4).map(|g| g.len()), Some(2));
        assert!(chains_by_co_clustering(&samples, &[2, 2], 4).is_none(), "the sample counts must match");
    }

    /// Rows 0–1 use columns 0 and 1, rows 2–3 column 2 and a little of 1: the first group's
    /// distinctive column is 0 before 1 (1 is used by all rows), and column 2 is not the first
    /// group's at all.
    #[test]
    fn distinctive_columns_are_frequent_in_the_group_and_rarer_elsewhere() {
        let rates = [
            4.0, 2.0, 0.0, //
            4.0, 2.0, 0.0, //
            0.0, 1.0, 5.0, //
            0.0, 1.0, 5.0,
        ];
        let first = distinctive_columns(&[0, 1], &rates, 3, 10);
        let columns: Vec<usize> = first.iter().map(|c| c.0).collect();
        assert_eq!(columns, vec![0, 1]);
        assert!((first[0].1 - 4.0 / 6.0).abs() < 1e-12 && (first[1].1 - 2.0 / 6.0).abs() < 1e-12, "{first:?}");
        let second = distinctive_columns(&[2, 3], &rates, 3, 1);
        assert_eq!(second.iter().map(|c| c.0).collect::<Vec<_>>(), vec![2]);
        assert!(distinctive_columns(&[0], &[0.0; 3], 3, 5).is_empty());
    }
}
