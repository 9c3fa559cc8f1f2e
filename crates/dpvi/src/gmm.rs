//! The Gaussian mixture of §4.2 of Jälkö et al. 2017 with the assignments marginalized:
//! p(x | θ) = Σ_k π_k N(x; μ_k, diag(τ_k)), π = softmax(z). Unconstrained θ = (z₁…z_K,
//! μ_{kd}, v_{kd} = ln τ_{kd}); priors z ~ N(0, 1), μ ~ N(0, s_μ²), v ~ N(0, s_v²) (log-normal
//! variances). A mean-field Gaussian on θ is the paper's softmax-Gaussian weights, Gaussian
//! means and log-normal variances.

use crate::model::{Model, isotropic_gaussian_log_prior};
use crate::variational::MeanField;
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// Training points and priors of a K-component mixture in D dimensions.
#[derive(Clone, Debug)]
pub struct GaussianMixture {
    x_nd: Vec<f64>,
    k: usize,
    d: usize,
    mean_prior_std: f64,
    log_var_prior_std: f64,
}

/// Layout of θ: `[z_k (K) | μ_kd (K·D) | v_kd (K·D)]`.
impl GaussianMixture {
    pub fn new(
        x_nd: Vec<f64>,
        d: usize,
        k: usize,
        mean_prior_std: f64,
        log_var_prior_std: f64,
    ) -> Result<Self, String> {
        if d == 0 || k == 0 || x_nd.is_empty() || !x_nd.len().is_multiple_of(d) {
            return Err(format!("mixture: {} values do not form points of dimension {d} (K = {k})", x_nd.len()));
        }
        Ok(Self { x_nd, k, d, mean_prior_std, log_var_prior_std })
    }

    /// ln p(x | θ) at a point (not necessarily a training one), with responsibilities in `r`.
    fn ln_density(&self, x: &[f64], theta: &[f64], r: &mut [f64]) -> f64 {
        let (k, d) = (self.k, self.d);
        let (z, rest) = theta.split_at(k);
        let (mu, v) = rest.split_at(k * d);
        let z_max = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let ln_norm = z_max + z.iter().map(|zk| (zk - z_max).exp()).sum::<f64>().ln();
        let ln_2pi = (2.0 * std::f64::consts::PI).ln();
        for c in 0..k {
            let mut lp = z[c] - ln_norm;
            for j in 0..d {
                let diff = x[j] - mu[c * d + j];
                lp -= 0.5 * (ln_2pi + v[c * d + j] + diff * diff * (-v[c * d + j]).exp());
            }
            r[c] = lp;
        }
        let top = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let total = top + r.iter().map(|l| (l - top).exp()).sum::<f64>().ln();
        for rc in r.iter_mut() {
            *rc = (*rc - total).exp();
        }
        total
    }

    /// Mean log predictive density of `points` under q: ln (1/S Σ_s p(x | θ_s)) with S draws
    /// θ_s ~ q, averaged over the points (the paper's Fig. 4 metric).
    pub fn predictive_log_likelihood<R: Rng + ?Sized>(
        &self,
        q: &MeanField,
        points: &[f64],
        draws: usize,
        rng: &mut R,
    ) -> f64 {
        let mut thetas = Vec::with_capacity(draws);
        for _ in 0..draws {
            let eta: Vec<f64> = (0..q.dim()).map(|_| StandardNormal.sample(rng)).collect();
            thetas.push(q.theta(&eta));
        }
        let mut r = vec![0.0; self.k];
        let mut total = 0.0;
        for x in points.chunks(self.d) {
            let lps: Vec<f64> = thetas.iter().map(|t| self.ln_density(x, t, &mut r)).collect();
            let top = lps.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            total += top + (lps.iter().map(|l| (l - top).exp()).sum::<f64>() / draws as f64).ln();
        }
        total / (points.len() / self.d) as f64
    }
}

impl Model for GaussianMixture {
    fn dim(&self) -> usize {
        self.k * (1 + 2 * self.d)
    }

    fn examples(&self) -> usize {
        self.x_nd.len() / self.d
    }

    fn log_prior(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        let (k, kd) = (self.k, self.k * self.d);
        isotropic_gaussian_log_prior(&theta[..k], 1.0, &mut grad[..k])
            + isotropic_gaussian_log_prior(&theta[k..k + kd], self.mean_prior_std, &mut grad[k..k + kd])
            + isotropic_gaussian_log_prior(&theta[k + kd..], self.log_var_prior_std, &mut grad[k + kd..])
    }

    /// Gradients with responsibilities r_k: ∂/∂z_k = r_k − π_k; ∂/∂μ_kd = r_k (x_d − μ_kd)/τ_kd;
    /// ∂/∂v_kd = r_k ((x_d − μ_kd)²/τ_kd − 1)/2.
    fn log_likelihood(&self, i: usize, theta: &[f64], grad: &mut [f64]) -> f64 {
        let (k, d) = (self.k, self.d);
        let x = &self.x_nd[i * d..(i + 1) * d];
        let mut r = vec![0.0; k];
        let ll = self.ln_density(x, theta, &mut r);
        let z = &theta[..k];
        let z_max = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let norm: f64 = z.iter().map(|zk| (zk - z_max).exp()).sum();
        let (gz, rest) = grad.split_at_mut(k);
        let (gmu, gv) = rest.split_at_mut(k * d);
        for c in 0..k {
            gz[c] = r[c] - (z[c] - z_max).exp() / norm;
            for (j, xj) in x.iter().enumerate() {
                let idx = c * d + j;
                let diff = xj - theta[k + idx];
                let precision = (-theta[k + k * d + idx]).exp();
                gmu[idx] = r[c] * diff * precision;
                gv[idx] = 0.5 * r[c] * (diff * diff * precision - 1.0);
            }
        }
        ll
    }
}
