//! Gaussians in natural parameters: N(μ, Σ) ∝ exp(hᵀθ − ½ θᵀΛθ) with Λ = Σ⁻¹, h = Σ⁻¹μ. The
//! natural-parameter vector used for norms (clipping, sensitivity) is (h, −½ vec Λ), so
//! ‖·‖² = ‖h‖² + ¼‖Λ‖²_F. A factor over the J cluster means is a slice of J of them.

use crate::linalg::{inverse_spd, mat_vec};

/// One d-dimensional Gaussian (or a factor: Λ need not be positive definite).
#[derive(Clone, Debug, PartialEq)]
pub struct Natural {
    pub h: Vec<f64>,
    /// Λ, row-major `d × d`.
    pub lambda: Vec<f64>,
}

impl Natural {
    /// The zero factor (the constant 1).
    pub fn zero(d: usize) -> Self {
        Self { h: vec![0.0; d], lambda: vec![0.0; d * d] }
    }

    pub fn dim(&self) -> usize {
        self.h.len()
    }

    /// From a mean and a positive-definite covariance.
    pub fn from_moments(mean: &[f64], cov: &[f64]) -> Option<Self> {
        let d = mean.len();
        let lambda = inverse_spd(cov, d)?;
        Some(Self { h: mat_vec(&lambda, mean, d), lambda })
    }

    /// (mean, covariance); `None` if Λ is not positive definite.
    pub fn moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let d = self.dim();
        let cov = inverse_spd(&self.lambda, d)?;
        Some((mat_vec(&cov, &self.h, d), cov))
    }

    /// a·self + b·other (natural parameters combine linearly: products and powers of factors).
    pub fn combine(&self, a: f64, other: &Natural, b: f64) -> Natural {
        Natural {
            h: self.h.iter().zip(&other.h).map(|(x, y)| a * x + b * y).collect(),
            lambda: self.lambda.iter().zip(&other.lambda).map(|(x, y)| a * x + b * y).collect(),
        }
    }

    fn squared_norm(&self) -> f64 {
        self.h.iter().map(|x| x * x).sum::<f64>() + 0.25 * self.lambda.iter().map(|x| x * x).sum::<f64>()
    }
}

/// ‖(h, −½ vec Λ)‖₂ of a factor over all its components.
pub fn norm(factor: &[Natural]) -> f64 {
    factor.iter().map(Natural::squared_norm).sum::<f64>().sqrt()
}

/// Scales `factor` so that its norm is at most `c` (unchanged if already within).
pub fn clip(factor: &mut [Natural], c: f64) {
    let n = norm(factor);
    if n > c {
        let s = c / n;
        for f in factor.iter_mut() {
            f.h.iter_mut().chain(f.lambda.iter_mut()).for_each(|x| *x *= s);
        }
    }
}

/// a·x + b·y component-wise over the J components of two factors.
pub fn combine(x: &[Natural], a: f64, y: &[Natural], b: f64) -> Vec<Natural> {
    x.iter().zip(y).map(|(p, q)| p.combine(a, q, b)).collect()
}
