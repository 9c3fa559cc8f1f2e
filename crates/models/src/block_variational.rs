//! Mean-field CAVI for the overlapping-community block model.

use crate::GammaPrior;
use crate::block::pair_exposures;
use crate::chunks::{chunk_rows, column_sums_into};
use crate::variational::{GammaFactors, MeanFieldFactorization, MeanMatrix, RateFactors, product_into, transpose};
use distributions::Streams;
use rayon::prelude::*;

/// `Q(θ_ic) = Gamma(a_ic, b_ic)`, `Q(π_cd) = Gamma(a_cd, b_cd)` for the model of
/// [`crate::BlockModel`] (`μ_ij = Σ_cd θ_ic θ_jd π_cd` for `i ≠ j`, gamma priors, shape and rate).
///
/// Coordinate ascent given `E[y_ijcd] = r_ij·G[θ_ic]G[θ_jd]G[π_cd]` (the same conjugate updates
/// as the Gibbs sweep, with expectations for draws — appendix E.1 of Schein et al. 2019):
/// * `θ` row by row (rows interact through `E[μ_ij]`, so a row is optimal given the others):
///   `Q(θ_ic) = Gamma(a₀ + Σ_{j,d} E[y_ijcd] + Σ_{j,c'} E[y_jic'c],
///   b₀ + Σ_d (S_d − E[θ_id])(E[π_cd] + E[π_dc]))`, `S_d = Σ_j E[θ_jd]` kept current;
/// * `Q(π_cd) = Gamma(a₀ + Σ_ij E[y_ijcd], b₀ + S_c S_d − Σ_i E[θ_ic]E[θ_id])`.
#[derive(Clone, Debug)]
pub struct BlockVariational {
    actors: usize,
    communities: usize,
    prior: GammaPrior,
    theta: GammaFactors,
    pi: GammaFactors,
    /// `Q(ξ_i)` per actor and `Q(λ)` for `π` of a hierarchical prior (`BlockModel::with_hierarchy`:
    /// `E[ξ_i]`, `E[λ]` replace `b₀`, each updated after its factors); `None`: flat.
    hierarchy: Option<(RateFactors, RateFactors)>,
}

/// `out_ij = Σ_cd θ_ic π_cd θ_jd` (0 on the diagonal) for `V × C` `theta` and `C × C` `pi`.
fn block_rates_into(out: &mut [f64], theta: &[f64], pi: &[f64], actors: usize, c: usize) {
    let mut w = vec![0.0; actors * c]; // w_jc = Σ_d π_cd θ_jd
    product_into(&mut w, theta, &transpose(pi, c, c), c, c);
    product_into(out, theta, &transpose(&w, actors, c), c, actors);
    for i in 0..actors {
        out[i * actors + i] = 0.0;
    }
}

impl BlockVariational {
    /// A network of `actors` actors with `communities` communities and a random start at mean
    /// rate 1. Panics if a dimension is 0.
    pub fn new(actors: usize, communities: usize, prior: GammaPrior, streams: Streams) -> Self {
        assert!(actors > 0 && communities > 0, "BlockVariational dimensions must be positive");
        let (theta, pi) = (GammaFactors::default(), GammaFactors::default());
        let mut q = Self { actors, communities, prior, theta, pi, hierarchy: None };
        q.initialize(1.0, streams);
        q
    }

    /// The approximation of the model with a hierarchical prior: every `Q(ξ_i)` and `Q(λ)` starts
    /// at the rates' prior.
    pub fn with_hierarchy(mut self, scale: crate::ScalePrior) -> Self {
        self.hierarchy = Some((RateFactors::new(scale, self.actors), RateFactors::new(scale, 1)));
        self
    }

    /// `Q(θ)`, `V × C`.
    pub fn theta(&self) -> &GammaFactors {
        &self.theta
    }

    /// `Q(π)`, `C × C`.
    pub fn pi(&self) -> &GammaFactors {
        &self.pi
    }
}

impl MeanFieldFactorization for BlockVariational {
    fn shape(&self) -> (usize, usize) {
        (self.actors, self.actors)
    }

    fn is_excluded(&self, n: usize) -> bool {
        n / self.actors == n % self.actors
    }

    fn initialize(&mut self, mean_rate: f64, streams: Streams) {
        let c = self.communities;
        self.theta = GammaFactors::random(self.actors * c, 1.0, streams.child(0));
        self.pi = GammaFactors::random(c * c, mean_rate.max(1e-12) / (c * c) as f64, streams.child(1));
    }

    fn geometric_rates_into(&self, out: &mut [f64]) {
        block_rates_into(out, self.theta.geometric(), self.pi.geometric(), self.actors, self.communities);
    }

    fn rate_moments_into(&self, mean: &mut [f64], variance: &mut [f64]) {
        let (v, c) = (self.actors, self.communities);
        self.mean_rates_into(mean);
        // Σ_cd V[θ_ic π_cd θ_jd] = Σ_cd E[θ²]E[π²]E[θ²] − (E[θ]E[π]E[θ])² (independent factors).
        block_rates_into(variance, self.theta.second_moment(), self.pi.second_moment(), v, c);
        let square = |x: &[f64]| -> Vec<f64> { x.iter().map(|m| m * m).collect() };
        let mut squared_means = vec![0.0; v * v];
        block_rates_into(&mut squared_means, &square(self.theta.mean()), &square(self.pi.mean()), v, c);
        for (var, sq) in variance.iter_mut().zip(&squared_means) {
            *var = (*var - sq).max(0.0);
        }
    }

    fn mean_rates_into(&self, out: &mut [f64]) {
        block_rates_into(out, self.theta.mean(), self.pi.mean(), self.actors, self.communities);
    }

    fn total_mean_rate(&self) -> f64 {
        let exposures = pair_exposures(self.theta.mean(), self.communities);
        exposures.iter().zip(self.pi.mean()).map(|(e, p)| e * p).sum()
    }

    fn update_factors(&mut self, ratios: &[f64]) {
        let (v, c) = (self.actors, self.communities);
        let (g_theta, g_pi) = (self.theta.geometric(), self.pi.geometric());
        // w_jc = Σ_d G[π_cd]G[θ_jd] (sender side), u_jc = Σ_c' G[θ_jc']G[π_c'c] (receiver side).
        let (mut w, mut u) = (vec![0.0; v * c], vec![0.0; v * c]);
        product_into(&mut w, g_theta, &transpose(g_pi, c, c), c, c);
        product_into(&mut u, g_theta, g_pi, c, c);
        // Per row i: sent_i = Σ_j r_ij w_j, h_i = Σ_j r_ij G[θ_j]; received_j += r_ij u_i per chunk.
        let per_chunk = chunk_rows(v);
        let (mut sent, mut h) = (vec![0.0; v * c], vec![0.0; v * c]);
        let received_parts: Vec<Vec<f64>> = sent
            .par_chunks_mut(per_chunk * c)
            .zip(h.par_chunks_mut(per_chunk * c))
            .zip(ratios.par_chunks(per_chunk * v))
            .enumerate()
            .map(|(chunk, ((sent, h), ratios))| {
                let mut received = vec![0.0; v * c];
                for (local, ((sent_i, h_i), r_i)) in
                    sent.chunks_exact_mut(c).zip(h.chunks_exact_mut(c)).zip(ratios.chunks_exact(v)).enumerate()
                {
                    let i = chunk * per_chunk + local;
                    let u_i = &u[i * c..(i + 1) * c];
                    for (j, &r) in r_i.iter().enumerate().filter(|&(j, r)| j != i && *r != 0.0) {
                        let (w_j, g_j) = (&w[j * c..(j + 1) * c], &g_theta[j * c..(j + 1) * c]);
                        for (((s, hh), &wj), &gj) in sent_i.iter_mut().zip(h_i.iter_mut()).zip(w_j).zip(g_j) {
                            *s += r * wj;
                            *hh += r * gj;
                        }
                        for (rec, &ui) in received[j * c..(j + 1) * c].iter_mut().zip(u_i) {
                            *rec += r * ui;
                        }
                    }
                }
                received
            })
            .collect();
        let mut actor_counts: Vec<f64> = sent.iter().zip(g_theta).map(|(s, g)| s * g).collect();
        for part in &received_parts {
            for ((a, &p), &g) in actor_counts.iter_mut().zip(part).zip(g_theta) {
                *a += p * g;
            }
        }
        // Σ_ij E[y_ijcd] = G[π_cd] Σ_i G[θ_ic] h_id.
        let mut pair_counts = vec![0.0; c * c];
        for (g_i, h_i) in g_theta.chunks_exact(c).zip(h.chunks_exact(c)) {
            for (cc, &g) in g_i.iter().enumerate() {
                for (p, &hd) in pair_counts[cc * c..(cc + 1) * c].iter_mut().zip(h_i) {
                    *p += g * hd;
                }
            }
        }
        for (p, &g) in pair_counts.iter_mut().zip(g_pi) {
            *p *= g;
        }
        // θ row by row with the column sums S kept current, then π.
        let mut sums = vec![0.0; c];
        column_sums_into(&mut sums, self.theta.mean());
        let mut exposure = vec![0.0; c];
        for i in 0..v {
            let theta_i: Vec<f64> = self.theta.mean()[i * c..(i + 1) * c].to_vec();
            let pi = self.pi.mean();
            for (cc, e) in exposure.iter_mut().enumerate() {
                *e = (0..c).map(|d| (sums[d] - theta_i[d]) * (pi[cc * c + d] + pi[d * c + cc])).sum();
            }
            let a0 = self.prior.shape();
            for cc in 0..c {
                let (n, e) = (actor_counts[i * c + cc], exposure[cc]);
                match &self.hierarchy {
                    None => self.theta.update(i * c + cc, self.prior, n, e),
                    Some((xi, _)) => self.theta.update_at_rate(i * c + cc, a0, xi.mean(i), n, e),
                }
                sums[cc] += self.theta.mean()[i * c + cc] - theta_i[cc];
            }
        }
        let a0 = self.prior.shape();
        if let Some((xi, _)) = &mut self.hierarchy {
            for (i, row) in self.theta.mean().chunks_exact(c).enumerate() {
                xi.update(i, a0, row);
            }
            xi.update_kappa();
        }
        let exposures = pair_exposures(self.theta.mean(), c);
        let lambda = self.hierarchy.as_mut().map(|(_, lambda)| lambda);
        RateFactors::update_with_factors(lambda, &mut self.pi, self.prior, c * c, (&pair_counts, |cd| exposures[cd]));
    }

    fn factor_elbo(&self) -> f64 {
        let (a0, c) = (self.prior.shape(), self.communities);
        match &self.hierarchy {
            None => self.theta.elbo_terms(self.prior) + self.pi.elbo_terms(self.prior),
            Some((xi, lambda)) => xi.elbo_terms(&self.theta, a0, |i| i / c) + lambda.elbo_terms(&self.pi, a0, |_| 0),
        }
    }

    fn mean_factors(&self) -> Vec<MeanMatrix> {
        let (v, c) = (self.actors, self.communities);
        vec![
            MeanMatrix { name: "theta", rows: v, cols: c, values: self.theta.mean().to_vec() },
            MeanMatrix { name: "pi", rows: c, cols: c, values: self.pi.mean().to_vec() },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variational::fixed_allocation::{assert_optimal, elbo, normalized};

    fn ln_weights(q: &BlockVariational, n: usize) -> Vec<f64> {
        let (i, j, c) = (n / q.actors, n % q.actors, q.communities);
        let (t, p) = (q.theta.geometric(), q.pi.geometric());
        if i == j {
            return vec![0.0; c * c];
        }
        (0..c * c).map(|cd| t[i * c + cd / c].ln() + t[j * c + cd % c].ln() + p[cd].ln()).collect()
    }

    /// As for the topic model: a pass of updates with `Q(y)` fixed does not decrease the ELBO,
    /// and `π` (updated last) is at an optimum. The diagonal carries no counts. With the
    /// hierarchical prior (issue 32) the ELBO does not decrease either, and the actor rates `Q(ξ)`
    /// (optimal given `Q(θ)`, which later steps leave alone) and `Q(λ)` (updated last) are at an
    /// optimum (`π` is optimal given the `E[λ]` it was updated with, which then moves).
    #[test]
    fn factor_updates_are_coordinate_optima() {
        coordinate_optima(None);
        coordinate_optima(Some(crate::ScalePrior::new(2.0, 1.5).unwrap()));
        coordinate_optima(Some(crate::ScalePrior::new(2.0, 1.5).unwrap().with_learned_mean(1.0).unwrap()));
    }

    fn coordinate_optima(scale: Option<crate::ScalePrior>) {
        let (v, c) = (6, 2);
        let prior = GammaPrior::new(0.7, 1.3).unwrap();
        let mut q = BlockVariational::new(v, c, prior, Streams::new(4));
        if let Some(scale) = scale {
            q = q.with_hierarchy(scale);
        }
        q.initialize(2.0, Streams::new(5));
        let y: Vec<u32> = (0..v * v).map(|n| if n / v == n % v { 0 } else { ((n * 7919) % 5) as u32 }).collect();
        let mut w = vec![0.0; v * v];
        q.geometric_rates_into(&mut w);
        let allocation: Vec<Vec<f64>> = (0..v * v).map(|n| normalized(&ln_weights(&q, n))).collect();
        let ratios: Vec<f64> = y.iter().zip(&w).map(|(&c, w)| if *w > 0.0 { f64::from(c) / w } else { 0.0 }).collect();
        let value =
            |q: &BlockVariational| elbo(&y, |n| ln_weights(q, n), &allocation, q.total_mean_rate(), q.factor_elbo());
        let before = value(&q);
        q.update_factors(&ratios);
        let after = value(&q);
        assert!(after >= before, "{after} < {before}");
        // π is optimal given the E[λ] it was updated with; with a hierarchy λ then moves.
        match scale {
            None => assert_optimal(&q, value, |q| &mut q.pi, "pi"),
            // A learned κ is updated after its rates, which are then optimal given the E[κ]
            // they were updated with; each group's Q(κ) is at an optimum.
            Some(scale) if scale.learns_mean() => {
                assert_optimal(&q, value, |q| q.hierarchy.as_mut().unwrap().0.kappa.as_mut().unwrap(), "kappa xi");
                assert_optimal(&q, value, |q| q.hierarchy.as_mut().unwrap().1.kappa.as_mut().unwrap(), "kappa lambda");
            }
            Some(_) => {
                assert_optimal(&q, value, |q| &mut q.hierarchy.as_mut().unwrap().0.rates, "xi");
                assert_optimal(&q, value, |q| &mut q.hierarchy.as_mut().unwrap().1.rates, "lambda");
            }
        }
        // E[μ] summed entry by entry equals the closed-form total.
        let mut mean = vec![0.0; v * v];
        q.mean_rates_into(&mut mean);
        assert!((mean.iter().sum::<f64>() - q.total_mean_rate()).abs() < 1e-10 * q.total_mean_rate());
    }
}
