//! Non-private inference: the model's own Gibbs sampler on complete counts, and the naïve method.

use crate::{InferenceError, Sampler};
use distributions::{Poisson, Streams};
use mechanism::Privatized;
use models::PoissonFactorization;
use rand::distr::Distribution;

/// Stream ids of the parts of one sweep.
pub(crate) const IMPUTE: u64 = 0;
pub(crate) const MODEL: u64 = 1;

/// The model's own sampler on counts treated as exact: non-private inference on the true `Y`
/// ([`NonPrivate::new`]) or the naïve method on truncated privatized counts
/// ([`NonPrivate::naive`]).
///
/// Missing entries are imputed each sweep, `y_n ~ Pois(μ_n)` given the current factors: a data
/// augmentation whose stationary distribution is the posterior given the observed entries only
/// (the model never needs to know about the mask).
#[derive(Clone, Debug)]
pub struct NonPrivate<M> {
    pub(crate) model: M,
    pub(crate) y: Vec<u32>,
    /// Indices of missing entries (sorted).
    pub(crate) missing: Vec<usize>,
    rates: Vec<f64>,
}

/// `Ok` if a model of shape `model` fits a `rows × cols` data matrix.
pub(crate) fn check_shape(model: (usize, usize), rows: usize, cols: usize) -> Result<(), InferenceError> {
    if model == (rows, cols) { Ok(()) } else { Err(InferenceError::Shape { data: (rows, cols), model }) }
}

/// A draw `y ~ Pois(μ)` (0 for `μ = 0`), saturating at `u32::MAX`.
pub(crate) fn impute<R: rand::Rng + ?Sized>(mu: f64, rng: &mut R) -> Result<u32, InferenceError> {
    let draw = Poisson::new(mu)?.sample(rng);
    Ok(u32::try_from(draw).unwrap_or(u32::MAX))
}

impl<M: PoissonFactorization> NonPrivate<M> {
    /// Inference on exact counts (row-major, the model's shape).
    pub fn new(model: M, counts: Vec<u32>) -> Result<Self, InferenceError> {
        let (rows, cols) = model.shape();
        if counts.len() != rows * cols {
            return Err(InferenceError::Length { what: "counts", expected: rows * cols, found: counts.len() });
        }
        Ok(Self { model, y: counts, missing: Vec::new(), rates: Vec::new() })
    }

    /// Marks entries as missing (`mask[n] = true`); they are imputed each sweep.
    pub fn with_missing(mut self, mask: &[bool]) -> Result<Self, InferenceError> {
        if mask.len() != self.y.len() {
            return Err(InferenceError::Length { what: "missing mask", expected: self.y.len(), found: mask.len() });
        }
        self.missing = (0..mask.len()).filter(|&n| mask[n] && !self.model.is_excluded(n)).collect();
        self.rates = if self.missing.is_empty() { Vec::new() } else { vec![0.0; mask.len()] };
        Ok(self)
    }

    /// The naïve method (footnote 2 of Schein et al. 2019): negative privatized counts truncated
    /// to 0, then inference as if the data were exact. Missing entries stay missing.
    pub fn naive(model: M, data: &Privatized) -> Result<Self, InferenceError> {
        check_shape(model.shape(), data.rows(), data.cols())?;
        Self::new(model, data.truncated())?.with_missing(data.missing())
    }
}

impl<M: PoissonFactorization> Sampler for NonPrivate<M> {
    type Model = M;

    fn step(&mut self, streams: Streams) -> Result<(), InferenceError> {
        if !self.missing.is_empty() {
            self.model.rates_into(&mut self.rates);
            let mut rng = streams.child(IMPUTE).rng();
            for &n in &self.missing {
                self.y[n] = impute(self.rates[n], &mut rng)?;
            }
        }
        self.model.gibbs_update(&self.y, streams.child(MODEL));
        Ok(())
    }

    fn model(&self) -> &M {
        &self.model
    }

    fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    fn counts(&self) -> &[u32] {
        &self.y
    }
}
