//! Mean-field CAVI for the Poisson tensor model ([`crate::TensorModel`]).

use crate::chunks::{chunk_rows, column_sums_into};
use crate::variational::{GammaFactors, MeanFieldFactorization, MeanMatrix, RateFactors};
use crate::{GammaPrior, ScalePrior};
use distributions::Streams;
use rayon::prelude::*;

/// `Q(θ_ik)`, `Q(φ_jk)`, `Q(ψ_tk)` gamma (shape, **rate**) for `μ_ijt = Σ_k θ_ik φ_jk ψ_tk` on the
/// grid `I × J·T` (column `j·T + t`).
///
/// Coordinate ascent, the three-way form of [`crate::TopicVariational`]'s (appendix E.1 of
/// Schein et al. 2019; Schein et al. 2015 for the tensor): with `E[y_ijtk] = r_ijt·G[θ_ik]G[φ_jk]
/// G[ψ_tk]`, `Q(θ_ik) = Gamma(a₀ + Σ_jt E[y_ijtk], b₀ + E[Φ_k]E[Ψ_k])`, then `Q(φ_jk)` with
/// exposure `E[Θ_k]E[Ψ_k]` (the updated `θ`), then `Q(ψ_tk)` with `E[Θ_k]E[Φ_k]`. All sub-counts
/// come from the `Q(y)` of the entry state, so each step is an exact coordinate optimum. With a
/// hierarchical prior each factor row's rate has a gamma `Q` too, updated after its factors.
///
/// Storage: each factor row-major, `K` components contiguous (`θ`: `I × K`, `φ`: `J × K`,
/// `ψ`: `T × K`).
#[derive(Clone, Debug)]
pub struct TensorVariational {
    modes: [usize; 3],
    components: usize,
    prior: GammaPrior,
    /// `Q(θ)`, `Q(φ)`, `Q(ψ)`.
    factors: [GammaFactors; 3],
    /// `Q` of each factor row's rate under a hierarchical prior; `None`: flat.
    hierarchy: Option<[RateFactors; 3]>,
}

impl TensorVariational {
    /// An `rows × cols × times` approximation with `components` components and a random start at
    /// mean rate 1. Panics if a dimension is 0.
    pub fn new(rows: usize, cols: usize, times: usize, components: usize, prior: GammaPrior, streams: Streams) -> Self {
        assert!(rows > 0 && cols > 0 && times > 0 && components > 0, "TensorVariational dimensions must be positive");
        let factors = [GammaFactors::default(), GammaFactors::default(), GammaFactors::default()];
        let mut q = Self { modes: [rows, cols, times], components, prior, factors, hierarchy: None };
        q.initialize(1.0, streams);
        q
    }

    /// The approximation of the model with a hierarchical prior (`TensorModel::with_hierarchy`):
    /// every rate's `Q` starts at its prior.
    pub fn with_hierarchy(mut self, scale: ScalePrior) -> Self {
        self.hierarchy = Some(self.modes.map(|n| RateFactors::new(scale, n)));
        self
    }

    /// `Σ_k x_ik y_jk z_tk` of three factor matrices onto the grid.
    fn cp_into(&self, out: &mut [f64], [x, y, z]: [&[f64]; 3]) {
        let ([_, j_count, t_count], k) = (self.modes, self.components);
        let width = j_count * t_count;
        out.par_chunks_mut(width).zip(x.par_chunks(k)).for_each(|(out_i, x_i)| {
            let mut xy = vec![0.0; k];
            for (y_j, out_j) in y.chunks_exact(k).zip(out_i.chunks_exact_mut(t_count)) {
                xy.iter_mut().zip(x_i).zip(y_j).for_each(|((w, a), b)| *w = a * b);
                for (z_t, o) in z.chunks_exact(k).zip(out_j.iter_mut()) {
                    *o = xy.iter().zip(z_t).map(|(w, c)| w * c).sum();
                }
            }
        });
    }

    /// `Σ_rows E[x_·k]` of factor `m`, for each component.
    fn mean_sums(&self, m: usize) -> Vec<f64> {
        let mut sums = vec![0.0; self.components];
        column_sums_into(&mut sums, self.factors[m].mean());
        sums
    }
}

impl MeanFieldFactorization for TensorVariational {
    fn shape(&self) -> (usize, usize) {
        (self.modes[0], self.modes[1] * self.modes[2])
    }

    fn initialize(&mut self, mean_rate: f64, streams: Streams) {
        let scale = (mean_rate.max(1e-12) / self.components as f64).cbrt();
        let k = self.components;
        self.factors = [0, 1, 2].map(|m| GammaFactors::random(self.modes[m] * k, scale, streams.child(m as u64)));
    }

    fn geometric_rates_into(&self, out: &mut [f64]) {
        self.cp_into(out, self.factors.each_ref().map(GammaFactors::geometric));
    }

    /// `Var[Σ_k θφψ] = Σ_k (V[θ]E[φ²]E[ψ²] + E[θ]²V[φ]E[ψ²] + E[θ]²E[φ]²V[ψ])`, the factors
    /// independent under `Q` (the same as `E[θ²]E[φ²]E[ψ²] − E[θ]²E[φ]²E[ψ]²`, without its
    /// cancellation).
    fn rate_moments_into(&self, mean: &mut [f64], variance: &mut [f64]) {
        self.mean_rates_into(mean);
        let moments = self.factors.each_ref().map(|q| {
            let var: Vec<f64> = q.second_moment().iter().zip(q.mean()).map(|(s, m)| (s - m * m).max(0.0)).collect();
            let square: Vec<f64> = q.mean().iter().map(|m| m * m).collect();
            (var, square, q.second_moment())
        });
        let [(va, ma2, _), (vb, mb2, sb), (vc, _, sc)] = &moments;
        variance.fill(0.0);
        let mut term = vec![0.0; variance.len()];
        for parts in [[va.as_slice(), sb, sc], [ma2, vb, sc], [ma2, mb2, vc]] {
            self.cp_into(&mut term, parts);
            variance.iter_mut().zip(&term).for_each(|(v, t)| *v += t);
        }
    }

    fn mean_rates_into(&self, out: &mut [f64]) {
        self.cp_into(out, self.factors.each_ref().map(GammaFactors::mean));
    }

    fn total_mean_rate(&self) -> f64 {
        let [a, b, c] = [0, 1, 2].map(|m| self.mean_sums(m));
        (0..self.components).map(|k| a[k] * b[k] * c[k]).sum()
    }

    fn update_factors(&mut self, ratios: &[f64]) {
        let ([i_count, j_count, t_count], k) = (self.modes, self.components);
        let width = j_count * t_count;
        let [g_theta, g_phi, g_psi] = self.factors.each_ref().map(GammaFactors::geometric);
        // Per row: Σ_jt r G[φ_jk]G[ψ_tk] (row-local); per chunk of rows: Σ_it r G[θ]G[ψ] and
        // Σ_ij r G[θ]G[φ] (reduced in chunk order, so the sums do not depend on the threads).
        let per_chunk = chunk_rows(i_count);
        let mut row_sums = vec![0.0; i_count * k];
        let parts: Vec<(Vec<f64>, Vec<f64>)> = row_sums
            .par_chunks_mut(per_chunk * k)
            .zip(ratios.par_chunks(per_chunk * width).zip(g_theta.par_chunks(per_chunk * k)))
            .map(|(row_sums, (ratios, g_theta))| {
                let (mut col_sums, mut time_sums) = (vec![0.0; j_count * k], vec![0.0; t_count * k]);
                let mut term = vec![0.0; k];
                for ((s_i, r_i), gt_i) in
                    row_sums.chunks_exact_mut(k).zip(ratios.chunks_exact(width)).zip(g_theta.chunks_exact(k))
                {
                    for (c, &r) in r_i.iter().enumerate().filter(|(_, r)| **r != 0.0) {
                        let (j, t) = (c / t_count, c % t_count);
                        let (gp, gs) = (&g_phi[j * k..(j + 1) * k], &g_psi[t * k..(t + 1) * k]);
                        for kk in 0..k {
                            term[kk] = r * gp[kk] * gs[kk];
                            s_i[kk] += term[kk];
                            col_sums[j * k + kk] += r * gt_i[kk] * gs[kk];
                            time_sums[t * k + kk] += r * gt_i[kk] * gp[kk];
                        }
                    }
                }
                (col_sums, time_sums)
            })
            .collect();
        let (mut col_sums, mut time_sums) = (vec![0.0; j_count * k], vec![0.0; t_count * k]);
        for (cols, times) in &parts {
            col_sums.iter_mut().zip(cols).for_each(|(s, x)| *s += x);
            time_sums.iter_mut().zip(times).for_each(|(s, x)| *s += x);
        }
        // Expected sub-count totals, all from the Q(y) of the entry state.
        let counts: [Vec<f64>; 3] = [(&row_sums, g_theta), (&col_sums, g_phi), (&time_sums, g_psi)]
            .map(|(sums, g)| sums.iter().zip(g).map(|(s, g)| s * g).collect());
        let mut hierarchy = self.hierarchy.take();
        for m in 0..3 {
            // The exposure of mode m: the product of the other two modes' mean sums.
            let others: Vec<Vec<f64>> = (0..3).filter(|&o| o != m).map(|o| self.mean_sums(o)).collect();
            let exposure: Vec<f64> = others[0].iter().zip(&others[1]).map(|(a, b)| a * b).collect();
            RateFactors::update_with_factors(
                hierarchy.as_mut().map(|h| &mut h[m]),
                &mut self.factors[m],
                self.prior,
                k,
                (&counts[m], |i| exposure[i % k]),
            );
        }
        self.hierarchy = hierarchy;
    }

    fn factor_elbo(&self) -> f64 {
        let (a0, k) = (self.prior.shape(), self.components);
        match &self.hierarchy {
            None => self.factors.iter().map(|q| q.elbo_terms(self.prior)).sum(),
            Some(h) => h.iter().zip(&self.factors).map(|(r, q)| r.elbo_terms(q, a0, |i| i / k)).sum(),
        }
    }

    fn mean_factors(&self) -> Vec<MeanMatrix> {
        let k = self.components;
        ["theta", "phi", "psi"]
            .into_iter()
            .zip(&self.factors)
            .zip(self.modes)
            .map(|((name, q), rows)| MeanMatrix { name, rows, cols: k, values: q.mean().to_vec() })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variational::fixed_allocation::{assert_optimal, elbo, normalized};

    fn ln_weights(q: &TensorVariational, n: usize) -> Vec<f64> {
        let ([_, j_count, t_count], k) = (q.modes, q.components);
        let (i, c) = (n / (j_count * t_count), n % (j_count * t_count));
        let (j, t) = (c / t_count, c % t_count);
        let [a, b, g] = q.factors.each_ref().map(GammaFactors::geometric);
        (0..k).map(|kk| (a[i * k + kk] * b[j * k + kk] * g[t * k + kk]).ln()).collect()
    }

    /// With `Q(y)` fixed, one pass of factor updates does not decrease the ELBO and `ψ` (updated
    /// last) is at an optimum; with the hierarchical prior the time rates (updated last) are.
    #[test]
    fn factor_updates_are_coordinate_optima() {
        for scale in [None, Some(ScalePrior::new(2.0, 1.5).unwrap())] {
            let (i, j, t, k) = (4, 3, 5, 2);
            let prior = GammaPrior::new(0.7, 1.3).unwrap();
            let mut q = TensorVariational::new(i, j, t, k, prior, Streams::new(4));
            if let Some(scale) = scale {
                q = q.with_hierarchy(scale);
            }
            q.initialize(2.0, Streams::new(5));
            let n = i * j * t;
            let y: Vec<u32> = (0..n).map(|c| ((c * 7919) % 5) as u32).collect();
            let mut w = vec![0.0; n];
            q.geometric_rates_into(&mut w);
            let allocation: Vec<Vec<f64>> = (0..n).map(|c| normalized(&ln_weights(&q, c))).collect();
            let ratios: Vec<f64> = y.iter().zip(&w).map(|(&c, w)| f64::from(c) / w).collect();
            let value = |q: &TensorVariational| {
                elbo(&y, |c| ln_weights(q, c), &allocation, q.total_mean_rate(), q.factor_elbo())
            };
            let before = value(&q);
            q.update_factors(&ratios);
            let after = value(&q);
            assert!(after >= before, "{after} < {before}");
            match scale {
                None => assert_optimal(&q, value, |q| &mut q.factors[2], "psi"),
                Some(_) => assert_optimal(&q, value, |q| &mut q.hierarchy.as_mut().unwrap()[2].rates, "zeta"),
            }
        }
    }

    /// The rates, their variance and the total against the CP sum written out by hand, and the
    /// same update on one thread and on four.
    #[test]
    fn moments_are_the_cp_sums_and_updates_do_not_depend_on_threads() {
        let prior = GammaPrior::new(1.0, 1.0).unwrap();
        let q = TensorVariational::new(40, 3, 4, 2, prior, Streams::new(1));
        let (mut mean, mut variance) = (vec![0.0; 480], vec![0.0; 480]);
        q.rate_moments_into(&mut mean, &mut variance);
        let [a, b, c] = q.factors.each_ref().map(|f| (f.mean().to_vec(), f.second_moment().to_vec()));
        for n in [0, 7, 479] {
            let (i, j, t) = (n / 12, n % 12 / 4, n % 4);
            let at = |f: &(Vec<f64>, Vec<f64>), row: usize, kk: usize| (f.0[row * 2 + kk], f.1[row * 2 + kk]);
            let (mut m, mut v) = (0.0, 0.0);
            for kk in 0..2 {
                let ((ma, sa), (mb, sb), (mc, sc)) = (at(&a, i, kk), at(&b, j, kk), at(&c, t, kk));
                m += ma * mb * mc;
                v += sa * sb * sc - (ma * mb * mc).powi(2);
            }
            assert!((mean[n] - m).abs() <= 1e-12 * m && (variance[n] - v).abs() <= 1e-9 * v, "cell {n}");
        }
        assert!((q.total_mean_rate() - mean.iter().sum::<f64>()).abs() <= 1e-9 * q.total_mean_rate());
        let ratios: Vec<f64> = (0..480).map(|n| (n % 3) as f64 * 0.7).collect();
        let update = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut q = q.clone();
            pool.install(|| q.update_factors(&ratios));
            q.mean_factors()
        };
        assert_eq!(update(1), update(4));
    }
}
