//! Mean-field variational families for Poisson factorization: gamma factors `Q(z) = Gamma(a, b)`
//! (shape, **rate**) and the contract a model implements for coordinate-ascent variational
//! inference (CAVI) — non-private here, locally private in `inference`.
//!
//! With `E[y_nk] = r_n·G[μ_nk]` the expected sub-counts of every entry (`G[x] = e^{E[ln x]}`; the
//! ratio `r_n` is `y_n/Σ_k G[μ_nk]` for exact counts, eq. 8 of Schofield et al. for privatized
//! ones), each factor's optimal `Q` is the gamma of its complete conditional with the sub-counts
//! replaced by their expectations and the other factors by their means (appendix E.1 of Schein et
//! al. 2019, eqs. 51–57).

use crate::GammaPrior;
use crate::chunks::chunk_rows;
use distributions::{Streams, digamma, ln_gamma};
use rand::RngExt;
use rayon::prelude::*;

/// Independent gamma factors `Q(z_i) = Gamma(a_i, b_i)` (shape `a_i`, **rate** `b_i`), with the
/// moments CAVI reads cached: `E[z] = a/b`, `G[z] = e^{E[ln z]} = e^{ψ(a)}/b` (eq. 57) and
/// `E[z²] = a(a+1)/b²`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GammaFactors {
    shape: Vec<f64>,
    rate: Vec<f64>,
    mean: Vec<f64>,
    geometric: Vec<f64>,
    second_moment: Vec<f64>,
}

impl GammaFactors {
    /// `len` factors with `E[z] = scale·u`, `u ~ Uniform(0.5, 1.5)`, and shape 1 (a spread-out
    /// start that breaks the symmetry between components).
    pub fn random(len: usize, scale: f64, streams: Streams) -> Self {
        let mut rng = streams.rng();
        let mut factors = Self::constant(len, 1.0, 1.0);
        for i in 0..len {
            let mean = scale * (0.5 + rng.random::<f64>());
            factors.set(i, 1.0, 1.0 / mean);
        }
        factors
    }

    /// `len` factors, each `Q(z_i) = Gamma(shape, rate)`.
    pub fn constant(len: usize, shape: f64, rate: f64) -> Self {
        let mut factors = Self {
            shape: vec![shape; len],
            rate: vec![rate; len],
            mean: vec![0.0; len],
            geometric: vec![0.0; len],
            second_moment: vec![0.0; len],
        };
        for i in 0..len {
            factors.set(i, shape, rate);
        }
        factors
    }

    /// Sets `Q(z_i) = Gamma(shape, rate)` and its cached moments.
    pub fn set(&mut self, i: usize, shape: f64, rate: f64) {
        self.shape[i] = shape;
        self.rate[i] = rate;
        self.mean[i] = shape / rate;
        self.geometric[i] = digamma(shape).exp() / rate;
        self.second_moment[i] = shape * (shape + 1.0) / (rate * rate);
    }

    /// The conjugate update `Q(z_i) = Gamma(a₀ + count, b₀ + exposure)` (eqs. 53–55).
    pub fn update(&mut self, i: usize, prior: GammaPrior, count: f64, exposure: f64) {
        self.set(i, prior.shape() + count, prior.rate() + exposure.max(0.0));
    }

    /// The update under a hierarchical prior `z_i ~ Gamma(a₀, ξ)` with `Q(ξ)` given:
    /// `Q(z_i) = Gamma(a₀ + count, E[ξ] + exposure)` (Gopalan, Hofman & Blei 2015, §3).
    pub fn update_at_rate(&mut self, i: usize, shape: f64, mean_rate: f64, count: f64, exposure: f64) {
        self.set(i, shape + count, mean_rate + exposure.max(0.0));
    }

    /// Number of factors.
    pub fn len(&self) -> usize {
        self.shape.len()
    }

    /// `true` if there are no factors.
    pub fn is_empty(&self) -> bool {
        self.shape.is_empty()
    }

    /// Shapes `a_i`.
    pub fn shapes(&self) -> &[f64] {
        &self.shape
    }

    /// Rates `b_i`.
    pub fn rates(&self) -> &[f64] {
        &self.rate
    }

    /// `E[z_i] = a_i/b_i`.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// `G[z_i] = exp(ψ(a_i) − ln b_i)`.
    pub fn geometric(&self) -> &[f64] {
        &self.geometric
    }

    /// `E[z_i²] = a_i(a_i+1)/b_i²`.
    pub fn second_moment(&self) -> &[f64] {
        &self.second_moment
    }

    /// `Σ_i E[ln p(z_i)] + H(Q(z_i))` under the prior `Gamma(a₀, b₀)`:
    /// `E ln p = a₀ ln b₀ − ln Γ(a₀) + (a₀−1)(ψ(a) − ln b) − b₀ a/b` and
    /// `H = a − ln b + ln Γ(a) + (1−a)ψ(a)`.
    pub fn elbo_terms(&self, prior: GammaPrior) -> f64 {
        let (ln_b0, b0) = (prior.rate().ln(), prior.rate());
        self.elbo_terms_at(prior.shape(), |_| (ln_b0, b0))
    }

    /// [`Self::elbo_terms`] with each factor's prior rate random: `z_i ~ Gamma(a₀, ξ)` where
    /// `rate_moments(i) = (E[ln ξ], E[ξ])` under `Q(ξ)`; then
    /// `E ln p(z_i | ξ) = a₀ E[ln ξ] − ln Γ(a₀) + (a₀ − 1) E[ln z_i] − E[ξ] E[z_i]`.
    pub fn elbo_terms_at(&self, a0: f64, rate_moments: impl Fn(usize) -> (f64, f64)) -> f64 {
        let ln_gamma_a0 = ln_gamma(a0);
        self.shape
            .iter()
            .zip(&self.rate)
            .enumerate()
            .map(|(i, (&a, &b))| {
                let (ln_rate, rate) = rate_moments(i);
                let (psi, ln_b) = (digamma(a), b.ln());
                a0 * ln_rate - ln_gamma_a0 + (a0 - 1.0) * (psi - ln_b) - rate * a / b + a - ln_b
                    + ln_gamma(a)
                    + (1.0 - a) * psi
            })
            .sum()
    }

    /// `(E[ln z_i], E[z_i])` under `Q(z_i)`.
    pub fn log_and_mean(&self, i: usize) -> (f64, f64) {
        (digamma(self.shape[i]) - self.rate[i].ln(), self.mean[i])
    }
}

/// The variational side of a hierarchical gamma prior ([`crate::ScalePrior`]): `Q(ξ_g) =
/// Gamma(·, ·)` for each group `g` of factors that share a rate (a row of θ, a column of φ, all of
/// π), with the conjugate update `Q(ξ_g) = Gamma(a' + n_g a₀, E[κ] + Σ_{i∈g} E[z_i])` and its
/// ELBO terms `E[ln p(ξ | κ)] − E[ln q(ξ)]`; with a learned `κ` also `Q(κ) = Gamma(1 + G a', b'/a'
/// + Σ_g E[ξ_g])` and its terms `E[ln p(κ)] − E[ln q(κ)]` (a fixed `κ = a'/b'` is a point mass).
#[derive(Clone, Debug, PartialEq)]
pub struct RateFactors {
    pub(crate) prior: crate::ScalePrior,
    pub(crate) rates: GammaFactors,
    /// `Q(κ)` (one factor) when `κ` is learned.
    pub(crate) kappa: Option<GammaFactors>,
}

impl RateFactors {
    /// `groups` rates, each at its prior (shape a', rate a'/b'), and a learned `κ` at its prior.
    pub(crate) fn new(prior: crate::ScalePrior, groups: usize) -> Self {
        let kappa = prior.learns_mean().then(|| {
            let (shape, rate) = prior.kappa_conditional(&[]);
            GammaFactors::constant(1, shape, rate)
        });
        Self { prior, rates: GammaFactors::constant(groups, prior.shape(), prior.rate()), kappa }
    }

    /// `E[ξ_g]`.
    pub(crate) fn mean(&self, g: usize) -> f64 {
        self.rates.mean()[g]
    }

    /// `(E[ln κ], E[κ])`: of `Q(κ)`, or of the fixed `κ = a'/b'`.
    fn kappa_moments(&self) -> (f64, f64) {
        self.kappa.as_ref().map_or((self.prior.rate().ln(), self.prior.rate()), |q| q.log_and_mean(0))
    }

    /// Updates every factor of `factors` (groups of `per_group` consecutive factors share a rate)
    /// from its expected count and exposure — `Q(z_i) = Gamma(a₀ + count, rate + exposure)` with
    /// `rate` = `E[ξ_g]` of its group under `rates`, or `b₀` without a hierarchy — and then, with a
    /// hierarchy, every group's `Q(ξ_g)` from the updated factors, then `Q(κ)` if learned.
    pub(crate) fn update_with_factors(
        rates: Option<&mut Self>,
        factors: &mut GammaFactors,
        prior: GammaPrior,
        per_group: usize,
        (counts, exposure): (&[f64], impl Fn(usize) -> f64),
    ) {
        let a0 = prior.shape();
        match rates {
            None => {
                for (i, &n) in counts.iter().enumerate() {
                    factors.update(i, prior, n, exposure(i));
                }
            }
            Some(rates) => {
                for (i, &n) in counts.iter().enumerate() {
                    factors.update_at_rate(i, a0, rates.mean(i / per_group), n, exposure(i));
                }
                for (g, group) in factors.mean().chunks_exact(per_group).enumerate() {
                    rates.update(g, a0, group);
                }
                rates.update_kappa();
            }
        }
    }

    /// `Q(ξ_g) = Gamma(a' + n a₀, E[κ] + Σ E[z])` for the factors `group_means` (`n` of them).
    pub(crate) fn update(&mut self, g: usize, factor_shape: f64, group_means: &[f64]) {
        let shape = self.prior.shape() + group_means.len() as f64 * factor_shape;
        self.rates.set(g, shape, self.kappa_moments().1 + group_means.iter().sum::<f64>());
    }

    /// `Q(κ) = Gamma(1 + G a', b'/a' + Σ_g E[ξ_g])` when `κ` is learned.
    pub(crate) fn update_kappa(&mut self) {
        if let Some(q) = &mut self.kappa {
            let (shape, rate) = self.prior.kappa_conditional(self.rates.mean());
            q.set(0, shape, rate);
        }
    }

    /// `E[ln p(z | ξ)] − E[ln q(z)]` of `factors`, factor `i` in group `group(i)`, plus the rates'
    /// own `E[ln p(ξ | κ)] − E[ln q(ξ)]` and, with a learned `κ`, `E[ln p(κ)] − E[ln q(κ)]`.
    pub(crate) fn elbo_terms(&self, factors: &GammaFactors, factor_shape: f64, group: impl Fn(usize) -> usize) -> f64 {
        let kappa = self.kappa_moments();
        let kappa_terms = self.kappa.as_ref().map_or(0.0, |q| {
            let (shape, rate) = self.prior.kappa_conditional(&[]);
            q.elbo_terms_at(shape, |_| (rate.ln(), rate))
        });
        factors.elbo_terms_at(factor_shape, |i| self.rates.log_and_mean(group(i)))
            + self.rates.elbo_terms_at(self.prior.shape(), |_| kappa)
            + kappa_terms
    }
}

/// A named matrix of posterior means, row-major `rows × cols`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeanMatrix {
    /// e.g. `"theta"` (documents × topics) or `"phi"` (topics × words).
    pub name: &'static str,
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f64>,
}

/// The mean-field variational approximation of a Poisson factorization model (the CAVI
/// counterpart of [`crate::PoissonFactorization`]): gamma factors, and the per-entry moments of
/// the rate `μ_n = Σ_k μ_nk` that inference needs. Knows nothing about privacy.
pub trait MeanFieldFactorization: Clone + Send + Sync {
    /// `(rows, cols)` of the count matrix.
    fn shape(&self) -> (usize, usize);

    /// `true` for entries that are not part of the model (rate 0, count ignored).
    fn is_excluded(&self, _n: usize) -> bool {
        false
    }

    /// Resets `Q` to a random start whose expected rates average about `mean_rate`.
    fn initialize(&mut self, mean_rate: f64, streams: Streams);

    /// `W_n = Σ_k G[μ_nk]` for every entry, row-major (0 at excluded entries): the normalizer of
    /// the multinomial `Q` of the sub-counts (eq. 8 of Schofield et al.).
    fn geometric_rates_into(&self, out: &mut [f64]);

    /// `E[μ_n] = Σ_k E[μ_nk]` and `Σ_k V[μ_nk]` for every entry (0 at excluded entries): the
    /// inputs of the delta method (eqs. 70–72 of Schein et al.; `V[xy] = E[x²]E[y²] − E[x]²E[y]²`
    /// for independent factors, which is eq. 72 expanded).
    fn rate_moments_into(&self, mean: &mut [f64], variance: &mut [f64]);

    /// `E[μ_n]` for every entry: the estimate `μ̂` of the rates.
    fn mean_rates_into(&self, out: &mut [f64]);

    /// `Σ_n E[μ_n]` over the modelled entries.
    fn total_mean_rate(&self) -> f64;

    /// One coordinate-ascent pass over every factor given the expected sub-counts
    /// `E[y_nk] = ratios[n]·G[μ_nk]` (computed with `Q` as it is on entry). Each factor (or block
    /// of factors that do not interact) is set to its optimum given the others.
    fn update_factors(&mut self, ratios: &[f64]);

    /// `Σ_factors E[ln p(z)] + H(Q(z))`.
    fn factor_elbo(&self) -> f64;

    /// The posterior means of the factors (topic-major `phi` for the topic model).
    fn mean_factors(&self) -> Vec<MeanMatrix>;
}

/// `out[i·cols + j] = Σ_k a[i·K + k]·b[k·cols + j]` for a row-major `rows × K` matrix `a` and a
/// `K × cols` matrix `b` (an `a·b` product, parallel over fixed row chunks: each row is summed in
/// the same order whatever the thread count). The inner loop is an axpy over a row of `b`, which
/// vectorizes.
pub(crate) fn product_into(out: &mut [f64], a: &[f64], b: &[f64], k: usize, cols: usize) {
    let rows = out.len() / cols;
    let per_chunk = chunk_rows(rows);
    out.par_chunks_mut(per_chunk * cols).zip(a.par_chunks(per_chunk * k)).for_each(|(out, a)| {
        for (out_i, a_i) in out.chunks_exact_mut(cols).zip(a.chunks_exact(k)) {
            out_i.fill(0.0);
            for (&x, b_k) in a_i.iter().zip(b.chunks_exact(cols)) {
                for (o, &y) in out_i.iter_mut().zip(b_k) {
                    *o += x * y;
                }
            }
        }
    });
}

/// The transpose of a row-major `rows × cols` matrix.
pub(crate) fn transpose(values: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    for i in 0..rows {
        for j in 0..cols {
            out[j * rows + i] = values[i * cols + j];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::Gamma;
    use rand::distr::Distribution;

    /// The cached moments and the ELBO terms against Monte Carlo and numerical integration.
    #[test]
    fn gamma_factor_moments_and_entropy() {
        let prior = GammaPrior::new(0.3, 2.0).unwrap();
        let mut q = GammaFactors::random(1, 1.0, Streams::new(1));
        q.set(0, 2.5, 4.0);
        let gamma = Gamma::new(2.5, 4.0).unwrap();
        let mut rng = distributions::stream(5, 0);
        let n = 400_000;
        let (mut ln_sum, mut sq) = (0.0, 0.0);
        for _ in 0..n {
            let x: f64 = gamma.sample(&mut rng);
            ln_sum += x.ln();
            sq += x * x;
        }
        // Monte Carlo standard errors: sd(ln x) ≈ 0.7, sd(x²) ≈ 0.8 → 5σ bounds below.
        assert!((q.geometric()[0].ln() - ln_sum / n as f64).abs() < 5.0 * 0.7 / (n as f64).sqrt());
        assert!((q.second_moment()[0] - sq / n as f64).abs() < 5.0 * 0.8 / (n as f64).sqrt());
        assert_eq!(q.mean()[0], 2.5 / 4.0);
        // E ln p + H = ∫ q (ln p − ln q) by the midpoint rule on a fine grid.
        let (mut integral, h) = (0.0, 1e-5);
        let mut x = h / 2.0;
        while x < 20.0 {
            let lq = gamma.ln_pdf(x);
            integral += lq.exp() * (prior.ln_pdf(x) - lq) * h;
            x += h;
        }
        assert!((q.elbo_terms(prior) - integral).abs() < 1e-6, "{} vs {integral}", q.elbo_terms(prior));
    }

    #[test]
    fn product_matches_the_definition() {
        let (rows, k, cols) = (37, 3, 5);
        let a: Vec<f64> = (0..rows * k).map(|i| (i as f64 * 0.37).sin().abs()).collect();
        let b: Vec<f64> = (0..k * cols).map(|i| (i as f64 * 0.11).cos().abs()).collect();
        let mut out = vec![0.0; rows * cols];
        product_into(&mut out, &a, &b, k, cols);
        for i in 0..rows {
            for j in 0..cols {
                let direct: f64 = (0..k).map(|kk| a[i * k + kk] * b[kk * cols + j]).sum();
                assert!((out[i * cols + j] - direct).abs() < 1e-14);
            }
        }
        assert_eq!(transpose(&transpose(&b, k, cols), cols, k), b);
    }
}

/// Test support: the ELBO of a model with the sub-count `Q` held fixed.
#[cfg(test)]
pub(crate) mod fixed_allocation {
    use distributions::ln_gamma;

    /// Moves each factor of `factors(q)` (set through `set`) by 1 % and checks the ELBO falls.
    pub(crate) fn assert_optimal<Q: Clone>(
        q: &Q,
        value: impl Fn(&Q) -> f64,
        factors: impl Fn(&mut Q) -> &mut super::GammaFactors,
        name: &str,
    ) {
        let best = value(q);
        let mut probe = q.clone();
        let (shapes, rates) = (factors(&mut probe).shapes().to_vec(), factors(&mut probe).rates().to_vec());
        for (i, (a, b)) in shapes.iter().zip(&rates).enumerate() {
            for (da, db) in [(1.01, 1.0), (0.99, 1.0), (1.0, 1.01), (1.0, 0.99)] {
                let mut moved = q.clone();
                factors(&mut moved).set(i, a * da, b * db);
                assert!(value(&moved) < best, "{name} {i}: moving ({da}, {db}) raised the ELBO");
            }
        }
    }

    /// `Σ_n Σ_k y_n π_nk (E[ln μ_nk] − ln π_nk) − ln y_n! − E[μ_n]` summed, plus `factor_elbo`:
    /// the ELBO when `Q(y_n·) = Mult(y_n, π_n·)` is held fixed. `ln_weights(n)` gives
    /// `E[ln μ_nk]` under the current `Q` of the factors; `allocation(n)` gives `π_n·`.
    pub(crate) fn elbo(
        y: &[u32],
        ln_weights: impl Fn(usize) -> Vec<f64>,
        allocation: &[Vec<f64>],
        total_mean_rate: f64,
        factor_elbo: f64,
    ) -> f64 {
        let mut sum = factor_elbo - total_mean_rate;
        for (n, &count) in y.iter().enumerate().filter(|(_, c)| **c > 0) {
            let c = f64::from(count);
            let expected: f64 = ln_weights(n)
                .iter()
                .zip(&allocation[n])
                .map(|(lw, p)| if *p > 0.0 { p * (lw - p.ln()) } else { 0.0 })
                .sum();
            sum += c * expected - ln_gamma(c + 1.0);
        }
        sum
    }

    /// Normalized weights `G[μ_nk]/Σ_k G[μ_nk]` from `E[ln μ_nk]`.
    pub(crate) fn normalized(ln_weights: &[f64]) -> Vec<f64> {
        let w: Vec<f64> = ln_weights.iter().map(|x| x.exp()).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| x / total).collect()
    }
}
