//! Bayesian logistic regression (§4.1 of Jälkö et al. 2017): y_i ~ Bernoulli(σ(wᵀx_i)),
//! w ~ N(0, s² I), with an intercept column in x.

use crate::model::{Model, isotropic_gaussian_log_prior};
use crate::variational::MeanField;

/// σ(z) = 1 / (1 + e^−z), stable on both sides.
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 { 1.0 / (1.0 + (-z).exp()) } else { z.exp() / (1.0 + z.exp()) }
}

/// ln σ(z), stable for large |z|.
fn ln_sigmoid(z: f64) -> f64 {
    if z >= 0.0 { -(-z).exp().ln_1p() } else { z - z.exp().ln_1p() }
}

/// Training data and prior of a logistic regression. `x_nd` is row-major `n × d` and already
/// holds the intercept column.
#[derive(Clone, Debug)]
pub struct LogisticRegression {
    x_nd: Vec<f64>,
    y: Vec<bool>,
    d: usize,
    prior_std: f64,
}

impl LogisticRegression {
    /// `x_nd` (n × d, row-major), labels `y` (n), prior standard deviation of each weight.
    pub fn new(x_nd: Vec<f64>, y: Vec<bool>, prior_std: f64) -> Result<Self, String> {
        let n = y.len();
        if n == 0 || !x_nd.len().is_multiple_of(n) {
            return Err(format!("logistic regression: {} feature values for {n} labels", x_nd.len()));
        }
        if !(prior_std > 0.0 && prior_std.is_finite()) {
            return Err(format!("logistic regression: prior standard deviation must be > 0, got {prior_std}"));
        }
        Ok(Self { d: x_nd.len() / n, x_nd, y, prior_std })
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.x_nd[i * self.d..(i + 1) * self.d]
    }
}

impl Model for LogisticRegression {
    fn dim(&self) -> usize {
        self.d
    }

    fn examples(&self) -> usize {
        self.y.len()
    }

    fn log_prior(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        isotropic_gaussian_log_prior(theta, self.prior_std, grad)
    }

    /// ln p(y_i | w) = ln σ(±wᵀx_i); gradient (y_i − σ(wᵀx_i)) x_i.
    fn log_likelihood(&self, i: usize, theta: &[f64], grad: &mut [f64]) -> f64 {
        let x = self.row(i);
        let z: f64 = x.iter().zip(theta).map(|(a, b)| a * b).sum();
        let y = if self.y[i] { 1.0 } else { 0.0 };
        let residual = y - sigmoid(z);
        for (g, xj) in grad.iter_mut().zip(x) {
            *g = residual * xj;
        }
        if self.y[i] { ln_sigmoid(z) } else { ln_sigmoid(-z) }
    }
}

/// Test-set performance of a fitted approximation: accuracy and mean log predictive probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Classification {
    pub accuracy: f64,
    pub mean_log_likelihood: f64,
}

/// Predicts with the probit (Laplace-style) approximation of the predictive distribution under
/// q(w) = N(m, diag s²): p(y = 1 | x) ≈ σ(mᵀx / √(1 + π xᵀdiag(s²)x / 8)) (MacKay 1992).
pub fn evaluate(q: &MeanField, x_nd: &[f64], y: &[bool]) -> Classification {
    let d = q.dim();
    let (mut correct, mut ll) = (0usize, 0.0);
    for (x, &label) in x_nd.chunks(d).zip(y) {
        let mean: f64 = x.iter().zip(q.mean()).map(|(a, b)| a * b).sum();
        let var: f64 = x.iter().zip(q.log_std()).map(|(a, w)| a * a * (2.0 * w).exp()).sum();
        let z = mean / (1.0 + std::f64::consts::PI * var / 8.0).sqrt();
        correct += usize::from((z >= 0.0) == label);
        ll += if label { ln_sigmoid(z) } else { ln_sigmoid(-z) };
    }
    let n = y.len().max(1) as f64;
    Classification { accuracy: correct as f64 / n, mean_log_likelihood: ll / n }
}
