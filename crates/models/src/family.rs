//! Model families: one value that builds a model of a given shape and prior for Gibbs sampling
//! and its mean-field counterpart for CAVI, and knows which of its factors are topics. The
//! estimator (`inference::fit`) and the experiment kinds work through [`ModelFamily`], so a new
//! model is its files plus one family here.

use crate::{BlockModel, BlockVariational, GammaPrior, MeanFieldFactorization, MeanMatrix, PoissonFactorization};
use crate::{TopicModel, TopicVariational};
use distributions::Streams;

/// A model of fixed shape and prior, for both inference algorithms.
pub trait ModelFamily: Sync {
    /// The model the Gibbs samplers update.
    type Gibbs: PoissonFactorization;
    /// Its mean-field family for CAVI.
    type Variational: MeanFieldFactorization;

    /// A fresh Gibbs model, its factors drawn from the prior with `streams`.
    fn gibbs(&self, streams: Streams) -> Self::Gibbs;
    /// A fresh variational family, its start drawn with `streams`.
    fn variational(&self, streams: Streams) -> Self::Variational;
    /// A topic model's topics (`K × V`, topic-major) in a Gibbs state; `None` for other models.
    fn gibbs_topics(&self, _model: &Self::Gibbs) -> Option<Vec<f64>> {
        None
    }
    /// A topic model's topics (`K × V`, topic-major) among the variational posterior means.
    fn variational_topics(&self, _means: &[MeanMatrix]) -> Option<Vec<f64>> {
        None
    }
    /// Sets the factors of `model` from base parameters: `θ` (rows × components, row-major) and
    /// the model's second factor (`φ` topic-major, or `π`).
    fn set_base_factors(&self, model: &mut Self::Gibbs, theta: &[f64], second: &[f64]) -> Result<(), String>;
    /// Multiplies every rate of `model` by `s` through one factor that rates are linear in (the
    /// topic model's `θ`, the block model's `π`), each value floored at the smallest positive
    /// double, keeping the prior's sparsity pattern.
    fn scale_rates(&self, model: &mut Self::Gibbs, s: f64) -> Result<(), String>;
}

/// `x·s` floored at the smallest positive double, elementwise.
fn scaled(x: &[f64], s: f64) -> Vec<f64> {
    x.iter().map(|v| (v * s).max(f64::MIN_POSITIVE)).collect()
}

/// Poisson matrix factorization: `docs × words` counts, `topics` components.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopicFamily {
    pub docs: usize,
    pub words: usize,
    pub topics: usize,
    pub prior: GammaPrior,
}

impl ModelFamily for TopicFamily {
    type Gibbs = TopicModel;
    type Variational = TopicVariational;

    fn gibbs(&self, streams: Streams) -> TopicModel {
        TopicModel::new(self.docs, self.words, self.topics, self.prior, streams)
    }

    fn variational(&self, streams: Streams) -> TopicVariational {
        TopicVariational::new(self.docs, self.words, self.topics, self.prior, streams)
    }

    fn gibbs_topics(&self, model: &TopicModel) -> Option<Vec<f64>> {
        Some(model.phi_topic_major())
    }

    /// `TopicVariational`'s `"phi"` mean is topic-major (`topics × words`).
    fn variational_topics(&self, means: &[MeanMatrix]) -> Option<Vec<f64>> {
        means.iter().find(|m| m.name == "phi").map(|m| m.values.clone())
    }

    fn set_base_factors(&self, model: &mut TopicModel, theta: &[f64], phi: &[f64]) -> Result<(), String> {
        model.set_factors(theta, phi)
    }

    fn scale_rates(&self, model: &mut TopicModel, s: f64) -> Result<(), String> {
        let (theta, phi) = (scaled(model.theta(), s), model.phi_topic_major());
        model.set_factors(&theta, &phi)
    }
}

/// The overlapping-community block model: `actors × actors` counts, `communities` components.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockFamily {
    pub actors: usize,
    pub communities: usize,
    pub prior: GammaPrior,
}

impl ModelFamily for BlockFamily {
    type Gibbs = BlockModel;
    type Variational = BlockVariational;

    fn gibbs(&self, streams: Streams) -> BlockModel {
        BlockModel::new(self.actors, self.communities, self.prior, streams)
    }

    fn variational(&self, streams: Streams) -> BlockVariational {
        BlockVariational::new(self.actors, self.communities, self.prior, streams)
    }

    fn set_base_factors(&self, model: &mut BlockModel, theta: &[f64], pi: &[f64]) -> Result<(), String> {
        model.set_factors(theta, pi)
    }

    fn scale_rates(&self, model: &mut BlockModel, s: f64) -> Result<(), String> {
        let (theta, pi) = (model.theta().to_vec(), scaled(model.pi(), s));
        model.set_factors(&theta, &pi)
    }
}
