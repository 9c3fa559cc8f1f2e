//! What a fit is asked to do: the model, prior, likelihood, method, schedule, seed and pooling
//! of its chains. Its own module so that the chains (`chains`) and their cost (`resources`)
//! both read it without depending on each other.

use inference::{Algorithm, Method};
use models::{GammaPrior, ModelKind};

/// What to fit and how.
#[derive(Clone, Debug, PartialEq)]
pub struct FitSettings {
    pub model: ModelKind,
    pub components: usize,
    pub prior: GammaPrior,
    /// A hierarchical prior's rates (Gibbs and CAVI): `θ_dk ~ Gamma(a₀, ξ_d)`, `ξ_d ~ scale`,
    /// and likewise for the topic model's columns and the block model's `π`; `None`: flat
    /// `Gamma(a₀, b₀)`.
    pub scale: Option<models::ScalePrior>,
    /// The likelihood of a count given its rate: Poisson, or the negative binomial (Gibbs methods
    /// only; `models::Likelihood`).
    pub likelihood: models::Likelihood,
    pub method: Method,
    /// Gibbs chains, or CAVI starts.
    pub chains: usize,
    /// Gibbs with a schedule for the Gibbs methods, CAVI settings for the CAVI methods.
    pub algorithm: Algorithm,
    /// Chain `c` runs on `Streams::new(seed).child(c)`.
    pub seed: u64,
    /// How the chains are pooled: equal weights, stacking, or stacking only when they sit in
    /// different modes.
    pub weighting: Weighting,
    /// Gibbs: tempered replicas per chain (replica exchange, `inference::tempering`; 1: plain
    /// chains).
    pub replicas: usize,
    /// Gibbs, the directed block model: the Hamiltonian move of the factors after each sweep
    /// (`models::BlockModel::with_hmc`, its step and mass adapted during the burn-in).
    pub hamiltonian_move: bool,
}

impl FitSettings {
    /// Whether the Hamiltonian move is a setting of this fit at all: the directed block model's
    /// Gibbs methods (`move_applies_to`; fit.toml records it, on or off, for these fits only).
    pub fn move_applies(&self) -> bool {
        move_applies_to(self.model, matches!(self.algorithm, Algorithm::Gibbs(_)))
    }
}

/// Where the Hamiltonian move can run: the directed block model's Gibbs methods (`gibbs`: the
/// method is a Gibbs sampler, not CAVI).
pub(crate) fn move_applies_to(model: ModelKind, gibbs: bool) -> bool {
    model.has_hamiltonian_move() && gibbs
}

/// How a fit's chains are pooled into its posterior means, sds and intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weighting {
    /// Every chain's kept samples weigh the same (right when the chains mix: they sample one
    /// posterior).
    Equal,
    /// Stacking (Yao, Vehtari & Gelman 2022; [`inference::stacking`]): the weights that maximise
    /// the log predictive of the mixture of chains — on the held-out cells when there are any,
    /// else each chain's PSIS-LOO predictive of up to [`inference::loo::MAX_LOO_CELLS`] cells it saw (right when
    /// chains sit in different modes). Gibbs only.
    Stacking,
    /// Stacking when the chains settled in different modes (the verdict `modes` or
    /// `unsettled-and-modes`, [`inference::convergence`]), equal weights otherwise: chains that
    /// agree sample one posterior, and stacking them would only add noise to the weights.
    Auto,
}

impl Weighting {
    /// `"equal"`, `"stacking"` or `"auto"`.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Equal => "equal",
            Weighting::Stacking => "stacking",
            Weighting::Auto => "auto",
        }
    }
}
