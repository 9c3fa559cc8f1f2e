//! The Gibbs state of a hierarchical gamma prior ([`ScalePrior`]): one group of rates `ξ_g`, each
//! shared by `per_group` consecutive factors (a row of θ, a word's column of φ, all of π), and
//! their own rate `κ`, fixed or learned.
//!
//! `z_i ~ Gamma(a₀, ξ_{g(i)})`, `ξ_g ~ Gamma(a', κ)` (shape, **rate**), and with a learned `κ`,
//! `κ ~ Gamma(1, b'/a')`. Gibbs steps (all conjugate): `ξ_g | z ~ Gamma(a' + n_g a₀, κ + Σ_{i∈g}
//! z_i)`, then `κ | ξ ~ Gamma(1 + G a', b'/a' + Σ_g ξ_g)`.

use crate::{FactorBlock, GammaPrior, ScalePrior};
use rand::Rng;

/// The rates `ξ_g` of one group of factors and their rate `κ`.
#[derive(Clone, Debug)]
pub(crate) struct RateGroup {
    prior: ScalePrior,
    /// `ξ_g`, one per group.
    pub(crate) rates: Vec<f64>,
    /// `κ`: `a'/b'` when fixed.
    kappa: f64,
}

impl RateGroup {
    /// `groups` rates with prior `prior` (all 0 until drawn).
    pub(crate) fn new(prior: ScalePrior, groups: usize) -> Self {
        Self { prior, rates: vec![0.0; groups], kappa: prior.rate() }
    }

    /// The rates and `κ`, for tests of samplers (a planted wrong conditional).
    pub(crate) fn parts_mut(&mut self) -> (&mut [f64], &mut f64) {
        (&mut self.rates, &mut self.kappa)
    }

    /// The rate of factor `i` of a matrix whose groups are `per_group` consecutive factors.
    pub(crate) fn rate_of(&self, i: usize, per_group: usize) -> f64 {
        self.rates[i / per_group.max(1)]
    }

    /// A draw from the prior: `κ` (if learned), then every `ξ_g ~ Gamma(a', κ)`, from `rng` in that
    /// order (with `κ` fixed the draws are those of the rates alone).
    pub(crate) fn sample_prior<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.prior.learns_mean() {
            self.kappa = self.prior.draw_kappa(&[], rng);
        }
        for rate in &mut self.rates {
            *rate = self.prior.draw(self.kappa, 0.0, &[], rng);
        }
    }

    /// The Gibbs steps given the factors `values` (groups of `per_group` consecutive factors of
    /// shape `a₀`): every `ξ_g`, then (if learned) `κ`, from `rng` in that order.
    pub(crate) fn update<R: Rng + ?Sized>(&mut self, factor_shape: f64, values: &[f64], per_group: usize, rng: &mut R) {
        for (rate, group) in self.rates.iter_mut().zip(values.chunks_exact(per_group.max(1))) {
            *rate = self.prior.draw(self.kappa, factor_shape, group, rng);
        }
        if self.prior.learns_mean() {
            self.kappa = self.prior.draw_kappa(&self.rates, rng);
        }
    }

    /// `ln p(z, ξ, κ)` of the factors `values` with prior shape `factor_prior.shape()`:
    /// `Σ_g [ln Gamma(ξ_g; a', κ) + Σ_{i∈g} ln Gamma(z_i; a₀, ξ_g)] (+ ln p(κ))`.
    pub(crate) fn ln_prior(&self, factor_prior: GammaPrior, values: &[f64], per_group: usize) -> f64 {
        let groups: f64 = values
            .chunks_exact(per_group.max(1))
            .zip(&self.rates)
            .map(|(group, &rate)| {
                self.prior.ln_pdf(rate, self.kappa)
                    + group.iter().map(|&x| factor_prior.ln_pdf_at_rate(x, rate)).sum::<f64>()
            })
            .sum();
        groups + if self.prior.learns_mean() { self.prior.ln_kappa_pdf(self.kappa) } else { 0.0 }
    }

    /// The rates as a factor block named `name`, and `κ` as `kappa_name` when it is learned.
    pub(crate) fn blocks(&self, name: &'static str, kappa_name: &'static str) -> Vec<FactorBlock<'_>> {
        let mut blocks = vec![FactorBlock { name, rows: self.rates.len(), cols: 1, values: &self.rates }];
        if self.prior.learns_mean() {
            blocks.push(FactorBlock { name: kappa_name, rows: 1, cols: 1, values: std::slice::from_ref(&self.kappa) });
        }
        blocks
    }
}
