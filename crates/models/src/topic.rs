//! Poisson matrix factorization, the LDA-like topic model.

use crate::chunks::{
    ChunkBuffers, allocate_each, chunk_count, chunk_rows, column_sums_into, cumulative_products_group, dot_rows,
    reduce_chunks_into,
};
use crate::error::{ModelError, check_factor};
use crate::{FactorBlock, GammaPrior, PoissonFactorization};
use distributions::Streams;
use rayon::prelude::*;

/// Stream ids of the steps of one sweep.
const ALLOCATE: u64 = 0;
const THETA: u64 = 1;
const PHI: u64 = 2;
const PRIOR_THETA: u64 = 3;
const PRIOR_PHI: u64 = 4;

/// Poisson matrix factorization of a `D × V` document–term matrix:
/// `y_dv ~ Pois(μ_dv)`, `μ_dv = Σ_k θ_dk φ_kv`, `θ_dk, φ_kv ~ Gamma(a₀, b₀)` (shape, rate).
///
/// Gibbs sweep (given complete counts): allocate `(y_dvk)_k ~ Mult(y_dv, (θ_dk φ_kv)_k)`, then
/// `θ_dk ~ Gamma(a₀ + Σ_v y_dvk, b₀ + Σ_v φ_kv)` and `φ_kv ~ Gamma(a₀ + Σ_d y_dvk, b₀ + Σ_d θ_dk)`
/// (gamma–Poisson conjugacy; appendix E.1 of Schein et al. 2019 gives the same updates).
///
/// Storage: `θ` is `D × K`, `φ` is stored **word-major** (`V × K`, `φ_kv` at `[v·K + k]`) so that
/// the `K` components of one entry are contiguous.
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
        };
        model.sample_prior(streams);
        model
    }

    /// Replaces the factors: `theta` is `D × K`, `phi` is `K × V` (topic-major, as written in the
    /// paper). Errors on a wrong length or a value that is not finite and `> 0`.
    pub fn set_factors(&mut self, theta: &[f64], phi_topic_major: &[f64]) -> Result<(), ModelError> {
        let (d, v, k) = (self.docs, self.words, self.topics);
        check_factor("theta", theta, d, k)?;
        check_factor("phi", phi_topic_major, k, v)?;
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

    /// `θ_dk ~ Gamma(a₀ + n_dk, b₀ + exposure_k)` for every row, in fixed chunks.
    fn draw_rows(
        prior: GammaPrior,
        values: &mut [f64],
        counts: &[u32],
        exposure: &[f64],
        rows: usize,
        streams: Streams,
    ) {
        let k = exposure.len();
        let per_chunk = chunk_rows(rows) * k;
        values.par_chunks_mut(per_chunk).zip(counts.par_chunks(per_chunk)).enumerate().for_each(
            |(chunk, (values, counts))| {
                let mut rng = streams.child(chunk as u64).rng();
                for (i, (x, &n)) in values.iter_mut().zip(counts).enumerate() {
                    *x = prior.draw(f64::from(n), exposure[i % k], &mut rng);
                }
            },
        );
    }
}

impl PoissonFactorization for TopicModel {
    fn shape(&self) -> (usize, usize) {
        (self.docs, self.words)
    }

    fn rates_into(&self, out: &mut [f64]) {
        let (v, k) = (self.words, self.topics);
        let per_chunk = chunk_rows(self.docs);
        out.par_chunks_mut(per_chunk * v).zip(self.theta.par_chunks(per_chunk * k)).for_each(|(out, theta)| {
            for (out_row, theta_d) in out.chunks_exact_mut(v).zip(theta.chunks_exact(k)) {
                dot_rows(out_row, theta_d, &self.phi, k);
            }
        });
    }

    fn sample_prior(&mut self, streams: Streams) {
        let (prior, k) = (self.prior, self.topics);
        let zero_d = vec![0; self.docs * k];
        let zero_v = vec![0; self.words * k];
        let no_exposure = vec![0.0; k];
        Self::draw_rows(prior, &mut self.theta, &zero_d, &no_exposure, self.docs, streams.child(PRIOR_THETA));
        Self::draw_rows(prior, &mut self.phi, &zero_v, &no_exposure, self.words, streams.child(PRIOR_PHI));
    }

    fn gibbs_update(&mut self, y: &[u32], streams: Streams) {
        let (v, k) = (self.words, self.topics);
        let per_chunk = chunk_rows(self.docs);
        let (theta, phi) = (&self.theta, &self.phi);
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
        column_sums_into(&mut self.sums, &self.phi);
        Self::draw_rows(self.prior, &mut self.theta, &self.doc_topic, &self.sums, self.docs, streams.child(THETA));
        column_sums_into(&mut self.sums, &self.theta);
        Self::draw_rows(self.prior, &mut self.phi, &self.word_topic, &self.sums, self.words, streams.child(PHI));
    }

    fn ln_prior(&self) -> f64 {
        self.theta.iter().chain(&self.phi).map(|&x| self.prior.ln_pdf(x)).sum()
    }

    fn factors(&self) -> Vec<FactorBlock<'_>> {
        vec![
            FactorBlock { name: "theta", rows: self.docs, cols: self.topics, values: &self.theta },
            FactorBlock { name: "phi (word-major)", rows: self.words, cols: self.topics, values: &self.phi },
        ]
    }
}
