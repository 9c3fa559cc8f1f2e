//! EP (Algorithm 1 of Vinaroz & Park), SEP (Algorithm 2, Li et al. 2015), clipped SEP and DP-SEP
//! (Algorithm 3) for the mixture-of-Gaussians means model.
//!
//! SEP keeps one factor f with q = p₀ f^N (eq. 2) and cavity q₋ = q / f (eq. 3). One step on
//! x_n: f_n = proj[q₋ p(x_n | ·)] / q₋; with clipping ‖θ_{f_n}‖ ≤ C; the damped update
//! θ_new = θ_{q₋} + (1 − γ/N) θ_f + (γ/N) θ_{f_n} (eq. 4); DP-SEP adds N(0, σ²Δ²) to every
//! coordinate of the natural-parameter vector with Δ = 2γC/N (Proposition 1), repairs each
//! precision to positive definite (post-processing), then θ_f = (θ̃_new − θ₀)/N, clipped to C,
//! and q = θ₀ + N θ_f. A step whose cavity is not positive definite is skipped and counted.

use crate::gaussian::{Natural, clip, combine};
use crate::linalg::repair_pd;
use crate::mog::MixtureMeans;
use distributions::StreamRng;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, StandardNormal};

/// Which variant of SEP runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SepSettings {
    /// Passes over the data (each a random permutation).
    pub epochs: usize,
    /// γ: the damping is γ/N.
    pub damping: f64,
    /// Clip θ_{f_n} and θ_f to this norm (clipped SEP and DP-SEP).
    pub clip: Option<f64>,
    /// DP-SEP: the noise multiplier σ (noise sd σ·2γC/N); needs `clip`.
    pub noise_multiplier: Option<f64>,
    /// Eigenvalue floor of the positive-definite repair.
    pub pd_floor: f64,
}

/// A fitted approximation q(μ) = Π_j N(μ_j) and the steps skipped for a non-PD cavity.
#[derive(Clone, Debug, PartialEq)]
pub struct SepFit {
    pub q: Vec<Natural>,
    pub skipped: usize,
}

/// Variance of the starting q around its random centres (the prior's: a narrower start, 0.1,
/// left clusters stranded far from the data).
pub const START_VARIANCE: f64 = 1.0;

/// The starting q: μ_j ~ N(r_j, START_VARIANCE · I) with r_j drawn from the prior
/// (data-independent, so it costs no privacy; it breaks the symmetry between clusters).
pub fn start(model: &MixtureMeans, rng: &mut StreamRng) -> Vec<Natural> {
    let d = model.d;
    let mut cov = vec![0.0; d * d];
    (0..d).for_each(|i| cov[i * d + i] = START_VARIANCE);
    (0..model.clusters)
        .map(|_| {
            let r: Vec<f64> = model
                .prior_mean
                .iter()
                .map(|m| m + <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng))
                .collect();
            Natural::from_moments(&r, &cov).expect("a multiple of I is positive definite")
        })
        .collect()
}

/// θ_new of one (clipped) SEP step on point `n` before any noise (eq. 4), and f_n; `None` if
/// the cavity or a projection is not positive definite.
pub fn sep_proposal(
    model: &MixtureMeans,
    q: &[Natural],
    f: &[Natural],
    n: usize,
    settings: &SepSettings,
) -> Option<(Vec<Natural>, Vec<Natural>)> {
    let big_n = model.points() as f64;
    let cavity = combine(q, 1.0, f, -1.0);
    let projected = model.project_tilted(&cavity, n)?;
    let mut f_n = combine(&projected, 1.0, &cavity, -1.0);
    if let Some(c) = settings.clip {
        clip(&mut f_n, c);
    }
    let step = settings.damping / big_n;
    let with_f = combine(&cavity, 1.0, f, 1.0 - step);
    Some((combine(&with_f, 1.0, &f_n, step), f_n))
}

/// Runs SEP / clipped SEP / DP-SEP from `start_q` with the stream `rng`.
pub fn sep(
    model: &MixtureMeans,
    start_q: &[Natural],
    settings: &SepSettings,
    rng: &mut StreamRng,
) -> Result<SepFit, String> {
    if settings.noise_multiplier.is_some() && settings.clip.is_none() {
        return Err("DP-SEP needs a clipping norm C (the sensitivity is 2γC/N)".into());
    }
    let (big_n, d) = (model.points(), model.d);
    let prior = model.prior();
    // θ_f = (θ_q − θ₀)/N (eq. 2), clipped as the algorithm requires of its start.
    let mut f: Vec<Natural> = combine(start_q, 1.0 / big_n as f64, &prior, -1.0 / big_n as f64);
    if let Some(c) = settings.clip {
        clip(&mut f, c);
    }
    let mut q = combine(&prior, 1.0, &f, big_n as f64);
    let mut order: Vec<usize> = (0..big_n).collect();
    let mut skipped = 0;
    for _ in 0..settings.epochs {
        order.shuffle(rng);
        for &n in &order {
            let Some((mut new, _)) = sep_proposal(model, &q, &f, n, settings) else {
                skipped += 1;
                continue;
            };
            if let (Some(sigma), Some(c)) = (settings.noise_multiplier, settings.clip) {
                let sd = sigma * 2.0 * settings.damping * c / big_n as f64;
                for g in new.iter_mut() {
                    g.h.iter_mut()
                        .for_each(|x| *x += sd * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng));
                    // The vector holds −½Λ: noise of sd `sd` there is noise of sd 2·sd on Λ.
                    g.lambda.iter_mut().for_each(|x| {
                        *x += 2.0 * sd * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng)
                    });
                    g.lambda = repair_pd(&g.lambda, d, settings.pd_floor);
                }
            }
            f = combine(&new, 1.0 / big_n as f64, &prior, -1.0 / big_n as f64);
            if let Some(c) = settings.clip {
                clip(&mut f, c);
            }
            q = combine(&prior, 1.0, &f, big_n as f64);
        }
    }
    Ok(SepFit { q, skipped })
}

/// EP with one site per point (Algorithm 1), undamped, sites started at the start's factor.
pub fn ep(model: &MixtureMeans, start_q: &[Natural], epochs: usize, rng: &mut StreamRng) -> SepFit {
    let big_n = model.points();
    let prior = model.prior();
    let init = combine(start_q, 1.0 / big_n as f64, &prior, -1.0 / big_n as f64);
    let mut sites = vec![init; big_n];
    let mut q = start_q.to_vec();
    let mut order: Vec<usize> = (0..big_n).collect();
    let mut skipped = 0;
    for _ in 0..epochs {
        order.shuffle(rng);
        for &n in &order {
            let cavity = combine(&q, 1.0, &sites[n], -1.0);
            match model.project_tilted(&cavity, n) {
                Some(projected) => {
                    sites[n] = combine(&projected, 1.0, &cavity, -1.0);
                    q = projected;
                }
                None => skipped += 1,
            }
        }
    }
    SepFit { q, skipped }
}
