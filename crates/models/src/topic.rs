//! Poisson matrix factorization, the LDA-like topic model.

use crate::chunks::{
    ChunkBuffers, allocate_each, chunk_count, chunk_rows, column_sums_into, cumulative_products_group,
    dot_rows_transposed, reduce_chunks_into, transposed,
};
use crate::error::{ModelError, check_factor};
use crate::hierarchy::RateGroup;
use crate::overdispersion::Overdispersion;
use crate::tempering::{count_log_sum, energy, powered};
use crate::{FactorBlock, GammaPrior, Likelihood, PoissonFactorization, ScalePrior};
use distributions::Streams;
use rayon::prelude::*;

/// Stream ids of the steps of one sweep.
const ALLOCATE: u64 = 0;
const THETA: u64 = 1;
const PHI: u64 = 2;
const PRIOR_THETA: u64 = 3;
const PRIOR_PHI: u64 = 4;
const XI: u64 = 5;
const ETA: u64 = 6;
const PRIOR_XI: u64 = 7;
const PRIOR_ETA: u64 = 8;
const DISPERSION: u64 = 9;
const PRIOR_DISPERSION: u64 = 10;

/// The exposure of each factor in a row's conditional `Gamma(a₀ + n, b₀ + exposure)`: one per
/// component shared by every row (the Poisson likelihood: a column sum of the other factor), or one
/// per row and component (the negative-binomial likelihood: sums weighted by the cells' `δ`).
#[derive(Clone, Copy)]
pub(crate) enum Exposure<'a> {
    Shared(&'a [f64]),
    PerRow(&'a [f64]),
}
/// Poisson matrix factorization of a `D × V` document–term matrix:
/// `y_dv ~ Pois(μ_dv)`, `μ_dv = Σ_k θ_dk φ_kv`, `θ_dk, φ_kv ~ Gamma(a₀, b₀)` (shape, rate).
///
/// Gibbs sweep (given complete counts): allocate `(y_dvk)_k ~ Mult(y_dv, (θ_dk φ_kv)_k)`, then
/// `θ_dk ~ Gamma(a₀ + Σ_v y_dvk, b₀ + Σ_v φ_kv)` and `φ_kv ~ Gamma(a₀ + Σ_d y_dvk, b₀ + Σ_d θ_dk)`
/// (gamma–Poisson conjugacy; appendix E.1 of Schein et al. 2019 gives the same updates).
///
/// Storage: `θ` is `D × K`, `φ` is stored **word-major** (`V × K`, `φ_kv` at `[v·K + k]`) so that
/// the `K` components of one entry are contiguous.
///
/// With a hierarchical prior ([`TopicModel::with_hierarchy`]; Gopalan, Hofman & Blei 2015) each
/// document's factors share a learned rate and so does each word's: `θ_dk ~ Gamma(a₀, ξ_d)`,
/// `φ_kv ~ Gamma(a₀, η_v)`, `ξ_d, η_v ~ Gamma(a', a'/b')` ([`ScalePrior`]). The sweep then draws
/// `θ_dk ~ Gamma(a₀ + Σ_v y_dvk, ξ_d + Σ_v φ_kv)`, `ξ_d ~ Gamma(a' + K a₀, a'/b' + Σ_k θ_dk)`,
/// and likewise `φ` and `η` (all conjugate).
///
/// With the negative-binomial likelihood ([`TopicModel::with_likelihood`], `crate::overdispersion`)
/// the cell's Poisson rate is `μ_dv δ_dv` and the exposures are weighted by `δ`:
/// `θ_dk ~ Gamma(a₀ + Σ_v y_dvk, b₀ + Σ_v δ_dv φ_kv)`, `φ_kv ~ Gamma(a₀ + Σ_d y_dvk, b₀ + Σ_d δ_dv θ_dk)`.
#[derive(Clone, Debug)]
pub struct TopicModel {
    docs: usize,
    words: usize,
    topics: usize,
    prior: GammaPrior,
    theta: Vec<f64>,
    phi: Vec<f64>,
    /// `Σ_v y_dvk`, `D × K`.
    doc_topic: Vec<u32>,
    /// `Σ_d y_dvk`, `V × K`.
    word_topic: Vec<u32>,
    /// Per-chunk `V × K` counts (reduced into `word_topic`) and allocation scratch.
    chunks: Vec<ChunkBuffers>,
    /// Column sums of `θ` or `φ` (length `K`).
    sums: Vec<f64>,
    /// The learned row and column rates of a hierarchical prior; `None`: the flat `Gamma(a₀, b₀)`.
    hierarchy: Option<Hierarchy>,
    /// The negative-binomial likelihood's `δ` and `r`; `None`: Poisson.
    overdispersion: Option<Overdispersion>,
    /// The inverse temperature `β` of the complete-data likelihood (1: the model itself;
    /// `crate::tempering`).
    beta: f64,
    /// `μ_n` at the current factors, as the last Gibbs update computed it for the overdispersed
    /// likelihood's update; kept for the next sweep's private step, which needs the same rates,
    /// and dropped wherever `θ` or `φ` change (only read at `β = 1`).
    mean_rates: Option<Vec<f64>>,
}

/// A hierarchical prior's state: `ξ_d` per document, `η_v` per word (each group with its `κ`).
#[derive(Clone, Debug)]
struct Hierarchy {
    xi: RateGroup,
    eta: RateGroup,
}

impl TopicModel {
    /// A `docs × words` model with `topics` topics, factors drawn from the prior with `streams`.
    /// Panics if a dimension is 0 (a programming error, not user input: the pipeline validates
    /// shapes first).
    pub fn new(docs: usize, words: usize, topics: usize, prior: GammaPrior, streams: Streams) -> Self {
        assert!(docs > 0 && words > 0 && topics > 0, "TopicModel dimensions must be positive");
        let mut model = Self {
            docs,
            words,
            topics,
            prior,
            theta: vec![0.0; docs * topics],
            phi: vec![0.0; words * topics],
            doc_topic: vec![0; docs * topics],
            word_topic: vec![0; words * topics],
            chunks: ChunkBuffers::for_chunks(chunk_count(docs), words * topics, topics),
            sums: vec![0.0; topics],
            hierarchy: None,
            overdispersion: None,
            beta: 1.0,
            mean_rates: None,
        };
        model.sample_prior(streams);
        model
    }

    /// The model with the given likelihood (the negative binomial adds a multiplier `δ_dv` per
    /// cell, see [`Likelihood`]); every factor is redrawn from the prior with `streams`.
    pub fn with_likelihood(mut self, likelihood: Likelihood, streams: Streams) -> Self {
        self.overdispersion =
            Overdispersion::for_likelihood(likelihood, self.docs, self.words, crate::ModelledCells::All);
        self.sample_prior(streams);
        self
    }

    /// The model with a hierarchical prior: the factors' rates learned per document (`ξ_d`) and
    /// per word (`η_v`) with prior `scale` instead of fixed at `b₀` (the factor prior keeps its
    /// shape `a₀`); every factor is redrawn from the new prior with `streams`.
    pub fn with_hierarchy(mut self, scale: ScalePrior, streams: Streams) -> Self {
        self.hierarchy =
            Some(Hierarchy { xi: RateGroup::new(scale, self.docs), eta: RateGroup::new(scale, self.words) });
        self.sample_prior(streams);
        self
    }

    /// A hierarchical prior's rates `(ξ, η)`, for tests of samplers (a planted wrong conditional);
    /// `None` with the flat prior.
    #[doc(hidden)]
    pub fn hierarchy_rates_mut(&mut self) -> Option<(&mut [f64], &mut [f64])> {
        self.hierarchy.as_mut().map(|h| (h.xi.rates.as_mut_slice(), h.eta.rates.as_mut_slice()))
    }

    /// The document rates `ξ` and their rate `κ` of a hierarchical prior, for tests of samplers (a
    /// planted wrong conditional of a learned `κ`); `None` with the flat prior.
    #[doc(hidden)]
    pub fn document_rates_and_kappa_mut(&mut self) -> Option<(&mut [f64], &mut f64)> {
        self.hierarchy.as_mut().map(|h| h.xi.parts_mut())
    }

    /// The negative-binomial likelihood's cell multipliers `δ` (row-major), for tests of samplers
    /// (a planted wrong conditional); `None` with the Poisson likelihood.
    #[doc(hidden)]
    pub fn cell_multipliers_mut(&mut self) -> Option<&mut [f64]> {
        self.overdispersion.as_mut().map(Overdispersion::scales_mut)
    }

    /// The contaminated likelihood's share `π` and the cells' flags `z` (overdispersed or not),
    /// for tests of samplers (a planted wrong conditional); `None` for the other likelihoods.
    #[doc(hidden)]
    pub fn contamination_mut(&mut self) -> Option<(&mut f64, &[bool])> {
        self.overdispersion.as_mut().and_then(Overdispersion::contamination_mut)
    }

    /// Replaces the factors: `theta` is `D × K`, `phi` is `K × V` (topic-major, as written in the
    /// paper). Errors on a wrong length or a value that is not finite and `> 0`.
    pub fn set_factors(&mut self, theta: &[f64], phi_topic_major: &[f64]) -> Result<(), ModelError> {
        let (d, v, k) = (self.docs, self.words, self.topics);
        check_factor("theta", theta, d, k)?;
        check_factor("phi", phi_topic_major, k, v)?;
        self.mean_rates = None;
        self.theta.copy_from_slice(theta);
        for kk in 0..k {
            for vv in 0..v {
                self.phi[vv * k + kk] = phi_topic_major[kk * v + vv];
            }
        }
        Ok(())
    }

    /// Number of topics `K`.
    pub fn topics(&self) -> usize {
        self.topics
    }

    /// `θ`, `D × K`.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// `φ` in word-major storage, `V × K`.
    pub fn phi_word_major(&self) -> &[f64] {
        &self.phi
    }

    /// `φ` as `K × V` (topic-major), e.g. for topic alignment.
    pub fn phi_topic_major(&self) -> Vec<f64> {
        let (v, k) = (self.words, self.topics);
        (0..k * v).map(|i| self.phi[(i % v) * k + i / v]).collect()
    }

    /// The sub-count totals of the last sweep: `Σ_v y_dvk` (`D × K`).
    pub fn doc_topic_counts(&self) -> &[u32] {
        &self.doc_topic
    }

    /// `Σ_v δ_dv φ_kv` for every document and topic (`D × K`): the exposures of `θ` under an
    /// overdispersed likelihood, as `Σ_v φ_kv + Σ_{v: δ_dv ≠ 1} (δ_dv − 1) φ_kv`. The contaminated
    /// form's multipliers are 1 outside its overdispersed cells, so a row costs a pass over its
    /// multipliers and `K` products per cell whose multiplier is not 1.
    fn weighted_doc_exposure(&self, delta: &[f64]) -> Vec<f64> {
        let (v, k) = (self.words, self.topics);
        let mut sums = vec![0.0; k];
        column_sums_into(&mut sums, &self.phi);
        let mut out = vec![0.0; self.docs * k];
        out.par_chunks_mut(k).zip(delta.par_chunks(v)).for_each(|(e, delta_d)| {
            e.copy_from_slice(&sums);
            for (w, &d) in delta_d.iter().enumerate().filter(|(_, d)| **d != 1.0) {
                for (e, &p) in e.iter_mut().zip(&self.phi[w * k..(w + 1) * k]) {
                    *e += (d - 1.0) * p;
                }
            }
        });
        out
    }

    /// `Σ_d δ_dv θ_dk` for every word and topic (`V × K`): the exposures of `φ`, as
    /// `Σ_d θ_dk + Σ_{d: δ_dv ≠ 1} (δ_dv − 1) θ_dk` ([`Self::weighted_doc_exposure`]), in blocks of
    /// [`EXPOSURE_WORDS`] words, each reading its columns of every row of `δ`.
    fn weighted_word_exposure(&self, delta: &[f64]) -> Vec<f64> {
        let (v, k) = (self.words, self.topics);
        let mut sums = vec![0.0; k];
        column_sums_into(&mut sums, &self.theta);
        let mut out = vec![0.0; v * k];
        out.par_chunks_mut(EXPOSURE_WORDS * k).enumerate().for_each(|(block, e)| {
            let words = block * EXPOSURE_WORDS..block * EXPOSURE_WORDS + e.len() / k;
            e.chunks_exact_mut(k).for_each(|e_w| e_w.copy_from_slice(&sums));
            for (delta_d, theta_d) in delta.chunks_exact(v).zip(self.theta.chunks_exact(k)) {
                for (i, &d) in delta_d[words.clone()].iter().enumerate().filter(|(_, d)| **d != 1.0) {
                    for (e, &t) in e[i * k..(i + 1) * k].iter_mut().zip(theta_d) {
                        *e += (d - 1.0) * t;
                    }
                }
            }
        });
        out
    }
}

/// Words per block of [`TopicModel::weighted_word_exposure`] (a block reads 512 bytes of each row
/// of `δ`).
const EXPOSURE_WORDS: usize = 64;

impl PoissonFactorization for TopicModel {
    fn shape(&self) -> (usize, usize) {
        (self.docs, self.words)
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
        match &self.mean_rates {
            Some(mu) if self.beta == 1.0 => out.copy_from_slice(mu),
            _ => self.rates_at(self.beta, out),
        }
    }

    fn row_loadings(&self) -> Vec<f64> {
        // φ is word-major (V × K): its column sums are Σ_v φ_kv.
        let mut phi_sums = vec![0.0; self.topics];
        column_sums_into(&mut phi_sums, &self.phi);
        loadings(&self.theta, &phi_sums)
    }

    fn set_temperature(&mut self, beta: f64) -> Result<(), ModelError> {
        crate::check_temperature(beta)?;
        self.beta = beta;
        if let Some(od) = &mut self.overdispersion {
            od.set_temperature(beta);
        }
        Ok(())
    }

    fn temperature(&self) -> f64 {
        self.beta
    }

    fn energy(&self) -> f64 {
        // Σ_nk y_nk ln μ_nk = Σ_dk n_dk ln θ_dk + Σ_vk n_vk ln φ_kv; then − Σ_n μ_n, or with the
        // negative binomial + Σ_n y_n ln δ_n − Σ_n μ_n δ_n (kept by its last update).
        let counts = count_log_sum(&self.doc_topic, &self.theta) + count_log_sum(&self.word_topic, &self.phi);
        energy(counts, self.overdispersion.as_ref(), || {
            let k = self.topics;
            let (mut theta_sums, mut phi_sums) = (vec![0.0; k], vec![0.0; k]);
            column_sums_into(&mut theta_sums, &self.theta);
            column_sums_into(&mut phi_sums, &self.phi);
            theta_sums.iter().zip(&phi_sums).map(|(a, b)| a * b).sum::<f64>()
        })
    }

    fn sample_prior(&mut self, streams: Streams) {
        self.mean_rates = None;
        let (prior, k) = (self.prior, self.topics);
        let zero_d = vec![0; self.docs * k];
        let zero_v = vec![0; self.words * k];
        let no_exposure = vec![0.0; k];
        let no_exposure = Exposure::Shared(&no_exposure);
        if let Some(od) = &mut self.overdispersion {
            od.sample_prior(streams.child(PRIOR_DISPERSION));
        }
        if let Some(h) = &mut self.hierarchy {
            h.xi.sample_prior(&mut streams.child(PRIOR_XI).rng());
            h.eta.sample_prior(&mut streams.child(PRIOR_ETA).rng());
        }
        let (xi, eta) = match &self.hierarchy {
            Some(h) => (Some(h.xi.rates.as_slice()), Some(h.eta.rates.as_slice())),
            None => (None, None),
        };
        let theta_rows = (self.docs, xi);
        draw_rows(prior, &mut self.theta, (&zero_d, 1.0), no_exposure, theta_rows, streams.child(PRIOR_THETA));
        draw_rows(prior, &mut self.phi, (&zero_v, 1.0), no_exposure, (self.words, eta), streams.child(PRIOR_PHI));
    }

    fn gibbs_update(&mut self, y: &[u32], streams: Streams) {
        // The kept rates go stale with the factors; their memory is reused below.
        let spare_rates = self.mean_rates.take();
        let (v, k) = (self.words, self.topics);
        let per_chunk = chunk_rows(self.docs);
        // At a temperature 1/β the allocation weights are μ_nk^β = θ_dk^β φ_kv^β.
        let tempered = (self.beta != 1.0).then(|| (powered(&self.theta, self.beta), powered(&self.phi, self.beta)));
        let (theta, phi) = tempered.as_ref().map_or((&self.theta, &self.phi), |(t, p)| (t, p));
        let alloc_streams = streams.child(ALLOCATE);
        // Allocation: doc–topic counts are row-local; word–topic counts go to the chunk's buffer.
        self.doc_topic
            .par_chunks_mut(per_chunk * k)
            .zip(self.chunks.par_iter_mut())
            .zip(y.par_chunks(per_chunk * v).zip(theta.par_chunks(per_chunk * k)))
            .enumerate()
            .for_each(|(chunk, ((doc_topic, buffers), (y, theta)))| {
                let mut rng = alloc_streams.child(chunk as u64).rng();
                let ChunkBuffers { counts: word_topic, draw, batch, nonzero, .. } = buffers;
                doc_topic.fill(0);
                word_topic.fill(0);
                for ((y_d, theta_d), n_d) in
                    y.chunks_exact(v).zip(theta.chunks_exact(k)).zip(doc_topic.chunks_exact_mut(k))
                {
                    // The non-zero counts of the row, four at a time: their weights' running sums
                    // are formed together, then each count is allocated in column order.
                    nonzero.clear();
                    nonzero.extend(y_d.iter().enumerate().filter(|(_, c)| **c > 0).map(|(w, _)| w));
                    for group in nonzero.chunks(4) {
                        cumulative_products_group(batch, theta_d, group, |w| &phi[w * k..(w + 1) * k]);
                        for (cumulative, &w) in batch.chunks_exact_mut(k).zip(group) {
                            let n_w = &mut word_topic[w * k..(w + 1) * k];
                            allocate_each(u64::from(y_d[w]), cumulative, draw, &mut rng, |topic, x| {
                                n_d[topic] += x as u32;
                                n_w[topic] += x as u32;
                            });
                        }
                    }
                }
            });
        reduce_chunks_into(&mut self.word_topic, &self.chunks);
        let a0 = self.prior.shape();
        let weighted = self.overdispersion.as_ref().map(|od| self.weighted_doc_exposure(od.scales()));
        column_sums_into(&mut self.sums, &self.phi);
        let exposure = weighted.as_deref().map_or(Exposure::Shared(&self.sums), Exposure::PerRow);
        let xi = self.hierarchy.as_ref().map(|h| h.xi.rates.as_slice());
        let counts = (self.doc_topic.as_slice(), self.beta);
        draw_rows(self.prior, &mut self.theta, counts, exposure, (self.docs, xi), streams.child(THETA));
        if let Some(h) = &mut self.hierarchy {
            h.xi.update(a0, &self.theta, k, &mut streams.child(XI).rng());
        }
        let weighted = self.overdispersion.as_ref().map(|od| self.weighted_word_exposure(od.scales()));
        column_sums_into(&mut self.sums, &self.theta);
        let exposure = weighted.as_deref().map_or(Exposure::Shared(&self.sums), Exposure::PerRow);
        let eta = self.hierarchy.as_ref().map(|h| h.eta.rates.as_slice());
        let counts = (self.word_topic.as_slice(), self.beta);
        draw_rows(self.prior, &mut self.phi, counts, exposure, (self.words, eta), streams.child(PHI));
        if let Some(h) = &mut self.hierarchy {
            h.eta.update(a0, &self.phi, k, &mut streams.child(ETA).rng());
        }
        if let Some(mut od) = self.overdispersion.take() {
            // The last sweep's rates' memory (every entry is written).
            let mut mu = spare_rates.unwrap_or_default();
            mu.resize(y.len(), 0.0);
            self.rates_at(1.0, &mut mu);
            od.gibbs_update(y, &mu, streams.child(DISPERSION));
            self.overdispersion = Some(od);
            self.mean_rates = Some(mu);
        }
    }

    fn ln_prior(&self) -> f64 {
        self.ln_factor_prior() + self.overdispersion.as_ref().map_or(0.0, Overdispersion::ln_prior)
    }

    fn factors(&self) -> Vec<FactorBlock<'_>> {
        let mut blocks = vec![
            FactorBlock { name: "theta", rows: self.docs, cols: self.topics, values: &self.theta },
            FactorBlock { name: "phi (word-major)", rows: self.words, cols: self.topics, values: &self.phi },
        ];
        if let Some(h) = &self.hierarchy {
            blocks.extend(h.xi.blocks("xi (document rates)", "kappa (rate of the document rates)"));
            blocks.extend(h.eta.blocks("eta (word rates)", "kappa (rate of the word rates)"));
        }
        blocks.extend(self.overdispersion.iter().flat_map(Overdispersion::blocks));
        blocks
    }
}

impl TopicModel {
    /// `Σ_k θ_dk^β φ_kv^β` for every cell (`β = 1`: the rates `μ_n`; otherwise the tempered rates
    /// `μ̃_n` of `crate::tempering`).
    fn rates_at(&self, beta: f64, out: &mut [f64]) {
        let (v, k) = (self.words, self.topics);
        let per_chunk = chunk_rows(self.docs);
        let tempered = (beta != 1.0).then(|| (powered(&self.theta, beta), powered(&self.phi, beta)));
        let (theta, phi) = tempered.as_ref().map_or((&self.theta, &self.phi), |(t, p)| (t, p));
        // φ topic-major (`K × V`), so that a row's rates read it contiguously.
        let phi_t = transposed(phi, k);
        out.par_chunks_mut(per_chunk * v).zip(theta.par_chunks(per_chunk * k)).for_each(|(out, theta)| {
            for (out_row, theta_d) in out.chunks_exact_mut(v).zip(theta.chunks_exact(k)) {
                dot_rows_transposed(out_row, theta_d, &phi_t);
            }
        });
    }

    /// `ln p(θ, φ, ξ, η)`: the factors' prior (with the hierarchy's rates, if any).
    fn ln_factor_prior(&self) -> f64 {
        let Some(h) = &self.hierarchy else {
            return self.theta.iter().chain(&self.phi).map(|&x| self.prior.ln_pdf(x)).sum();
        };
        h.xi.ln_prior(self.prior, &self.theta, self.topics) + h.eta.ln_prior(self.prior, &self.phi, self.topics)
    }
}

/// `θ_ik e_k` for every row of `theta` (`rows × K`): each row's expected count in component `k`
/// when `e_k` is the component's exposure (the sum of its rates over a row's cells).
pub(crate) fn loadings(theta: &[f64], exposure: &[f64]) -> Vec<f64> {
    let k = exposure.len().max(1);
    theta.chunks_exact(k).flat_map(|row| row.iter().zip(exposure).map(|(t, e)| t * e)).collect()
}

/// `θ_dk ~ Gamma(a₀ + β n_dk, b₀ + β exposure_dk)` for every row, in fixed chunks; with
/// `row_rates`, row `d`'s rate `ξ_d` replaces `b₀` (`β`: the inverse temperature, 1 for the
/// model itself).
pub(crate) fn draw_rows(
    prior: GammaPrior,
    values: &mut [f64],
    (counts, beta): (&[u32], f64),
    exposure: Exposure<'_>,
    (rows, row_rates): (usize, Option<&[f64]>),
    streams: Streams,
) {
    let k = values.len() / rows.max(1);
    let per_chunk = chunk_rows(rows) * k;
    values.par_chunks_mut(per_chunk).zip(counts.par_chunks(per_chunk)).enumerate().for_each(
        |(chunk, (values, counts))| {
            let mut rng = streams.child(chunk as u64).rng();
            for (i, (x, &n)) in values.iter_mut().zip(counts).enumerate() {
                let global = chunk * per_chunk + i;
                let e = match exposure {
                    Exposure::Shared(e) => e[i % k],
                    Exposure::PerRow(e) => e[global],
                };
                let (n, e) = (beta * f64::from(n), beta * e);
                *x = match row_rates {
                    None => prior.draw(n, e, &mut rng),
                    Some(rates) => prior.draw_at_rate(n, rates[global / k], e, &mut rng),
                };
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rates kept from an overdispersed update are the rates of the factors: equal bit for bit
    /// to those computed afresh after the update, and not used once the factors or the temperature
    /// change.
    #[test]
    fn kept_rates_follow_the_factors() {
        let likelihood = Likelihood::Contaminated(crate::Dispersion::default_learned());
        let mut model = TopicModel::new(6, 5, 2, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(1))
            .with_likelihood(likelihood, Streams::new(2));
        let y: Vec<u32> = (0..30).map(|n| n % 4).collect();
        let fresh = |m: &TopicModel| {
            let mut out = vec![0.0; 30];
            m.rates_at(m.beta, &mut out);
            out
        };
        let mut kept = vec![0.0; 30];
        for t in 0..3 {
            model.gibbs_update(&y, Streams::new(3).child(t));
            assert!(model.mean_rates.is_some());
            model.mean_rates_into(&mut kept);
            assert_eq!(kept, fresh(&model));
        }
        let theta: Vec<f64> = (0..12).map(|i| 0.5 + i as f64).collect();
        model.set_factors(&theta, &[1.0; 10]).unwrap();
        model.mean_rates_into(&mut kept);
        assert_eq!(kept, fresh(&model));
        model.gibbs_update(&y, Streams::new(4));
        model.set_temperature(0.5).unwrap();
        model.mean_rates_into(&mut kept);
        assert_eq!(kept, fresh(&model));
        model.sample_prior(Streams::new(5));
        model.set_temperature(1.0).unwrap();
        model.mean_rates_into(&mut kept);
        assert_eq!(kept, fresh(&model));
    }

    /// The exposures under overdispersion, formed as the plain sums plus the cells whose multiplier
    /// is not 1, equal `Σ_v δ_dv φ_kv` and `Σ_d δ_dv θ_dk` written out (relative error 1e-12), with
    /// multipliers all 1, some 1, and none 1, over more words than one block holds.
    #[test]
    fn the_weighted_exposures_are_the_weighted_sums() {
        let (docs, words, k) = (7, 2 * EXPOSURE_WORDS + 5, 3);
        let model = TopicModel::new(docs, words, k, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(1));
        for share in [0.0, 0.1, 1.0] {
            let delta: Vec<f64> = (0..docs * words)
                .map(|n| if (n % 10) as f64 >= 10.0 * share { 1.0 } else { 0.2 + (n % 7) as f64 })
                .collect();
            let doc = model.weighted_doc_exposure(&delta);
            let word = model.weighted_word_exposure(&delta);
            for d in 0..docs {
                for t in 0..k {
                    let want: f64 = (0..words).map(|w| delta[d * words + w] * model.phi[w * k + t]).sum();
                    assert!(
                        (doc[d * k + t] - want).abs() <= 1e-12 * want,
                        "doc {d} topic {t}: {} vs {want}",
                        doc[d * k + t]
                    );
                }
            }
            for w in 0..words {
                for t in 0..k {
                    let want: f64 = (0..docs).map(|d| delta[d * words + w] * model.theta[d * k + t]).sum();
                    assert!(
                        (word[w * k + t] - want).abs() <= 1e-12 * want,
                        "word {w} topic {t}: {} vs {want}",
                        word[w * k + t]
                    );
                }
            }
        }
    }
}
