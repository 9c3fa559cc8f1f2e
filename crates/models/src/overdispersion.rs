//! The negative-binomial likelihood as a gamma–Poisson mixture: a per-cell multiplier of the
//! Poisson rate, shared by both models.
//!
//! `y_n ~ Pois(μ_n δ_n)`, `δ_n ~ Gamma(r, r)` (shape `r`, **rate** `r`, mean 1), so that
//! `y_n | μ_n ~ NB(r, μ_n)` with mean `μ_n` and variance `μ_n + μ_n²/r` (Zhou & Carin 2015, §2;
//! `r → ∞` is the Poisson model). The model's rate `μ_n` (a sum of components) is unchanged; every
//! factor conditional gains the cell's `δ_n` in its exposure (`b₀ + Σ_v δ_dv φ_kv` instead of
//! `b₀ + Σ_v φ_kv`), and the allocation of `y_n` over components does not change (`δ_n` multiplies
//! every component alike). The privacy layer sees the cell's Poisson rate `μ_n δ_n` and nothing
//! else.
//!
//! Gibbs updates, after the factors:
//! * `r` (when learned, prior `Gamma(e, f)`) from `p(r | y, μ) ∝ p(r) Π_n NB(y_n; r, μ_n)` — `δ`
//!   integrated out, so `r` does not mix through `δ` — by a slice sampler on `ln r` (Neal 2003,
//!   stepping out and shrinkage; exact);
//! * then `δ_n | y_n, μ_n, r ~ Gamma(r + y_n, r + μ_n)` (gamma–Poisson conjugacy).
//!
//! The two are one blocked draw of `(r, δ) | y, μ`. `r` is kept in `[R_MIN, R_MAX]` (its prior is
//! truncated there; the prior puts less than `1e-4` of its mass outside at the default).
//!
//! **The contaminated form** ([`Likelihood::Contaminated`]): a cell is overdispersed (`z_n = 1`)
//! with probability `π`, else Poisson:
//! `δ_n = 1` if `z_n = 0`, `δ_n ~ Gamma(r, r)` if `z_n = 1`, `z_n ~ Bernoulli(π)`, `π ~ Beta(1, 1)`,
//! so that `y_n | μ_n ~ (1 − π) Pois(μ_n) + π NB(r, μ_n)` (a contaminated model in the sense of
//! robust statistics; Aitkin & Wilson 1980 for mixtures of this kind). A few heavy cells then get
//! multipliers of their own without making `r` small for every cell. Its Gibbs updates, a
//! partially collapsed sampler (van Dyk & Park 2008: each step that integrates out `δ` is followed
//! by one that draws it):
//! * `r | π, y, μ` (`z` and `δ` integrated out), from the mixture likelihood
//!   `Π_n [(1 − π) Pois(y_n; μ_n) + π NB(y_n; r, μ_n)]` and its prior, by [`SHAPE_STEPS`]
//!   Metropolis–Hastings steps on `u = ln r` whose proposal is a Student t centred at a Newton
//!   step ([`newton_metropolis`]: one evaluation of the cells per step besides the first, where a
//!   slice sampler took about six). Drawing `r` given
//!   `z` instead, from the overdispersed cells only, left the chain stuck for hundreds of sweeps
//!   with most cells overdispersed and `r` near 1, as `r` and `z` hold each other in place;
//! * `π | r, y, μ` (`z` and `δ` integrated out) by [`SHARE_STEPS`] such steps on `logit π`, from the same
//!   likelihood and the uniform prior (`π | z ~ Beta(1 + Σ z_n, 1 + N − Σ z_n)` is exact too, but
//!   `π` and `z` hold each other in place);
//! * `(z_n, δ_n) | r, π, y_n, μ_n` for every cell: `z_n` with odds
//!   `π NB(y_n; r, μ_n) / ((1 − π) Pois(y_n; μ_n)) =
//!   π/(1 − π) · Γ(r + y_n)/Γ(r) · r^r e^{μ_n} / (r + μ_n)^{r + y_n}`, then `δ_n` as above if
//!   `z_n = 1`, else `δ_n = 1`.
//!
//! The cells' likelihood ratios at the `r` drawn serve the whole `π` update and the draw of `z`
//! (`crate::contamination`: each evaluation at a new `π` is then a product and a division, not a
//! logarithm, per cell); an evaluation at a new `r` costs a logarithm, an exponential and two
//! divisions per cell.

use crate::chunks::chunk_rows;
use crate::contamination::{AtShape, MixtureCells, SpareRatios};
use crate::{FactorBlock, GammaPrior, ModelledCells};
use distributions::{Beta, CellDispersion, Gamma, StreamRng, Streams, ln_gamma};
use rand::Rng;
use rand::distr::Distribution;
use rayon::prelude::*;

/// The smallest dispersion shape `r` (variance `μ + 1000 μ²`).
pub const R_MIN: f64 = 1e-3;
/// The largest dispersion shape `r` (indistinguishable from Poisson at any count a table holds).
pub const R_MAX: f64 = 1e4;

/// Stream ids of the dispersion's steps.
const SHAPE: u64 = 0;
const SCALES: u64 = 1;
const SHARE: u64 = 2;

/// The likelihood of a cell's count given its model rate `μ_n`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Likelihood {
    /// `y_n ~ Pois(μ_n)`: the papers' model.
    #[default]
    Poisson,
    /// `y_n ~ NB(r, μ_n)` (mean `μ_n`, variance `μ_n + μ_n²/r`) as `Pois(μ_n δ_n)`,
    /// `δ_n ~ Gamma(r, r)`.
    NegativeBinomial(Dispersion),
    /// `y_n ~ (1 − π) Pois(μ_n) + π NB(r, μ_n)`: a learned share `π` (prior `Beta(1, 1)`) of the
    /// cells is overdispersed (module docs).
    Contaminated(Dispersion),
}

impl Likelihood {
    /// The name manifests and `--likelihood` use.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Poisson => "poisson",
            Self::NegativeBinomial(_) => "negative-binomial",
            Self::Contaminated(_) => "contaminated",
        }
    }

    /// The dispersion shape `r`: given or learned (`None` for the Poisson).
    pub fn dispersion(&self) -> Option<Dispersion> {
        match self {
            Self::Poisson => None,
            Self::NegativeBinomial(d) | Self::Contaminated(d) => Some(*d),
        }
    }
}

/// The dispersion shape `r` of the negative-binomial likelihood: given, or learned with a gamma
/// prior (shape, **rate**).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dispersion {
    Given(f64),
    Learned(GammaPrior),
}

impl Dispersion {
    /// The default prior of a learned `r`: `Gamma(1, 0.1)` (shape, rate), an exponential with mean
    /// 10 — nearly flat over the range that matters (`r` ≲ 10 is overdispersion a count table shows;
    /// at `r` = 30 the extra variance `μ²/r` is 3 % of `μ` for `μ` = 1) and with `P(r < R_MIN) =
    /// 1e-4`. With thousands of cells the data decide `r` (docs/model-checking.md).
    pub fn default_learned() -> Self {
        Self::Learned(GammaPrior::new(1.0, 0.1).expect("in range"))
    }

    /// `r` given: a number in `[R_MIN, R_MAX]`.
    pub fn given(r: f64) -> Result<Self, DispersionError> {
        if (R_MIN..=R_MAX).contains(&r) { Ok(Self::Given(r)) } else { Err(DispersionError::Shape(r)) }
    }

    /// `r` learned with the prior `Gamma(shape, rate)` (**rate**; both in
    /// [`crate::HYPERPARAMETER_RANGE`]), truncated to `[R_MIN, R_MAX]`: see [`Self::learned`].
    pub fn learned_with(shape: f64, rate: f64) -> Result<Self, DispersionError> {
        let prior = GammaPrior::new(shape, rate).map_err(|e| {
            let parameter = if e.parameter.contains("shape") { "shape" } else { "rate" };
            DispersionError::Hyperparameter(parameter, e.value)
        })?;
        Self::learned(prior)
    }

    /// `r` learned with the prior `prior`, truncated to `[R_MIN, R_MAX]`: refused unless at least
    /// half its mass lies there (so drawing from it, by rejection, ends).
    pub fn learned(prior: GammaPrior) -> Result<Self, DispersionError> {
        let inside = Gamma::new(prior.shape(), prior.rate()).map_or(0.0, |g| g.cdf(R_MAX) - g.cdf(R_MIN));
        if inside >= 0.5 { Ok(Self::Learned(prior)) } else { Err(DispersionError::Prior(prior, inside)) }
    }
}

/// A dispersion that is not allowed.
#[derive(Clone, Debug, PartialEq)]
pub enum DispersionError {
    /// A given shape `r` outside `[R_MIN, R_MAX]`.
    Shape(f64),
    /// A prior of `r` with less than half its mass (the second field) in `[R_MIN, R_MAX]`.
    Prior(GammaPrior, f64),
    /// The prior's `"shape"` or `"rate"` outside [`crate::HYPERPARAMETER_RANGE`].
    Hyperparameter(&'static str, f64),
}

impl std::fmt::Display for DispersionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Shape(r) => write!(
                f,
                "dispersion shape r = {r} is not allowed: it must be a number from {R_MIN:e} to {R_MAX:e} (the \
                 negative binomial's variance is μ + μ²/r)"
            ),
            Self::Prior(prior, inside) => write!(
                f,
                "dispersion prior Gamma(shape {}, rate {}) is not allowed: it puts {:.3} of its mass on r from \
                 {R_MIN:e} to {R_MAX:e}, where r is kept; choose a shape and rate that put at least half there \
                 (its mean is shape / rate)",
                prior.shape(),
                prior.rate(),
                inside
            ),
            Self::Hyperparameter(parameter, value) => {
                let (lo, hi) = crate::HYPERPARAMETER_RANGE;
                write!(
                    f,
                    "dispersion prior {parameter} = {value} is not allowed: it must be a number from {lo:e} to {hi:e}"
                )
            }
        }
    }
}

impl std::error::Error for DispersionError {}

/// The per-cell multipliers `δ` and the shape `r` of a model with the negative-binomial likelihood.
#[derive(Clone, Debug)]
pub(crate) struct Overdispersion {
    dispersion: Dispersion,
    /// `r`.
    shape: f64,
    /// `δ_n`, row-major `rows × cols`; 1 at excluded cells (not part of the model).
    scales: Vec<f64>,
    /// The contaminated form: `π`, and `z_n` (whether cell `n` is overdispersed) row-major; `None`
    /// for the negative binomial (every cell overdispersed).
    contamination: Option<(f64, Vec<bool>)>,
    cols: usize,
    /// Which cells are modelled (the block model leaves out the diagonal, its undirected form the
    /// lower triangle too).
    modelled: ModelledCells,
    /// Under replica exchange (`crate::tempering`): the inverse temperature, and the last update's
    /// `Σ_n y_n ln δ_n − Σ_n μ_n δ_n` (the multipliers' part of the energy), tracked once a
    /// temperature is set.
    beta: f64,
    tracks_energy: bool,
    energy_terms: f64,
    /// A learned `r` held at this value (the warm-up of a burn-in: `PoissonFactorization::hold_dispersion`).
    held: Option<f64>,
    /// The contaminated form's cell ratios, kept between updates for their memory.
    spare: SpareRatios,
}

impl Overdispersion {
    /// The multipliers of a `rows × cols` model with `likelihood`; `None` for the Poisson.
    pub(crate) fn for_likelihood(
        likelihood: Likelihood,
        rows: usize,
        cols: usize,
        modelled: ModelledCells,
    ) -> Option<Self> {
        match likelihood {
            Likelihood::Poisson => None,
            Likelihood::NegativeBinomial(d) => Some(Self::new(d, rows, cols, modelled)),
            Likelihood::Contaminated(d) => {
                let mut od = Self::new(d, rows, cols, modelled);
                od.contamination = Some((0.5, vec![true; rows * cols]));
                Some(od)
            }
        }
    }

    /// A `rows × cols` table's multipliers, all 1 until [`Self::sample_prior`].
    fn new(dispersion: Dispersion, rows: usize, cols: usize, modelled: ModelledCells) -> Self {
        let shape = match dispersion {
            Dispersion::Given(r) => r,
            Dispersion::Learned(prior) => prior.shape() / prior.rate(),
        };
        let scales = vec![1.0; rows * cols];
        let (beta, tracks_energy, energy_terms) = (1.0, false, 0.0);
        Self {
            dispersion,
            shape: shape.clamp(R_MIN, R_MAX),
            scales,
            contamination: None,
            cols,
            modelled,
            beta,
            tracks_energy,
            energy_terms,
            held: None,
            spare: SpareRatios::default(),
        }
    }

    fn excluded(&self, n: usize) -> bool {
        self.modelled.excludes(n, self.cols)
    }

    /// The law of a cell's multiplier: `r` and the share `π` of overdispersed cells (1 for the
    /// negative binomial).
    pub(crate) fn law(&self) -> CellDispersion {
        let share = self.contamination.as_ref().map_or(1.0, |(pi, _)| *pi);
        CellDispersion { shape: self.shape, share }
    }

    /// `δ`, row-major.
    pub(crate) fn scales(&self) -> &[f64] {
        &self.scales
    }

    /// `δ`, for tests of samplers.
    pub(crate) fn scales_mut(&mut self) -> &mut [f64] {
        &mut self.scales
    }

    /// `π` and `z` of the contaminated form, for tests of samplers.
    pub(crate) fn contamination_mut(&mut self) -> Option<(&mut f64, &[bool])> {
        self.contamination.as_mut().map(|(pi, z)| (pi, z.as_slice()))
    }

    /// Draws `r` from its (truncated) prior if learned, then every `δ_n ~ Gamma(r, r)`.
    pub(crate) fn sample_prior(&mut self, streams: Streams) {
        if let Dispersion::Learned(prior) = self.dispersion {
            let mut rng = streams.child(SHAPE).rng();
            // Rejection into [R_MIN, R_MAX]: at the default prior 1 draw in 10⁴ is redrawn.
            self.shape = loop {
                let r = prior.draw(0.0, 0.0, &mut rng);
                if (R_MIN..=R_MAX).contains(&r) {
                    break r;
                }
            };
        }
        let r = self.shape;
        match &mut self.contamination {
            None => self.draw_scales(streams.child(SCALES), |_| (r, r)),
            Some((pi, _)) => {
                *pi = Beta::new(1.0, 1.0).map_or(0.5, |b| b.sample(&mut streams.child(SHARE).rng()));
                let chance = *pi;
                self.draw_contaminated(streams.child(SCALES), |_| (chance, (r, r)));
            }
        }
    }

    /// The contaminated form's `(z_n, δ_n)` of every modelled cell, in fixed row chunks (one stream
    /// each): `z_n = 1` with probability `chance_and_gamma(n).0`, then `δ_n ~ Gamma(.1)` if it is,
    /// else `δ_n = 1`.
    fn draw_contaminated(&mut self, streams: Streams, chance_and_gamma: impl Fn(usize) -> (f64, (f64, f64)) + Sync) {
        let Some((_, flags)) = &mut self.contamination else { return };
        let cols = self.cols;
        let per_chunk = (chunk_rows(self.scales.len() / cols.max(1)) * cols).max(1);
        let modelled = self.modelled;
        self.scales.par_chunks_mut(per_chunk).zip(flags.par_chunks_mut(per_chunk)).enumerate().for_each(
            |(chunk, (scales, flags))| {
                let mut rng = streams.child(chunk as u64).rng();
                for (i, (delta, z)) in scales.iter_mut().zip(flags.iter_mut()).enumerate() {
                    let n = chunk * per_chunk + i;
                    if modelled.excludes(n, cols) {
                        continue;
                    }
                    let (chance, (shape, rate)) = chance_and_gamma(n);
                    *z = rand::RngExt::sample::<f64, _>(&mut rng, rand::distr::StandardUniform) < chance;
                    *delta = if *z { gamma_draw(shape, rate, &mut rng) } else { 1.0 };
                }
            },
        );
    }

    /// `δ_n ~ Gamma(shape_rate(n))` for every modelled cell, in fixed row chunks (one stream each).
    fn draw_scales(&mut self, streams: Streams, shape_rate: impl Fn(usize) -> (f64, f64) + Sync) {
        let cols = self.cols;
        let per_chunk = chunk_rows(self.scales.len() / cols.max(1)) * cols;
        let modelled = self.modelled;
        self.scales.par_chunks_mut(per_chunk.max(1)).enumerate().for_each(|(chunk, scales)| {
            let mut rng = streams.child(chunk as u64).rng();
            for (i, delta) in scales.iter_mut().enumerate() {
                let n = chunk * per_chunk + i;
                if modelled.excludes(n, cols) {
                    continue;
                }
                let (shape, rate) = shape_rate(n);
                *delta = gamma_draw(shape, rate, &mut rng);
            }
        });
    }

    /// Holds a learned `r` at `r` (clamped to `[R_MIN, R_MAX]`) or releases it (`None`); a given
    /// `r` is never held.
    pub(crate) fn hold(&mut self, r: Option<f64>) {
        if let Dispersion::Learned(_) = self.dispersion {
            self.held = r.map(|r| r.clamp(R_MIN, R_MAX));
        }
    }

    /// Sets the inverse temperature (replica exchange, `crate::tempering`) and starts tracking
    /// the multipliers' part of the energy.
    pub(crate) fn set_temperature(&mut self, beta: f64) {
        self.beta = beta;
        self.tracks_energy = true;
    }

    /// `Σ_n y_n ln δ_n − Σ_n μ_n δ_n` of the last update (0 until a temperature was set).
    pub(crate) fn energy_terms(&self) -> f64 {
        self.energy_terms
    }

    /// One Gibbs update given the complete counts `y` and the model's (untempered) rates `μ`
    /// (row-major): `r | y, μ` (if learned), then `δ | r, y, μ`; for the contaminated form, from
    /// `π` ([`Self::update_contaminated`]). At an inverse temperature `β` the counts and rates
    /// enter as `β y` and `β μ` (`crate::tempering`): `δ_n ~ Gamma(r + β y_n, r + β μ_n)`, and `r`
    /// from the negative binomial with them.
    pub(crate) fn gibbs_update(&mut self, y: &[u32], mean_rates: &[f64], streams: Streams) {
        if let Some(r) = self.held {
            self.shape = r;
        }
        if let Some((pi, _)) = self.contamination {
            self.update_contaminated(y, mean_rates, pi, streams);
        } else {
            if let (None, Dispersion::Learned(prior)) = (self.held, self.dispersion) {
                let target = ShapeTarget::new(self, y, mean_rates, prior);
                let mut rng = streams.child(SHAPE).rng();
                let u0 = self.shape.ln();
                self.shape = slice_sample(u0, target.ln_density(u0), |u| target.ln_density(u), &mut rng).exp();
            }
            let (r, beta) = (self.shape, self.beta);
            self.draw_scales(streams.child(SCALES), |n| (r + beta * f64::from(y[n]), r + beta * mean_rates[n]));
        }
        if self.tracks_energy {
            self.energy_terms = (0..y.len())
                .filter(|&n| !self.excluded(n))
                .map(|n| f64::from(y[n]) * self.scales[n].ln() - mean_rates[n] * self.scales[n])
                .sum();
        }
    }

    /// The contaminated form's update: `r | π` (if learned and not held), then `π | r`, both with
    /// `z` and `δ` integrated out, then `(z, δ) | r, π` (the module's doc). The cells' ratios at
    /// the current `r` give the first point of `r`'s step; those of the `r` kept serve `π` and `z`.
    fn update_contaminated(&mut self, y: &[u32], mean_rates: &[f64], pi: f64, streams: Streams) {
        let cells = MixtureCells::new(y, mean_rates, self.beta, self.cols, self.modelled);
        let mut ratios = cells.reuse(&mut self.spare);
        let here = cells.ln_mixture_at(self.shape, pi, &mut ratios);
        let mut proposed = None;
        if let (None, Dispersion::Learned(prior)) = (self.held, self.dispersion) {
            let proposed = proposed.insert(cells.reuse(&mut self.spare));
            let target = |r: f64, at: AtShape| {
                // On u = ln r: the prior Gamma(e, rate f) and the Jacobian r.
                let (e, f) = (prior.shape(), prior.rate());
                let value = at.ln + prior.ln_pdf(r) + r.ln();
                let slope = r * (at.d1 + (e - 1.0) / r - f) + 1.0;
                let curvature = r * (at.d1 - f) + r * r * at.d2;
                OnLine { value, slope, curvature }
            };
            let (mut u, mut at_u) = (self.shape.ln(), target(self.shape, here));
            let mut rng = streams.child(SHAPE).rng();
            for _ in 0..SHAPE_STEPS {
                let evaluate = |u: f64| {
                    let r = u.exp();
                    (R_MIN..=R_MAX).contains(&r).then(|| target(r, cells.ln_mixture_at(r, pi, proposed)))
                };
                let (next, at_next) = newton_metropolis(u, at_u, evaluate, &mut rng);
                if next != u {
                    (u, at_u) = (next, at_next);
                    self.shape = proposed.r;
                    std::mem::swap(&mut ratios, proposed);
                }
            }
        }
        // v = logit π; the uniform prior's density on v is π (1 − π), and dπ/dv = π (1 − π).
        let share_target = |v: f64| {
            let (pi, ln_pi, ln_rest) = (logistic(v), -(-v).exp().ln_1p(), -v.exp().ln_1p());
            let at = cells.ln_mixture(&ratios, pi);
            let jacobian = pi * (1.0 - pi);
            let slope = jacobian * at.d1 + 1.0 - 2.0 * pi;
            let curvature = jacobian * jacobian * at.d2 + jacobian * (1.0 - 2.0 * pi) * at.d1 - 2.0 * jacobian;
            OnLine { value: ln_pi + ln_rest + at.ln, slope, curvature }
        };
        let mut v = pi.ln() - (-pi).ln_1p();
        let mut at_v = share_target(v);
        let mut rng = streams.child(SHARE).rng();
        for _ in 0..SHARE_STEPS {
            (v, at_v) = newton_metropolis(v, at_v, |v| Some(share_target(v)), &mut rng);
        }
        let pi = logistic(v);
        if let Some((share, _)) = &mut self.contamination {
            *share = pi;
        }
        let (r, beta) = (self.shape, self.beta);
        let posterior = |n: usize| (r + beta * f64::from(y[n]), r + beta * mean_rates[n]);
        self.draw_contaminated(streams.child(SCALES), |n| (MixtureCells::chance(&ratios, pi, n), posterior(n)));
        self.spare.keep(ratios);
        if let Some(proposed) = proposed {
            self.spare.keep(proposed);
        }
    }

    /// `ln p(δ, z | r, π) + ln p(r)` (`ln p(π) = 0` under `Beta(1, 1)`; the truncated prior's
    /// normalising constant omitted: it does not depend on the state).
    pub(crate) fn ln_prior(&self) -> f64 {
        let r = self.shape;
        let cells = Gamma::new(r, r).map_or(f64::NEG_INFINITY, |g| {
            let modelled = self.scales.iter().enumerate().filter(|(n, _)| !self.excluded(*n));
            match &self.contamination {
                None => modelled.map(|(_, &d)| g.ln_pdf(d)).sum(),
                Some((pi, z)) => modelled.map(|(n, &d)| if z[n] { pi.ln() + g.ln_pdf(d) } else { (-pi).ln_1p() }).sum(),
            }
        });
        match self.dispersion {
            Dispersion::Given(_) => cells,
            Dispersion::Learned(prior) => cells + prior.ln_pdf(r),
        }
    }

    /// `δ`, and `r` if it is learned, as factor blocks (their sums enter the Geweke test
    /// functions; a given `r` is a constant, not a factor).
    pub(crate) fn blocks(&self) -> Vec<FactorBlock<'_>> {
        let rows = self.scales.len() / self.cols.max(1);
        let mut blocks = Vec::with_capacity(2);
        if let Dispersion::Learned(_) = self.dispersion {
            let r = std::slice::from_ref(&self.shape);
            blocks.push(FactorBlock { name: "r (dispersion shape)", rows: 1, cols: 1, values: r });
        }
        if let Some((pi, _)) = &self.contamination {
            let pi = std::slice::from_ref(pi);
            blocks.push(FactorBlock { name: "pi (share of overdispersed cells)", rows: 1, cols: 1, values: pi });
        }
        blocks.push(FactorBlock { name: "delta (cell multipliers)", rows, cols: self.cols, values: &self.scales });
        blocks
    }
}

/// `1 / (1 + e^{−v})`.
fn logistic(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// `Gamma(shape, rate)` (rate), kept above 0.
fn gamma_draw(shape: f64, rate: f64, rng: &mut StreamRng) -> f64 {
    Gamma::new(shape, rate).map_or(f64::MIN_POSITIVE, |g| g.sample(rng)).max(f64::MIN_POSITIVE)
}

/// Counts below this are tallied in a histogram for `Σ_n [ln Γ(y_n + r) − ln Γ(r)]`.
const HISTOGRAM: usize = 256;

/// `ln p(r | y, μ)` as a function of `u = ln r` (with the Jacobian `r`), from the counts' tally:
/// `ln p(r) + ln r + Σ_n [ln Γ(y_n + r) − ln Γ(r) + r ln r − (r + y_n) ln(r + μ_n)]` (the NB
/// log-pmf without its `r`-free terms; at an inverse temperature `β`, with `β y_n` and `β μ_n`:
/// `∫ Gamma(δ; r, r) δ^{β y} e^{−β μ δ} dδ`).
struct ShapeTarget {
    prior: GammaPrior,
    /// `histogram[y]`: cells with count `y < HISTOGRAM` (`y ≥ 1`).
    histogram: Vec<u64>,
    large: Vec<u32>,
    /// `(y_n, β μ_n)` of the modelled cells, in order.
    cells: Vec<(u32, f64)>,
    /// The inverse temperature: counts and rates enter as `β y`, `β μ` (1 for the model itself).
    beta: f64,
}

impl ShapeTarget {
    fn new(od: &Overdispersion, y: &[u32], mean_rates: &[f64], prior: GammaPrior) -> Self {
        let beta = od.beta;
        let mut histogram = vec![0u64; HISTOGRAM];
        let mut large = Vec::new();
        let cells: Vec<(u32, f64)> =
            (0..y.len()).filter(|&n| !od.excluded(n)).map(|n| (y[n], beta * mean_rates[n])).collect();
        for &(count, _) in &cells {
            match usize::try_from(count) {
                Ok(c) if c < HISTOGRAM => histogram[c] += 1,
                _ => large.push(count),
            }
        }
        Self { prior, histogram, large, cells, beta }
    }

    fn ln_density(&self, u: f64) -> f64 {
        let r = u.exp();
        if !(R_MIN..=R_MAX).contains(&r) {
            return f64::NEG_INFINITY;
        }
        let ln_gamma_r = ln_gamma(r);
        let mut sum: f64 = self
            .histogram
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, m)| **m > 0)
            .map(|(y, &m)| m as f64 * (ln_gamma(self.beta * y as f64 + r) - ln_gamma_r))
            .sum();
        sum += self.large.iter().map(|&y| ln_gamma(self.beta * f64::from(y) + r) - ln_gamma_r).sum::<f64>();
        sum += self.cells.len() as f64 * r * u;
        let beta = self.beta;
        sum -= self.sum_cells(|y, bmu| (r + beta * f64::from(y)) * (r + bmu).ln());
        sum + self.prior.ln_pdf(r) + u
    }

    /// `Σ_n term(y_n, β μ_n)` over the modelled cells, in fixed chunks summed in order (the same
    /// at any thread count).
    fn sum_cells(&self, term: impl Fn(u32, f64) -> f64 + Sync) -> f64 {
        let parts: Vec<f64> =
            self.cells.par_chunks(4096).map(|c| c.iter().map(|&(y, bmu)| term(y, bmu)).sum::<f64>()).collect();
        parts.iter().sum()
    }
}

/// Width of the slice sampler's initial interval on `ln r`, and its most steps out.
const SLICE_WIDTH: f64 = 1.0;
const SLICE_STEPS: usize = 32;
/// Shrinkage steps before the sampler keeps the current point (the interval is then narrower than
/// `2^-200` of its start: a state the target cannot produce unless it is not finite there).
const SLICE_SHRINKS: usize = 200;

/// One univariate slice-sampling update of `x0`, whose log-density `ln_f(x0)` is `f0`, for the
/// log-density `ln_f` (Neal 2003, *Ann. Statist.* 31:705–767, Figs. 3 and 5: stepping out, then
/// shrinkage), which leaves the density invariant. It returns `x0` or the last point it evaluated.
fn slice_sample<R: Rng + ?Sized>(x0: f64, f0: f64, mut ln_f: impl FnMut(f64) -> f64, rng: &mut R) -> f64 {
    if !f0.is_finite() {
        return x0;
    }
    let uniform = |rng: &mut R| rand::RngExt::sample::<f64, _>(rng, rand::distr::StandardUniform);
    let level = f0 + uniform(rng).ln();
    let mut left = x0 - SLICE_WIDTH * uniform(rng);
    let mut right = left + SLICE_WIDTH;
    let mut steps_left = (SLICE_STEPS as f64 * uniform(rng)) as usize;
    let mut steps_right = SLICE_STEPS - 1 - steps_left;
    while steps_left > 0 && ln_f(left) > level {
        left -= SLICE_WIDTH;
        steps_left -= 1;
    }
    while steps_right > 0 && ln_f(right) > level {
        right += SLICE_WIDTH;
        steps_right -= 1;
    }
    for _ in 0..SLICE_SHRINKS {
        let x1 = left + uniform(rng) * (right - left);
        if ln_f(x1) > level {
            return x1;
        }
        if x1 < x0 {
            left = x1;
        } else {
            right = x1;
        }
    }
    x0
}

/// A log-density on the line at one point, with its first two derivatives.
#[derive(Clone, Copy, Debug)]
struct OnLine {
    value: f64,
    slope: f64,
    curvature: f64,
}

/// The smallest precision of the Newton proposal (its standard deviation is at most 1 on `ln r`,
/// where the log-density is not concave or nearly flat).
const MIN_PRECISION: f64 = 1.0;
/// The longest step of the Newton proposal's mean from the current point.
const MAX_STEP: f64 = 2.0;

/// Degrees of freedom of the Newton proposal's Student t. Its heavy tails do part of the mixing:
/// with one step of `r`, 3 degrees of freedom gave as many effective draws per second of the
/// log-likelihood and the total as two steps with 4, and 10 fewer (docs/history/performance.md,
/// "One step of r with a heavier-tailed proposal").
const PROPOSAL_DOF: f64 = 3.0;
/// Newton–Metropolis steps per update of `r` (each costs an evaluation of every cell) and of `π`
/// (each a product and a division per cell). One step of `r` costs 13 % of `r`'s effective draws
/// per sweep on Poisson tables and saves about a tenth of the sweep; `π`'s steps are cheap.
const SHAPE_STEPS: usize = 1;
const SHARE_STEPS: usize = 3;

/// The Newton proposal at `(x, f)`: a Student t ([`PROPOSAL_DOF`]) centred at `x + f'/λ` (the
/// step at most `MAX_STEP`) with scale `1/√λ`, `λ = max(−f'', MIN_PRECISION)` — the Laplace
/// approximation of the density at the maximum a Newton step from `x` points to, with heavy
/// tails: a Gaussian proposal strands a chain that starts far out in a tail, since from the bulk
/// it gives the way back a vanishing chance; as `(centre, scale)`.
fn newton_proposal(x: f64, f: OnLine) -> (f64, f64) {
    let precision = (-f.curvature).max(MIN_PRECISION);
    ((x + f.slope / precision).clamp(x - MAX_STEP, x + MAX_STEP), precision.sqrt().recip())
}

/// `ln t_ν(x; centre, scale)` without its constant.
fn ln_proposal(x: f64, (centre, scale): (f64, f64)) -> f64 {
    let z = (x - centre) / scale;
    -0.5 * (PROPOSAL_DOF + 1.0) * (z * z / PROPOSAL_DOF).ln_1p() - scale.ln()
}

/// One Metropolis–Hastings update of `x0` (log-density and derivatives `f0` there) with the
/// Newton proposal ([`newton_proposal`]), accepted with probability
/// `min(1, f(x1) q(x0 | x1) / (f(x0) q(x1 | x0)))` (Qi & Minka 2002, "Hessian-based Markov chain
/// Monte Carlo"). `at(x)` gives the log-density and derivatives at `x`, `None` outside the
/// support. Where the density is nearly Gaussian the proposal is nearly the density itself and
/// most proposals are accepted. It returns `(x0, f0)` or the point accepted (the last `at`
/// evaluated) with its log-density and derivatives.
fn newton_metropolis<R: Rng + ?Sized>(
    x0: f64,
    f0: OnLine,
    mut at: impl FnMut(f64) -> Option<OnLine>,
    rng: &mut R,
) -> (f64, OnLine) {
    if !(f0.value.is_finite() && f0.slope.is_finite() && f0.curvature.is_finite()) {
        return (x0, f0);
    }
    let forward = newton_proposal(x0, f0);
    let t = rand_distr::StudentT::new(PROPOSAL_DOF).map_or(0.0, |t| rand::RngExt::sample(rng, t));
    let x1 = forward.0 + forward.1 * t;
    let Some(f1) = at(x1) else { return (x0, f0) };
    if !(f1.value.is_finite() && f1.slope.is_finite() && f1.curvature.is_finite()) {
        return (x0, f0);
    }
    let ln_accept = f1.value - f0.value + hastings(x0, x1, f1, forward);
    let uniform: f64 = rand::RngExt::sample(rng, rand::distr::StandardUniform);
    if uniform.ln() < ln_accept { (x1, f1) } else { (x0, f0) }
}

/// `ln q(x0 | x1) − ln q(x1 | x0)`: the proposal's part of the acceptance ratio.
#[cfg(not(test))]
fn hastings(x0: f64, x1: f64, f1: OnLine, forward: (f64, f64)) -> f64 {
    ln_proposal(x0, newton_proposal(x1, f1)) - ln_proposal(x1, forward)
}

/// As above; a test may plant the bug of leaving the reverse proposal out (`MUTANT_NO_REVERSE`).
#[cfg(test)]
fn hastings(x0: f64, x1: f64, f1: OnLine, forward: (f64, f64)) -> f64 {
    let reverse = if tests::MUTANT_NO_REVERSE.get() { 0.0 } else { ln_proposal(x0, newton_proposal(x1, f1)) };
    reverse - ln_proposal(x1, forward)
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::gof;

    thread_local! {
        /// Plants the bug of [`hastings`] without the reverse proposal, in this thread only.
        pub(super) static MUTANT_NO_REVERSE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// A chain of Newton–Metropolis steps targeting `Gamma(a, rate b)` on the log scale
    /// (`f(u) = a u − b eᵘ`, with its derivatives), thinned: its draws' chi-square statistic against
    /// the gamma cdf (40 equiprobable bins), and the share of proposals accepted.
    fn newton_chain(a: f64, b: f64, seed: u64) -> (gof::Gof, f64) {
        let mut rng = Streams::new(seed).rng();
        let at = |u: f64| {
            let e = b * u.exp();
            Some(OnLine { value: a * u - e, slope: a - e, curvature: -e })
        };
        let mut u = 0.0;
        let (mut draws, mut moved) = (Vec::new(), 0);
        for t in 0..40_000 {
            let (next, _) = newton_metropolis(u, at(u).unwrap(), at, &mut rng);
            moved += usize::from(next != u);
            u = next;
            if t % 10 == 0 {
                draws.push(u.exp());
            }
        }
        let gamma = Gamma::new(a, b).unwrap();
        (gof::chi_square_continuous(&draws, |x| gamma.cdf(x), 40), moved as f64 / 40_000.0)
    }

    /// The Newton–Metropolis step leaves a known density invariant: `Gamma(3, 2)` (log-density far
    /// from Gaussian on `ln r`, so the Hastings term matters) and `Gamma(400, 100)` (nearly
    /// Gaussian: most proposals accepted; the chain starts 28 standard deviations out, where a
    /// Gaussian proposal stays stuck), each a chi-square test at false-alarm rate 1e-3 with a
    /// fixed seed. With the reverse proposal left out (a planted bug) the first is rejected.
    #[test]
    fn newton_metropolis_targets_its_density() {
        let (test, accepted) = newton_chain(3.0, 2.0, 4);
        assert!(!test.rejects(1e-3), "{test:?}");
        assert!(accepted > 0.5, "accepted {accepted}");
        let (test, accepted) = newton_chain(400.0, 100.0, 5);
        assert!(!test.rejects(1e-3), "{test:?}");
        // 87 % accepted here (the t's heavy tails cost an eighth; 90 % with 4 degrees of freedom);
        // the bound, set after seeing the latter, catches a proposal that no longer follows the
        // density.
        assert!(accepted > 0.85, "accepted {accepted}");
        MUTANT_NO_REVERSE.set(true);
        let (test, _) = newton_chain(3.0, 2.0, 4);
        MUTANT_NO_REVERSE.set(false);
        assert!(test.rejects(1e-3), "the missing reverse proposal went undetected: {test:?}");
    }

    /// The slice sampler leaves a known density invariant: draws of a chain targeting
    /// `Gamma(3, 2)` on the log scale (`ln f(u) = 3u − 2eᵘ`), thinned, pass a Kolmogorov–Smirnov
    /// test against the gamma cdf (fixed seed; false-alarm rate 1e-3).
    #[test]
    fn slice_sampler_targets_its_density() {
        let mut rng = Streams::new(4).rng();
        let gamma = Gamma::new(3.0, 2.0).unwrap();
        let mut u = 0.0;
        let mut draws = Vec::new();
        for t in 0..40_000 {
            let ln_f = |u: f64| 3.0 * u - 2.0 * u.exp();
            u = slice_sample(u, ln_f(u), ln_f, &mut rng);
            if t % 10 == 0 {
                draws.push(u.exp());
            }
        }
        let test = gof::chi_square_continuous(&draws, |x| gamma.cdf(x), 40);
        assert!(!test.rejects(1e-3), "{test:?}");
    }

    /// `Dispersion::given` refuses an `r` outside its range, with the range in the message.
    #[test]
    fn a_prior_with_most_mass_outside_the_range_is_refused() {
        assert!(Dispersion::learned(GammaPrior::new(10.0, 10.0).unwrap()).is_ok());
        // Mean 1e6 ≫ R_MAX, and mean 1e-4 < R_MIN with shape 100: nearly no mass inside.
        for (shape, rate) in [(100.0, 1e-4), (100.0, 1e6)] {
            let e = Dispersion::learned_with(shape, rate).unwrap_err();
            assert!(matches!(e, DispersionError::Prior(_, inside) if inside < 1e-6), "{e}");
            assert!(e.to_string().contains("at least half"), "{e}");
        }
        let e = Dispersion::learned_with(0.0, 1.0).unwrap_err();
        assert_eq!(e, DispersionError::Hyperparameter("shape", 0.0));
        assert!(e.to_string().starts_with("dispersion prior shape = 0 is not allowed"), "{e}");
    }

    #[test]
    fn given_shape_outside_its_range_is_refused() {
        for r in [0.0, -1.0, 1e-4, 2e4, f64::NAN, f64::INFINITY] {
            assert!(Dispersion::given(r).is_err(), "{r}");
        }
        assert!(Dispersion::given(0.3).is_ok());
    }
}
