//! Poisson CP (canonical polyadic) tensor factorization: three-way counts, e.g. who × whom × when.
//!
//! `y_ijt ~ Pois(μ_ijt)`, `μ_ijt = Σ_k θ_ik φ_jk ψ_tk`, `θ_ik, φ_jk, ψ_tk ~ Gamma(a₀, b₀)` (shape,
//! **rate**): Bayesian Poisson tensor factorization (Schein, Paisley, Blei & Wallach 2015, eq. 1),
//! the three-way form of [`crate::TopicModel`].
//!
//! **The grid.** The privacy layer and every sampler see a matrix; the tensor is laid out as
//! `I` rows by `J·T` columns, column `j·T + t` (the second mode major). A cell's rate is all the
//! private step reads, so the layer is unchanged.
//!
//! **Gibbs sweep** (given complete counts): allocate `(y_ijtk)_k ~ Mult(y_ijt, (θ_ik φ_jk ψ_tk)_k)`,
//! then, with `n_ik = Σ_jt y_ijtk` (and likewise `n_jk`, `n_tk`) and the column sums
//! `Θ_k = Σ_i θ_ik`, `Φ_k = Σ_j φ_jk`, `Ψ_k = Σ_t ψ_tk`:
//! `θ_ik ~ Gamma(a₀ + n_ik, b₀ + Φ_k Ψ_k)`, `φ_jk ~ Gamma(a₀ + n_jk, b₀ + Θ_k Ψ_k)`,
//! `ψ_tk ~ Gamma(a₀ + n_tk, b₀ + Θ_k Φ_k)` (gamma–Poisson conjugacy; each block given the others'
//! current values, so the sums are recomputed between blocks).
//!
//! **Tempering** (`crate::tempering`): at inverse temperature `β` the allocation's weights are
//! `(θ_ik φ_jk ψ_tk)^β`, the counts and exposures of the gamma conditionals are multiplied by `β`,
//! and the energy is `Σ_ik n_ik ln θ_ik + Σ_jk n_jk ln φ_jk + Σ_tk n_tk ln ψ_tk − Σ_k Θ_k Φ_k Ψ_k`.
//!
//! **Hierarchical prior** ([`TensorModel::with_hierarchy`], as [`crate::TopicModel`]'s): each
//! factor row has its own rate, `θ_ik ~ Gamma(a₀, ξ_i)`, `φ_jk ~ Gamma(a₀, η_j)`,
//! `ψ_tk ~ Gamma(a₀, ζ_t)`, the rates `~ Gamma(a', κ)` ([`ScalePrior`]); the sweep draws each
//! factor with its row's rate in place of `b₀`, then that mode's rates (`crate::hierarchy`).
//!
//! Storage: each factor row-major with its `K` components contiguous (`θ`: `I × K`, `φ`: `J × K`,
//! `ψ`: `T × K`).

use crate::chunks::{allocate_each, chunk_rows, column_sums_into};
use crate::error::ModelError;
use crate::hierarchy::RateGroup;
use crate::tempering::{count_log_sum, powered};
use crate::topic::{Exposure, draw_rows};
use crate::{FactorBlock, GammaPrior, PoissonFactorization, ScalePrior};
use distributions::Streams;
use rayon::prelude::*;
use std::borrow::Cow;

/// Stream ids of the steps of one sweep.
const ALLOCATE: u64 = 0;
const THETA: u64 = 1;
const PHI: u64 = 2;
const PSI: u64 = 3;
const PRIOR_THETA: u64 = 4;
const PRIOR_PHI: u64 = 5;
const PRIOR_PSI: u64 = 6;
/// The hierarchy's rates of the three modes (`ξ`, `η`, `ζ`): updates, then prior draws.
const RATES: [u64; 3] = [7, 8, 9];
const PRIOR_RATES: [u64; 3] = [10, 11, 12];

/// A Poisson CP factorization of an `I × J × T` count tensor with `K` components (the module's
/// doc).
#[derive(Clone, Debug)]
pub struct TensorModel {
    rows: usize,
    cols: usize,
    times: usize,
    components: usize,
    prior: GammaPrior,
    theta: Vec<f64>,
    phi: Vec<f64>,
    psi: Vec<f64>,
    /// `n_ik`, `n_jk`, `n_tk`: the allocated counts of each factor row and component.
    row_counts: Vec<u32>,
    col_counts: Vec<u32>,
    time_counts: Vec<u32>,
    /// A hierarchical prior's row rates of `θ`, `φ` and `ψ` (`None`: the flat prior `b₀`).
    hierarchy: Option<[RateGroup; 3]>,
    beta: f64,
    /// A planted bug for the mutation test ([`TensorModel::plant_exposure_bug`]): `θ`'s exposure
    /// leaves out the third mode (`b₀ + Φ_k` instead of `b₀ + Φ_k Ψ_k`). Always false otherwise.
    planted_exposure_bug: bool,
}

impl TensorModel {
    /// An `rows × cols × times` model with `components` components, factors drawn from the prior
    /// with `streams`. Panics if a dimension is 0 (a programming error: shapes are validated
    /// before a model is built).
    pub fn new(rows: usize, cols: usize, times: usize, components: usize, prior: GammaPrior, streams: Streams) -> Self {
        assert!(rows > 0 && cols > 0 && times > 0 && components > 0, "TensorModel dimensions must be positive");
        let k = components;
        let mut model = Self {
            rows,
            cols,
            times,
            components,
            prior,
            theta: vec![0.0; rows * k],
            phi: vec![0.0; cols * k],
            psi: vec![0.0; times * k],
            row_counts: vec![0; rows * k],
            col_counts: vec![0; cols * k],
            time_counts: vec![0; times * k],
            hierarchy: None,
            beta: 1.0,
            planted_exposure_bug: false,
        };
        model.sample_prior(streams);
        model
    }

    /// The model with a hierarchical prior: a rate per row of each factor (the module's doc),
    /// drawn from the prior with `streams` together with the factors.
    pub fn with_hierarchy(mut self, scale: ScalePrior, streams: Streams) -> Self {
        let group = |n: usize| RateGroup::new(scale, n);
        self.hierarchy = Some([group(self.rows), group(self.cols), group(self.times)]);
        self.sample_prior(streams);
        self
    }

    /// The mutation test's planted bug: `θ_ik` drawn with exposure `b₀ + Φ_k`, the third mode
    /// left out (only the Geweke test of this model uses it).
    pub fn plant_exposure_bug(mut self) -> Self {
        self.planted_exposure_bug = true;
        self
    }

    /// `(I, J, T)`: the tensor's three modes (the grid is `I × J·T`).
    pub fn modes(&self) -> (usize, usize, usize) {
        (self.rows, self.cols, self.times)
    }

    /// Components `K`.
    pub fn components(&self) -> usize {
        self.components
    }

    /// `θ` (`I × K`), `φ` (`J × K`), `ψ` (`T × K`).
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    pub fn phi(&self) -> &[f64] {
        &self.phi
    }

    pub fn psi(&self) -> &[f64] {
        &self.psi
    }

    /// Sets the three factors (e.g. a fitted or true state), each row-major with `K` columns.
    pub fn set_factors(&mut self, theta: &[f64], phi: &[f64], psi: &[f64]) -> Result<(), ModelError> {
        let k = self.components;
        for (name, values, rows) in [("theta", theta, self.rows), ("phi", phi, self.cols), ("psi", psi, self.times)] {
            crate::error::check_factor(name, values, rows, k)?;
        }
        self.theta.copy_from_slice(theta);
        self.phi.copy_from_slice(phi);
        self.psi.copy_from_slice(psi);
        Ok(())
    }

    /// `Σ_rows x_·k` of one factor, for each component.
    fn column_sums(&self, values: &[f64]) -> Vec<f64> {
        let mut sums = vec![0.0; self.components];
        column_sums_into(&mut sums, values);
        sums
    }

    /// `Π_{other modes} (Σ_rows x_·k)` for each component: the exposure of one mode's factors
    /// (`b₀ +` this, times `β`, in its gamma conditional).
    fn exposure(&self, first: &[f64], second: &[f64]) -> Vec<f64> {
        self.column_sums(first).iter().zip(self.column_sums(second)).map(|(x, y)| x * y).collect()
    }

    /// Allocates every count of `y` (the `I × J·T` grid) over the components with weights
    /// `(θ_ik φ_jk ψ_tk)^β`, filling the three count tables. Rows are split into fixed chunks, one
    /// stream each, so the draw is the same at any thread count.
    fn allocate(&mut self, y: &[u32], streams: Streams) {
        let (k, j_count, t_count) = (self.components, self.cols, self.times);
        let width = j_count * t_count;
        let [theta, phi, psi] = tempered([&self.theta, &self.phi, &self.psi], self.beta);
        let (phi, psi) = (phi.as_ref(), psi.as_ref());
        let per_chunk = chunk_rows(self.rows);
        let parts: Vec<(Vec<u32>, Vec<u32>)> = self
            .row_counts
            .par_chunks_mut(per_chunk * k)
            .zip(y.par_chunks(per_chunk * width).zip(theta.par_chunks(per_chunk * k)))
            .enumerate()
            .map(|(chunk, (row_counts, (y, theta)))| {
                let mut rng = streams.child(chunk as u64).rng();
                let (mut col_counts, mut time_counts) = (vec![0u32; j_count * k], vec![0u32; t_count * k]);
                let (mut cumulative, mut scratch) = (vec![0.0; k], vec![0u64; k]);
                row_counts.fill(0);
                for ((y_i, theta_i), n_i) in
                    y.chunks_exact(width).zip(theta.chunks_exact(k)).zip(row_counts.chunks_exact_mut(k))
                {
                    for (c, &count) in y_i.iter().enumerate().filter(|(_, n)| **n > 0) {
                        let (j, t) = (c / t_count, c % t_count);
                        let (phi_j, psi_t) = (&phi[j * k..(j + 1) * k], &psi[t * k..(t + 1) * k]);
                        let mut sum = 0.0;
                        for (((s, a), b), g) in cumulative.iter_mut().zip(theta_i).zip(phi_j).zip(psi_t) {
                            sum += a * b * g;
                            *s = sum;
                        }
                        allocate_each(u64::from(count), &mut cumulative, &mut scratch, &mut rng, |component, x| {
                            let x = x as u32;
                            n_i[component] += x;
                            col_counts[j * k + component] += x;
                            time_counts[t * k + component] += x;
                        });
                    }
                }
                (col_counts, time_counts)
            })
            .collect();
        self.col_counts.fill(0);
        self.time_counts.fill(0);
        for (cols, times) in parts {
            self.col_counts.iter_mut().zip(cols).for_each(|(s, x)| *s += x);
            self.time_counts.iter_mut().zip(times).for_each(|(s, x)| *s += x);
        }
    }
}

/// The three factors raised to the inverse temperature `β` (borrowed as they are at `β = 1`).
fn tempered<'a>(factors: [&'a [f64]; 3], beta: f64) -> [Cow<'a, [f64]>; 3] {
    factors.map(|x| if beta == 1.0 { Cow::Borrowed(x) } else { Cow::Owned(powered(x, beta)) })
}

impl PoissonFactorization for TensorModel {
    fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols * self.times)
    }

    /// `Σ_k (θ_ik φ_jk ψ_tk)^β`: the rates at `β = 1`, the tempered rates `μ̃` otherwise.
    fn mean_rates_into(&self, out: &mut [f64]) {
        let (k, t_count) = (self.components, self.times);
        let width = self.cols * t_count;
        let [theta, phi, psi] = tempered([&self.theta, &self.phi, &self.psi], self.beta);
        let (phi, psi) = (phi.as_ref(), psi.as_ref());
        out.par_chunks_mut(width).zip(theta.par_chunks(k)).for_each(|(out_i, theta_i)| {
            let mut weighted = vec![0.0; k];
            for (phi_j, out_j) in phi.chunks_exact(k).zip(out_i.chunks_exact_mut(t_count)) {
                weighted.iter_mut().zip(theta_i).zip(phi_j).for_each(|((w, a), b)| *w = a * b);
                for (psi_t, out) in psi.chunks_exact(k).zip(out_j.iter_mut()) {
                    *out = weighted.iter().zip(psi_t).map(|(w, g)| w * g).sum();
                }
            }
        });
    }

    fn row_loadings(&self) -> Vec<f64> {
        crate::topic::loadings(&self.theta, &self.exposure(&self.phi, &self.psi))
    }

    fn set_temperature(&mut self, beta: f64) -> Result<(), ModelError> {
        crate::check_temperature(beta)?;
        self.beta = beta;
        Ok(())
    }

    fn temperature(&self) -> f64 {
        self.beta
    }

    fn energy(&self) -> f64 {
        let counts = count_log_sum(&self.row_counts, &self.theta)
            + count_log_sum(&self.col_counts, &self.phi)
            + count_log_sum(&self.time_counts, &self.psi);
        // − Σ_ijt μ_ijt = − Σ_k Θ_k Φ_k Ψ_k.
        let total: f64 =
            self.column_sums(&self.theta).iter().zip(self.exposure(&self.phi, &self.psi)).map(|(a, e)| a * e).sum();
        counts - total
    }

    fn sample_prior(&mut self, streams: Streams) {
        let k = self.components;
        let none = vec![0.0; k];
        if let Some(groups) = &mut self.hierarchy {
            for (group, id) in groups.iter_mut().zip(PRIOR_RATES) {
                group.sample_prior(&mut streams.child(id).rng());
            }
        }
        let rates = self.hierarchy.as_ref().map(|[xi, eta, zeta]| [&xi.rates, &eta.rates, &zeta.rates]);
        for (m, (values, rows, id)) in [
            (&mut self.theta, self.rows, PRIOR_THETA),
            (&mut self.phi, self.cols, PRIOR_PHI),
            (&mut self.psi, self.times, PRIOR_PSI),
        ]
        .into_iter()
        .enumerate()
        {
            let zero = vec![0; rows * k];
            let row_rates = rates.map(|r| r[m].as_slice());
            draw_rows(self.prior, values, (&zero, 1.0), Exposure::Shared(&none), (rows, row_rates), streams.child(id));
        }
    }

    fn gibbs_update(&mut self, y: &[u32], streams: Streams) {
        self.allocate(y, streams.child(ALLOCATE));
        let beta = self.beta;
        let exposure =
            if self.planted_exposure_bug { self.column_sums(&self.phi) } else { self.exposure(&self.phi, &self.psi) };
        // Each mode's gamma conditional given the other two's current values (fixed row chunks,
        // one stream each), then that mode's row rates under a hierarchical prior.
        let (prior, k) = (self.prior, self.components);
        let mut hierarchy = self.hierarchy.take();
        let mut draw = |m: usize, values: &mut [f64], counts: &[u32], exposure: &[f64], id: u64| {
            let rows = values.len() / k;
            let rates = hierarchy.as_ref().map(|groups| groups[m].rates.as_slice());
            draw_rows(prior, values, (counts, beta), Exposure::Shared(exposure), (rows, rates), streams.child(id));
            if let Some(groups) = &mut hierarchy {
                groups[m].update(prior.shape(), values, k, &mut streams.child(RATES[m]).rng());
            }
        };
        draw(0, &mut self.theta, &self.row_counts, &exposure, THETA);
        let exposure = self.exposure(&self.theta, &self.psi);
        draw(1, &mut self.phi, &self.col_counts, &exposure, PHI);
        let exposure = self.exposure(&self.theta, &self.phi);
        draw(2, &mut self.psi, &self.time_counts, &exposure, PSI);
        self.hierarchy = hierarchy;
    }

    /// `ln p(θ, φ, ψ)`, with a hierarchical prior `ln p(θ, φ, ψ, ξ, η, ζ, κ)`.
    fn ln_prior(&self) -> f64 {
        let factors = [&self.theta, &self.phi, &self.psi];
        match &self.hierarchy {
            None => factors.iter().flat_map(|x| x.iter()).map(|&x| self.prior.ln_pdf(x)).sum(),
            Some(groups) => groups.iter().zip(factors).map(|(g, x)| g.ln_prior(self.prior, x, self.components)).sum(),
        }
    }

    fn factors(&self) -> Vec<FactorBlock<'_>> {
        let k = self.components;
        let mut blocks = vec![
            FactorBlock { name: "theta", rows: self.rows, cols: k, values: &self.theta },
            FactorBlock { name: "phi", rows: self.cols, cols: k, values: &self.phi },
            FactorBlock { name: "psi (time)", rows: self.times, cols: k, values: &self.psi },
        ];
        if let Some([xi, eta, zeta]) = &self.hierarchy {
            blocks.extend(xi.blocks("xi (row rates)", "kappa (rate of the row rates)"));
            blocks.extend(eta.blocks("eta (column rates)", "kappa (rate of the column rates)"));
            blocks.extend(zeta.blocks("zeta (time rates)", "kappa (rate of the time rates)"));
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grid's rates are `Σ_k θ_ik φ_jk ψ_tk` at column `j·T + t`, written out by hand.
    #[test]
    fn rates_are_the_cp_sum_on_the_flattened_grid() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        let model = TensorModel::new(3, 4, 5, 2, prior, Streams::new(1));
        let (i_count, j_count, t_count) = model.modes();
        assert_eq!(model.shape(), (3, 20));
        let mut rates = vec![0.0; 60];
        model.mean_rates_into(&mut rates);
        for i in 0..i_count {
            for j in 0..j_count {
                for t in 0..t_count {
                    let want: f64 = (0..2)
                        .map(|k| model.theta()[i * 2 + k] * model.phi()[j * 2 + k] * model.psi()[t * 2 + k])
                        .sum();
                    let got = rates[i * 20 + j * t_count + t];
                    assert!((got - want).abs() <= 1e-12 * want, "({i}, {j}, {t}): {got} vs {want}");
                }
            }
        }
    }

    /// A sweep allocates every count: the three count tables each sum to the total, row by row
    /// for `θ`; and a sweep is the same on one thread and on four.
    #[test]
    fn the_allocation_keeps_every_count_at_any_thread_count() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        let model = TensorModel::new(40, 3, 4, 3, prior, Streams::new(2));
        let y: Vec<u32> = (0..40 * 12).map(|n| (n * 7 % 5) as u32).collect();
        let sweep = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut m = model.clone();
            pool.install(|| m.gibbs_update(&y, Streams::new(3)));
            m
        };
        let (one, four) = (sweep(1), sweep(4));
        assert_eq!(one.theta, four.theta);
        assert_eq!((one.row_counts.clone(), one.psi.clone()), (four.row_counts, four.psi));
        let total: u32 = y.iter().sum();
        for counts in [&one.row_counts, &one.col_counts, &one.time_counts] {
            assert_eq!(counts.iter().sum::<u32>(), total);
        }
        for (i, n_i) in one.row_counts.chunks_exact(3).enumerate() {
            assert_eq!(n_i.iter().sum::<u32>(), y[i * 12..(i + 1) * 12].iter().sum::<u32>(), "row {i}");
        }
    }
}
