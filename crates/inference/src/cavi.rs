//! Coordinate-ascent variational inference (CAVI) for Poisson factorization from exact, naïvely
//! truncated, or locally privatized counts (Schofield, Schein, Wu, Wallach: §3 and appendices A–E;
//! appendix E of Schein et al. 2019).
//!
//! One iteration: the local step (every entry's `Q` of its latent counts, given the model's
//! `Q`) — the only place privacy enters, written once for every model — then the model's own
//! coordinate-ascent pass over its factors ([`MeanFieldFactorization::update_factors`]).
//!
//! # The local step of a privatized entry
//! With `λ̂_l = G[λ_l]`, `W_n = λ̂₁ + Σ_k G[μ_nk]` and `ν = |ỹ_n|`:
//! * `Q(m_n)`: the Bessel `Bes(ν, a)` of Proposition 2 (eq. 7 of Schofield et al.), represented by
//!   a point mass at its **mode** `⌊(√(a²+ν²)−ν)/2⌋` ([`MEstimate::Mode`], the paper's choice,
//!   justified by Proposition 3) or by its **mean** `(a/2)·I_{ν+1}(a)/I_ν(a)` ([`MEstimate::Mean`]).
//!   The argument is the paper's `a = 2√(λ̂₂·G[λ₁+μ_n])` with `G[λ₁+μ_n]` by the delta method
//!   (eqs. 30–33 of Schofield et al. = eqs. 69–72 of Schein et al.;
//!   [`BesselArgument::DeltaMethod`]), or the exact mean-field argument `a = 2√(λ̂₂·W_n)`
//!   ([`BesselArgument::Exact`]; see below).
//! * `ỹ⁺_n = m + max(ỹ, 0)`, `g_n2 = m + max(−ỹ, 0)` (eqs. 13–14 of Schein et al.).
//! * `Q(g_n1, y_n1..y_nK) = Mult(ỹ⁺_n, (λ̂₁, G[μ_n1], …, G[μ_nK]))` (eq. 8): the model receives the
//!   ratio `r_n = E[ỹ⁺_n]/W_n`, so that `E[y_nk] = r_n G[μ_nk]`, and `E[g_n1] = r_n λ̂₁`.
//! * `Q(λ_nl) = Gamma(1 + E[g_nl], rate 1/α_n)`: prior `Exp` with mean `α/(1−α)` (rate
//!   `(1−α)/α`) times the Poisson factor of `g_nl` — the same conjugacy as the Gibbs step
//!   ([`crate::lambda_posterior_rate`]).
//!
//! # Why there is an exact variant, and the objective
//! Taking the whole local block `(m, ỹ⁺, g₁, g₂, y_n·)` as one mean-field factor, its optimal `Q`
//! is the conditional of independent Poissons with rates `λ̂₂`, `λ̂₁`, `G[μ_nk]` given
//! `y + g₁ − g₂ = ỹ`: exactly `Bes(ν, 2√(λ̂₂ W_n))` for `m` followed by the multinomial above —
//! the sum of geometric means `W_n`, not the geometric mean of a sum, so no delta method. Its
//! contribution to the ELBO is then `ln Z_n − E[λ₁] − E[λ₂] − E[μ_n]` with
//! `ln Z_n = (ỹ/2) ln(W_n/λ̂₂) + ln I_ν(2√(λ̂₂W_n))` (a Skellam normalizer). Restricting `Q(m)` to a
//! point mass at `m` gives instead `ln t_m` with `t_m = W^{ỹ⁺}/ỹ⁺! · λ̂₂^{g₂}/g₂!` — the Bessel
//! term at `m`, maximized by the mode. So:
//! * `(Mode, Exact)` and `(Mean, Exact)` are exact coordinate ascent on the ELBO of their family:
//!   the objective never decreases (tested);
//! * `(Mode, DeltaMethod)` is the paper's algorithm: its objective is still the exact ELBO of its
//!   `Q` (the point-mass formula holds for any `m`), but the update is not that ELBO's argmax, so
//!   the trace may dip by the approximation error (`G[λ₁+μ] >= λ̂₁ + Σ_k G[μ_nk]`);
//! * `(Mean, DeltaMethod)` reports the ELBO at the optimal local block (`ln Z_n`) as a surrogate.
//!
//! The ELBO is evaluated right after the local step (the multinomial is then optimal, which
//! makes its entropy and expected log-likelihood collapse to the closed forms above).

use crate::entries::{Entries, Entry};
use crate::{InferenceError, lambda_posterior_rate};
use distributions::{Bessel, Streams, digamma, ln_bessel_i, ln_gamma};
use mechanism::Privatized;
use models::chunks::chunk_rows;
use models::{MeanFieldFactorization, MeanMatrix};
use rayon::prelude::*;
use std::fmt;
use std::ops::ControlFlow;

/// Non-private iterations on the truncated counts that start a private fit.
const WARM_START: usize = 10;

/// How `Q(m_n)`'s message `E[m_n]` is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MEstimate {
    /// A point mass at the Bessel mode (Schofield et al., eq. 7 and Proposition 3).
    Mode,
    /// The full Bessel, through its mean.
    Mean,
}

/// The argument `a` of `Q(m_n) = Bes(|ỹ_n|, a)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BesselArgument {
    /// `2√(G[λ₂]·G[λ₁+μ])`, `G[λ₁+μ]` by the delta method (the paper).
    DeltaMethod,
    /// `2√(G[λ₂]·(G[λ₁] + Σ_k G[μ_k]))`, the exact mean-field optimum (see the module docs).
    Exact,
}

/// CAVI settings: stop when the relative change of the objective falls below `tolerance`, or
/// after `max_iterations`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaviSettings {
    max_iterations: usize,
    tolerance: f64,
    m_estimate: MEstimate,
    bessel_argument: BesselArgument,
}

/// A CAVI setting out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct CaviSettingsError {
    /// `"max_iterations"` or `"tolerance"`.
    pub field: &'static str,
    pub value: String,
    pub allowed: &'static str,
}

impl fmt::Display for CaviSettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CAVI settings: {} = {} is not allowed ({})", self.field, self.value, self.allowed)
    }
}

impl std::error::Error for CaviSettingsError {}

impl CaviSettings {
    /// The defaults: the paper's update (mode, delta method), tolerance `1e-6`, at most 1,000
    /// iterations.
    pub const DEFAULT: Self = Self {
        max_iterations: 1000,
        tolerance: 1e-6,
        m_estimate: MEstimate::Mode,
        bessel_argument: BesselArgument::DeltaMethod,
    };

    /// Validates `max_iterations >= 1` and a finite `tolerance >= 0` (0: always run
    /// `max_iterations`).
    pub fn new(
        max_iterations: usize,
        tolerance: f64,
        m_estimate: MEstimate,
        bessel_argument: BesselArgument,
    ) -> Result<Self, CaviSettingsError> {
        if max_iterations == 0 {
            return Err(CaviSettingsError { field: "max_iterations", value: "0".into(), allowed: "an integer >= 1" });
        }
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            let allowed = "a finite number >= 0";
            return Err(CaviSettingsError { field: "tolerance", value: tolerance.to_string(), allowed });
        }
        Ok(Self { max_iterations, tolerance, m_estimate, bessel_argument })
    }

    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    pub fn m_estimate(&self) -> MEstimate {
        self.m_estimate
    }

    pub fn bessel_argument(&self) -> BesselArgument {
        self.bessel_argument
    }
}

impl Default for CaviSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What the progress hook sees after each iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaviProgress {
    /// Iterations done (1-based).
    pub iteration: usize,
    pub max_iterations: usize,
    /// The objective after this iteration's local step.
    pub elbo: f64,
}

/// The result of a CAVI fit.
#[derive(Clone, Debug, PartialEq)]
pub struct CaviSummary {
    /// `E[μ_n]` under the final `Q` (row-major; 0 at excluded entries).
    pub mean_rates: Vec<f64>,
    /// The posterior means of the factors.
    pub mean_factors: Vec<MeanMatrix>,
    /// The objective of each iteration (see the module docs).
    pub elbo: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// `true` if the relative change fell below the tolerance (rather than stopping at the
    /// maximum or by cancellation).
    pub converged: bool,
}

/// The per-entry data of a fit.
#[derive(Clone, Debug)]
enum Observed {
    /// Exact counts (non-private or naïve); `None` marks a missing entry.
    Exact(Vec<Option<u32>>),
    /// Privatized counts, how each entry enters, and `E[g_n1], E[g_n2]` of the current
    /// `Q(λ_n)` (which is `Gamma(1 + E[g_nl], 1/α)`).
    Private { released: Vec<i32>, entries: Entries, expected_g: Vec<[f64; 2]> },
}

/// CAVI for a mean-field model `M` ([`MeanFieldFactorization`]) from exact counts
/// ([`Cavi::non_private`]), truncated privatized counts ([`Cavi::naive`]) or privatized counts
/// ([`Cavi::private`], which accepts only a [`Privatized`] matrix).
#[derive(Clone, Debug)]
pub struct Cavi<M> {
    model: M,
    observed: Observed,
    settings: CaviSettings,
    geometric: Vec<f64>,
    mean: Vec<f64>,
    variance: Vec<f64>,
    ratios: Vec<f64>,
    elbo: Vec<f64>,
}

/// The mean of `values` (at least 1e-3; 1 when empty): the starting scale of `Q`.
fn mean_of(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { 1.0 } else { (sum / n as f64).max(1e-3) }
}

impl<M: MeanFieldFactorization> Cavi<M> {
    fn build(mut model: M, observed: Observed, settings: CaviSettings, streams: Streams) -> Self {
        let n = model.shape().0 * model.shape().1;
        let start = match &observed {
            Observed::Exact(y) => mean_of(y.iter().flatten().map(|&c| f64::from(c))),
            Observed::Private { released, entries, .. } => mean_of(
                released
                    .iter()
                    .zip(entries.iter())
                    .filter(|(_, e)| *e != Entry::Missing)
                    .map(|(&v, _)| f64::from(v.max(0))),
            ),
        };
        model.initialize(start, streams);
        let delta =
            matches!(observed, Observed::Private { .. }) && settings.bessel_argument == BesselArgument::DeltaMethod;
        let moments = if delta { n } else { 0 };
        Self {
            model,
            observed,
            settings,
            geometric: vec![0.0; n],
            mean: vec![0.0; moments],
            variance: vec![0.0; moments],
            ratios: vec![0.0; n],
            elbo: Vec::new(),
        }
    }

    /// CAVI on exact counts (row-major, the model's shape); `missing[n]` marks entries that are
    /// not observed (marginalized: `E[y_nk] = G[μ_nk]`). Entries the model excludes are ignored.
    /// `streams` draws the random start.
    pub fn non_private(
        model: M,
        counts: &[u32],
        missing: Option<&[bool]>,
        settings: CaviSettings,
        streams: Streams,
    ) -> Result<Self, InferenceError> {
        let (rows, cols) = model.shape();
        if counts.len() != rows * cols {
            return Err(InferenceError::Length { what: "counts", expected: rows * cols, found: counts.len() });
        }
        if let Some(mask) = missing
            && mask.len() != counts.len()
        {
            return Err(InferenceError::Length { what: "missing mask", expected: counts.len(), found: mask.len() });
        }
        let y = (0..counts.len())
            .map(|n| {
                let hidden = model.is_excluded(n) || missing.is_some_and(|m| m[n]);
                (!hidden).then_some(counts[n])
            })
            .collect();
        Ok(Self::build(model, Observed::Exact(y), settings, streams))
    }

    /// The naïve method: privatized counts truncated at 0, then non-private CAVI.
    pub fn naive(
        model: M,
        data: &Privatized,
        settings: CaviSettings,
        streams: Streams,
    ) -> Result<Self, InferenceError> {
        crate::non_private::check_shape(model.shape(), data.rows(), data.cols())?;
        Self::non_private(model, &data.truncated(), Some(data.missing()), settings, streams)
    }

    /// Locally private CAVI from privatized counts only. `Q(λ_nl)` starts at
    /// `Gamma(1 + α/(1−α), 1/α)` (mean `α/(1−α)`, the prior mean).
    pub fn private(
        model: M,
        data: &Privatized,
        settings: CaviSettings,
        streams: Streams,
    ) -> Result<Self, InferenceError> {
        crate::non_private::check_shape(model.shape(), data.rows(), data.cols())?;
        let entries = Entries::classify(data, |n| model.is_excluded(n), lambda_posterior_rate)?;
        let expected_g = entries
            .iter()
            .map(|e| match e {
                Entry::Noisy { alpha, .. } => [alpha / (1.0 - alpha); 2],
                _ => [0.0; 2],
            })
            .collect();
        let observed = Observed::Private { released: data.values().to_vec(), entries, expected_g };
        let mut cavi = Self::build(model, observed, settings, streams);
        cavi.warm_start(&data.truncated())?;
        Ok(cavi)
    }

    /// `WARM_START` non-private iterations on the truncated counts `max(ỹ, 0)` before the private
    /// ones (not recorded in the trace). As for the Gibbs sampler: from a random start the noise
    /// components can explain every count, after which the rates shrink to 0 and stay there.
    fn warm_start(&mut self, truncated: &[u32]) -> Result<(), InferenceError> {
        let Observed::Private { entries, .. } = &self.observed else { return Ok(()) };
        let y = entries.iter().zip(truncated).map(|(e, &c)| (e != Entry::Missing).then_some(c)).collect();
        let private = std::mem::replace(&mut self.observed, Observed::Exact(y));
        for _ in 0..WARM_START {
            self.iterate()?;
        }
        self.observed = private;
        self.elbo.clear();
        Ok(())
    }

    /// The model's current `Q`.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The objective of every iteration so far.
    pub fn elbo_trace(&self) -> &[f64] {
        &self.elbo
    }

    /// One iteration: the local step (returns the objective, evaluated there), then the model's
    /// factor updates.
    pub fn iterate(&mut self) -> Result<f64, InferenceError> {
        self.model.geometric_rates_into(&mut self.geometric);
        if !self.mean.is_empty() {
            self.model.rate_moments_into(&mut self.mean, &mut self.variance);
        }
        let per_chunk = chunk_rows(self.model.shape().0) * self.model.shape().1;
        let settings = self.settings;
        let local: f64 = match &mut self.observed {
            Observed::Exact(y) => self
                .ratios
                .par_chunks_mut(per_chunk)
                .zip(y.par_chunks(per_chunk).zip(self.geometric.par_chunks(per_chunk)))
                .map(|(ratios, (y, w))| {
                    let mut sum = 0.0;
                    for ((r, y), &w) in ratios.iter_mut().zip(y).zip(w) {
                        let value;
                        (*r, value) = exact_entry(y.map(f64::from), w);
                        sum += value;
                    }
                    sum
                })
                .collect::<Vec<f64>>()
                .iter()
                .sum(),
            Observed::Private { released, entries, expected_g } => {
                let (mean, variance) = (&self.mean, &self.variance);
                self.ratios
                    .par_chunks_mut(per_chunk)
                    .zip(expected_g.par_chunks_mut(per_chunk))
                    .zip(released.par_chunks(per_chunk).zip(entries.classes().par_chunks(per_chunk)))
                    .zip(self.geometric.par_chunks(per_chunk))
                    .enumerate()
                    .map(|(chunk, (((ratios, expected_g), (released, classes)), w))| {
                        let mut sum = 0.0;
                        for (i, r) in ratios.iter_mut().enumerate() {
                            let moments = (!mean.is_empty()).then(|| {
                                let n = chunk * per_chunk + i;
                                (mean[n], variance[n])
                            });
                            let (ratio, value) = match entries.table()[classes[i] as usize] {
                                Entry::Missing => exact_entry(None, w[i]),
                                Entry::Exact => exact_entry(Some(f64::from(released[i].max(0))), w[i]),
                                Entry::Noisy { alpha, .. } => {
                                    let step =
                                        private_local_step(released[i], alpha, expected_g[i], w[i], moments, settings)?;
                                    expected_g[i] = step.expected_g;
                                    (step.ratio, step.elbo)
                                }
                            };
                            *r = ratio;
                            sum += value;
                        }
                        Ok(sum)
                    })
                    .collect::<Result<Vec<f64>, InferenceError>>()?
                    .iter()
                    .sum()
            }
        };
        let elbo = local - self.model.total_mean_rate() + self.model.factor_elbo();
        self.model.update_factors(&self.ratios);
        self.elbo.push(elbo);
        Ok(elbo)
    }

    /// Iterates until the relative change of the objective falls below the tolerance or
    /// `max_iterations` are done; `progress` runs after every iteration and may stop the fit.
    pub fn fit(
        mut self,
        mut progress: impl FnMut(&CaviProgress) -> ControlFlow<()>,
    ) -> Result<CaviSummary, InferenceError> {
        let max = self.settings.max_iterations;
        let mut converged = false;
        for iteration in 1..=max {
            let elbo = self.iterate()?;
            if let [.., previous, _] = self.elbo[..] {
                let change = (elbo - previous).abs() / previous.abs().max(f64::MIN_POSITIVE);
                if change < self.settings.tolerance {
                    converged = true;
                }
            }
            let stop = progress(&CaviProgress { iteration, max_iterations: max, elbo }).is_break();
            if converged || stop {
                break;
            }
        }
        let (rows, cols) = self.model.shape();
        let mut mean_rates = vec![0.0; rows * cols];
        self.model.mean_rates_into(&mut mean_rates);
        Ok(CaviSummary {
            mean_rates,
            mean_factors: self.model.mean_factors(),
            iterations: self.elbo.len(),
            elbo: self.elbo,
            converged,
        })
    }
}

/// The local step of an entry whose count is known or missing, given `w = Σ_k G[μ_nk]`:
/// `(ratio, objective terms except −E[μ_n])`. A count `y` gives `(y/w, y ln w − ln y!)` (the
/// optimal multinomial's collapsed ELBO); a missing entry is marginalized,
/// `E[y_nk] = G[μ_nk]`, giving `(1, w)` (`(0, 0)` where the model excludes it, `w = 0`).
fn exact_entry(count: Option<f64>, w: f64) -> (f64, f64) {
    match count {
        None => (if w > 0.0 { 1.0 } else { 0.0 }, w),
        Some(0.0) => (0.0, 0.0),
        Some(c) => {
            let w = w.max(f64::MIN_POSITIVE);
            (c / w, c * w.ln() - ln_gamma(c + 1.0))
        }
    }
}

/// The outcome of one privatized entry's local step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalStep {
    /// `r_n = E[ỹ⁺_n]/W_n`: the model's expected sub-counts are `r_n G[μ_nk]`.
    pub ratio: f64,
    /// The new `E[g_n1], E[g_n2]` (which set `Q(λ_n)` for the next iteration).
    pub expected_g: [f64; 2],
    /// `E[m_n]` (an integer for [`MEstimate::Mode`]).
    pub expected_m: f64,
    /// The entry's objective terms except `−E[μ_n]`, at the entry's `Q(λ)` (see module docs).
    pub elbo: f64,
}

/// `ln E[X] − V[X]/(2E[X]²)`: the delta-method (second-order) approximation of `E[ln X]`
/// (eq. 69–70 of Schein et al.; eqs. 30–31 of Schofield et al.).
pub fn delta_method_ln_mean(mean: f64, variance: f64) -> f64 {
    mean.ln() - variance / (2.0 * mean * mean)
}

/// The local step of one privatized entry (module docs): `released = ỹ_n`, noise level `α > 0`,
/// `expected_g` the `E[g_n·]` that define the current `Q(λ_n)`, `geometric_rate = Σ_k G[μ_nk]`,
/// and for [`BesselArgument::DeltaMethod`] the model's `(E[μ_n], Σ_k V[μ_nk])`.
pub fn private_local_step(
    released: i32,
    alpha: f64,
    expected_g: [f64; 2],
    geometric_rate: f64,
    moments: Option<(f64, f64)>,
    settings: CaviSettings,
) -> Result<LocalStep, InferenceError> {
    let ln_alpha = alpha.ln();
    // Q(λ_l) = Gamma(s_l, rate 1/α): E[λ] = α s, E[ln λ] = ψ(s) + ln α, V[λ] = α² s.
    let shape = [1.0 + expected_g[0], 1.0 + expected_g[1]];
    let psi = [digamma(shape[0]), digamma(shape[1])];
    let ln_lambda = [psi[0] + ln_alpha, psi[1] + ln_alpha];
    let lambda1 = ln_lambda[0].exp();
    let w = (lambda1 + geometric_rate).max(f64::MIN_POSITIVE);
    let ln_w = w.ln();
    let nu = f64::from(released.unsigned_abs());
    let ln_h2 = match (settings.bessel_argument, moments) {
        (BesselArgument::DeltaMethod, Some((mean, variance))) => {
            let m = alpha * shape[0] + mean;
            ln_lambda[1] + delta_method_ln_mean(m, alpha * alpha * shape[0] + variance)
        }
        _ => ln_lambda[1] + ln_w,
    };
    // a = 2√(λ̂₂·G), so (a/2)² = e^{ln_h2}.
    let a = 2.0 * (0.5 * ln_h2).exp();
    let bessel = Bessel::new(nu, a)?;
    let m = match settings.m_estimate {
        MEstimate::Mode => bessel.mode() as f64,
        MEstimate::Mean => bessel.mean(),
    };
    let plus = m + f64::from(released.max(0));
    let g2 = m + f64::from((-released).max(0));
    let ratio = plus / w;
    let local = match settings.m_estimate {
        // ln t_m = ỹ⁺ ln W − ln ỹ⁺! + g₂ ln λ̂₂ − ln g₂!
        MEstimate::Mode => plus * ln_w - ln_gamma(plus + 1.0) + g2 * ln_lambda[1] - ln_gamma(g2 + 1.0),
        // ln Z = (ỹ/2) ln(W/λ̂₂) + ln I_ν(2√(λ̂₂ W))
        MEstimate::Mean => {
            let argument = 2.0 * (0.5 * (ln_lambda[1] + ln_w)).exp();
            0.5 * f64::from(released) * (ln_w - ln_lambda[1]) + ln_bessel_i(nu, argument)
        }
    };
    // E ln p(λ) + H(Q(λ)) − E[λ] for both halves: prior rate (1−α)/α, Q rate 1/α (ln = −ln α).
    let prior_rate = (1.0 - alpha) / alpha;
    let lambda_terms: f64 = (0..2)
        .map(|l| {
            let (s, mean) = (shape[l], alpha * shape[l]);
            prior_rate.ln() - prior_rate * mean + s + ln_alpha + ln_gamma(s) + (1.0 - s) * psi[l] - mean
        })
        .sum();
    Ok(LocalStep { ratio, expected_g: [ratio * lambda1, g2], expected_m: m, elbo: local + lambda_terms })
}
