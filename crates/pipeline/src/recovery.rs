//! What the paper's recovery figures draw (Fig. 1: topics; Fig. 3: block-model rates): for one
//! data set of a manifest, the true counts and parameters, and for each noise level the
//! privatized data with every method's estimate — refitted with exactly the streams of the sweep,
//! so every number here equals the one in results.parquet.
//!
//! Topic estimates are the topics of the kept Gibbs sample with the highest joint probability (the
//! paper's Φ̂; samples are not averaged because their labels may switch), normalized per topic and
//! aligned to the truth by Hungarian matching (Newman et al. 2009). Rate estimates are posterior
//! means `μ̂` (eq. 17), which have no label-switching problem.

use crate::manifest::{DataSet, Manifest, Method};
use crate::run::{FitOutput, RunError, cell_fits, reference_fits, true_data};

/// One method's estimate on one data set (at one noise level, or none for the references).
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub method: Method,
    /// The posterior mean rates `μ̂` (row-major).
    pub rates: Vec<f64>,
    /// Topic models: `K × V` topic-major, each row normalized to sum 1, row `k` matched to true
    /// topic `k`.
    pub topics: Option<Vec<f64>>,
    /// Mean absolute error of the aligned topics against the normalized truth (the results'
    /// `topic_error`).
    pub topic_error: Option<f64>,
    /// Mean Poisson KL of `μ̂` from the truth (the results' `mean_kl`).
    pub mean_kl: f64,
}

/// One noise level: the privatized data and the fits to it.
#[derive(Clone, Debug, PartialEq)]
pub struct NoisyData {
    pub noise_index: usize,
    /// `α` (the mean level with per-row noise).
    pub alpha: f64,
    pub epsilon: Option<f64>,
    /// The released counts `ỹ = y + τ` (row-major; may be negative).
    pub released: Vec<i32>,
    pub estimates: Vec<Estimate>,
}

/// Everything a recovery figure of one data set shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    pub rows: usize,
    pub cols: usize,
    /// The true counts `y` (row-major).
    pub counts: Vec<u32>,
    /// The true rates `μ*` (row-major).
    pub rates: Vec<f64>,
    /// A topic model's true topics, each normalized to sum 1 (`K × V`), and `K`.
    pub topics: Option<(Vec<f64>, usize)>,
    /// The fits to the true counts (non-private, CAVI).
    pub references: Vec<Estimate>,
    /// The noise levels asked for, in the manifest's order.
    pub noisy: Vec<NoisyData>,
}

/// The recovery of `dataset` at the noise levels `noise_indices` (all of the manifest's when
/// empty). Refits every method: it costs what the data set's units of the sweep cost.
pub fn recovery(manifest: &Manifest, dataset: &DataSet, noise_indices: &[usize]) -> Result<Recovery, RunError> {
    let data = true_data(manifest, dataset)?;
    let (rows, cols) = data.shape();
    let cells: Vec<_> = manifest.cells().into_iter().filter(|c| c.dataset == *dataset).collect();
    let levels = cells.len();
    if let Some(bad) = noise_indices.iter().find(|&&i| i >= levels) {
        let last = levels.saturating_sub(1);
        return Err(RunError::Request(format!("noise level {bad}: the manifest has {levels} (0 to {last})")));
    }
    let truth_topics = data.topics().map(|(t, k)| (t.to_vec(), k));
    let estimate = |fit: FitOutput| -> Result<Estimate, RunError> {
        let topics = match (&truth_topics, fit.topics) {
            (Some((truth, k)), Some(estimate)) => {
                let alignment = eval::align_topics(truth, &estimate, *k, cols)?;
                let normalized = eval::normalize_rows(&estimate, cols);
                let aligned = alignment
                    .estimate_for
                    .iter()
                    .flat_map(|&j| normalized[j * cols..(j + 1) * cols].to_vec())
                    .collect();
                Some(aligned)
            }
            _ => None,
        };
        let r = fit.result;
        Ok(Estimate { method: r.method, rates: fit.rates, topics, topic_error: r.topic_error, mean_kl: r.mean_kl })
    };
    let references =
        reference_fits(manifest, &data, dataset, &|| ())?.into_iter().map(estimate).collect::<Result<_, _>>()?;
    let mut noisy = Vec::new();
    for cell in cells.iter().filter(|c| noise_indices.is_empty() || noise_indices.contains(&c.noise_index)) {
        let (released, (alpha, epsilon, _), fits) = cell_fits(manifest, &data, cell, &|| ())?;
        noisy.push(NoisyData {
            noise_index: cell.noise_index,
            alpha,
            epsilon,
            released: released.values().to_vec(),
            estimates: fits.into_iter().map(estimate).collect::<Result<_, _>>()?,
        });
    }
    let topics = truth_topics.map(|(t, k)| (eval::normalize_rows(&t, cols), k));
    Ok(Recovery { rows, cols, counts: data.counts().to_vec(), rates: data.rates().to_vec(), topics, references, noisy })
}

/// Topics recovered by one method, aligned to the true ones.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveredTopics {
    pub method: Method,
    /// The noise level of the fit (`None` for the references).
    pub epsilon: Option<f64>,
    pub alpha: Option<f64>,
    /// `K × V` topic-major, each row normalized to sum 1, row `k` matched to true topic `k`.
    pub topics: Vec<f64>,
    /// Mean absolute error against the normalized true topics (the results' `topic_error`).
    pub error: f64,
}

/// The true topics of a topic-model data set and every method's recovered topics after
/// Hungarian alignment (the figure of true vs recovered factors): the references and the cell
/// at `noise_index` of `dataset` ([`recovery`]).
pub fn recovered_topics(
    manifest: &Manifest,
    dataset: &DataSet,
    noise_index: usize,
) -> Result<(Vec<f64>, Vec<RecoveredTopics>), RunError> {
    if manifest.model.kind != models::ModelKind::Topic {
        return Err(RunError::Request("recovered topics: the manifest's model is not a topic model".into()));
    }
    let r = recovery(manifest, dataset, &[noise_index])?;
    let level = |n: Option<&NoisyData>| (n.map(|n| n.alpha), n.and_then(|n| n.epsilon));
    let mut recovered = Vec::new();
    let groups = std::iter::once((None, &r.references)).chain(r.noisy.iter().map(|n| (Some(n), &n.estimates)));
    for (noisy, estimates) in groups {
        let (alpha, epsilon) = level(noisy);
        for e in estimates {
            let (Some(topics), Some(error)) = (e.topics.clone(), e.topic_error) else { continue };
            recovered.push(RecoveredTopics { method: e.method, epsilon, alpha, topics, error });
        }
    }
    let truth = r.topics.map(|(t, _)| t).unwrap_or_default();
    Ok((truth, recovered))
}
