//! Geweke's "getting it right" test (Geweke 2004, *JASA* 99:799–804) of a Gibbs sampler.
//!
//! Two ways to draw from the joint `p(Z, data)`:
//! * **marginal-conditional**: independent forward draws `Z ~ p(Z)`, `data ~ p(data | Z)`;
//! * **successive-conditional**: a chain alternating one Gibbs sweep `Z ~ K(· | Z, data)` with a
//!   fresh `data ~ p(data | Z)`.
//!
//! If the sweep leaves `p(Z | data)` invariant, both have the joint as their distribution, so the
//! means of any test function `g(Z, data)` agree. The successive-conditional state is recorded
//! **right after the sweep**, before the data step: there the parameters were just drawn given
//! the data (and the latent counts), so a conditional that reads the wrong data shows in the
//! joint moments. Recorded after the data step instead, the data would be a fresh draw given the
//! parameters and only the parameters' marginals would be tested. The test functions therefore
//! include cross moments of parameters and data (`Σ μ·y`, `Σ λ_l g_l`), not only marginal sums:
//! a sampler that feeds `g₂` to `λ₁` and `g₁` to `λ₂` keeps every marginal right and is caught
//! only by `Σ λ_l g_l`. Each `g` is compared by a two-sample statistic
//! `z = (ḡ_mc − ḡ_sc) / √(s²_mc/M + s²_bm/B)` where the successive-conditional variance comes from
//! `B` batch means (it accounts for autocorrelation); `z` is referred to Student's t with `B − 1`
//! degrees of freedom, two-sided. A wrong conditional anywhere shifts some mean and is rejected.

use crate::entries::Entry;
use crate::non_private::impute;
use crate::private::lambda_prior_draw;
use crate::{LocallyPrivate, NoiseAux, NonPrivate, PrivateStep, Sampler};
use distributions::{Poisson, Streams};
use models::PoissonFactorization;
use rand::distr::Distribution;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A sampler that can simulate its own data: what the Geweke test needs.
pub trait JointSimulator: Sampler {
    /// Draws everything from the joint: the parameters from their prior, then the data (and the
    /// latent counts) given them.
    fn simulate_forward(&mut self, streams: Streams);

    /// Redraws the data (and the latent counts) given the current parameters.
    fn simulate_data(&mut self, streams: Streams);

    /// Test functions of the current state, as `(name, value)`.
    fn test_functions(&self) -> Vec<(String, f64)>;
}

/// Sums and sums of squares of every factor matrix and of the counts, and the cross moment
/// `Σ_n μ_n y_n` of the rates (a product of factors) with the counts.
fn model_test_functions<M: PoissonFactorization>(model: &M, y: &[u32]) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for block in model.factors() {
        out.push((format!("sum {}", block.name), block.values.iter().sum()));
        out.push((format!("sum {}²", block.name), block.values.iter().map(|x| x * x).sum()));
    }
    out.push(("sum y".into(), y.iter().map(|&v| f64::from(v)).sum()));
    out.push(("sum y²".into(), y.iter().map(|&v| f64::from(v).powi(2)).sum()));
    let (rows, cols) = model.shape();
    let mut rates = vec![0.0; rows * cols];
    model.rates_into(&mut rates);
    out.push(("sum mu·y".into(), rates.iter().zip(y).map(|(m, &v)| m * f64::from(v)).sum()));
    out
}

impl<M: PoissonFactorization> JointSimulator for NonPrivate<M> {
    fn simulate_forward(&mut self, streams: Streams) {
        self.model.sample_prior(streams.child(0));
        self.y = models::sample_counts(&self.model, streams.child(1));
    }

    /// Redraws the observed entries only: a missing entry's count is a latent variable of the
    /// sampler (imputed by its sweep), so the test also checks the imputation.
    fn simulate_data(&mut self, streams: Streams) {
        let fresh = models::sample_counts(&self.model, streams);
        let mut missing = self.missing.iter().peekable();
        for (n, (y, f)) in self.y.iter_mut().zip(fresh).enumerate() {
            if missing.next_if_eq(&&n).is_none() {
                *y = f;
            }
        }
    }

    fn test_functions(&self) -> Vec<(String, f64)> {
        model_test_functions(&self.model, &self.y)
    }
}

impl<M: PoissonFactorization> LocallyPrivate<M> {
    /// Draws `y_n ~ Pois(μ_n)`, `g_nl ~ Pois(λ_nl)` and `ỹ_n = y_n + g_n1 − g_n2` for every
    /// released entry (and, if `include_missing`, the latent counts of missing entries).
    fn simulate_entries(&mut self, streams: Streams, include_missing: bool) {
        let (rows, cols) = self.model.shape();
        let mut rates = vec![0.0; rows * cols];
        self.model.rates_into(&mut rates);
        let mut rng = streams.rng();
        for (n, &rate) in rates.iter().enumerate() {
            if self.entries.get(n) == Entry::Missing && !include_missing {
                continue;
            }
            let y = impute(rate, &mut rng).expect("rates of a prior draw are finite");
            self.y[n] = y;
            self.released[n] = match self.entries.get(n) {
                Entry::Missing => 0,
                Entry::Exact => y as i32,
                Entry::Noisy { alpha, .. } => {
                    // The collapsed sampler has no λ in its state: the noise is drawn afresh,
                    // τ = g₁ − g₂ ~ 2Geo(α) through λ from its prior.
                    let mut fresh = NoiseAux { lambda: [0.0; 2], g: [0; 2] };
                    let aux = match self.aux.get_mut(n) {
                        Some(aux) => aux,
                        None => {
                            fresh.lambda = lambda_prior_draw(alpha, &mut rng).expect("alpha in (0, 1)");
                            &mut fresh
                        }
                    };
                    for (g, &lambda) in aux.g.iter_mut().zip(&aux.lambda) {
                        *g = Poisson::new(lambda).expect("finite rate").sample(&mut rng);
                    }
                    (i64::from(y) + aux.g[0] as i64 - aux.g[1] as i64) as i32
                }
            };
        }
    }
}

impl<M: PoissonFactorization> JointSimulator for LocallyPrivate<M> {
    fn simulate_forward(&mut self, streams: Streams) {
        self.model.sample_prior(streams.child(0));
        let mut rng = streams.child(1).rng();
        for (entry, aux) in self.entries.iter().zip(&mut self.aux) {
            if let Entry::Noisy { alpha, .. } = entry {
                aux.lambda = lambda_prior_draw(alpha, &mut rng).expect("alpha in (0, 1)");
            }
        }
        self.simulate_entries(streams.child(2), true);
    }

    /// Redraws the released entries (and their latent counts and noise); a missing entry's count
    /// is a latent variable of the sampler and is left to its sweep.
    fn simulate_data(&mut self, streams: Streams) {
        self.simulate_entries(streams, false);
    }

    fn test_functions(&self) -> Vec<(String, f64)> {
        let mut out = model_test_functions(&self.model, &self.y);
        if self.step == PrivateStep::Collapsed {
            // The state is (Z, y); the release enters through how far y sits from it.
            let released = || self.released.iter().zip(&self.y).map(|(&r, &y)| (f64::from(r), f64::from(y)));
            out.push(("sum |released - y|".into(), released().map(|(r, y)| (r - y).abs()).sum()));
            out.push(("sum y·released".into(), released().map(|(r, y)| r * y).sum()));
            return out;
        }
        for l in 0..2 {
            out.push((format!("sum lambda{}", l + 1), self.aux.iter().map(|a| a.lambda[l]).sum()));
            out.push((format!("sum g{}", l + 1), self.aux.iter().map(|a| a.g[l] as f64).sum()));
            out.push((
                format!("sum lambda{0}·g{0}", l + 1),
                self.aux.iter().map(|a| a.lambda[l] * a.g[l] as f64).sum(),
            ));
        }
        out
    }
}

/// Sizes of a Geweke test.
#[derive(Clone, Copy, Debug)]
pub struct GewekeConfig {
    /// Independent forward draws `M`.
    pub marginal_draws: usize,
    /// Successive-conditional steps `T` (a multiple of `batches`).
    pub successive_steps: usize,
    /// Batches `B` for the autocorrelation-robust variance.
    pub batches: usize,
}

/// One test function's comparison.
#[derive(Clone, Debug)]
pub struct GewekeComparison {
    pub name: String,
    pub marginal_mean: f64,
    pub successive_mean: f64,
    pub z: f64,
    pub p_value: f64,
}

/// All comparisons of one test.
#[derive(Clone, Debug)]
pub struct GewekeReport {
    pub comparisons: Vec<GewekeComparison>,
}

impl GewekeReport {
    /// The comparisons rejected at family-wise level `alpha` (Bonferroni over the test functions).
    pub fn rejected(&self, alpha: f64) -> Vec<&GewekeComparison> {
        let k = self.comparisons.len() as f64;
        self.comparisons.iter().filter(|c| c.p_value < alpha / k).collect()
    }
}

impl std::fmt::Display for GewekeReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in &self.comparisons {
            writeln!(
                f,
                "{:>14}: marginal {:>12.5} successive {:>12.5} z = {:>7.2} p = {:.2e}",
                c.name, c.marginal_mean, c.successive_mean, c.z, c.p_value
            )?;
        }
        Ok(())
    }
}

fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Runs the two simulators from `streams` and compares every test function. Panics if the
/// sampler fails (a Geweke test runs on tiny, well-behaved problems) or the config is degenerate.
///
/// The test runs in its own one-thread rayon pool: its problems are tiny, and handing each of the
/// sampler's parallel loops to another thread would cost more than the work (results do not
/// depend on the thread count).
pub fn geweke_test<S: JointSimulator + Send>(sim: &mut S, config: GewekeConfig, streams: Streams) -> GewekeReport {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    pool.install(|| run_geweke(sim, config, streams))
}

fn run_geweke<S: JointSimulator>(sim: &mut S, config: GewekeConfig, streams: Streams) -> GewekeReport {
    assert!(config.batches >= 2 && config.successive_steps >= config.batches && config.marginal_draws >= 2);
    let record = |sim: &S, columns: &mut Vec<Vec<f64>>| {
        for (column, (_, value)) in columns.iter_mut().zip(sim.test_functions()) {
            column.push(value);
        }
    };
    let names: Vec<String> = sim.test_functions().into_iter().map(|(name, _)| name).collect();
    let mut marginal = vec![Vec::with_capacity(config.marginal_draws); names.len()];
    let mc_streams = streams.child(0);
    for i in 0..config.marginal_draws {
        sim.simulate_forward(mc_streams.child(i as u64));
        record(sim, &mut marginal);
    }
    let mut successive = vec![Vec::with_capacity(config.successive_steps); names.len()];
    let sc_streams = streams.child(1);
    sim.simulate_forward(sc_streams.child(u64::MAX));
    for t in 0..config.successive_steps {
        let step = sc_streams.child(t as u64);
        sim.step(step.child(0)).expect("Geweke problems stay in range");
        record(sim, &mut successive);
        sim.simulate_data(step.child(1));
    }
    let batch = config.successive_steps / config.batches;
    let t_dist = StudentsT::new(0.0, 1.0, (config.batches - 1) as f64).expect("dof >= 1");
    let comparisons = names
        .into_iter()
        .zip(marginal.iter().zip(&successive))
        .map(|(name, (mc, sc))| {
            let (m_mc, v_mc) = mean_var(mc);
            let batch_means: Vec<f64> = sc.chunks_exact(batch).map(|b| b.iter().sum::<f64>() / batch as f64).collect();
            let (m_sc, v_bm) = mean_var(&batch_means);
            let se = (v_mc / mc.len() as f64 + v_bm / batch_means.len() as f64).sqrt();
            let z = (m_mc - m_sc) / se;
            let p_value = 2.0 * (1.0 - t_dist.cdf(z.abs()));
            GewekeComparison { name, marginal_mean: m_mc, successive_mean: m_sc, z, p_value }
        })
        .collect();
    GewekeReport { comparisons }
}

#[cfg(test)]
mod tests;
