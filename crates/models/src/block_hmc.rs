//! The block model's Hamiltonian move: all memberships and community rates at once, with the
//! allocations integrated out ([`BlockModel::with_hmc`]).
//!
//! Given the complete counts `y`, the cells' multipliers `δ` (1 under the Poisson likelihood and on
//! a contaminated likelihood's Poisson cells) and the prior's rates, the factors' conditional with
//! the allocations summed out is, in `x = (ln θ, ln π)` (§5.1 of Schein et al. 2019 for `μ`;
//! the Gamma's Jacobian in log space gives `a₀ x`):
//!
//! `ln p(x | y, δ, ξ, λ) = Σ_{i≠j} [y_ij ln μ_ij − δ_ij μ_ij] + Σ_ic [a₀ ln θ_ic − ξ_i θ_ic]
//!                          + Σ_cd [a₀ ln π_cd − λ π_cd] + const`,
//!
//! `μ_ij = Σ_cd θ_ic π_cd θ_jd`, with `ξ_i = λ = b₀` under the flat prior. With
//! `W_ij = y_ij / μ_ij − δ_ij` (`W_ii = 0`) its gradient is
//!
//! `∂/∂ln θ_ic = θ_ic [Σ_j W_ij Σ_d π_cd θ_jd + Σ_j W_ji Σ_d θ_jd π_dc] + a₀ − ξ_i θ_ic`,
//! `∂/∂ln π_cd = π_cd Σ_ij W_ij θ_ic θ_jd + a₀ − λ π_cd`,
//!
//! `O(V² C)` per evaluation (three `V × V` by `V × C` products, one pass over the cells).
//!
//! The Gibbs sweep moves `θ` and `π` through allocations that hold them near their last values:
//! with thousands of counts per cell a chain climbs a few nats per thousand sweeps
//! (docs/history/mixing.md). This move changes every factor at once along the gradient of the
//! marginal, so the climb takes hundreds of moves, not tens of thousands of sweeps. It runs after
//! each sweep (the next sweep's allocation is drawn afresh from the moved factors, so the
//! composition is exact) and leaves `p(θ, π | y, δ, ξ, λ)` invariant: the factors' conditional
//! given everything but the allocations.

use crate::PoissonFactorization;
use crate::block::BlockModel;
use crate::chunks::{chunk_rows, dot_in_lanes, dot_rows_transposed, transposed};
use crate::error::ModelError;
use crate::hmc::{Hmc, HmcSettings, LogDensity};
use distributions::Streams;
use rayon::prelude::*;

/// The factors' log density given the counts, multipliers and prior rates.
pub(crate) struct MarginalFactors<'a> {
    pub(crate) actors: usize,
    pub(crate) communities: usize,
    pub(crate) y: &'a [u32],
    /// `δ`, row-major `V × V`; `None`: all 1.
    pub(crate) delta: Option<&'a [f64]>,
    /// The factors' prior shape `a₀`.
    pub(crate) shape: f64,
    /// The rate of actor `i`'s memberships (`ξ_i` or `b₀`), and of `π` (`λ` or `b₀`).
    pub(crate) actor_rates: Vec<f64>,
    pub(crate) pi_rate: f64,
    /// The planted bug of the mutation test: the Jacobian left out (`(a₀ − 1) ln θ`, a gamma
    /// density on `θ` taken for one on `ln θ`).
    pub(crate) without_jacobian: bool,
}

/// A cell's `y ln μ − δ μ` (`−δ μ` for `y = 0`).
fn ln_term(y: u32, mu: f64, delta: f64) -> f64 {
    if y > 0 { f64::from(y) * mu.ln() - delta * mu } else { -delta * mu }
}

/// One chunk of rows' part of the log density and of the gradient.
struct Part {
    ln: f64,
    /// `Σ_j W_ij (ΘΠᵀ)_j` and `Σ_j W_ij θ_j` of the chunk's rows `i`.
    sent: Vec<f64>,
    weighted: Vec<f64>,
    /// `Σ_i W_ij (ΘΠ)_i` for every `j`, transposed (`C × V`: component-major), the chunk's rows
    /// `i` only.
    received: Vec<f64>,
    finite: bool,
}

impl LogDensity for MarginalFactors<'_> {
    fn ln_density(&self, x: &[f64], gradient: &mut [f64]) -> f64 {
        self.evaluate(x, gradient, true)
    }

    fn gradient(&self, x: &[f64], gradient: &mut [f64]) -> bool {
        self.evaluate(x, gradient, false).is_finite()
    }
}

impl MarginalFactors<'_> {
    /// The gradient into `gradient`, and the log density if `value` (else only its prior terms);
    /// `−∞` where a rate with a count is 0 or a value is not finite.
    fn evaluate(&self, x: &[f64], gradient: &mut [f64], value: bool) -> f64 {
        let (v, c) = (self.actors, self.communities);
        let theta: Vec<f64> = x[..v * c].iter().map(|x| x.exp()).collect();
        let pi: Vec<f64> = x[v * c..].iter().map(|x| x.exp()).collect();
        // (ΘΠᵀ)_jc = Σ_d π_cd θ_jd (j as recipient), (ΘΠ)_jd = Σ_c θ_jc π_cd (j as sender).
        let mut to = vec![0.0; v * c];
        let mut from = vec![0.0; v * c];
        for ((to_j, from_j), theta_j) in to.chunks_exact_mut(c).zip(from.chunks_exact_mut(c)).zip(theta.chunks_exact(c))
        {
            for cc in 0..c {
                to_j[cc] = (0..c).map(|d| pi[cc * c + d] * theta_j[d]).sum();
                from_j[cc] = (0..c).map(|d| theta_j[d] * pi[d * c + cc]).sum();
            }
        }
        let (to_t, theta_t) = (transposed(&to, c), transposed(&theta, c));
        let per_chunk = chunk_rows(v);
        let parts: Vec<Part> = (0..v.div_ceil(per_chunk))
            .into_par_iter()
            .map(|chunk| {
                let rows = chunk * per_chunk..((chunk + 1) * per_chunk).min(v);
                let mut part = Part {
                    ln: 0.0,
                    sent: vec![0.0; rows.len() * c],
                    weighted: vec![0.0; rows.len() * c],
                    received: vec![0.0; v * c],
                    finite: true,
                };
                // `W_ij` of row `i`, then its three products: `Σ_j W_ij (ΘΠᵀ)_j`, `Σ_j W_ij θ_j`
                // and `(ΘΠ)_i W_ij` added to each `j`'s received sum.
                let (mut w_row, mut mu_row) = (vec![0.0; v], vec![0.0; v]);
                for (local, i) in rows.enumerate() {
                    let theta_i = &theta[i * c..(i + 1) * c];
                    let from_i = &from[i * c..(i + 1) * c];
                    let y_i = &self.y[i * v..(i + 1) * v];
                    let delta_i = self.delta.map(|d| &d[i * v..(i + 1) * v]);
                    // μ_ij for every j at once (the components outer, the recipients inner).
                    dot_rows_transposed(&mut mu_row, theta_i, &to_t);
                    mu_row[i] = 1.0;
                    if value {
                        part.ln += match delta_i {
                            None => y_i.iter().zip(&mu_row).map(|(&y, &m)| ln_term(y, m, 1.0)).sum::<f64>(),
                            Some(d) => y_i.iter().zip(&mu_row).zip(d).map(|((&y, &m), &d)| ln_term(y, m, d)).sum(),
                        } - ln_term(y_i[i], 1.0, delta_i.map_or(1.0, |d| d[i]));
                    }
                    match delta_i {
                        None => {
                            for ((w, &y), &m) in w_row.iter_mut().zip(y_i).zip(&mu_row) {
                                *w = f64::from(y) / m - 1.0;
                            }
                        }
                        Some(d) => {
                            for (((w, &y), &m), &d) in w_row.iter_mut().zip(y_i).zip(&mu_row).zip(d) {
                                *w = f64::from(y) / m - d;
                            }
                        }
                    }
                    w_row[i] = 0.0;
                    // Σ_j W_ij (ΘΠᵀ)_jc and Σ_j W_ij θ_jc: a dot product of the row with a row of
                    // the transposed factor each (contiguous, summed in lanes).
                    let sent = &mut part.sent[local * c..(local + 1) * c];
                    let weighted = &mut part.weighted[local * c..(local + 1) * c];
                    for (cc, (s, h)) in sent.iter_mut().zip(weighted.iter_mut()).enumerate() {
                        *s = dot_in_lanes(&w_row, &to_t[cc * v..(cc + 1) * v]);
                        *h = dot_in_lanes(&w_row, &theta_t[cc * v..(cc + 1) * v]);
                    }
                    // (ΘΠ)_ic W_ij added to each j's received sum, component by component (a
                    // contiguous row of the transposed sums each).
                    for (received_c, &f) in part.received.chunks_exact_mut(v).zip(from_i) {
                        for (r, &w) in received_c.iter_mut().zip(&w_row) {
                            *r += w * f;
                        }
                    }
                }
                part.finite = part.ln.is_finite()
                    && part.sent.iter().chain(&part.weighted).chain(&part.received).all(|g| g.is_finite());
                part
            })
            .collect();
        let mut ln = 0.0;
        let mut received_t = vec![0.0; v * c];
        let (mut sent, mut weighted) = (Vec::with_capacity(v * c), Vec::with_capacity(v * c));
        for part in &parts {
            if !part.finite {
                return f64::NEG_INFINITY;
            }
            ln += part.ln;
            sent.extend_from_slice(&part.sent);
            weighted.extend_from_slice(&part.weighted);
            for (r, p) in received_t.iter_mut().zip(&part.received) {
                *r += p;
            }
        }
        let received = transposed(&received_t, v);
        let jacobian = if self.without_jacobian { self.shape - 1.0 } else { self.shape };
        let (g_theta, g_pi) = gradient.split_at_mut(v * c);
        for (k, g) in g_theta.iter_mut().enumerate() {
            let rate = self.actor_rates[k / c];
            ln += jacobian * x[k] - rate * theta[k];
            *g = theta[k] * (sent[k] + received[k]) + jacobian - rate * theta[k];
        }
        for (cd, g) in g_pi.iter_mut().enumerate() {
            let (cc, d) = (cd / c, cd % c);
            let pairs: f64 = (0..v).map(|i| theta[i * c + cc] * weighted[i * c + d]).sum();
            ln += jacobian * x[v * c + cd] - self.pi_rate * pi[cd];
            *g = pi[cd] * pairs + jacobian - self.pi_rate * pi[cd];
        }
        ln
    }
}

impl BlockModel {
    /// The model with a Hamiltonian move of `θ` and `π` after every sweep (the module's
    /// documentation), its step size and mass adapted while [`crate::PoissonFactorization::set_adapting`]
    /// is on (a chain's burn-in). The directed form only; at a temperature other than 1 (replica
    /// exchange) the move is skipped.
    pub fn with_hmc(mut self, settings: HmcSettings) -> Result<Self, ModelError> {
        self.add_hmc(settings)?;
        Ok(self)
    }

    /// [`Self::with_hmc`] in place; the model is unchanged on an error.
    pub fn add_hmc(&mut self, settings: HmcSettings) -> Result<(), ModelError> {
        if self.is_undirected() {
            let message = "the Hamiltonian move of the block model's factors is built for directed networks only";
            return Err(ModelError::Unsupported(message.into()));
        }
        let (v, c) = (self.actors(), self.communities());
        self.set_hmc(Some(Hmc::new(settings, v * c + c * c)));
        Ok(())
    }

    /// The factors' log density of the move, given the counts `y`.
    pub(crate) fn marginal_factors<'a>(
        &'a self,
        y: &'a [u32],
        delta: Option<&'a [f64]>,
        without_jacobian: bool,
    ) -> MarginalFactors<'a> {
        let (v, c) = (self.actors(), self.communities());
        let (actor_rates, pi_rate) = self.prior_rates();
        debug_assert_eq!(actor_rates.len(), v);
        MarginalFactors {
            actors: v,
            communities: c,
            y,
            delta,
            shape: self.prior_shape(),
            actor_rates,
            pi_rate,
            without_jacobian,
        }
    }
}

/// One move of `model`'s factors by `hmc` given the counts `y`, from `streams`.
pub(crate) fn move_factors(model: &mut BlockModel, hmc: &mut Hmc, y: &[u32], without_jacobian: bool, streams: Streams) {
    let mut x: Vec<f64> = model.theta().iter().chain(model.pi()).map(|v| v.ln()).collect();
    {
        let delta = model.cell_multipliers();
        let target = model.marginal_factors(y, delta, without_jacobian);
        hmc.transition(&target, &mut x, &mut streams.rng());
    }
    let vc = model.theta().len();
    let values: Vec<f64> = x.iter().map(|x| x.exp().max(f64::MIN_POSITIVE)).collect();
    // An accepted state has a finite density, so its factors are finite and > 0 and of the
    // model's lengths; were one not (an overflowing exp), the factors stay as they were: the move
    // is rejected rather than leaving the model with a factor it cannot hold.
    let _ = model.set_factors(&values[..vc], &values[vc..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GammaPrior, ScalePrior};

    /// The gradient is that of the log density: central differences (step 1e-6) agree to 1e-6
    /// relative on every coordinate, with a hierarchical prior and multipliers other than 1.
    #[test]
    fn the_gradient_is_that_of_the_log_density() {
        let (v, c) = (5, 2);
        let model = BlockModel::new(v, c, GammaPrior::new(1.5, 1.0).unwrap(), Streams::new(1))
            .with_hierarchy(ScalePrior::new(6.0, 1.5).unwrap(), Streams::new(2));
        let y: Vec<u32> = (0..v * v).map(|n| ((n * 7) % 5) as u32).collect();
        let delta: Vec<f64> = (0..v * v).map(|n| 0.5 + (n % 3) as f64 * 0.4).collect();
        for without_jacobian in [false, true] {
            let target = model.marginal_factors(&y, Some(&delta), without_jacobian);
            let x: Vec<f64> = (0..v * c + c * c).map(|k| ((k * 13) % 7) as f64 * 0.3 - 1.0).collect();
            let mut gradient = vec![0.0; x.len()];
            target.ln_density(&x, &mut gradient);
            let mut scratch = vec![0.0; x.len()];
            for k in 0..x.len() {
                let (mut up, mut down) = (x.clone(), x.clone());
                up[k] += 1e-6;
                down[k] -= 1e-6;
                let numeric = (target.ln_density(&up, &mut scratch) - target.ln_density(&down, &mut scratch)) / 2e-6;
                let scale = gradient[k].abs().max(1.0);
                assert!((numeric - gradient[k]).abs() < 1e-6 * scale, "coordinate {k}: {} vs {numeric}", gradient[k]);
            }
        }
    }

    /// The move is exercised, not just harmless: after the sweeps of a small network at the Geweke
    /// tests' fixed step (`ε` = 0.1, 8 leapfrog steps) most proposals are accepted and the factors
    /// differ from the sweep's alone.
    #[test]
    fn the_move_is_accepted_at_the_geweke_tests_step() {
        let prior = GammaPrior::new(2.0, 2.0).unwrap();
        let settings = HmcSettings { leapfrog_steps: 8, step: 0.1 };
        let plain = BlockModel::new(4, 2, prior, Streams::new(2))
            .with_hierarchy(ScalePrior::new(6.0, 1.5).unwrap(), Streams::new(7));
        let mut moved = plain.clone().with_hmc(settings).unwrap();
        let mut plain = plain;
        let y: Vec<u32> = (0..16).map(|n| if n / 4 == n % 4 { 0 } else { (n % 4) as u32 }).collect();
        for t in 0..2_000 {
            plain.gibbs_update(&y, Streams::new(100 + t));
            moved.gibbs_update(&y, Streams::new(100 + t));
        }
        let (step, acceptance) = moved.move_summary().unwrap();
        assert_eq!(step, 0.1);
        assert!((0.7..1.0).contains(&acceptance), "acceptance {acceptance}");
        assert_ne!(plain.theta(), moved.theta());
        assert!(plain.move_summary().is_none());
    }

    /// The undirected form has no Hamiltonian move: refused with an error, not a panic.
    #[test]
    fn the_undirected_form_refuses_the_move() {
        let model = BlockModel::undirected(4, 2, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(1));
        assert!(matches!(model.with_hmc(HmcSettings::default()), Err(ModelError::Unsupported(_))));
    }
}
