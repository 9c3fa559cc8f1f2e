//! Replica exchange (parallel tempering; Swendsen & Wang 1986, Geyer 1991) over the tempered
//! complete-data family of `models::tempering`: `R` replicas of one sampler, replica `r` at
//! inverse temperature `β_r` (`1 = β_0 > β_1 > … > β_{R−1} > 0`), each sweeping its own state
//! with its own streams; after every sweep neighbouring rungs propose to exchange their states
//! (implemented as exchanging temperatures), accepted with probability
//!
//! `min(1, exp((β_r − β_{r+1}) (E_{r+1} − E_r)))`
//!
//! where `E` is the energy of the state on each rung (`PoissonFactorization::energy`). Even
//! pairs `(0,1), (2,3), …` are proposed after odd sweeps, odd pairs after even ones. The cold rung
//! (`β = 1`) samples the model's posterior; it is what the chain records.
//!
//! **The ladder** starts geometric, `β_r = β_min^{r/(R−1)}` with `β_min = `[`START_COLDEST`], and
//! is adapted during burn-in only (so the kept samples come from a fixed, valid kernel): every
//! [`ADAPT_EVERY`] sweeps each gap `ln β_r − ln β_{r+1}` shrinks by a third where that pair's
//! swap rate was below [`TARGET_SWAP`]`.0` and grows by a third where it was above `.1`.
//!
//! Reproducible: replica `r` sweeps on `streams.child(r)`, the swap decisions come from
//! `streams.child(SWAP)`, and the replicas run in parallel, so the result does not depend on
//! the thread count.

use crate::{InferenceError, Sampler};
use distributions::Streams;
use models::PoissonFactorization;
use rand::RngExt;
use rayon::prelude::*;

/// The coldest inverse temperature of the starting ladder.
pub const START_COLDEST: f64 = 0.5;
/// Sweeps between two adaptations of the ladder during burn-in.
pub const ADAPT_EVERY: usize = 50;
/// The swap rates the adaptation aims between.
pub const TARGET_SWAP: (f64, f64) = (0.2, 0.5);
/// The stream of the swap decisions (replicas use `child(r)` for `r < R ≤ MAX_REPLICAS`).
const SWAP: u64 = u64::MAX - 3;
/// Replicas of tables with at least this many cells sweep in parallel.
const PARALLEL_CELLS: usize = 4096;
/// More replicas than this are refused.
pub const MAX_REPLICAS: usize = 64;

/// The swap acceptance probability between rungs at `beta_a > beta_b` holding states of
/// energies `energy_a`, `energy_b` (module docs).
pub fn swap_probability(beta_a: f64, beta_b: f64, energy_a: f64, energy_b: f64) -> f64 {
    let log = (beta_a - beta_b) * (energy_b - energy_a);
    if log >= 0.0 { 1.0 } else { log.exp() }
}

/// `R` replicas of a sampler under replica exchange; a [`Sampler`] whose state is the cold rung's.
#[derive(Clone, Debug)]
pub struct Replicas<S: Sampler> {
    replicas: Vec<S>,
    /// `betas[r]`: the inverse temperature of rung `r` (`betas[0] = 1`).
    betas: Vec<f64>,
    /// `on_rung[r]`: the replica that holds rung `r`.
    on_rung: Vec<usize>,
    /// Sweeps done.
    sweeps: usize,
    /// The ladder adapts while `sweeps < adapt_until`.
    adapt_until: usize,
    /// Per neighbouring pair `(r, r+1)`: swaps proposed and accepted, over the whole run and
    /// since the last adaptation.
    proposed: Vec<usize>,
    accepted: Vec<usize>,
    window: Vec<(usize, usize)>,
    /// The swap rule, replaceable by tests (a planted wrong acceptance).
    rule: fn(f64, f64, f64, f64) -> f64,
}

impl<S: Sampler + Clone> Replicas<S> {
    /// `replicas` copies of `sampler` on the starting ladder, adapting it during the first
    /// `adapt_until` sweeps (the burn-in). The replicas start from the sampler's state and
    /// separate through their own streams. Errors on 0 or more than [`MAX_REPLICAS`] replicas, or a model that cannot
    /// be tempered (the negative-binomial likelihood).
    pub fn new(sampler: S, replicas: usize, adapt_until: usize) -> Result<Self, InferenceError> {
        if replicas == 0 || replicas > MAX_REPLICAS {
            return Err(InferenceError::Numerical(format!(
                "replicas = {replicas} is not allowed: it must be an integer from 1 to {MAX_REPLICAS}"
            )));
        }
        let betas: Vec<f64> = (0..replicas)
            .map(|r| if replicas == 1 { 1.0 } else { START_COLDEST.powf(r as f64 / (replicas - 1) as f64) })
            .collect();
        let mut all = vec![sampler; replicas];
        for (replica, &beta) in all.iter_mut().zip(&betas) {
            replica.model_mut().set_temperature(beta).map_err(|e| InferenceError::Numerical(e.to_string()))?;
        }
        let pairs = replicas.saturating_sub(1);
        Ok(Self {
            replicas: all,
            betas,
            on_rung: (0..replicas).collect(),
            sweeps: 0,
            adapt_until,
            proposed: vec![0; pairs],
            accepted: vec![0; pairs],
            window: vec![(0, 0); pairs],
            rule: swap_probability,
        })
    }

    /// The same replicas with another swap rule (for tests: a planted wrong acceptance).
    #[doc(hidden)]
    pub fn with_rule(mut self, rule: fn(f64, f64, f64, f64) -> f64) -> Self {
        self.rule = rule;
        self
    }
}

impl<S: Sampler> Replicas<S> {
    /// The ladder `β_0 = 1 > β_1 > …`.
    pub fn ladder(&self) -> &[f64] {
        &self.betas
    }

    /// The swap rate of each neighbouring pair of rungs over the whole run (`NaN` before any
    /// proposal).
    pub fn swap_rates(&self) -> Vec<f64> {
        self.proposed.iter().zip(&self.accepted).map(|(&p, &a)| a as f64 / p as f64).collect()
    }

    /// Proposes exchanges between the pairs of this sweep's parity, with uniforms from `streams`.
    fn exchange(&mut self, streams: Streams) {
        let mut rng = streams.rng();
        let energies: Vec<f64> = self.replicas.iter().map(|r| r.model().energy()).collect();
        for r in (self.sweeps % 2..self.betas.len().saturating_sub(1)).step_by(2) {
            let (a, b) = (self.on_rung[r], self.on_rung[r + 1]);
            let p = (self.rule)(self.betas[r], self.betas[r + 1], energies[a], energies[b]);
            let u: f64 = rng.random();
            self.proposed[r] += 1;
            self.window[r].0 += 1;
            if u < p {
                self.accepted[r] += 1;
                self.window[r].1 += 1;
                self.on_rung.swap(r, r + 1);
            }
        }
    }

    /// Widens or narrows each gap of the ladder by its swap rate since the last adaptation.
    fn adapt(&mut self) {
        let mut log_betas: Vec<f64> = self.betas.iter().map(|b| b.ln()).collect();
        let mut gaps: Vec<f64> = log_betas.windows(2).map(|w| w[0] - w[1]).collect();
        for (gap, &(proposed, accepted)) in gaps.iter_mut().zip(&self.window) {
            let rate = accepted as f64 / proposed.max(1) as f64;
            if rate < TARGET_SWAP.0 {
                *gap *= 2.0 / 3.0;
            } else if rate > TARGET_SWAP.1 {
                *gap *= 4.0 / 3.0;
            }
        }
        for r in 1..log_betas.len() {
            log_betas[r] = log_betas[r - 1] - gaps[r - 1];
        }
        self.betas = log_betas.iter().map(|l| l.exp().max(f64::MIN_POSITIVE)).collect();
        self.window.iter_mut().for_each(|w| *w = (0, 0));
    }
}

impl<S: Sampler + Send> Sampler for Replicas<S> {
    type Model = S::Model;

    fn step(&mut self, streams: Streams) -> Result<(), InferenceError> {
        // Each replica sweeps at the temperature of its rung, on its own stream.
        let mut beta_of = vec![1.0; self.replicas.len()];
        for (r, &replica) in self.on_rung.iter().enumerate() {
            beta_of[replica] = self.betas[r];
        }
        let sweep = |(i, (replica, beta)): (usize, (&mut S, f64))| {
            replica.model_mut().set_temperature(beta).map_err(|e| InferenceError::Numerical(e.to_string()))?;
            replica.step(streams.child(i as u64))
        };
        // Replicas of a small table sweep one after another (a parallel hand-off costs more than
        // their sweeps); the result is the same either way.
        let (rows, cols) = self.replicas[0].model().shape();
        if rows * cols >= PARALLEL_CELLS {
            self.replicas.par_iter_mut().zip(beta_of).enumerate().try_for_each(sweep)?;
        } else {
            self.replicas.iter_mut().zip(beta_of).enumerate().try_for_each(sweep)?;
        }
        self.sweeps += 1;
        if self.replicas.len() > 1 {
            self.exchange(streams.child(SWAP));
            if self.sweeps < self.adapt_until && self.sweeps.is_multiple_of(ADAPT_EVERY) {
                self.adapt();
            }
        }
        // The cold rung's replica must report the untempered rates to the chain.
        let cold = self.on_rung[0];
        self.replicas[cold].model_mut().set_temperature(1.0).map_err(|e| InferenceError::Numerical(e.to_string()))
    }

    fn model(&self) -> &S::Model {
        self.replicas[self.on_rung[0]].model()
    }

    fn model_mut(&mut self) -> &mut S::Model {
        let cold = self.on_rung[0];
        self.replicas[cold].model_mut()
    }

    fn hold_dispersion(&mut self, r: Option<f64>) {
        self.replicas.iter_mut().for_each(|replica| replica.hold_dispersion(r));
    }

    fn counts(&self) -> &[u32] {
        self.replicas[self.on_rung[0]].counts()
    }
}

#[cfg(test)]
mod tests;
