//! Table 1's metrics: the Frobenius (L2) distance between the reference posterior's parameters
//! and an estimate's, means and covariances each reshaped into one long vector, after matching
//! the estimate's clusters to the reference's (Hungarian on the squared distance between means).

/// (F-norm on the means, F-norm on the covariances, their average).
pub fn f_norms(reference: &[(Vec<f64>, Vec<f64>)], estimate: &[(Vec<f64>, Vec<f64>)]) -> (f64, f64, f64) {
    let k = reference.len();
    let sq = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
    let dist: Vec<f64> = (0..k * k).map(|i| sq(&reference[i / k].0, &estimate[i % k].0)).collect();
    let matched = eval::min_cost_matching(&dist, k);
    let mean: f64 = (0..k).map(|c| sq(&reference[c].0, &estimate[matched[c]].0)).sum::<f64>().sqrt();
    let cov: f64 = (0..k).map(|c| sq(&reference[c].1, &estimate[matched[c]].1)).sum::<f64>().sqrt();
    (mean, cov, 0.5 * (mean + cov))
}
