//! The topic model's fused sweep (`gibbs_update_redrawing` overridden: one pass forms each
//! entry's products, redraws its count from their sum and allocates it) gives the same counts,
//! redraw states and factors, bit for bit, as the trait's default (all rates first, then the
//! redraws, then `gibbs_update`), on shapes whose word count is and is not a multiple of four.

use distributions::{Poisson, StreamRng, Streams};
use models::{FactorBlock, GammaPrior, PoissonFactorization, TopicModel};
use rand::distr::Distribution;

/// The topic model with every method delegated except the fused sweep, so the default runs.
#[derive(Clone)]
struct Unfused(TopicModel);

impl PoissonFactorization for Unfused {
    fn shape(&self) -> (usize, usize) {
        self.0.shape()
    }
    fn rates_into(&self, out: &mut [f64]) {
        self.0.rates_into(out)
    }
    fn sample_prior(&mut self, streams: Streams) {
        self.0.sample_prior(streams)
    }
    fn gibbs_update(&mut self, y: &[u32], streams: Streams) {
        self.0.gibbs_update(y, streams)
    }
    fn ln_prior(&self) -> f64 {
        self.0.ln_prior()
    }
    fn factors(&self) -> Vec<FactorBlock<'_>> {
        self.0.factors()
    }
}

/// A stand-in for the private step: a Poisson draw from the rate, and a per-entry state that
/// records the rates it was given (so a rate that differs in one bit is caught).
fn redraw(n: usize, seen: &mut Vec<u64>, mu: f64, rng: &mut StreamRng) -> Result<u32, String> {
    seen.push(mu.to_bits() ^ n as u64);
    let draw = Poisson::new(mu).map_err(|e| e.to_string())?.sample(rng);
    Ok(u32::try_from(draw).unwrap_or(u32::MAX))
}

#[test]
fn the_fused_sweep_equals_the_default_bit_for_bit() {
    let prior = GammaPrior::new(1.0, 3.0).unwrap();
    let mut allocated = 0u64;
    for (docs, words, topics) in [(7, 13, 3), (20, 16, 9), (33, 41, 50), (1, 1, 1)] {
        let mut fused = TopicModel::new(docs, words, topics, prior, Streams::new(1));
        let mut plain = Unfused(fused.clone());
        let n = docs * words;
        let (mut y_f, mut y_p) = (vec![0u32; n], vec![0u32; n]);
        let (mut seen_f, mut seen_p) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        let (mut rates_f, mut rates_p) = (vec![0.0; n], vec![0.0; n]);
        let root = Streams::new(9);
        for t in 0..5 {
            let (redraw_streams, streams) = (root.child(t).child(0), root.child(t).child(1));
            fused
                .gibbs_update_redrawing(&mut y_f, &mut seen_f, &mut rates_f, &redraw, redraw_streams, streams)
                .unwrap();
            plain
                .gibbs_update_redrawing(&mut y_p, &mut seen_p, &mut rates_p, &redraw, redraw_streams, streams)
                .unwrap();
            assert_eq!(y_f, y_p, "{docs}×{words}, K = {topics}, sweep {t}");
            assert_eq!(seen_f, seen_p, "{docs}×{words}, K = {topics}, sweep {t}");
            let bits =
                |m: &TopicModel| m.theta().iter().chain(m.phi_word_major()).map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fused), bits(&plain.0), "{docs}×{words}, K = {topics}, sweep {t}");
        }
        allocated += y_f.iter().map(|&c| u64::from(c)).sum::<u64>();
    }
    assert!(allocated > 100, "the test should allocate counts: {allocated}");
}
