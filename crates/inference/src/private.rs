//! The locally private layer: any Poisson factorization model, plus the step that resamples the
//! true counts from the privatized ones.

use crate::PrivateStep;
use crate::entries::{Entries, Entry};
use crate::non_private::{IMPUTE, MODEL, check_shape, impute};
use crate::private_step::{NoiseAux, collapsed_count, lambda_posterior_rate, resample_entry};
use crate::{InferenceError, Sampler};
use distributions::{Exponential, Streams};
use mechanism::Privatized;
use models::PoissonFactorization;
use models::chunks::chunk_rows;
use rand::distr::Distribution;
use rayon::prelude::*;

/// Stream id of the warm-start sweep.
const WARM_START: u64 = u64::MAX;

/// Locally private Gibbs sampling (Schein et al. 2019, §4): the posterior `p(Z, Y | Ỹ)` of a
/// Poisson factorization model `M` given only privatized counts `Ỹ`.
///
/// Each sweep: compute `μ_n`; for every entry resample `(m_n, ỹ⁺_n, g_n, y_n, λ_n)` given
/// `(ỹ_n, μ_n, λ_n)` ([`crate::resample_entry`], eqs. 12–16); then run the model's own non-private
/// sweep on the resampled `Y`. The model is unchanged — privacy is this one extra step.
///
/// Only a [`Privatized`] matrix is accepted, so raw counts cannot be passed by mistake. Scalar,
/// per-row and per-entry `α` are supported; `α = 0` entries are exact; missing entries (and the
/// entries a model excludes) are imputed from `Pois(μ_n)`.
#[derive(Clone, Debug)]
pub struct LocallyPrivate<M> {
    pub(crate) model: M,
    pub(crate) released: Vec<i32>,
    pub(crate) entries: Entries,
    pub(crate) y: Vec<u32>,
    pub(crate) aux: Vec<NoiseAux>,
    rates: Vec<f64>,
    pub(crate) step: PrivateStep,
}

impl<M: PoissonFactorization> LocallyPrivate<M> {
    /// Wraps `model` around privatized data. Start of the chain: the noise auxiliaries from their
    /// prior, `λ_nl ~ Exp(mean α_n/(1−α_n))`, and the model after one non-private sweep on the
    /// truncated counts `max(ỹ, 0)` (a warm start: from a sparse prior draw, `μ ≈ 0` makes every
    /// resampled `y_n` 0, which keeps `μ ≈ 0` — a trap the chain leaves only slowly).
    pub fn new(model: M, data: &Privatized, streams: Streams) -> Result<Self, InferenceError> {
        Self::with_lambda_rate(model, data, streams, lambda_posterior_rate)
    }

    /// [`LocallyPrivate::new`] drawing the true counts with `step`. The collapsed step never
    /// allocates the noise auxiliaries (32 bytes an entry); its model starts where the augmented
    /// sampler's does (the warm start has its own stream).
    pub fn with_private_step(
        model: M,
        data: &Privatized,
        streams: Streams,
        step: PrivateStep,
    ) -> Result<Self, InferenceError> {
        Self::build(model, data, streams, lambda_posterior_rate, step)
    }

    /// As [`LocallyPrivate::new`] with another `λ | g` rate: only for the Geweke test that shows
    /// a wrong rate is detected.
    pub(crate) fn with_lambda_rate(
        model: M,
        data: &Privatized,
        streams: Streams,
        lambda_rate: fn(f64) -> f64,
    ) -> Result<Self, InferenceError> {
        Self::build(model, data, streams, lambda_rate, PrivateStep::Augmented)
    }

    fn build(
        model: M,
        data: &Privatized,
        streams: Streams,
        lambda_rate: fn(f64) -> f64,
        step: PrivateStep,
    ) -> Result<Self, InferenceError> {
        check_shape(model.shape(), data.rows(), data.cols())?;
        let n_entries = data.values().len();
        let entries = Entries::classify(data, |n| model.is_excluded(n), lambda_rate)?;
        let mut aux = Vec::new();
        if step == PrivateStep::Augmented {
            let mut rng = streams.rng();
            aux = vec![NoiseAux { lambda: [0.0; 2], g: [0; 2] }; n_entries];
            for (entry, a) in entries.iter().zip(&mut aux) {
                if let Entry::Noisy { alpha, .. } = entry {
                    a.lambda = lambda_prior_draw(alpha, &mut rng)?;
                }
            }
        }
        let y = data.truncated();
        let mut model = model;
        model.gibbs_update(&y, streams.child(WARM_START));
        Ok(Self { model, released: data.values().to_vec(), entries, y, aux, rates: vec![0.0; n_entries], step })
    }

    /// The current noise auxiliaries, one per entry (zeros for exact and missing entries); empty
    /// with the collapsed step.
    pub fn noise_aux(&self) -> &[NoiseAux] {
        &self.aux
    }

    /// Resamples every entry given the current rates (the privacy step of one sweep). Chunk `c`
    /// of rows draws from `streams.child(c)`.
    pub(crate) fn resample_counts(&mut self, streams: Streams) -> Result<(), InferenceError> {
        self.model.rates_into(&mut self.rates);
        let cols = self.model.shape().1;
        let per_chunk = chunk_rows(self.model.shape().0) * cols;
        let table = self.entries.table();
        let chunks = self
            .y
            .par_chunks_mut(per_chunk)
            .zip(self.released.par_chunks(per_chunk).zip(self.entries.classes().par_chunks(per_chunk)))
            .zip(self.rates.par_chunks(per_chunk));
        if self.step == PrivateStep::Collapsed {
            chunks.enumerate().try_for_each(|(chunk, ((y, (released, classes)), rates))| {
                let mut rng = streams.child(chunk as u64).rng();
                resample_chunk(table, y, None, released, classes, rates, &mut rng)
            })
        } else {
            chunks.zip(self.aux.par_chunks_mut(per_chunk)).enumerate().try_for_each(
                |(chunk, (((y, (released, classes)), rates), aux))| {
                    let mut rng = streams.child(chunk as u64).rng();
                    resample_chunk(table, y, Some(aux), released, classes, rates, &mut rng)
                },
            )
        }
    }
}

/// The private step over one chunk of entries: missing entries imputed, exact ones copied, noisy
/// ones drawn by the augmented step when `aux` is given, else by the collapsed step.
fn resample_chunk<R: rand::Rng + ?Sized>(
    table: &[Entry],
    y: &mut [u32],
    mut aux: Option<&mut [NoiseAux]>,
    released: &[i32],
    classes: &[u32],
    rates: &[f64],
    rng: &mut R,
) -> Result<(), InferenceError> {
    for (n, y_n) in y.iter_mut().enumerate() {
        let value = i64::from(released[n]);
        *y_n = match (table[classes[n] as usize], aux.as_deref_mut()) {
            (Entry::Missing, _) => impute(rates[n], rng)?,
            (Entry::Exact, _) => released[n].unsigned_abs(),
            (Entry::Noisy { lambda_rate, .. }, Some(aux)) => {
                let y = resample_entry(value, rates[n], lambda_rate, &mut aux[n], rng)?;
                u32::try_from(y).unwrap_or(u32::MAX)
            }
            (Entry::Noisy { alpha, .. }, None) => {
                u32::try_from(collapsed_count(value, rates[n], alpha, rng)?).unwrap_or(u32::MAX)
            }
        };
    }
    Ok(())
}

/// `λ₁, λ₂ ~ Exp(mean α/(1−α))`, i.e. **rate** `(1−α)/α` (Theorem 3.1, eq. 10).
pub(crate) fn lambda_prior_draw<R: rand::Rng + ?Sized>(alpha: f64, rng: &mut R) -> Result<[f64; 2], InferenceError> {
    let prior = Exponential::new((1.0 - alpha) / alpha)?;
    Ok([prior.sample(rng), prior.sample(rng)])
}

impl<M: PoissonFactorization> Sampler for LocallyPrivate<M> {
    type Model = M;

    fn step(&mut self, streams: Streams) -> Result<(), InferenceError> {
        self.resample_counts(streams.child(IMPUTE))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use mechanism::Noise;
    use models::{GammaPrior, TopicModel};

    /// The collapsed step holds no noise auxiliaries and starts its model where the augmented
    /// sampler does.
    #[test]
    fn the_collapsed_step_holds_no_auxiliaries() {
        let model = TopicModel::new(3, 4, 2, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(1));
        let data =
            Privatized::from_released(3, 4, vec![2, -1, 0, 5, 1, 1, 0, -3, 4, 0, 2, 1], Noise::Scalar(0.4)).unwrap();
        let augmented = LocallyPrivate::new(model.clone(), &data, Streams::new(2)).unwrap();
        let collapsed =
            LocallyPrivate::with_private_step(model.clone(), &data, Streams::new(2), PrivateStep::Collapsed).unwrap();
        assert_eq!(augmented.noise_aux().len(), 12);
        assert!(collapsed.noise_aux().is_empty());
        let (mut a, mut b) = (vec![0.0; 12], vec![0.0; 12]);
        augmented.model().rates_into(&mut a);
        collapsed.model().rates_into(&mut b);
        assert_eq!(a, b, "the same warm start");
        let mut collapsed = collapsed;
        for t in 0..5 {
            collapsed.step(Streams::new(3).child(t)).unwrap();
        }
    }
}
