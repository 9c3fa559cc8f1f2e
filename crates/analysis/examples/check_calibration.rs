//! The calibration study of the posterior predictive checks and of the total's interval (issue 32):
//! data drawn from the topic model itself (40 × 30, K = 3, θ and φ from the default prior
//! Gamma(1, 1), θ then scaled so that the mean rate is 0.1, 1 or 10), released with the
//! simulation randomizer at α = 0.2, 0.5 or 0.8, and fitted as `lppf fit` does by default
//! (private Gibbs, 4 chains × 2,000 sweeps, 1,000 burn-in, thin 5, a₀ = b₀ = 1). For each of the
//! 9 designs and `R` replications (seeded: design d, replication r use streams (seed, d, r)):
//! every check's p-value and flag, and whether the true total rate Σμ* lies in the fit's 90 %
//! interval.
//!
//! `cargo run --release -p analysis --example check_calibration -- R OUTPUT.csv [OPTIONS]` (R = 20:
//! about 4 minutes on 2 cores). docs/model-checking.md reads `docs/data/check-calibration*.csv`.
//! Options:
//! * `hierarchical A' B' [A0]`: the fits use the hierarchical prior (`lppf fit --prior
//!   hierarchical --scale-shape A' --scale-mean B' --a0 A0`, A0 = 1 by default);
//! * `--data-shape S`: overdispersed data with the same means, `y ~ Pois(μ δ)`, `δ ~ Gamma(S, S)`
//!   (negative binomial with shape S); the true total is then `Σ μ δ`, the cells' Poisson rates;
//! * `--likelihood negative-binomial` or `--likelihood contaminated`: the fits use that
//!   overdispersed likelihood (r learned);
//! * `--warm-up`: a learned r is held at 1 for the first half of the burn-in, as `lppf fit` does
//!   by default (without it, r is learned from the first sweep);
//! * `--learned-scale`: with `hierarchical`, the rates' rate `κ` is learned (`lppf fit`'s
//!   `--scale-mean learned`: `κ ~ Gamma(1, b'/a')`);
//! * `--sweeps N`: N sweeps per chain (burn-in N/2, thin 5) instead of 2,000;
//! * `--designs S:A,…`: only these designs (e.g. `1:0.8,0.1:0.2`);
//! * `--model block`: a 40 × 40 network from the block model instead (K = 3 communities, θ and
//!   π from Gamma(1, 1), the diagonal not modelled), fitted with the block model.

use analysis::checks::STATISTICS;
use analysis::{FitData, FitSettings, Input, fit_chains};
use distributions::{Gamma, Poisson, Streams};
use inference::{Algorithm, Method, Schedule};
use mechanism::{Noise, privatize};
use models::{GammaPrior, ModelKind};
use rand::distr::Distribution;
use std::fmt::Write;

const ROWS: usize = 40;
const COLS: usize = 30;
const K: usize = 3;
const SCALES: [f64; 3] = [0.1, 1.0, 10.0];
const ALPHAS: [f64; 3] = [0.2, 0.5, 0.8];
const SEED: u64 = 20_261_125;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: check_calibration R OUTPUT.csv [hierarchical A' B' [A0]] [--data-shape S] \
                 [--likelihood negative-binomial|contaminated] [--warm-up] [--learned-scale] [--sweeps N] [--designs S:A,...] [--model block]";
    let [_, reps, output, options @ ..] = args.as_slice() else { return Err(usage.into()) };
    let (mut hierarchy, mut a0, mut data_shape, mut likelihood) = (None, 1.0, None, models::Likelihood::Poisson);
    let (mut learned, mut sweeps, mut only) = (false, 2000usize, None::<Vec<(f64, f64)>>);
    let mut warm_up = false;
    let mut kind = ModelKind::Topic;
    let mut options = options.iter().peekable();
    while let Some(option) = options.next() {
        let mut value = || options.next().ok_or(usage);
        match option.as_str() {
            "hierarchical" => {
                let (a, b) = (value()?.parse()?, value()?.parse()?);
                hierarchy = Some(models::ScalePrior::new(a, b)?);
                if let Some(x) = options.next_if(|x| x.parse::<f64>().is_ok()) {
                    a0 = x.parse()?;
                }
            }
            "--learned-scale" => learned = true,
            "--model" if value()? == "block" => kind = ModelKind::Block,
            "--sweeps" => sweeps = value()?.parse()?,
            "--designs" => {
                let parse = |d: &str| -> Option<(f64, f64)> {
                    let (s, a) = d.split_once(':')?;
                    Some((s.parse().ok()?, a.parse().ok()?))
                };
                only = Some(value()?.split(',').map(parse).collect::<Option<_>>().ok_or(usage)?);
            }
            "--data-shape" => data_shape = Some(value()?.parse::<f64>()?),
            "--likelihood" => {
                likelihood = match value()?.as_str() {
                    "negative-binomial" => models::Likelihood::NegativeBinomial(models::Dispersion::default_learned()),
                    "contaminated" => models::Likelihood::Contaminated(models::Dispersion::default_learned()),
                    _ => return Err(usage.into()),
                }
            }
            "--warm-up" => warm_up = true,
            _ => return Err(usage.into()),
        }
    }
    let reps: usize = reps.parse()?;
    // `lppf fit`'s schedule: the first half discarded; a warm-up holds r for half the burn-in.
    let burn_in = sweeps / 2;
    if learned {
        hierarchy = Some(hierarchy.ok_or(usage)?.with_learned_mean(1.0)?);
    }
    let mut csv = String::from("scale,alpha,replication,true_total,total_q05,total_q95,covered");
    for s in STATISTICS {
        let _ = write!(csv, ",p_{s},flag_{s}");
    }
    csv.push('\n');
    let gamma = Gamma::new(1.0, 1.0)?;
    let labels = |prefix: &str, n: usize| tables::Labels::from_names((0..n).map(|i| format!("{prefix}{i}")));
    let block = kind == ModelKind::Block;
    let (rows, cols) = if block { (ROWS, ROWS) } else { (ROWS, COLS) };
    for (si, &scale) in SCALES.iter().enumerate() {
        for (ai, &alpha) in ALPHAS.iter().enumerate() {
            let design = (si * ALPHAS.len() + ai) as u64;
            if only.as_ref().is_some_and(|o| !o.contains(&(scale, alpha))) {
                continue;
            }
            let (mut covered, mut flags) = (0, vec![0usize; STATISTICS.len()]);
            for r in 0..reps {
                let streams = Streams::new(SEED).child(design).child(r as u64);
                let mut rng = streams.child(0).rng();
                let theta: Vec<f64> = (0..rows * K).map(|_| gamma.sample(&mut rng)).collect();
                // The topic model's φ (K × V) or the block model's π (K × K).
                let other: Vec<f64> = (0..K * if block { K } else { cols }).map(|_| gamma.sample(&mut rng)).collect();
                let rate = |n: usize| -> f64 {
                    let (i, j) = (n / cols, n % cols);
                    let t = |a: usize, k: usize| theta[a * K + k];
                    match block {
                        false => (0..K).map(|k| t(i, k) * other[k * cols + j]).sum(),
                        true if i == j => 0.0,
                        true => (0..K * K).map(|cd| t(i, cd / K) * t(j, cd % K) * other[cd]).sum(),
                    }
                };
                let mut rates: Vec<f64> = (0..rows * cols).map(rate).collect();
                let modelled = if block { rows * (rows - 1) } else { rows * cols };
                let c = scale / (rates.iter().sum::<f64>() / modelled as f64);
                rates.iter_mut().for_each(|m| *m *= c);
                // Overdispersed data: each cell's Poisson rate μ δ, δ ~ Gamma(S, S) (the truth).
                if let Some(shape) = data_shape {
                    let delta = Gamma::new(shape, shape)?;
                    rates.iter_mut().for_each(|m| *m *= delta.sample(&mut rng));
                }
                let counts: Vec<u32> = rates
                    .iter()
                    .map(|&m| Poisson::new(m).map(|p| p.sample(&mut rng) as u32))
                    .collect::<Result<_, _>>()?;
                let released = privatize(&counts, rows, cols, Noise::Scalar(alpha), &mut streams.child(1).rng())?;
                let data = FitData {
                    file: "simulated".into(),
                    axes: None,
                    rows: labels("r", rows),
                    cols: labels(if block { "r" } else { "c" }, cols),
                    input: Input::Released {
                        privatized: released,
                        alphas: vec![alpha; rows],
                        heldout_values: Vec::new(),
                    },
                    levels: None,
                    overrides_sidecar: None,
                    modelled: if block { models::ModelledCells::OffDiagonal } else { models::ModelledCells::All },
                    heldout: Vec::new(),
                };
                let settings = FitSettings {
                    model: kind,
                    components: K,
                    prior: GammaPrior::new(a0, 1.0)?,
                    scale: hierarchy,
                    likelihood,
                    method: Method::Private,
                    chains: 4,
                    algorithm: Algorithm::Gibbs(
                        Schedule::new(sweeps, burn_in, 5)?.with_dispersion_warm_up(if warm_up {
                            burn_in / 2
                        } else {
                            0
                        })?,
                    ),
                    seed: distributions::stream_id(&[SEED, design, r as u64, 2]),
                    weighting: analysis::Weighting::Equal,
                    replicas: 1,
                    hamiltonian_move: false,
                };
                let result = fit_chains(&settings, &data, &|| {})?;
                let truth: f64 = rates.iter().sum();
                let (lo, hi) = result.total_rate_interval.ok_or("no total interval")?;
                let inside = lo <= truth && truth <= hi;
                covered += usize::from(inside);
                let _ = write!(csv, "{scale},{alpha},{r},{truth},{lo},{hi},{inside}");
                for (i, check) in result.checks.iter().enumerate() {
                    flags[i] += usize::from(check.extreme());
                    let _ = write!(csv, ",{},{}", check.p_value, check.extreme());
                }
                csv.push('\n');
            }
            let flagged: Vec<String> =
                STATISTICS.iter().zip(&flags).filter(|(_, f)| **f > 0).map(|(s, f)| format!("{s} {f}")).collect();
            println!(
                "mean rate {scale:>4}, α = {alpha}: total in its 90 % interval {covered}/{reps}; flagged: {}",
                if flagged.is_empty() { "none".to_string() } else { flagged.join(", ") }
            );
        }
    }
    results::write_atomic(std::path::Path::new(output), csv.as_bytes())?;
    Ok(())
}
