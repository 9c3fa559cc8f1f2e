//! DP-EM (Park, Foulds, Chaudhuri & Welling 2017) for the mixture-of-Gaussians means model: EM
//! whose expected sufficient statistics (S_j = Σ_n r_nj x_n, N_j = Σ_n r_nj) are released with
//! Gaussian noise at every iteration. Points are first clipped to norm B (data-independent), so
//! one point moves the concatenated statistics by at most √(B² + 1) (Σ_j r_nj = 1); T releases
//! of the Gaussian mechanism with that sensitivity and noise multiplier σ compose in RDP (q = 1).
//! The output, to compare with posteriors, is the conjugate posterior given the noisy
//! statistics: μ_j ~ N((m + S̃_j/s²)/(1 + Ñ_j/s²), I/(1 + Ñ_j/s²)) with Ñ_j floored at 0.

use crate::mog::MixtureMeans;
use distributions::StreamRng;
use rand_distr::{Distribution, StandardNormal};

/// Runs `iterations` DP-EM iterations from the means `start`; `noise_multiplier = None` is plain
/// EM. Returns (mean, covariance) per cluster.
pub fn dp_em(
    model: &MixtureMeans,
    start: &[Vec<f64>],
    iterations: usize,
    clip_norm: f64,
    noise_multiplier: Option<f64>,
    rng: &mut StreamRng,
) -> Vec<(Vec<f64>, Vec<f64>)> {
    let (d, j, s2) = (model.d, model.clusters, model.noise_sd * model.noise_sd);
    let sensitivity = (clip_norm * clip_norm + 1.0).sqrt();
    let points: Vec<Vec<f64>> = (0..model.points())
        .map(|n| {
            let x = model.point(n);
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let s = if norm > clip_norm { clip_norm / norm } else { 1.0 };
            x.iter().map(|v| v * s).collect()
        })
        .collect();
    let mut mu = start.to_vec();
    let mut posterior = Vec::new();
    for _ in 0..iterations {
        let mut stats = vec![vec![0.0; d]; j];
        let mut counts = vec![0.0; j];
        for x in &points {
            let ln_p: Vec<f64> =
                mu.iter().map(|m| -0.5 * x.iter().zip(m).map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / s2).collect();
            let top = ln_p.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = ln_p.iter().map(|l| (l - top).exp()).collect();
            let total: f64 = w.iter().sum();
            for c in 0..j {
                let r = w[c] / total;
                counts[c] += r;
                stats[c].iter_mut().zip(x).for_each(|(a, b)| *a += r * b);
            }
        }
        if let Some(sigma) = noise_multiplier {
            let mut noise =
                || sigma * sensitivity * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng);
            for c in 0..j {
                counts[c] += noise();
                stats[c].iter_mut().for_each(|s| *s += noise());
            }
        }
        posterior = (0..j)
            .map(|c| {
                let precision = 1.0 + counts[c].max(0.0) / s2;
                let mean: Vec<f64> = (0..d).map(|i| (model.prior_mean[i] + stats[c][i] / s2) / precision).collect();
                let mut cov = vec![0.0; d * d];
                (0..d).for_each(|i| cov[i * d + i] = 1.0 / precision);
                (mean, cov)
            })
            .collect();
        mu = posterior.iter().map(|(m, _)| m.clone()).collect();
    }
    posterior
}
