//! What DPVI needs of a model: a differentiable log prior and per-example log likelihoods on an
//! unconstrained parameter vector θ ∈ ℝᵈ.

/// A model with exchangeable examples: ln p(θ, x) = ln p(θ) + Σ_i ln p(x_i | θ).
pub trait Model: Sync {
    /// The length d of θ.
    fn dim(&self) -> usize;
    /// The number of training examples N.
    fn examples(&self) -> usize;
    /// ln p(θ); its gradient is **added** to `grad`.
    fn log_prior(&self, theta: &[f64], grad: &mut [f64]) -> f64;
    /// ln p(x_i | θ); its gradient is **written** to `grad` (length d).
    fn log_likelihood(&self, i: usize, theta: &[f64], grad: &mut [f64]) -> f64;
}

/// ln N(x; 0, s²) summed over `theta`, gradient −θ/s² added to `grad`.
pub(crate) fn isotropic_gaussian_log_prior(theta: &[f64], std: f64, grad: &mut [f64]) -> f64 {
    let var = std * std;
    let mut lp = 0.0;
    for (t, g) in theta.iter().zip(grad.iter_mut()) {
        lp -= 0.5 * t * t / var;
        *g -= t / var;
    }
    lp - theta.len() as f64 * 0.5 * (2.0 * std::f64::consts::PI * var).ln()
}
