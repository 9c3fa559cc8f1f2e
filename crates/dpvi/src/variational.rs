//! The mean-field Gaussian approximation q(θ) = N(m, diag(e^{2ω})) on unconstrained parameters,
//! reparameterized as θ = m + e^ω ⊙ η with η ~ N(0, I) (Titsias & Lázaro-Gredilla 2014).

/// Variational parameters: means `m` and log standard deviations `ω`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeanField {
    mean: Vec<f64>,
    log_std: Vec<f64>,
}

impl MeanField {
    /// q with the given means and a common log standard deviation.
    pub fn new(mean: Vec<f64>, log_std: f64) -> Self {
        let log_std = vec![log_std; mean.len()];
        Self { mean, log_std }
    }

    /// q with the given means and log standard deviations (equal lengths).
    pub fn with_log_std(mean: Vec<f64>, log_std: Vec<f64>) -> Self {
        assert_eq!(mean.len(), log_std.len(), "one log standard deviation per mean");
        Self { mean, log_std }
    }

    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    pub fn log_std(&self) -> &[f64] {
        &self.log_std
    }

    /// θ = m + e^ω ⊙ η.
    pub fn theta(&self, eta: &[f64]) -> Vec<f64> {
        self.mean.iter().zip(&self.log_std).zip(eta).map(|((m, w), e)| m + w.exp() * e).collect()
    }

    /// The gradient with respect to (m, ω) (length 2d: means first) of a function of θ whose
    /// θ-gradient is `grad_theta`, at θ = m + e^ω ⊙ η: (∇θ, ∇θ ⊙ η ⊙ e^ω).
    pub fn chain_rule(&self, grad_theta: &[f64], eta: &[f64], out: &mut [f64]) {
        let d = self.dim();
        out[..d].copy_from_slice(grad_theta);
        for j in 0..d {
            out[d + j] = grad_theta[j] * eta[j] * self.log_std[j].exp();
        }
    }

    /// The entropy of q up to its constant, Σ ω_j (its ω-gradient is 1).
    pub fn entropy(&self) -> f64 {
        self.log_std.iter().sum::<f64>()
            + 0.5 * self.dim() as f64 * (2.0 * std::f64::consts::PI * std::f64::consts::E).ln()
    }

    /// Adds `step` (length 2d: means first) to the parameters.
    pub(crate) fn ascend(&mut self, step: &[f64]) {
        let d = self.dim();
        for j in 0..d {
            self.mean[j] += step[j];
            self.log_std[j] += step[d + j];
        }
    }
}
