//! The overlapping-community (mixed-membership) block model.

use crate::chunks::{
    ChunkBuffers, allocate_each, allocate_each_from, chunk_count, chunk_rows, column_sums_into, cumulative_products,
    cumulative_products_group, dot_rows_transposed, reduce_chunks_into, reduce_into, transposed,
};
use crate::error::{ModelError, check_factor};
use crate::hierarchy::RateGroup;
use crate::hmc::Hmc;
use crate::overdispersion::Overdispersion;
use crate::tempering::{count_log_sum, energy, powered};
use crate::{FactorBlock, GammaPrior, Likelihood, ModelledCells, PoissonFactorization, ScalePrior};
use distributions::Streams;
use rayon::prelude::*;

/// Stream ids of the steps of one sweep.
const ALLOCATE: u64 = 0;
const THETA: u64 = 1;
const PI: u64 = 2;
const PRIOR: u64 = 3;
const RATES: u64 = 4;
const PRIOR_RATES: u64 = 5;
const DISPERSION: u64 = 6;
const PRIOR_DISPERSION: u64 = 7;
const HMC: u64 = 8;

/// The overlapping-community block model of a directed `V × V` network without self-loops
/// (§5.1 of Schein et al. 2019): for `i ≠ j`, `y_ij ~ Pois(μ_ij)`,
/// `μ_ij = Σ_c Σ_d θ_ic θ_jd π_cd`, `θ_ic, π_cd ~ Gamma(a₀, b₀)` (shape, rate). The diagonal is
/// excluded (rate 0, count ignored).
///
/// Gibbs sweep, given complete counts:
/// * allocation of `y_ij` over `(c, d)` in two stages, `O(C)` per unit count rather than
///   `O(C²)`: first `(y_ijc·)_c ~ Mult(y_ij, (θ_ic w_jc)_c)` with `w_jc = Σ_d π_cd θ_jd`, then for
///   each `c`, `(y_ijcd)_d ~ Mult(y_ijc·, (π_cd θ_jd)_d)` — the product of the two is the joint
///   multinomial over pairs with weights `θ_ic θ_jd π_cd`;
/// * `θ_i·` row by row: since `i ≠ j`, `μ_ij` is linear in row `i`, so
///   `θ_ic ~ Gamma(a₀ + Σ_{j,d} y_ijcd + Σ_{j,c'} y_jic'c, b₀ + Σ_d (S_d − θ_id) π_cd + Σ_{c'} (S_{c'} − θ_ic') π_{c'c})`
///   with `S_c = Σ_j θ_jc` (the `S − θ_i` terms sum over `j ≠ i`), updating `S` after each row;
/// * `π_cd ~ Gamma(a₀ + Σ_ij y_ijcd, b₀ + S_c S_d − Σ_i θ_ic θ_id)`.
///
/// With a hierarchical prior ([`BlockModel::with_hierarchy`]) each actor's memberships share a
/// learned rate and so do the community rates: `θ_ic ~ Gamma(a₀, ξ_i)`, `π_cd ~ Gamma(a₀, λ)`,
/// `ξ_i, λ ~ Gamma(a', a'/b')` ([`ScalePrior`]); `ξ_i` and `λ` replace `b₀` in the conditionals
/// above and are drawn after them: `ξ_i ~ Gamma(a' + C a₀, a'/b' + Σ_c θ_ic)`,
/// `λ ~ Gamma(a' + C² a₀, a'/b' + Σ_cd π_cd)`.
///
/// The undirected form ([`BlockModel::undirected`]) models an undirected network, one count per
/// unordered pair: `y_ij ~ Pois(μ_ij)` for `i < j` only (the lower triangle and the diagonal are
/// excluded) with `π` symmetric, so `μ_ij = μ_ji` whichever way the pair is written. Its sweep is
/// the one above restricted to `i < j`: the allocation of `y_ij` is the same; `θ_ic`'s exposure
/// is `Σ_d π_cd (Σ_{j>i} θ_jd + Σ_{j<i} θ_jd)`; and, with `E_cd = Σ_{i<j} θ_ic θ_jd`, each free
/// `π_cd = π_dc` (`c ≤ d`) is drawn from `Gamma(a₀ + n_cd + n_dc, b₀ + E_cd + E_dc)` (for `c = d`:
/// `Gamma(a₀ + n_cc, b₀ + E_cc)`), its prior `Gamma(a₀, b₀)` on the `C(C+1)/2` free entries.
///
/// With the negative-binomial likelihood ([`BlockModel::with_likelihood`]) the cell's Poisson rate
/// is `μ_ij δ_ij` and every exposure is weighted by `δ`: `θ_ic`'s is
/// `Σ_d π_cd A_id + Σ_d π_dc B_id` with `A_id = Σ_{j≠i} δ_ij θ_jd`, `B_id = Σ_{j≠i} δ_ji θ_jd`
/// (formed row by row with the current `θ`), and `π_cd`'s is `Σ_{i≠j} δ_ij θ_ic θ_jd`.
#[derive(Clone, Debug)]
pub struct BlockModel {
    actors: usize,
    communities: usize,
    prior: GammaPrior,
    /// `V × C`.
    theta: Vec<f64>,
    /// `C × C`.
    pi: Vec<f64>,
    /// Derived: `w_jc = Σ_d π_cd θ_jd`, `V × C`; recomputed whenever `θ` or `π` change.
    w: Vec<f64>,
    /// Derived with `w`: the running sums over `d` of `π_cd θ_jd`, `V × C × C` (index
    /// `(j·C + c)·C + d`), the weights of the allocation's second stage for recipient `j` and
    /// sender community `c`; `w_jc` is the last of them. Kept rather than formed per non-zero
    /// count: `V·C²` values once a sweep against `C` products per count (at `V = 161`, `C = 10`
    /// a 129 kB table; `lppf validate` counts it in a run's memory).
    recipient_sums: Vec<f64>,
    /// `Σ_{j,d} y_ijcd + Σ_{j,c'} y_jic'c` (sent + received), `V × C`.
    actor_counts: Vec<u32>,
    /// `Σ_ij y_ijcd`, `C × C`.
    pair_counts: Vec<u32>,
    /// Per-chunk received counts (`V × C`) with allocation scratch, and pair counts (`C × C`).
    chunks: Vec<ChunkBuffers>,
    chunk_pairs: Vec<Vec<u32>>,
    received: Vec<u32>,
    /// `S_c = Σ_j θ_jc`, and the exposures of one row (length `C` each).
    sums: Vec<f64>,
    exposure: Vec<f64>,
    /// The learned rates of a hierarchical prior; `None`: the flat `Gamma(a₀, b₀)`.
    hierarchy: Option<Hierarchy>,
    /// The negative-binomial likelihood's `δ` and `r`; `None`: Poisson.
    overdispersion: Option<Overdispersion>,
    /// The inverse temperature `β` of the complete-data likelihood (1: the model itself;
    /// `crate::tempering`). `w` and `recipient_sums` are of the factors raised to `β`.
    beta: f64,
    /// The undirected form: pairs `i < j` only, `π` symmetric.
    undirected: bool,
    /// The Hamiltonian move of `θ` and `π` after each sweep (`crate::block_hmc`); `None`: Gibbs only.
    hmc: Option<Hmc>,
    /// A planted bug for the mutation test of the Hamiltonian move
    /// ([`BlockModel::plant_missing_jacobian_bug`]). Always false outside that test.
    planted_missing_jacobian: bool,
    /// A planted bug for the mutation test of the undirected sampler
    /// ([`BlockModel::plant_directed_exposure_bug`]): `θ`'s exposure counts every other actor
    /// twice, as in a directed network. Always false outside that test.
    planted_directed_exposure: bool,
}

/// A hierarchical prior's state: `ξ_i` per actor and one `λ` for `π` (each with its `κ`).
#[derive(Clone, Debug)]
struct Hierarchy {
    xi: RateGroup,
    lambda: RateGroup,
}

impl BlockModel {
    /// A network of `actors` actors with `communities` communities, factors drawn from the prior.
    /// Panics if a dimension is 0 (a programming error; the pipeline validates shapes first).
    pub fn new(actors: usize, communities: usize, prior: GammaPrior, streams: Streams) -> Self {
        Self::build(actors, communities, prior, false, streams)
    }

    /// The undirected form of an undirected network of `actors` actors: one count per pair
    /// `i < j`, `π` symmetric (see the type's documentation); factors drawn from the prior.
    pub fn undirected(actors: usize, communities: usize, prior: GammaPrior, streams: Streams) -> Self {
        Self::build(actors, communities, prior, true, streams)
    }

    fn build(actors: usize, communities: usize, prior: GammaPrior, undirected: bool, streams: Streams) -> Self {
        assert!(actors > 0 && communities > 0, "BlockModel dimensions must be positive");
        let (v, c) = (actors, communities);
        let chunks = chunk_count(v);
        let mut model = Self {
            actors,
            communities,
            prior,
            theta: vec![0.0; v * c],
            pi: vec![0.0; c * c],
            w: vec![0.0; v * c],
            recipient_sums: vec![0.0; v * c * c],
            actor_counts: vec![0; v * c],
            pair_counts: vec![0; c * c],
            chunks: ChunkBuffers::for_chunks(chunks, v * c, c),
            chunk_pairs: vec![vec![0; c * c]; chunks],
            received: vec![0; v * c],
            sums: vec![0.0; c],
            exposure: vec![0.0; c],
            hierarchy: None,
            overdispersion: None,
            beta: 1.0,
            undirected,
            hmc: None,
            planted_missing_jacobian: false,
            planted_directed_exposure: false,
        };
        model.sample_prior(streams);
        model
    }

    /// For the Geweke mutation test only: the undirected model with a planted bug, `θ` drawn with
    /// the directed exposure `Σ_d π_cd 2 Σ_{j≠i} θ_jd` (both orientations of every pair, while
    /// only `i < j` are modelled). The test must reject it.
    #[doc(hidden)]
    pub fn plant_directed_exposure_bug(mut self) -> Self {
        self.planted_directed_exposure = true;
        self
    }

    /// For the Geweke mutation test only: the Hamiltonian move's density without the Jacobian of
    /// `x = ln θ` (the gamma density of `θ` taken as that of `ln θ`). The test must reject it.
    #[doc(hidden)]
    pub fn plant_missing_jacobian_bug(mut self) -> Self {
        self.planted_missing_jacobian = true;
        self
    }

    /// Whether this is the undirected form.
    pub(crate) fn is_undirected(&self) -> bool {
        self.undirected
    }

    /// The number of actors `V`.
    pub(crate) fn actors(&self) -> usize {
        self.actors
    }

    pub(crate) fn set_hmc(&mut self, hmc: Option<Hmc>) {
        self.hmc = hmc;
    }

    /// The factors' prior shape `a₀`.
    pub(crate) fn prior_shape(&self) -> f64 {
        self.prior.shape()
    }

    /// The rate of each actor's memberships (`ξ_i`, or `b₀` under the flat prior) and of `π`
    /// (`λ`, or `b₀`).
    pub(crate) fn prior_rates(&self) -> (Vec<f64>, f64) {
        match &self.hierarchy {
            None => (vec![self.prior.rate(); self.actors], self.prior.rate()),
            Some(h) => (h.xi.rates.clone(), h.lambda.rates[0]),
        }
    }

    /// The cells the model describes.
    fn modelled(&self) -> ModelledCells {
        if self.undirected { ModelledCells::Pairs } else { ModelledCells::OffDiagonal }
    }

    /// The free entries of `π`: all of them, or (undirected) those with `c ≤ d`.
    fn free_pi(&self) -> Vec<f64> {
        let c = self.communities;
        match self.undirected {
            false => self.pi.clone(),
            true => (0..c).flat_map(|cc| (cc..c).map(move |d| (cc, d))).map(|(cc, d)| self.pi[cc * c + d]).collect(),
        }
    }

    /// The model with the given likelihood (the negative binomial adds a multiplier `δ_ij` per
    /// modelled cell, see [`Likelihood`]); every factor is redrawn from the prior with `streams`.
    pub fn with_likelihood(mut self, likelihood: Likelihood, streams: Streams) -> Self {
        self.overdispersion = Overdispersion::for_likelihood(likelihood, self.actors, self.actors, self.modelled());
        self.sample_prior(streams);
        self
    }

    /// The model with a hierarchical prior: the memberships' rates learned per actor (`ξ_i`) and
    /// the community rates' rate (`λ`) with prior `scale` instead of fixed at `b₀`; every factor is
    /// redrawn from the new prior with `streams`.
    pub fn with_hierarchy(mut self, scale: ScalePrior, streams: Streams) -> Self {
        self.hierarchy = Some(Hierarchy { xi: RateGroup::new(scale, self.actors), lambda: RateGroup::new(scale, 1) });
        self.sample_prior(streams);
        self
    }

    /// A hierarchical prior's actor rates `ξ`, for tests of samplers (a planted wrong
    /// conditional); `None` with the flat prior.
    #[doc(hidden)]
    pub fn actor_rates_mut(&mut self) -> Option<&mut [f64]> {
        self.hierarchy.as_mut().map(|h| h.xi.rates.as_mut_slice())
    }

    /// Draws the hierarchical rates given the factors (or, `given` false, from their prior), `ξ`
    /// then `λ` from one stream.
    fn draw_rates(&mut self, given: bool, streams: Streams) {
        let (c, a0) = (self.communities, self.prior.shape());
        let free_pi = self.free_pi();
        let Some(h) = &mut self.hierarchy else { return };
        let mut rng = streams.rng();
        if given {
            h.xi.update(a0, &self.theta, c, &mut rng);
            h.lambda.update(a0, &free_pi, free_pi.len(), &mut rng);
        } else {
            h.xi.sample_prior(&mut rng);
            h.lambda.sample_prior(&mut rng);
        }
    }

    /// Replaces the factors (`theta` is `V × C`, `pi` is `C × C`). Errors on a wrong length, a
    /// value that is not finite and `> 0`, or (undirected) a `pi` that is not symmetric.
    pub fn set_factors(&mut self, theta: &[f64], pi: &[f64]) -> Result<(), ModelError> {
        let (v, c) = (self.actors, self.communities);
        check_factor("theta", theta, v, c)?;
        check_factor("pi", pi, c, c)?;
        if self.undirected
            && let Some((row, col)) =
                (0..c).flat_map(|r| (r + 1..c).map(move |d| (r, d))).find(|&(r, d)| pi[r * c + d] != pi[d * c + r])
        {
            return Err(ModelError::Asymmetric { factor: "pi", row, col });
        }
        self.theta.copy_from_slice(theta);
        self.pi.copy_from_slice(pi);
        self.refresh_w();
        Ok(())
    }

    /// Number of communities `C`.
    pub fn communities(&self) -> usize {
        self.communities
    }

    /// `θ`, `V × C`.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// `π`, `C × C`.
    pub fn pi(&self) -> &[f64] {
        &self.pi
    }

    /// `θ` and `π` raised to the inverse temperature `β` (`None` at `β = 1`: the factors themselves).
    fn tempered(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        (self.beta != 1.0).then(|| (powered(&self.theta, self.beta), powered(&self.pi, self.beta)))
    }

    /// `w_jc = Σ_d π_cd θ_jd` (of the factors raised to `β`), as the last of the running sums kept
    /// in `recipient_sums`.
    fn refresh_w(&mut self) {
        let c = self.communities;
        let tempered = self.tempered();
        let (theta, pi) = tempered.as_ref().map_or((&self.theta, &self.pi), |(t, p)| (t, p));
        let rows = self.w.chunks_exact_mut(c).zip(theta.chunks_exact(c));
        for ((w_j, theta_j), sums_j) in rows.zip(self.recipient_sums.chunks_exact_mut(c * c)) {
            for ((w, pi_c), sums) in w_j.iter_mut().zip(pi.chunks_exact(c)).zip(sums_j.chunks_exact_mut(c)) {
                cumulative_products(sums, pi_c, theta_j);
                *w = sums[c - 1];
            }
        }
    }

    fn allocate_all(&mut self, y: &[u32], streams: Streams) {
        let (v, c) = (self.actors, self.communities);
        let per_chunk = chunk_rows(v);
        // At a temperature 1/β the weights are θ_ic^β θ_jd^β π_cd^β (`w` already holds them).
        let tempered = (self.beta != 1.0).then(|| powered(&self.theta, self.beta));
        let theta = tempered.as_deref().unwrap_or(&self.theta);
        let (w, recipient_sums, undirected) = (&self.w, &self.recipient_sums, self.undirected);
        self.actor_counts
            .par_chunks_mut(per_chunk * c)
            .zip(self.chunks.par_iter_mut().zip(self.chunk_pairs.par_iter_mut()))
            .zip(y.par_chunks(per_chunk * v))
            .enumerate()
            .for_each(|(chunk, ((sent, (buffers, pairs)), y))| {
                let mut rng = streams.child(chunk as u64).rng();
                let ChunkBuffers { counts: received, cumulative: spare, draw: by_c, second: by_d, batch, nonzero } =
                    buffers;
                sent.fill(0);
                received.fill(0);
                pairs.fill(0);
                for (local, (y_i, sent_i)) in y.chunks_exact(v).zip(sent.chunks_exact_mut(c)).enumerate() {
                    let i = chunk * per_chunk + local;
                    let theta_i = &theta[i * c..(i + 1) * c];
                    // The row's non-zero counts four at a time: the running sums of their first-stage
                    // weights θ_ic w_jc are formed together, then each count is allocated in column order.
                    nonzero.clear();
                    // The modelled cells of the row: j ≠ i, or (undirected) j > i.
                    let first = if undirected { i + 1 } else { 0 };
                    let modelled = y_i.iter().enumerate().skip(first).filter(|&(j, n)| j != i && *n > 0);
                    nonzero.extend(modelled.map(|(j, _)| j));
                    for group in nonzero.chunks(4) {
                        cumulative_products_group(batch, theta_i, group, |j| &w[j * c..(j + 1) * c]);
                        for (weights, &j) in batch.chunks_exact_mut(c).zip(group) {
                            // Each e-mail's sender community, then (community by community) its
                            // recipient community, from the kept second-stage sums.
                            let mut recipients = |cc: usize, n_c: u64, by_d: &mut [u64], rng: &mut _| {
                                let sums = &recipient_sums[(j * c + cc) * c..(j * c + cc + 1) * c];
                                sent_i[cc] += n_c as u32;
                                let received_j = &mut received[j * c..(j + 1) * c];
                                let pairs_c = &mut pairs[cc * c..(cc + 1) * c];
                                allocate_each_from(n_c, sums, spare, by_d, rng, |d, n| {
                                    received_j[d] += n as u32;
                                    pairs_c[d] += n as u32;
                                });
                            };
                            let count = y_i[j];
                            if count == 1 {
                                let mut sender = 0;
                                allocate_each(1, weights, by_d, &mut rng, |cc, _| sender = cc);
                                recipients(sender, 1, by_d, &mut rng);
                                continue;
                            }
                            by_c.fill(0);
                            // The sender communities that received units, as a bit mask (C ≤ 64),
                            // visited in ascending order as the scan over all C below does. With
                            // more communities the mask is unused (`wrapping_shl` keeps it defined).
                            let mut senders = 0u64;
                            allocate_each(u64::from(count), weights, by_d, &mut rng, |cc, n| {
                                by_c[cc] += n;
                                senders |= 1u64.wrapping_shl(cc as u32);
                            });
                            if c <= 64 {
                                while senders != 0 {
                                    let cc = senders.trailing_zeros() as usize;
                                    senders &= senders - 1;
                                    recipients(cc, by_c[cc], by_d, &mut rng);
                                }
                                continue;
                            }
                            for (cc, &n_c) in by_c.iter().enumerate().filter(|(_, n)| **n > 0) {
                                recipients(cc, n_c, by_d, &mut rng);
                            }
                        }
                    }
                }
            });
        reduce_chunks_into(&mut self.received, &self.chunks);
        reduce_into(&mut self.pair_counts, &self.chunk_pairs);
        for (a, &r) in self.actor_counts.iter_mut().zip(&self.received) {
            *a += r;
        }
    }

    /// Draws `θ` row by row and then `π` from their conditionals given the current counts
    /// (all zero for a prior draw).
    fn draw_factors(&mut self, streams: Streams) {
        let c = self.communities;
        let mut rng = streams.child(THETA).rng();
        column_sums_into(&mut self.sums, &self.theta);
        let delta = self.overdispersion.as_ref().map(Overdispersion::scales);
        let (sums, exposure) = (&mut self.sums, &mut self.exposure);
        let (mut sent_to, mut received_from) = (vec![0.0; c], vec![0.0; c]);
        // Undirected: Σ_{j<i} θ_jd of the current memberships (rows before i are already redrawn).
        let mut before = vec![0.0; c];
        let undirected = self.undirected && !self.planted_directed_exposure;
        for i in 0..self.actors {
            // The other actors' memberships as the recipients (A) and the senders (B) of actor i's
            // cells: Σ_{j≠i} θ_jd = S_d − θ_id, or with the cells' multipliers δ. Undirected, the
            // pairs (i, j) have j > i and (j, i) have j < i.
            match delta {
                None => {
                    for (d, (a, b)) in sent_to.iter_mut().zip(&mut received_from).enumerate() {
                        let others = sums[d] - self.theta[i * c + d];
                        (*a, *b) = if undirected { (others - before[d], before[d]) } else { (others, others) };
                    }
                }
                Some(delta) => {
                    weighted_partners(&self.theta, delta, i, c, undirected, &mut sent_to, &mut received_from)
                }
            }
            let theta_i = &mut self.theta[i * c..(i + 1) * c];
            for (cc, e) in exposure.iter_mut().enumerate() {
                let as_sender: f64 = (0..c).map(|d| sent_to[d] * self.pi[cc * c + d]).sum();
                let as_receiver: f64 = (0..c).map(|d| received_from[d] * self.pi[d * c + cc]).sum();
                *e = as_sender + as_receiver;
            }
            let xi = self.hierarchy.as_ref().map(|h| h.xi.rates[i]);
            for cc in 0..c {
                let (n, e) = (self.beta * f64::from(self.actor_counts[i * c + cc]), self.beta * exposure[cc]);
                let new = match xi {
                    None => self.prior.draw(n, e, &mut rng),
                    Some(rate) => self.prior.draw_at_rate(n, rate, e, &mut rng),
                };
                sums[cc] += new - theta_i[cc];
                theta_i[cc] = new;
            }
            for (b, &t) in before.iter_mut().zip(theta_i.iter()) {
                *b += t;
            }
        }
        let mut rng = streams.child(PI).rng();
        let lambda = self.hierarchy.as_ref().map(|h| h.lambda.rates[0]);
        let exposures = self.pi_exposures();
        let (beta, prior) = (self.beta, self.prior);
        let draw = |n: u32, exposure: f64, rng: &mut distributions::StreamRng| {
            let (n, exposure) = (beta * f64::from(n), beta * exposure);
            match lambda {
                None => prior.draw(n, exposure, rng),
                Some(rate) => prior.draw_at_rate(n, rate, exposure, rng),
            }
        };
        if self.undirected {
            // π_cd = π_dc: the free entries c ≤ d, each with both orientations' counts and exposures.
            for cc in 0..c {
                for d in cc..c {
                    let (cd, dc) = (cc * c + d, d * c + cc);
                    let (n, e) = match cc == d {
                        true => (self.pair_counts[cd], exposures[cd]),
                        false => (self.pair_counts[cd] + self.pair_counts[dc], exposures[cd] + exposures[dc]),
                    };
                    let value = draw(n, e, &mut rng);
                    (self.pi[cd], self.pi[dc]) = (value, value);
                }
            }
        } else {
            for (cd, exposure) in exposures.into_iter().enumerate() {
                self.pi[cd] = draw(self.pair_counts[cd], exposure, &mut rng);
            }
        }
        self.draw_rates(true, streams.child(RATES));
        self.refresh_w();
    }

    /// The exposure of every `π_cd` (row-major `C × C`): `Σ_{(i, j) modelled} δ_ij θ_ic θ_jd` over
    /// the modelled pairs (`i ≠ j`, or undirected `i < j`), `δ = 1` for the Poisson.
    fn pi_exposures(&self) -> Vec<f64> {
        let c = self.communities;
        let delta = self.overdispersion.as_ref().map(Overdispersion::scales);
        match (delta, self.undirected) {
            (None, false) => pair_exposures(&self.theta, c),
            (Some(delta), undirected) => weighted_pair_exposures(&self.theta, delta, c, undirected),
            (None, true) => {
                // E_cd = Σ_i θ_ic Σ_{j>i} θ_jd, with the sums over j > i kept as i goes down.
                let mut after = vec![0.0; c];
                let mut exposures = vec![0.0; c * c];
                for theta_i in self.theta.chunks_exact(c).rev() {
                    for (row, &t) in exposures.chunks_exact_mut(c).zip(theta_i) {
                        for (e, &a) in row.iter_mut().zip(&after) {
                            *e += t * a;
                        }
                    }
                    for (a, &t) in after.iter_mut().zip(theta_i) {
                        *a += t;
                    }
                }
                exposures
            }
        }
    }
}

/// Each actor's expected count in each community ([`crate::PoissonFactorization::row_loadings`]
/// of the block model) for memberships `theta` (`V × C`) and community rates `pi` (`C × C`):
/// `L_ic = θ_ic Σ_d w_cd Σ_{j≠i} θ_jd` with `w_cd = π_cd + π_dc` (directed: sent and received) or
/// `π_cd` (undirected: each pair once, `π` symmetric).
pub fn block_row_loadings(theta: &[f64], pi: &[f64], c: usize, undirected: bool) -> Vec<f64> {
    let c = c.max(1);
    let mut sums = vec![0.0; c];
    column_sums_into(&mut sums, theta);
    let weight = |cc: usize, d: usize| match undirected {
        true => pi[cc * c + d],
        false => pi[cc * c + d] + pi[d * c + cc],
    };
    let mut out = vec![0.0; theta.len()];
    for (theta_i, out_i) in theta.chunks_exact(c).zip(out.chunks_exact_mut(c)) {
        for (cc, out) in out_i.iter_mut().enumerate() {
            let partners: f64 = (0..c).map(|d| weight(cc, d) * (sums[d] - theta_i[d])).sum();
            *out = theta_i[cc] * partners;
        }
    }
    out
}

/// The exposure of every `π_cd` (row-major `C × C`) for a `V × C` matrix `theta`:
/// `Σ_{i≠j} θ_ic θ_jd = S_c S_d − Σ_i θ_ic θ_id` with `S_c = Σ_i θ_ic` (no self-loops).
pub(crate) fn pair_exposures(theta: &[f64], c: usize) -> Vec<f64> {
    let mut sums = vec![0.0; c];
    column_sums_into(&mut sums, theta);
    let mut exposures = vec![0.0; c * c];
    for cc in 0..c {
        for d in 0..c {
            let self_pairs: f64 = theta.chunks_exact(c).map(|t| t[cc] * t[d]).sum();
            exposures[cc * c + d] = sums[cc] * sums[d] - self_pairs;
        }
    }
    exposures
}

/// `A_id = Σ_{j≠i} δ_ij θ_jd` (into `sent_to`) and `B_id = Σ_{j≠i} δ_ji θ_jd` (into
/// `received_from`) for actor `i` of a `V × C` `theta` and `V × V` multipliers `delta`; for an
/// undirected network only the modelled cells: `A` over `j > i`, `B` over `j < i`.
fn weighted_partners(
    theta: &[f64],
    delta: &[f64],
    i: usize,
    c: usize,
    undirected: bool,
    sent_to: &mut [f64],
    received_from: &mut [f64],
) {
    let v = theta.len() / c;
    sent_to.fill(0.0);
    received_from.fill(0.0);
    for (j, theta_j) in theta.chunks_exact(c).enumerate().filter(|(j, _)| *j != i) {
        let (out, into) = match undirected {
            false => (delta[i * v + j], delta[j * v + i]),
            true if j > i => (delta[i * v + j], 0.0),
            true => (0.0, delta[j * v + i]),
        };
        for ((a, b), &t) in sent_to.iter_mut().zip(received_from.iter_mut()).zip(theta_j) {
            *a += out * t;
            *b += into * t;
        }
    }
}

/// The exposure of every `π_cd` under the negative-binomial likelihood:
/// `Σ_{i≠j} δ_ij θ_ic θ_jd = Σ_i θ_ic A_id` (row-major `C × C`; undirected, over `i < j`).
fn weighted_pair_exposures(theta: &[f64], delta: &[f64], c: usize, undirected: bool) -> Vec<f64> {
    let (mut sent_to, mut received_from) = (vec![0.0; c], vec![0.0; c]);
    let mut exposures = vec![0.0; c * c];
    for (i, theta_i) in theta.chunks_exact(c).enumerate() {
        weighted_partners(theta, delta, i, c, undirected, &mut sent_to, &mut received_from);
        for (row, &t) in exposures.chunks_exact_mut(c).zip(theta_i) {
            for (e, &a) in row.iter_mut().zip(&sent_to) {
                *e += t * a;
            }
        }
    }
    exposures
}

impl BlockModel {
    /// The rates `μ_ij = Σ_cd θ_ic θ_jd π_cd` whatever the temperature (0 on the diagonal).
    fn untempered_rates_into(&self, out: &mut [f64]) {
        if self.beta == 1.0 {
            return self.mean_rates_into(out);
        }
        let c = self.communities;
        let w: Vec<f64> = (0..self.actors * c)
            .map(|jc| (0..c).map(|d| self.pi[(jc % c) * c + d] * self.theta[(jc / c) * c + d]).sum())
            .collect();
        self.rates_from(&self.theta, &w, out);
    }

    /// `μ_ij = Σ_c θ_ic w_jc` for every cell (0 on the diagonal), from memberships `theta` and
    /// sums `w_jc = Σ_d π_cd θ_jd` of the same temperature.
    fn rates_from(&self, theta: &[f64], w: &[f64], out: &mut [f64]) {
        let (v, c, undirected) = (self.actors, self.communities, self.undirected);
        let per_chunk = chunk_rows(v);
        let w_t = transposed(w, c);
        out.par_chunks_mut(per_chunk * v).enumerate().for_each(|(chunk, out)| {
            for (local, out_i) in out.chunks_exact_mut(v).enumerate() {
                let i = chunk * per_chunk + local;
                dot_rows_transposed(out_i, &theta[i * c..(i + 1) * c], &w_t);
                // The diagonal is not modelled, nor (undirected) the lower triangle.
                if undirected {
                    out_i[..=i].fill(0.0);
                } else {
                    out_i[i] = 0.0;
                }
            }
        });
    }

    /// `ln p(θ, π, ξ, λ)`: the factors' prior (with the hierarchy's rates, if any).
    fn ln_factor_prior(&self) -> f64 {
        let free_pi = self.free_pi();
        let Some(h) = &self.hierarchy else {
            return self.theta.iter().chain(&free_pi).map(|&x| self.prior.ln_pdf(x)).sum();
        };
        let c = self.communities;
        h.xi.ln_prior(self.prior, &self.theta, c) + h.lambda.ln_prior(self.prior, &free_pi, free_pi.len())
    }
}

impl PoissonFactorization for BlockModel {
    fn shape(&self) -> (usize, usize) {
        (self.actors, self.actors)
    }

    fn is_excluded(&self, n: usize) -> bool {
        self.modelled().excludes(n, self.actors)
    }

    fn cell_multipliers(&self) -> Option<&[f64]> {
        self.overdispersion.as_ref().map(Overdispersion::scales)
    }

    fn dispersion(&self) -> Option<distributions::CellDispersion> {
        self.overdispersion.as_ref().map(Overdispersion::law)
    }

    fn hold_dispersion(&mut self, r: Option<f64>) {
        if let Some(od) = &mut self.overdispersion {
            od.hold(r);
        }
    }

    fn mean_rates_into(&self, out: &mut [f64]) {
        // At a temperature 1/β: μ̃_ij = Σ_cd θ_ic^β θ_jd^β π_cd^β (`w` holds the tempered sums).
        let tempered = (self.beta != 1.0).then(|| powered(&self.theta, self.beta));
        self.rates_from(tempered.as_deref().unwrap_or(&self.theta), &self.w, out);
    }

    fn row_loadings(&self) -> Vec<f64> {
        block_row_loadings(&self.theta, &self.pi, self.communities, self.undirected)
    }

    fn set_temperature(&mut self, beta: f64) -> Result<(), ModelError> {
        crate::check_temperature(beta)?;
        self.beta = beta;
        if let Some(od) = &mut self.overdispersion {
            od.set_temperature(beta);
        }
        self.refresh_w();
        Ok(())
    }

    fn temperature(&self) -> f64 {
        self.beta
    }

    fn energy(&self) -> f64 {
        // Σ y_ijcd ln(θ_ic θ_jd π_cd) = Σ_ic n_ic ln θ_ic + Σ_cd n_cd ln π_cd (n_ic: sent and
        // received); then − Σ_n μ_n = − Σ_cd π_cd Σ_{i≠j} θ_ic θ_jd, or with the negative binomial
        // + Σ_n y_n ln δ_n − Σ_n μ_n δ_n (kept by its last update).
        let counts = count_log_sum(&self.actor_counts, &self.theta) + count_log_sum(&self.pair_counts, &self.pi);
        // (The total is needed for the Poisson only, whose exposures `pi_exposures` gives.)
        energy(counts, self.overdispersion.as_ref(), || {
            self.pi_exposures().iter().zip(&self.pi).map(|(e, p)| e * p).sum()
        })
    }

    fn sample_prior(&mut self, streams: Streams) {
        self.actor_counts.fill(0);
        self.pair_counts.fill(0);
        if let Some(od) = &mut self.overdispersion {
            od.sample_prior(streams.child(PRIOR_DISPERSION));
        }
        // With zero counts and zero exposure the conditionals are the prior; draw it directly
        // (the row-by-row conditional form would add the other rows' exposure).
        if self.hierarchy.is_some() {
            self.draw_rates(false, streams.child(PRIOR_RATES));
        }
        let mut rng = streams.child(PRIOR).rng();
        let c = self.communities;
        match &self.hierarchy {
            None => {
                for x in self.theta.iter_mut().chain(self.pi.iter_mut()) {
                    *x = self.prior.draw(0.0, 0.0, &mut rng);
                }
            }
            Some(h) => {
                for (i, x) in self.theta.iter_mut().enumerate() {
                    *x = self.prior.draw_at_rate(0.0, h.xi.rate_of(i, c), 0.0, &mut rng);
                }
                for x in self.pi.iter_mut() {
                    *x = self.prior.draw_at_rate(0.0, h.lambda.rates[0], 0.0, &mut rng);
                }
            }
        }
        if self.undirected {
            // The free entries are those drawn above with c ≤ d; the rest mirror them.
            for cc in 0..c {
                for d in 0..cc {
                    self.pi[cc * c + d] = self.pi[d * c + cc];
                }
            }
        }
        self.refresh_w();
    }

    fn gibbs_update(&mut self, y: &[u32], streams: Streams) {
        self.allocate_all(y, streams.child(ALLOCATE));
        self.draw_factors(streams);
        if let Some(mut od) = self.overdispersion.take() {
            let mut mu = vec![0.0; y.len()];
            self.untempered_rates_into(&mut mu);
            od.gibbs_update(y, &mu, streams.child(DISPERSION));
            self.overdispersion = Some(od);
        }
        if self.beta == 1.0
            && let Some(mut hmc) = self.hmc.take()
        {
            let planted = self.planted_missing_jacobian;
            crate::block_hmc::move_factors(self, &mut hmc, y, planted, streams.child(HMC));
            self.hmc = Some(hmc);
        }
    }

    fn set_adapting(&mut self, on: bool) {
        if let Some(hmc) = &mut self.hmc {
            hmc.set_adapting(on);
        }
    }

    fn move_summary(&self) -> Option<(f64, f64)> {
        self.hmc.as_ref().and_then(|h| h.acceptance().map(|a| (h.step(), a)))
    }

    fn ln_prior(&self) -> f64 {
        self.ln_factor_prior() + self.overdispersion.as_ref().map_or(0.0, Overdispersion::ln_prior)
    }

    fn factors(&self) -> Vec<FactorBlock<'_>> {
        let mut blocks = vec![
            FactorBlock { name: "theta", rows: self.actors, cols: self.communities, values: &self.theta },
            FactorBlock { name: "pi", rows: self.communities, cols: self.communities, values: &self.pi },
        ];
        if let Some(h) = &self.hierarchy {
            blocks.extend(h.xi.blocks("xi (actor rates)", "kappa (rate of the actor rates)"));
            blocks.extend(h.lambda.blocks("lambda (community-rate rate)", "kappa (rate of lambda)"));
        }
        blocks.extend(self.overdispersion.iter().flat_map(Overdispersion::blocks));
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unit of every modelled cell is placed, once as sent and once as received, whether
    /// the sender communities that received units are visited through their bit mask (C ≤ 64) or
    /// by the scan over all C (C > 64); counts from 1 to 29 take every route of the allocation.
    #[test]
    fn the_allocation_places_every_unit_with_few_or_many_communities() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        let v = 6;
        let y: Vec<u32> = (0..v * v).map(|n| (n % 30) as u32).collect();
        let modelled: u32 = (0..v * v).filter(|n| n / v != n % v).map(|n| y[n]).sum();
        for c in [3, 64, 70] {
            let mut model = BlockModel::new(v, c, prior, Streams::new(1));
            model.refresh_w();
            model.allocate_all(&y, Streams::new(2));
            assert_eq!(model.pair_counts.iter().sum::<u32>(), modelled, "C = {c}");
            assert_eq!(model.actor_counts.iter().sum::<u32>(), 2 * modelled, "C = {c}");
        }
    }

    /// The undirected form models the pairs `i < j` only, keeps `π` symmetric through prior draws
    /// and sweeps, and refuses an asymmetric `π`.
    #[test]
    fn the_undirected_form_models_each_pair_once_with_a_symmetric_pi() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        let mut model = BlockModel::undirected(5, 3, prior, Streams::new(1));
        let symmetric = |pi: &[f64]| (0..3).all(|c| (0..3).all(|d| pi[c * 3 + d] == pi[d * 3 + c]));
        assert!(symmetric(model.pi()));
        let mut rates = vec![0.0; 25];
        model.rates_into(&mut rates);
        for (n, &rate) in rates.iter().enumerate() {
            let (i, j) = (n / 5, n % 5);
            assert_eq!(model.is_excluded(n), i >= j);
            assert_eq!(rate == 0.0, i >= j, "cell ({i}, {j})");
        }
        let y: Vec<u32> = (0..25).map(|n| if n / 5 < n % 5 { (n % 4) as u32 } else { 0 }).collect();
        for s in 0..5 {
            model.gibbs_update(&y, Streams::new(10 + s));
            assert!(symmetric(model.pi()));
        }
        let theta = model.theta().to_vec();
        let asymmetric = [1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0, 2.5, 1.0];
        assert_eq!(
            model.set_factors(&theta, &asymmetric),
            Err(ModelError::Asymmetric { factor: "pi", row: 1, col: 2 })
        );
        // The directed model's rate of (i, j) with a symmetric π is the undirected one's.
        let pi = [1.0, 2.0, 3.0, 2.0, 1.0, 2.5, 3.0, 2.5, 1.0];
        model.set_factors(&theta, &pi).unwrap();
        let mut directed = BlockModel::new(5, 3, prior, Streams::new(2));
        directed.set_factors(&theta, &pi).unwrap();
        let mut both = vec![0.0; 25];
        directed.rates_into(&mut both);
        model.rates_into(&mut rates);
        for n in (0..25).filter(|n| n / 5 < n % 5) {
            assert_eq!(rates[n], both[n]);
            // μ_ji sums the same products in another order: equal up to rounding.
            let back = both[(n % 5) * 5 + n / 5];
            assert!((both[n] - back).abs() <= 1e-14 * back, "{} vs {back}", both[n]);
        }
    }
}
