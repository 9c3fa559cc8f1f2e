//! Algorithm 1 of Jälkö, Dikmen & Honkela 2017 (DPVI): at each of T iterations
//! 1. draw a Poisson subsample S (each example independently with probability q);
//! 2. draw η ~ N(0, I) and θ = m + e^ω ⊙ η (one Monte Carlo sample: doubly stochastic VI);
//! 3. per example i ∈ S, the gradient g_i of ln p(x_i | θ) with respect to (m, ω), clipped to
//!    L2 norm c: ḡ_i = g_i / max(1, ‖g_i‖/c);
//! 4. the noisy sum G = Σ_S ḡ_i + N(0, σ²c² I);
//! 5. the ELBO gradient estimate G/q + ∇(ln p(θ) + H(q)) — the prior and entropy terms do not
//!    touch the data and need no noise;
//! 6. an AdaGrad ascent step: A += g², (m, ω) += η₀ g / (√A + 10⁻⁸).
//!
//! Privacy: only step 4 sees the data, and it is the subsampled Gaussian mechanism with
//! noise multiplier σ on a sum of add/remove sensitivity c; [`Dpvi::fit`] keeps an RDP account
//! of the steps run (and the advanced-composition one if asked), refuses to start when the
//! planned run would exceed the budget, and reports the spent ε.

use crate::model::Model;
use crate::variational::MeanField;
use accountant::{Accounting, Neighbouring, RdpAccountant};
use distributions::StreamRng;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

/// The privacy side of a DPVI run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Privacy {
    /// Per-example gradient clipping threshold c.
    pub clip: f64,
    /// Noise multiplier σ (noise standard deviation σc).
    pub noise_multiplier: f64,
    pub delta: f64,
    /// The run refuses to start if its planned ε exceeds this.
    pub epsilon_budget: f64,
    pub accounting: Accounting,
    pub neighbouring: Neighbouring,
}

/// Settings of a run; `privacy: None` is plain doubly stochastic VI (no clipping, no noise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub iterations: u64,
    /// Poisson sampling rate q ∈ (0, 1].
    pub sampling_rate: f64,
    /// AdaGrad base step size η₀.
    pub learning_rate: f64,
    /// Initial log standard deviation of q.
    pub initial_log_std: f64,
    pub privacy: Option<Privacy>,
}

/// A fitted approximation and the privacy it spent.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub q: MeanField,
    /// ε spent over the iterations run at `delta` (by the run's accounting); `None` if non-private.
    pub epsilon: Option<f64>,
    pub iterations: u64,
    /// Mean subsample size over the run.
    pub mean_batch: f64,
}

/// The DPVI optimizer for one model.
pub struct Dpvi<'a, M: Model> {
    model: &'a M,
    settings: Settings,
}

/// Clips `g` to L2 norm `c` in place; returns the norm before clipping.
pub fn clip_to_norm(g: &mut [f64], c: f64) -> f64 {
    let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > c {
        let s = c / norm;
        g.iter_mut().for_each(|x| *x *= s);
    }
    norm
}

/// The indices of a Poisson subsample of `0..n` at rate `q`, by geometric skips between kept
/// indices (exactly independent inclusion with probability q, O(qn) draws).
pub fn poisson_subsample(n: usize, q: f64, rng: &mut StreamRng, out: &mut Vec<usize>) {
    out.clear();
    if q >= 1.0 {
        out.extend(0..n);
        return;
    }
    let ln_miss = (-q).ln_1p();
    let mut i: f64 = -1.0;
    loop {
        let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        i += 1.0 + (u.ln() / ln_miss).floor();
        if i >= n as f64 {
            return;
        }
        out.push(i as usize);
    }
}

impl<'a, M: Model> Dpvi<'a, M> {
    /// Validates the settings (errors name the field and the allowed values).
    pub fn new(model: &'a M, settings: Settings) -> Result<Self, String> {
        let s = &settings;
        if s.iterations == 0 {
            return Err("iterations: must be an integer >= 1".into());
        }
        if !(s.sampling_rate > 0.0 && s.sampling_rate <= 1.0) {
            return Err(format!("sampling_rate: must be in (0, 1], got {}", s.sampling_rate));
        }
        if !(s.learning_rate > 0.0 && s.learning_rate.is_finite()) {
            return Err(format!("learning_rate: must be a finite number > 0, got {}", s.learning_rate));
        }
        if let Some(p) = &s.privacy {
            if !(p.clip > 0.0 && p.clip.is_finite()) {
                return Err(format!("clip: must be a finite number > 0, got {}", p.clip));
            }
            if !(p.noise_multiplier >= 0.0 && p.noise_multiplier.is_finite()) {
                return Err(format!("noise multiplier: must be a finite number >= 0, got {}", p.noise_multiplier));
            }
        }
        Ok(Self { model, settings })
    }

    /// The ε (at the run's δ) that `iterations` steps spend, by the run's accounting.
    pub fn planned_epsilon(&self, iterations: u64) -> Result<Option<f64>, String> {
        let Some(p) = &self.settings.privacy else { return Ok(None) };
        let q = self.settings.sampling_rate;
        accountant::epsilon(p.accounting, p.neighbouring, q, p.noise_multiplier, iterations, p.delta)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// Runs Algorithm 1 from `start` with the random stream `rng`. Refuses to start when the
    /// planned ε exceeds the budget.
    pub fn fit(&self, start: MeanField, rng: &mut StreamRng) -> Result<Fit, String> {
        let (model, s) = (self.model, &self.settings);
        let d = model.dim();
        if start.dim() != d {
            return Err(format!("the start has {} parameters, the model {d}", start.dim()));
        }
        if let (Some(p), Some(eps)) = (&s.privacy, self.planned_epsilon(s.iterations)?)
            && eps > p.epsilon_budget
        {
            return Err(format!(
                "refusing to start: {} iterations at q = {}, σ = {} spend ε = {eps:.4} > budget {} (δ = {}, {})",
                s.iterations,
                s.sampling_rate,
                p.noise_multiplier,
                p.epsilon_budget,
                p.delta,
                p.accounting.name()
            ));
        }
        // The running RDP account (one step's RDP at each order, added per iteration).
        let mut account = RdpAccountant::default();
        let mut step_account = RdpAccountant::default();
        if let Some(p) = &s.privacy {
            let sigma = p.neighbouring.effective_noise(p.noise_multiplier);
            step_account.compose_subsampled_gaussian(s.sampling_rate, sigma, 1).map_err(|e| e.to_string())?;
        }
        let step_rdp: Vec<f64> = step_account.rdp().map(|(_, r)| r).collect();

        let mut q = start;
        let (mut theta_grad, mut g_i) = (vec![0.0; d], vec![0.0; 2 * d]);
        let (mut sum, mut grad, mut adagrad) = (vec![0.0; 2 * d], vec![0.0; 2 * d], vec![0.0; 2 * d]);
        let mut batch = Vec::new();
        let mut batch_total = 0usize;
        for _ in 0..s.iterations {
            poisson_subsample(model.examples(), s.sampling_rate, rng, &mut batch);
            batch_total += batch.len();
            let eta: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
            let theta = q.theta(&eta);
            sum.iter_mut().for_each(|x| *x = 0.0);
            for &i in &batch {
                model.log_likelihood(i, &theta, &mut theta_grad);
                q.chain_rule(&theta_grad, &eta, &mut g_i);
                if let Some(p) = &s.privacy {
                    clip_to_norm(&mut g_i, p.clip);
                }
                sum.iter_mut().zip(&g_i).for_each(|(a, b)| *a += b);
            }
            if let Some(p) = &s.privacy {
                let sd = p.noise_multiplier * p.clip;
                for x in sum.iter_mut() {
                    let z: f64 = StandardNormal.sample(rng);
                    *x += sd * z;
                }
                account.add_rdp(&step_rdp);
            }
            // ELBO gradient: data term / q + prior (reparameterized) + entropy (∂H/∂ω = 1).
            theta_grad.iter_mut().for_each(|x| *x = 0.0);
            model.log_prior(&theta, &mut theta_grad);
            q.chain_rule(&theta_grad, &eta, &mut grad);
            for j in 0..2 * d {
                grad[j] += sum[j] / s.sampling_rate + if j >= d { 1.0 } else { 0.0 };
            }
            for j in 0..2 * d {
                adagrad[j] += grad[j] * grad[j];
                grad[j] *= s.learning_rate / (adagrad[j].sqrt() + 1e-8);
            }
            q.ascend(&grad);
        }
        let epsilon = match &s.privacy {
            None => None,
            Some(p) => Some(match p.accounting {
                Accounting::MomentsAccountant => account.epsilon(p.delta).map_err(|e| e.to_string())?.0,
                Accounting::AdvancedComposition => self.planned_epsilon(s.iterations)?.unwrap_or(f64::INFINITY),
            }),
        };
        Ok(Fit { q, epsilon, iterations: s.iterations, mean_batch: batch_total as f64 / s.iterations as f64 })
    }
}
