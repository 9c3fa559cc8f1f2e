//! The mixture-of-Gaussians clustering model of §6.1 of Vinaroz & Park (after Li et al. 2015):
//! x_n | h_n = j ~ N(μ_j, s² I), p(h_n = j) = 1/J, μ_j ~ N(m, I); s, m and the weights known.
//! The approximation is q(μ) = Π_j N(μ_j) (the assignments are summed out in each tilted
//! distribution), so one likelihood term's projection has a closed form.

use crate::gaussian::Natural;
use crate::linalg::{ln_det_spd, mat_vec};
use distributions::StreamRng;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

/// Data and known parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct MixtureMeans {
    /// Points, row-major `n × d`.
    pub x_nd: Vec<f64>,
    pub d: usize,
    pub clusters: usize,
    /// Component standard deviation s.
    pub noise_sd: f64,
    /// Prior mean m of every μ_j (prior covariance I).
    pub prior_mean: Vec<f64>,
}

/// A synthetic data set and the means that generated it.
#[derive(Clone, Debug, PartialEq)]
pub struct Synthetic {
    pub model: MixtureMeans,
    pub true_means: Vec<Vec<f64>>,
    pub labels: Vec<usize>,
}

impl MixtureMeans {
    pub fn points(&self) -> usize {
        self.x_nd.len() / self.d
    }

    pub fn point(&self, n: usize) -> &[f64] {
        &self.x_nd[n * self.d..(n + 1) * self.d]
    }

    /// Draws the paper's data: μ_j ~ N(m, I), uniform labels, x ~ N(μ_h, s² I).
    pub fn generate(
        points: usize,
        d: usize,
        clusters: usize,
        noise_sd: f64,
        prior_mean: Vec<f64>,
        rng: &mut StreamRng,
    ) -> Synthetic {
        let normal = |rng: &mut StreamRng| -> f64 { StandardNormal.sample(rng) };
        let true_means: Vec<Vec<f64>> =
            (0..clusters).map(|_| prior_mean.iter().map(|m| m + normal(rng)).collect()).collect();
        let mut x_nd = Vec::with_capacity(points * d);
        let mut labels = Vec::with_capacity(points);
        for _ in 0..points {
            let h = ((rng.random::<f64>() * clusters as f64) as usize).min(clusters - 1);
            labels.push(h);
            x_nd.extend(true_means[h].iter().map(|m| m + noise_sd * normal(rng)));
        }
        Synthetic { model: MixtureMeans { x_nd, d, clusters, noise_sd, prior_mean }, true_means, labels }
    }

    /// The prior N(m, I) of each mean, in natural parameters.
    pub fn prior(&self) -> Vec<Natural> {
        let d = self.d;
        let mut eye = vec![0.0; d * d];
        (0..d).for_each(|i| eye[i * d + i] = 1.0);
        vec![Natural { h: self.prior_mean.clone(), lambda: eye }; self.clusters]
    }

    /// proj[p̃_n]: the product of Gaussians matching the marginal moments of the tilted
    /// distribution p̃_n(μ) ∝ q₋(μ) Σ_j (1/J) N(x_n; μ_j, s² I), where `cavity` = q₋ must be
    /// positive definite. With assignment j the j-th mean is updated conjugately
    /// (Λ' = Λ_j + I/s², h' = h_j + x/s²) with evidence Z_j = N(x_n; m_j, V_j + s² I); the
    /// marginal of μ_k is w_k N(m'_k, V'_k) + (1 − w_k) N(m_k, V_k), w ∝ Z, matched in mean and
    /// covariance. `None` if a cavity component is not positive definite.
    pub fn project_tilted(&self, cavity: &[Natural], n: usize) -> Option<Vec<Natural>> {
        let (d, s2) = (self.d, self.noise_sd * self.noise_sd);
        let x = self.point(n);
        let mut ln_z = Vec::with_capacity(self.clusters);
        let mut parts = Vec::with_capacity(self.clusters);
        for c in cavity {
            let (m, v) = c.moments()?;
            let mut vs = v.clone();
            (0..d).for_each(|i| vs[i * d + i] += s2);
            let diff: Vec<f64> = x.iter().zip(&m).map(|(a, b)| a - b).collect();
            let vs_inv = crate::linalg::inverse_spd(&vs, d)?;
            let quad: f64 = diff.iter().zip(mat_vec(&vs_inv, &diff, d)).map(|(a, b)| a * b).sum();
            ln_z.push(-0.5 * (quad + ln_det_spd(&vs, d)?));
            let mut lambda_post = c.lambda.clone();
            (0..d).for_each(|i| lambda_post[i * d + i] += 1.0 / s2);
            let h_post: Vec<f64> = c.h.iter().zip(x).map(|(h, xi)| h + xi / s2).collect();
            let (m_post, v_post) = Natural { h: h_post, lambda: lambda_post }.moments()?;
            parts.push((m, v, m_post, v_post));
        }
        let top = ln_z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = ln_z.iter().map(|l| (l - top).exp()).sum();
        let mut out = Vec::with_capacity(self.clusters);
        for ((m, v, mp, vp), lz) in parts.into_iter().zip(&ln_z) {
            let w = (lz - top).exp() / total;
            let mean: Vec<f64> = m.iter().zip(&mp).map(|(a, b)| (1.0 - w) * a + w * b).collect();
            let cov: Vec<f64> = (0..d * d)
                .map(|idx| {
                    let (i, j) = (idx / d, idx % d);
                    (1.0 - w) * (v[idx] + m[i] * m[j]) + w * (vp[idx] + mp[i] * mp[j]) - mean[i] * mean[j]
                })
                .collect();
            out.push(Natural::from_moments(&mean, &cov)?);
        }
        Some(out)
    }

    /// A Gibbs sampler of the exact posterior p(μ, h | x) (conjugate: h_n | μ categorical,
    /// μ_j | h Gaussian with precision (1 + n_j/s²) I), started at `start`; returns the mean and
    /// covariance of each μ_j over `kept` sweeps after `burn_in` (the ground truth of Table 1:
    /// the paper fits a Gaussian to NUTS samples, a long Gibbs run is the conjugate-model
    /// equivalent).
    pub fn gibbs_reference(
        &self,
        start: &[Vec<f64>],
        burn_in: usize,
        kept: usize,
        rng: &mut StreamRng,
    ) -> Vec<(Vec<f64>, Vec<f64>)> {
        let (d, j, s2) = (self.d, self.clusters, self.noise_sd * self.noise_sd);
        let mut mu = start.to_vec();
        let mut sums = vec![vec![0.0; d]; j];
        let mut outer = vec![vec![0.0; d * d]; j];
        let mut ln_p = vec![0.0; j];
        for sweep in 0..burn_in + kept {
            let mut n_j = vec![0.0; j];
            let mut sx = vec![vec![0.0; d]; j];
            for n in 0..self.points() {
                let x = self.point(n);
                for (c, lp) in ln_p.iter_mut().enumerate() {
                    *lp = -0.5 * x.iter().zip(&mu[c]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / s2;
                }
                let top = ln_p.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = ln_p.iter().map(|l| (l - top).exp()).collect();
                let mut u = rng.random::<f64>() * weights.iter().sum::<f64>();
                let mut h = j - 1;
                for (c, w) in weights.iter().enumerate() {
                    if u < *w {
                        h = c;
                        break;
                    }
                    u -= w;
                }
                n_j[h] += 1.0;
                sx[h].iter_mut().zip(x).for_each(|(a, b)| *a += b);
            }
            for c in 0..j {
                let precision = 1.0 + n_j[c] / s2;
                for i in 0..d {
                    let mean = (self.prior_mean[i] + sx[c][i] / s2) / precision;
                    let z: f64 = StandardNormal.sample(rng);
                    mu[c][i] = mean + z / precision.sqrt();
                }
            }
            if sweep >= burn_in {
                for c in 0..j {
                    sums[c].iter_mut().zip(&mu[c]).for_each(|(a, b)| *a += b);
                    for idx in 0..d * d {
                        outer[c][idx] += mu[c][idx / d] * mu[c][idx % d];
                    }
                }
            }
        }
        (0..j)
            .map(|c| {
                let mean: Vec<f64> = sums[c].iter().map(|s| s / kept as f64).collect();
                let cov = (0..d * d).map(|idx| outer[c][idx] / kept as f64 - mean[idx / d] * mean[idx % d]).collect();
                (mean, cov)
            })
            .collect()
    }
}
