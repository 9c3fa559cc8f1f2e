//! Model families, and the registry of them. A family is one value that builds a model of a
//! given shape and prior for Gibbs sampling and its mean-field counterpart for CAVI, sets its
//! factors from base parameters, and knows which of its factors are topics. [`ModelKind`] names
//! the families (as manifests and base files spell them) with the layout of their factors, and
//! [`with_family`] runs generic code with the family of a kind — the one place a kind is matched.
//! The estimator (`inference::fit`) and the experiment kinds work through [`ModelFamily`], so a
//! new model is its own files plus its family, its `ModelKind` variant and one arm here.

use crate::error::ModelError;
use crate::hmc::HmcSettings;
use crate::{BlockModel, BlockVariational, GammaPrior, MeanFieldFactorization, MeanMatrix, PoissonFactorization};
use crate::{Likelihood, ScalePrior, TensorModel, TensorVariational, TopicModel, TopicVariational};
use distributions::Streams;
use serde::{Deserialize, Serialize};

/// The registered model families, as manifests (`[model] kind`) and base files (`model`) name them.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Poisson matrix factorization (`rows × cols`, `components` topics): [`TopicFamily`].
    Topic,
    /// Overlapping-community block model (`rows × rows`, `components` communities): [`BlockFamily`].
    Block,
    /// Its symmetric form for undirected networks: one count per unordered pair, `π` symmetric
    /// ([`BlockModel::undirected`]); Gibbs methods only.
    Undirected,
    /// Poisson CP factorization of three-way counts (`rows × cols × times`, laid out as the grid
    /// `rows × cols·times`, column `j·T + t`): [`TensorFamily`]. The Poisson likelihood only.
    Tensor,
}

/// Which cells of the count matrix a model describes; the rest are outside it (rate 0, count
/// ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelledCells {
    /// Every cell (the topic model).
    All,
    /// Every cell but the diagonal (a directed network without self-loops).
    OffDiagonal,
    /// The cells `(i, j)` with `i < j` (an undirected network, each pair once).
    Pairs,
}

impl ModelledCells {
    /// Whether cell `n` of a row-major matrix `cols` wide is outside the model.
    pub fn excludes(self, n: usize, cols: usize) -> bool {
        // Every cell of every sweep asks this: the division only where the answer needs it.
        match self {
            Self::All => false,
            Self::OffDiagonal => n / cols == n % cols,
            Self::Pairs => n / cols >= n % cols,
        }
    }

    /// The columns of row `row` inside the model, as up to two ranges (the complement of
    /// [`Self::excludes`] on that row): for loops that visit a row's cells without asking of each.
    pub fn row_runs(self, row: usize, cols: usize) -> [std::ops::Range<usize>; 2] {
        match self {
            Self::All => [0..cols, 0..0],
            Self::OffDiagonal => [0..row.min(cols), (row + 1).min(cols)..cols],
            Self::Pairs => [(row + 1).min(cols)..cols, 0..0],
        }
    }
}

/// A dimension of a model: the count matrix's rows or columns, a tensor's third mode (times), or
/// the number of components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Rows,
    Cols,
    Times,
    Components,
}

/// One named factor matrix of a model, with the dimensions of its rows and columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactorLayout {
    /// As written in base files and the paper, e.g. `"theta"`.
    pub name: &'static str,
    pub rows: Axis,
    pub cols: Axis,
}

const THETA: FactorLayout = FactorLayout { name: "theta", rows: Axis::Rows, cols: Axis::Components };

impl ModelKind {
    /// Every registered kind.
    pub const ALL: [ModelKind; 4] = [ModelKind::Topic, ModelKind::Block, ModelKind::Undirected, ModelKind::Tensor];

    /// The name manifests and base files use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Topic => "topic",
            Self::Block => "block",
            Self::Undirected => "undirected",
            Self::Tensor => "tensor",
        }
    }

    /// The factors that determine the rates, in base-file order: `θ` (rows × components) and
    /// `φ` (components × columns, topic-major; eq. 1) or `π` (components × components; eq. 2);
    /// the tensor's `θ`, `φ` (columns × components) and `ψ` (times × components).
    pub fn factors(self) -> &'static [FactorLayout] {
        match self {
            Self::Topic => &[THETA, FactorLayout { name: "phi", rows: Axis::Components, cols: Axis::Cols }],
            Self::Block | Self::Undirected => {
                &[THETA, FactorLayout { name: "pi", rows: Axis::Components, cols: Axis::Components }]
            }
            Self::Tensor => &[
                THETA,
                FactorLayout { name: "phi", rows: Axis::Cols, cols: Axis::Components },
                FactorLayout { name: "psi", rows: Axis::Times, cols: Axis::Components },
            ],
        }
    }

    /// Whether the counts have a third mode (times): the grid's columns are `(column, time)`
    /// pairs, column `j·T + t`.
    pub fn has_times(self) -> bool {
        matches!(self, Self::Tensor)
    }

    /// Whether the count matrix is square with the same labels on both axes (a network).
    pub fn square(self) -> bool {
        matches!(self, Self::Block | Self::Undirected)
    }

    /// The cells the model describes ([`PoissonFactorization::is_excluded`] is true exactly at
    /// the others): all (topic), all but the diagonal (block), the upper triangle (undirected).
    pub fn modelled_cells(self) -> ModelledCells {
        match self {
            Self::Topic | Self::Tensor => ModelledCells::All,
            Self::Block => ModelledCells::OffDiagonal,
            Self::Undirected => ModelledCells::Pairs,
        }
    }

    /// Whether the model has a mean-field family for CAVI (the undirected block model has none).
    pub fn has_cavi(self) -> bool {
        !matches!(self, Self::Undirected)
    }

    /// Whether the model has the Hamiltonian move of its factors ([`BlockModel::with_hmc`]: the
    /// directed block model only).
    pub fn has_hamiltonian_move(self) -> bool {
        matches!(self, Self::Block)
    }

    /// Whether the model takes an overdispersed likelihood (negative binomial, contaminated); the
    /// tensor is Poisson only.
    pub fn has_overdispersion(self) -> bool {
        !matches!(self, Self::Tensor)
    }
}

/// The shape and prior of a model to build: counts `rows × cols` (`rows × cols × times` for a
/// tensor, on the grid `rows × cols·times`), `components` components.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FamilyShape {
    pub rows: usize,
    pub cols: usize,
    /// A tensor's third mode; 1 for the matrix models.
    pub times: usize,
    pub components: usize,
    pub prior: GammaPrior,
    /// A hierarchical prior's rates (`None`: flat).
    pub scale: Option<ScalePrior>,
    /// The likelihood of a count given its rate (the negative binomial: Gibbs only).
    pub likelihood: Likelihood,
    /// The directed block model's Hamiltonian move of its factors after each Gibbs sweep
    /// ([`BlockModel::with_hmc`]); `None`: Gibbs only. Other models ignore it (callers refuse it
    /// for them first).
    pub hmc: Option<HmcSettings>,
}

/// Code to run generically over a model family (see [`with_family`]).
pub trait FamilyVisitor {
    type Output;
    fn visit<F: ModelFamily>(self, family: &F) -> Self::Output;
}

/// Runs `visitor` with the family of `kind` at `shape` (a square kind uses `shape.rows` for both
/// axes).
pub fn with_family<V: FamilyVisitor>(kind: ModelKind, shape: FamilyShape, visitor: V) -> V::Output {
    let FamilyShape { rows, cols, times, components, prior, scale, likelihood, hmc } = shape;
    match kind {
        ModelKind::Topic => {
            visitor.visit(&TopicFamily { docs: rows, words: cols, topics: components, prior, scale, likelihood })
        }
        ModelKind::Block | ModelKind::Undirected => {
            let undirected = kind == ModelKind::Undirected;
            let hmc = hmc.filter(|_| !undirected);
            visitor.visit(&BlockFamily {
                actors: rows,
                communities: components,
                prior,
                scale,
                likelihood,
                undirected,
                hmc,
            })
        }
        ModelKind::Tensor => visitor.visit(&TensorFamily { rows, cols, times, components, prior, scale }),
    }
}

/// The two factors of `factors`, or the error naming how many the model needs.
fn two(factors: &[Vec<f64>]) -> Result<(&[f64], &[f64]), ModelError> {
    match factors {
        [a, b] => Ok((a, b)),
        _ => Err(ModelError::FactorCount { expected: 2, got: factors.len() }),
    }
}

/// A model of fixed shape and prior, for both inference algorithms.
pub trait ModelFamily: Sync {
    /// The model the Gibbs samplers update.
    type Gibbs: PoissonFactorization + 'static;
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
    /// Sets the factors of `model` from base parameters: one row-major matrix per entry of
    /// `self.kind().factors()`, in that order.
    fn set_base_factors(&self, model: &mut Self::Gibbs, factors: &[Vec<f64>]) -> Result<(), ModelError>;
    /// The factors of `model` as base parameters (the inverse of [`Self::set_base_factors`]): one
    /// matrix per entry of `self.kind().factors()`, in that order and layout.
    fn base_factors(&self, model: &Self::Gibbs) -> Vec<Vec<f64>>;
    /// The kind this family belongs to.
    fn kind(&self) -> ModelKind;
    /// The number of components (topics, communities).
    fn components(&self) -> usize {
        self.axis(Axis::Components)
    }
    /// The size of `axis` (for a square model the columns are the rows; the matrix models have one
    /// time).
    fn axis(&self, axis: Axis) -> usize;
    /// Multiplies every rate of `model` by `s` through one factor that rates are linear in (the
    /// topic model's `θ`, the block model's `π`), each value floored at the smallest positive
    /// double, keeping the prior's sparsity pattern.
    fn scale_rates(&self, model: &mut Self::Gibbs, s: f64) -> Result<(), ModelError>;
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
    /// A hierarchical prior ([`TopicModel::with_hierarchy`], [`TopicVariational::with_hierarchy`]).
    pub scale: Option<ScalePrior>,
    /// The likelihood of the Gibbs model ([`TopicModel::with_likelihood`]); CAVI ignores it
    /// (callers refuse the negative binomial with CAVI).
    pub likelihood: Likelihood,
}

impl ModelFamily for TopicFamily {
    type Gibbs = TopicModel;
    type Variational = TopicVariational;

    fn gibbs(&self, streams: Streams) -> TopicModel {
        let model = TopicModel::new(self.docs, self.words, self.topics, self.prior, streams);
        let model = match self.scale {
            Some(scale) => model.with_hierarchy(scale, streams),
            None => model,
        };
        match self.likelihood {
            Likelihood::Poisson => model,
            nb => model.with_likelihood(nb, streams),
        }
    }

    fn variational(&self, streams: Streams) -> TopicVariational {
        let q = TopicVariational::new(self.docs, self.words, self.topics, self.prior, streams);
        match self.scale {
            Some(scale) => q.with_hierarchy(scale),
            None => q,
        }
    }

    fn gibbs_topics(&self, model: &TopicModel) -> Option<Vec<f64>> {
        Some(model.phi_topic_major())
    }

    /// `TopicVariational`'s `"phi"` mean is topic-major (`topics × words`).
    fn variational_topics(&self, means: &[MeanMatrix]) -> Option<Vec<f64>> {
        means.iter().find(|m| m.name == "phi").map(|m| m.values.clone())
    }

    fn set_base_factors(&self, model: &mut TopicModel, factors: &[Vec<f64>]) -> Result<(), ModelError> {
        let (theta, phi) = two(factors)?;
        model.set_factors(theta, phi)
    }

    fn base_factors(&self, model: &TopicModel) -> Vec<Vec<f64>> {
        vec![model.theta().to_vec(), model.phi_topic_major()]
    }

    fn kind(&self) -> ModelKind {
        ModelKind::Topic
    }

    fn axis(&self, axis: Axis) -> usize {
        match axis {
            Axis::Rows => self.docs,
            Axis::Cols => self.words,
            Axis::Times => 1,
            Axis::Components => self.topics,
        }
    }

    fn scale_rates(&self, model: &mut TopicModel, s: f64) -> Result<(), ModelError> {
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
    /// A hierarchical prior ([`BlockModel::with_hierarchy`], [`BlockVariational::with_hierarchy`]).
    pub scale: Option<ScalePrior>,
    /// The likelihood of the Gibbs model ([`BlockModel::with_likelihood`]); CAVI ignores it.
    pub likelihood: Likelihood,
    /// The symmetric form for undirected networks ([`BlockModel::undirected`]). It has no
    /// mean-field family: `inference::fit` refuses CAVI for it ([`ModelKind::has_cavi`]), and
    /// [`ModelFamily::variational`] panics.
    pub undirected: bool,
    /// The Hamiltonian move of the factors after each sweep ([`BlockModel::with_hmc`]; the directed
    /// form only: ignored when `undirected`).
    pub hmc: Option<HmcSettings>,
}

impl ModelFamily for BlockFamily {
    type Gibbs = BlockModel;
    type Variational = BlockVariational;

    fn gibbs(&self, streams: Streams) -> BlockModel {
        let model = match self.undirected {
            true => BlockModel::undirected(self.actors, self.communities, self.prior, streams),
            false => BlockModel::new(self.actors, self.communities, self.prior, streams),
        };
        let model = match self.scale {
            Some(scale) => model.with_hierarchy(scale, streams),
            None => model,
        };
        let mut model = match self.likelihood {
            Likelihood::Poisson => model,
            nb => model.with_likelihood(nb, streams),
        };
        if let Some(settings) = self.hmc {
            // The undirected form refuses the move (documented on the field): it stays Gibbs only.
            let _ = model.add_hmc(settings);
        }
        model
    }

    fn variational(&self, streams: Streams) -> BlockVariational {
        // A programming error: every caller checks `ModelKind::has_cavi` first (inference::fit).
        assert!(!self.undirected, "the undirected block model has no mean-field family (CAVI)");
        let q = BlockVariational::new(self.actors, self.communities, self.prior, streams);
        match self.scale {
            Some(scale) => q.with_hierarchy(scale),
            None => q,
        }
    }

    fn set_base_factors(&self, model: &mut BlockModel, factors: &[Vec<f64>]) -> Result<(), ModelError> {
        let (theta, pi) = two(factors)?;
        model.set_factors(theta, pi)
    }

    fn base_factors(&self, model: &BlockModel) -> Vec<Vec<f64>> {
        vec![model.theta().to_vec(), model.pi().to_vec()]
    }

    fn kind(&self) -> ModelKind {
        if self.undirected { ModelKind::Undirected } else { ModelKind::Block }
    }

    fn axis(&self, axis: Axis) -> usize {
        match axis {
            Axis::Rows | Axis::Cols => self.actors,
            Axis::Times => 1,
            Axis::Components => self.communities,
        }
    }

    fn scale_rates(&self, model: &mut BlockModel, s: f64) -> Result<(), ModelError> {
        let (theta, pi) = (model.theta().to_vec(), scaled(model.pi(), s));
        model.set_factors(&theta, &pi)
    }
}

/// The Poisson tensor model: `rows × cols × times` counts, `components` components.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorFamily {
    pub rows: usize,
    pub cols: usize,
    pub times: usize,
    pub components: usize,
    pub prior: GammaPrior,
    /// A hierarchical prior ([`TensorModel::with_hierarchy`]).
    pub scale: Option<ScalePrior>,
}

impl ModelFamily for TensorFamily {
    type Gibbs = TensorModel;
    type Variational = TensorVariational;

    fn gibbs(&self, streams: Streams) -> TensorModel {
        let model = TensorModel::new(self.rows, self.cols, self.times, self.components, self.prior, streams);
        match self.scale {
            Some(scale) => model.with_hierarchy(scale, streams),
            None => model,
        }
    }

    fn variational(&self, streams: Streams) -> TensorVariational {
        let q = TensorVariational::new(self.rows, self.cols, self.times, self.components, self.prior, streams);
        match self.scale {
            Some(scale) => q.with_hierarchy(scale),
            None => q,
        }
    }

    fn set_base_factors(&self, model: &mut TensorModel, factors: &[Vec<f64>]) -> Result<(), ModelError> {
        match factors {
            [theta, phi, psi] => model.set_factors(theta, phi, psi),
            _ => Err(ModelError::FactorCount { expected: 3, got: factors.len() }),
        }
    }

    fn base_factors(&self, model: &TensorModel) -> Vec<Vec<f64>> {
        vec![model.theta().to_vec(), model.phi().to_vec(), model.psi().to_vec()]
    }

    fn kind(&self) -> ModelKind {
        ModelKind::Tensor
    }

    fn axis(&self, axis: Axis) -> usize {
        match axis {
            Axis::Rows => self.rows,
            Axis::Cols => self.cols,
            Axis::Times => self.times,
            Axis::Components => self.components,
        }
    }

    /// Through `ψ`, which every rate is linear in.
    fn scale_rates(&self, model: &mut TensorModel, s: f64) -> Result<(), ModelError> {
        let (theta, phi, psi) = (model.theta().to_vec(), model.phi().to_vec(), scaled(model.psi(), s));
        model.set_factors(&theta, &phi, &psi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Excluded;

    impl FamilyVisitor for Excluded {
        type Output = Vec<usize>;
        fn visit<F: ModelFamily>(self, family: &F) -> Vec<usize> {
            let model = family.gibbs(Streams::new(1));
            let (rows, cols) = model.shape();
            (0..rows * cols).filter(|&n| model.is_excluded(n)).collect()
        }
    }

    struct RoundTrip;

    impl FamilyVisitor for RoundTrip {
        type Output = ();
        fn visit<F: ModelFamily>(self, family: &F) {
            let model = family.gibbs(Streams::new(2));
            let factors = family.base_factors(&model);
            let mut other = family.gibbs(Streams::new(3));
            family.set_base_factors(&mut other, &factors).unwrap();
            assert_eq!(family.base_factors(&other), factors);
            let (rows, cols) = model.shape();
            let (mut a, mut b) = (vec![0.0; rows * cols], vec![0.0; rows * cols]);
            model.rates_into(&mut a);
            other.rates_into(&mut b);
            assert_eq!(a, b, "{}", family.kind().name());
        }
    }

    #[test]
    fn base_factors_invert_set_base_factors() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        with_family(
            ModelKind::Topic,
            FamilyShape {
                rows: 3,
                cols: 4,
                times: 1,
                components: 2,
                prior,
                scale: None,
                likelihood: Likelihood::Poisson,
                hmc: None,
            },
            RoundTrip,
        );
        with_family(
            ModelKind::Tensor,
            FamilyShape {
                rows: 3,
                cols: 2,
                times: 4,
                components: 2,
                prior,
                scale: None,
                likelihood: Likelihood::Poisson,
                hmc: None,
            },
            RoundTrip,
        );
        for kind in [ModelKind::Block, ModelKind::Undirected] {
            with_family(
                kind,
                FamilyShape {
                    rows: 3,
                    cols: 3,
                    times: 1,
                    components: 2,
                    prior,
                    scale: None,
                    likelihood: Likelihood::Poisson,
                    hmc: None,
                },
                RoundTrip,
            );
        }
    }

    #[test]
    fn modelled_cells_say_what_the_models_exclude() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        for kind in ModelKind::ALL {
            let shape = FamilyShape {
                rows: 4,
                cols: 4,
                times: 1,
                components: 2,
                prior,
                scale: None,
                likelihood: Likelihood::Poisson,
                hmc: None,
            };
            let expected: Vec<usize> = match kind.modelled_cells() {
                ModelledCells::All => Vec::new(),
                ModelledCells::OffDiagonal => vec![0, 5, 10, 15],
                ModelledCells::Pairs => vec![0, 4, 5, 8, 9, 10, 12, 13, 14, 15],
            };
            assert_eq!(with_family(kind, shape, Excluded), expected, "{}", kind.name());
            let excluded: Vec<usize> = (0..16).filter(|&n| kind.modelled_cells().excludes(n, 4)).collect();
            assert_eq!(excluded, expected, "{}", kind.name());
            let inside: Vec<usize> = (0..4)
                .flat_map(|i| kind.modelled_cells().row_runs(i, 4).into_iter().flatten().map(move |j| i * 4 + j))
                .collect();
            assert_eq!(inside, (0..16).filter(|n| !expected.contains(n)).collect::<Vec<_>>(), "{}", kind.name());
        }
    }
}
