//! Executing a manifest's work units: the true data set of a replication, the non-private
//! reference on it (once per data set), and the naïve and private fits of each cell.
//!
//! Every random choice comes from `Streams::new(seed)` → replication → purpose (→ noise level →
//! method), so a unit's numbers do not depend on which other units run, in which order, or on how
//! many threads.

use crate::manifest::{Cell, DataSource, Manifest, Method, ModelKind, NoiseLevel, Precision};
use distributions::{Beta, Streams, alpha_from_epsilon};
use inference::{LocallyPrivate, NonPrivate, Sampler, run_chain};
use mechanism::{Noise, privatize};
use models::{BlockModel, GammaPrior, PoissonFactorization, TopicModel};
use rand::distr::Distribution;
use std::fmt;
use std::ops::ControlFlow;
use std::time::Instant;

/// Stream purposes under a replication.
const TRUTH: u64 = 0;
const NOISE: u64 = 1;
const CHAIN: u64 = 2;

/// Draws from the prior for `mean_count_range` are retried at most this often.
const MAX_DATA_ATTEMPTS: u64 = 10_000;

/// Why a unit of work failed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError(pub String);

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

fn err(e: impl fmt::Display) -> RunError {
    RunError(e.to_string())
}

/// One result row: a method fitted to one data set at one noise level (none for non-private).
#[derive(Clone, Debug, PartialEq)]
pub struct MethodResult {
    pub replication: usize,
    /// `None` for the non-private reference.
    pub noise_index: Option<usize>,
    pub method: Method,
    /// The noise level used (0 for non-private).
    pub alpha: f64,
    pub epsilon: Option<f64>,
    pub precision: Option<f64>,
    /// Mean Poisson KL of `μ̂` against the true rates over the modelled entries.
    pub mean_kl: f64,
    /// Topic models: MAE of the best sample's normalized topics after Hungarian alignment.
    pub topic_error: Option<f64>,
    pub seconds: f64,
    pub iterations_per_second: f64,
}

/// A model instance of the manifest's kind.
#[derive(Clone, Debug)]
enum AnyModel {
    Topic(TopicModel),
    Block(BlockModel),
}

/// The true data set of a replication.
#[derive(Clone, Debug)]
pub struct TrueData {
    truth: AnyModel,
    rates: Vec<f64>,
    counts: Vec<u32>,
    rows: usize,
    cols: usize,
}

impl TrueData {
    /// Mean count over the modelled entries (the empirical precision `N`).
    pub fn mean_count(&self) -> f64 {
        let (sum, n) = self.modelled().fold((0.0, 0usize), |(s, n), i| (s + f64::from(self.counts[i]), n + 1));
        sum / n as f64
    }

    fn modelled(&self) -> impl Iterator<Item = usize> + '_ {
        let block = matches!(self.truth, AnyModel::Block(_));
        (0..self.rows * self.cols).filter(move |&n| !(block && n / self.cols == n % self.cols))
    }
}

fn fresh_model(manifest: &Manifest, streams: Streams) -> Result<AnyModel, RunError> {
    let m = &manifest.model;
    let prior = GammaPrior::new(m.a0, m.b0).map_err(err)?;
    let rows = manifest.data.rows;
    Ok(match m.kind {
        ModelKind::Topic => {
            let cols = manifest.data.cols.ok_or_else(|| RunError("data.cols is required".into()))?;
            AnyModel::Topic(TopicModel::new(rows, cols, m.components, prior, streams))
        }
        ModelKind::Block => AnyModel::Block(BlockModel::new(rows, m.components, prior, streams)),
    })
}

/// Generates the true data set of `replication` (retrying prior draws for `mean_count_range`).
pub fn true_data(manifest: &Manifest, replication: usize) -> Result<TrueData, RunError> {
    let DataSource::Prior = manifest.data.source;
    let root = Streams::new(manifest.experiment.seed).child(replication as u64).child(TRUTH);
    for attempt in 0..MAX_DATA_ATTEMPTS {
        let streams = root.child(attempt);
        let truth = fresh_model(manifest, streams.child(0))?;
        let (rows, cols, rates, counts) = match &truth {
            AnyModel::Topic(m) => generated(m, streams.child(1)),
            AnyModel::Block(m) => generated(m, streams.child(1)),
        };
        let data = TrueData { truth, rates, counts, rows, cols };
        match manifest.data.mean_count_range {
            Some([lo, hi]) if !(lo..=hi).contains(&data.mean_count()) => continue,
            _ => return Ok(data),
        }
    }
    Err(RunError(format!("no prior draw in {MAX_DATA_ATTEMPTS} attempts had its mean count in data.mean_count_range")))
}

fn generated<M: PoissonFactorization>(model: &M, streams: Streams) -> (usize, usize, Vec<f64>, Vec<u32>) {
    let (rows, cols) = model.shape();
    let mut rates = vec![0.0; rows * cols];
    model.rates_into(&mut rates);
    (rows, cols, rates, models::sample_counts(model, streams))
}

/// Runs a chain and scores it against the truth.
fn fit<S: Sampler>(
    sampler: &mut S,
    manifest: &Manifest,
    data: &TrueData,
    streams: Streams,
    topics: impl Fn(&S::Model) -> Option<Vec<f64>>,
) -> Result<(f64, Option<f64>, f64, f64), RunError> {
    let schedule = manifest.schedule().map_err(err)?;
    let start = Instant::now();
    let summary = run_chain(sampler, &schedule, streams, |_| ControlFlow::Continue(())).map_err(err)?;
    let seconds = start.elapsed().as_secs_f64();
    let mean_kl =
        eval::mean_poisson_kl(data.modelled().map(|n| (data.rates[n], summary.mean_rates[n]))).map_err(err)?;
    let topic_error = match (&summary.best, &data.truth) {
        (Some((_, _, best)), AnyModel::Topic(truth)) => match topics(best) {
            Some(estimate) => Some(
                eval::align_topics(&truth.phi_topic_major(), &estimate, truth.topics(), data.cols)
                    .map_err(err)?
                    .mean_absolute_error,
            ),
            None => None,
        },
        _ => None,
    };
    Ok((mean_kl, topic_error, seconds, schedule.iterations() as f64 / seconds.max(1e-12)))
}

/// The non-private reference on the true counts of `replication` (once per data set).
pub fn run_reference(manifest: &Manifest, data: &TrueData, replication: usize) -> Result<MethodResult, RunError> {
    let streams = Streams::new(manifest.experiment.seed).child(replication as u64).child(CHAIN).child(u64::MAX);
    let init = streams.child(0);
    let (mean_kl, topic_error, seconds, ips) = match fresh_model(manifest, init)? {
        AnyModel::Topic(m) => {
            fit(&mut NonPrivate::new(m, data.counts.clone()).map_err(err)?, manifest, data, streams, |b| {
                Some(b.phi_topic_major())
            })?
        }
        AnyModel::Block(m) => {
            fit(&mut NonPrivate::new(m, data.counts.clone()).map_err(err)?, manifest, data, streams, |_| None)?
        }
    };
    Ok(MethodResult {
        replication,
        noise_index: None,
        method: Method::NonPrivate,
        alpha: 0.0,
        epsilon: None,
        precision: None,
        mean_kl,
        topic_error,
        seconds,
        iterations_per_second: ips,
    })
}

/// The naïve and private fits of one cell (the methods of the manifest other than non-private).
pub fn run_cell(manifest: &Manifest, data: &TrueData, cell: &Cell) -> Result<Vec<MethodResult>, RunError> {
    let rep = Streams::new(manifest.experiment.seed).child(cell.replication as u64);
    let (alpha, epsilon, precision) = match cell.noise {
        NoiseLevel::Alpha(a) => (a, None, None),
        NoiseLevel::Epsilon(e) => {
            let n = match &manifest.noise.precision {
                Some(Precision::Fixed(n)) => *n,
                _ => data.mean_count(),
            };
            (alpha_from_epsilon(e, n).map_err(err)?, Some(e), Some(n))
        }
    };
    let noise_streams = rep.child(NOISE).child(cell.noise_index as u64);
    let noise = match manifest.noise.row_concentration {
        Some(c) if alpha > 0.0 => {
            let beta = Beta::new(c * alpha, c * (1.0 - alpha)).map_err(err)?;
            let mut rng = noise_streams.child(0).rng();
            Noise::PerRow((0..data.rows).map(|_| beta.sample(&mut rng).min(0.999_999)).collect())
        }
        _ => Noise::Scalar(alpha),
    };
    let released =
        privatize(&data.counts, data.rows, data.cols, noise, &mut noise_streams.child(1).rng()).map_err(err)?;
    let mut results = Vec::new();
    for &method in manifest.methods.iter().filter(|m| **m != Method::NonPrivate) {
        let streams = rep.child(CHAIN).child(cell.noise_index as u64).child(method as u64);
        let init = fresh_model(manifest, streams.child(0))?;
        let aux = streams.child(1);
        let (mean_kl, topic_error, seconds, ips) = match (method, init) {
            (Method::Naive, AnyModel::Topic(m)) => {
                fit(&mut NonPrivate::naive(m, &released).map_err(err)?, manifest, data, streams, |b| {
                    Some(b.phi_topic_major())
                })?
            }
            (Method::Naive, AnyModel::Block(m)) => {
                fit(&mut NonPrivate::naive(m, &released).map_err(err)?, manifest, data, streams, |_| None)?
            }
            (_, AnyModel::Topic(m)) => {
                fit(&mut LocallyPrivate::new(m, &released, aux).map_err(err)?, manifest, data, streams, |b| {
                    Some(b.phi_topic_major())
                })?
            }
            (_, AnyModel::Block(m)) => {
                fit(&mut LocallyPrivate::new(m, &released, aux).map_err(err)?, manifest, data, streams, |_| None)?
            }
        };
        results.push(MethodResult {
            replication: cell.replication,
            noise_index: Some(cell.noise_index),
            method,
            alpha,
            epsilon,
            precision,
            mean_kl,
            topic_error,
            seconds,
            iterations_per_second: ips,
        });
    }
    Ok(results)
}
