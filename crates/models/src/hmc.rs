//! Hamiltonian Monte Carlo (Neal 2011, "MCMC using Hamiltonian dynamics", §5.2 and §5.4) on an
//! unconstrained vector `x` — for the models, the logarithms of their factors with the
//! allocations integrated out ([`crate::BlockModel::with_hmc`]).
//!
//! One transition draws a momentum `p ~ N(0, M)` with a diagonal mass `M = diag(1/v)`, runs
//! `L` leapfrog steps of size `ε` on `H(x, p) = −ln π(x) + ½ Σ_k v_k p_k²`, and accepts the end
//! point with probability `min(1, e^{H(x, p) − H(x', p')})`. `L` is drawn uniformly from
//! `[⌈L̄/2⌉, ⌊3L̄/2⌋]` each time (jitter, so that no trajectory length resonates with the
//! target's periods); `ε` and `v` are fixed unless adapting.
//!
//! **Adaptation** (only while [`Hmc::set_adapting`] is on — a chain's burn-in — so that the kept
//! draws come from one fixed, reversible kernel): `ε` by dual averaging to an acceptance of
//! [`TARGET_ACCEPTANCE`] (Hoffman & Gelman 2014, Algorithm 5: `γ = 0.05`, `t₀ = 10`, `κ = 0.75`),
//! and `v` as the variances of the draws of windows of adapting transitions of doubling length
//! (100, 200, 400, …; each variance shrunk towards `10⁻³` by five pseudo-draws, as Stan does),
//! the dual averaging restarted at `10 ε` after each window. When adaptation stops, `ε` becomes
//! the dual averaging's running average `ε̄`.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// The acceptance probability the step size is adapted to.
pub const TARGET_ACCEPTANCE: f64 = 0.8;

/// The first window of adapting transitions after which the mass is re-estimated; each later
/// window is twice as long.
const FIRST_WINDOW: usize = 100;

/// A log density with its gradient.
pub trait LogDensity {
    /// `ln π(x)` up to a constant, with `∇ ln π(x)` written to `gradient` (same length as `x`).
    /// Returns a non-finite value where the density is 0 or cannot be evaluated.
    fn ln_density(&self, x: &[f64], gradient: &mut [f64]) -> f64;

    /// `∇ ln π(x)` alone, for the inner steps of a trajectory, which need no density (a
    /// logarithm per cell saved); false where the density is 0 or cannot be evaluated.
    fn gradient(&self, x: &[f64], gradient: &mut [f64]) -> bool {
        self.ln_density(x, gradient).is_finite()
    }
}

/// The settings of an HMC move: the mean number of leapfrog steps `L̄` per transition and the
/// step size `ε` before any adaptation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HmcSettings {
    pub leapfrog_steps: usize,
    pub step: f64,
}

impl Default for HmcSettings {
    /// 32 leapfrog steps on average, `ε` = 0.01 until adapted.
    fn default() -> Self {
        Self { leapfrog_steps: 32, step: 0.01 }
    }
}

/// The state of an HMC kernel: step size, diagonal inverse mass and the adaptation's statistics.
#[derive(Clone, Debug)]
pub struct Hmc {
    /// `L̄`, the mean number of leapfrog steps.
    leapfrog_steps: usize,
    step: f64,
    /// `v_k`: the inverse mass (the target's variance, as far as adaptation has estimated it).
    inverse_mass: Vec<f64>,
    adapting: bool,
    /// Dual averaging: `μ`, `H̄`, `ln ε̄` and the transitions since its last restart.
    shrink_to: f64,
    h_bar: f64,
    ln_step_bar: f64,
    since_restart: usize,
    /// The current window's transitions, running mean and sum of squared deviations (Welford).
    window: usize,
    window_len: usize,
    mean: Vec<f64>,
    squares: Vec<f64>,
    /// The acceptance probabilities summed over the transitions since adaptation last stopped (or
    /// since the start), and their number.
    accepted: f64,
    transitions: u64,
    /// Scratch: proposal, momentum and gradients.
    proposal: Vec<f64>,
    momentum: Vec<f64>,
    gradient: Vec<f64>,
    proposal_gradient: Vec<f64>,
}

impl Hmc {
    /// A kernel for vectors of length `dim`: unit mass, the settings' step (a step that is not a
    /// finite number > 0 is taken as the default's), not adapting.
    pub fn new(settings: HmcSettings, dim: usize) -> Self {
        let step =
            if settings.step.is_finite() && settings.step > 0.0 { settings.step } else { HmcSettings::default().step };
        Self {
            leapfrog_steps: settings.leapfrog_steps.max(1),
            step,
            inverse_mass: vec![1.0; dim],
            adapting: false,
            shrink_to: (10.0 * step).ln(),
            h_bar: 0.0,
            ln_step_bar: step.ln(),
            since_restart: 0,
            window: 0,
            window_len: FIRST_WINDOW,
            accepted: 0.0,
            transitions: 0,
            mean: vec![0.0; dim],
            squares: vec![0.0; dim],
            proposal: vec![0.0; dim],
            momentum: vec![0.0; dim],
            gradient: vec![0.0; dim],
            proposal_gradient: vec![0.0; dim],
        }
    }

    /// The step size `ε`.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The mean acceptance probability of the transitions since adaptation last stopped (or since
    /// the start); `None` before the first.
    pub fn acceptance(&self) -> Option<f64> {
        (self.transitions > 0).then(|| self.accepted / self.transitions as f64)
    }

    /// Starts or stops adaptation (see the module's documentation). Stopping fixes `ε` at `ε̄` and
    /// restarts the count of [`Self::acceptance`].
    pub fn set_adapting(&mut self, on: bool) {
        if self.adapting && !on {
            if self.since_restart > 0 {
                self.step = self.ln_step_bar.exp();
            }
            (self.accepted, self.transitions) = (0.0, 0);
        }
        self.adapting = on;
    }

    /// One transition from `x` (replaced by the next state). Returns the acceptance probability.
    pub fn transition<T: LogDensity + ?Sized, R: Rng + ?Sized>(
        &mut self,
        target: &T,
        x: &mut [f64],
        rng: &mut R,
    ) -> f64 {
        let current = target.ln_density(x, &mut self.gradient);
        let accept = if current.is_finite() { self.propose(target, x, current, rng) } else { 0.0 };
        if accept > 0.0 && (accept >= 1.0 || rng.random::<f64>() < accept) {
            x.copy_from_slice(&self.proposal);
        }
        if self.adapting {
            self.adapt(accept, x);
        }
        self.accepted += accept;
        self.transitions += 1;
        accept
    }

    /// Leapfrog from `x` (log density `current`, gradient in `self.gradient`) to `self.proposal`;
    /// the acceptance probability (0 if the trajectory left the density's support).
    fn propose<T: LogDensity + ?Sized, R: Rng + ?Sized>(
        &mut self,
        target: &T,
        x: &[f64],
        current: f64,
        rng: &mut R,
    ) -> f64 {
        let l = self.leapfrog_steps;
        let length = rng.random_range(l.div_ceil(2).max(1)..=(3 * l / 2).max(1));
        let eps = self.step;
        let mut kinetic = 0.0;
        for (p, &v) in self.momentum.iter_mut().zip(&self.inverse_mass) {
            let z: f64 = StandardNormal.sample(rng);
            *p = z / v.sqrt();
            kinetic += 0.5 * v * *p * *p;
        }
        let start = current - kinetic;
        self.proposal.copy_from_slice(x);
        self.proposal_gradient.copy_from_slice(&self.gradient);
        let mut ln = current;
        for step in 1..=length {
            for (p, g) in self.momentum.iter_mut().zip(&self.proposal_gradient) {
                *p += 0.5 * eps * g;
            }
            for ((q, p), v) in self.proposal.iter_mut().zip(&self.momentum).zip(&self.inverse_mass) {
                *q += eps * v * p;
            }
            // The density is needed at the trajectory's end only.
            let finite = match step == length {
                true => {
                    ln = target.ln_density(&self.proposal, &mut self.proposal_gradient);
                    ln.is_finite()
                }
                false => target.gradient(&self.proposal, &mut self.proposal_gradient),
            };
            if !finite {
                return 0.0;
            }
            for (p, g) in self.momentum.iter_mut().zip(&self.proposal_gradient) {
                *p += 0.5 * eps * g;
            }
        }
        let kinetic: f64 = self.momentum.iter().zip(&self.inverse_mass).map(|(p, v)| 0.5 * v * p * p).sum();
        let ln_ratio = ln - kinetic - start;
        if ln_ratio.is_nan() { 0.0 } else { ln_ratio.exp().min(1.0) }
    }

    /// One adapting transition's update of `ε` and of the window's variance estimate.
    fn adapt(&mut self, accept: f64, x: &[f64]) {
        const GAMMA: f64 = 0.05;
        const T0: f64 = 10.0;
        const KAPPA: f64 = 0.75;
        self.since_restart += 1;
        let m = self.since_restart as f64;
        self.h_bar = (1.0 - 1.0 / (m + T0)) * self.h_bar + (TARGET_ACCEPTANCE - accept) / (m + T0);
        let ln_step = self.shrink_to - m.sqrt() / GAMMA * self.h_bar;
        let weight = m.powf(-KAPPA);
        self.ln_step_bar = weight * ln_step + (1.0 - weight) * self.ln_step_bar;
        self.step = ln_step.exp();
        self.window += 1;
        let n = self.window as f64;
        for ((mean, square), &value) in self.mean.iter_mut().zip(&mut self.squares).zip(x) {
            let delta = value - *mean;
            *mean += delta / n;
            *square += delta * (value - *mean);
        }
        if self.window == self.window_len {
            for (v, square) in self.inverse_mass.iter_mut().zip(&self.squares) {
                *v = (square + 5.0 * 1e-3) / (n - 1.0 + 5.0);
            }
            self.mean.fill(0.0);
            self.squares.fill(0.0);
            self.window = 0;
            self.window_len *= 2;
            self.shrink_to = (10.0 * self.step).ln();
            self.h_bar = 0.0;
            self.since_restart = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::Streams;

    /// `N(m, s²)` per coordinate.
    struct Normal {
        mean: Vec<f64>,
        sd: Vec<f64>,
    }

    impl LogDensity for Normal {
        fn ln_density(&self, x: &[f64], gradient: &mut [f64]) -> f64 {
            let mut ln = 0.0;
            for (((g, &x), &m), &s) in gradient.iter_mut().zip(x).zip(&self.mean).zip(&self.sd) {
                ln -= 0.5 * ((x - m) / s).powi(2);
                *g = -(x - m) / (s * s);
            }
            ln
        }
    }

    /// With a fixed step the kernel samples a normal with badly scaled coordinates: the means and
    /// variances of 20,000 transitions are within 5 Monte Carlo standard errors (computed from
    /// batch means of 50 batches; a false alarm about 6e-7 per check, 4 checks).
    #[test]
    fn a_fixed_kernel_samples_a_normal() {
        let target = Normal { mean: vec![1.0, -2.0], sd: vec![0.5, 2.0] };
        let mut hmc = Hmc::new(HmcSettings { leapfrog_steps: 8, step: 0.2 }, 2);
        let mut rng = Streams::new(3).rng();
        let mut x = vec![0.0, 0.0];
        let draws: Vec<Vec<f64>> = (0..20_000)
            .map(|_| {
                hmc.transition(&target, &mut x, &mut rng);
                x.clone()
            })
            .collect();
        for k in 0..2 {
            for (what, f, expected) in [
                ("mean", Box::new(|x: f64| x) as Box<dyn Fn(f64) -> f64>, target.mean[k]),
                ("second moment", Box::new(|x: f64| x * x), target.mean[k].powi(2) + target.sd[k].powi(2)),
            ] {
                let values: Vec<f64> = draws.iter().map(|d| f(d[k])).collect();
                let batch: Vec<f64> = values.chunks(400).map(|b| b.iter().sum::<f64>() / b.len() as f64).collect();
                let mean = batch.iter().sum::<f64>() / batch.len() as f64;
                let var = batch.iter().map(|b| (b - mean).powi(2)).sum::<f64>() / (batch.len() - 1) as f64;
                let se = (var / batch.len() as f64).sqrt();
                assert!((mean - expected).abs() < 5.0 * se, "coordinate {k} {what}: {mean} vs {expected} (se {se})");
            }
        }
    }

    /// Adaptation finds the target's scales: after 1,500 adapting transitions the inverse mass is
    /// within a factor 2 of each coordinate's variance (1e-4 and 100, a ratio of 10⁶) and the
    /// step size gives an acceptance near the target once fixed.
    #[test]
    fn adaptation_learns_the_scales_and_the_step() {
        let target = Normal { mean: vec![0.0, 5.0], sd: vec![0.01, 10.0] };
        let mut hmc = Hmc::new(HmcSettings { leapfrog_steps: 16, ..HmcSettings::default() }, 2);
        let mut rng = Streams::new(4).rng();
        let mut x = vec![0.0, 5.0];
        hmc.set_adapting(true);
        for _ in 0..1_500 {
            hmc.transition(&target, &mut x, &mut rng);
        }
        hmc.set_adapting(false);
        for (v, sd) in hmc.inverse_mass.iter().zip(&target.sd) {
            let ratio = v / (sd * sd);
            assert!((0.5..2.0).contains(&ratio), "inverse mass {v} against variance {}", sd * sd);
        }
        let accept: f64 = (0..2_000).map(|_| hmc.transition(&target, &mut x, &mut rng)).sum::<f64>() / 2_000.0;
        assert!((0.6..0.99).contains(&accept), "acceptance {accept} after adaptation");
    }
}
