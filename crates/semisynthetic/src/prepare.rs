//! `prepare-enron`: from the Enron corpus (the cleaned table or a maildir tree) to the base
//! parameters of the Fig. 4 design (§5.1 of Schein et al. 2019).
//!
//! 1. Read the messages and count the directed network, one per recipient; keep the actors the
//!    paper's rule keeps (sent ≥ 1 and sent + received ≥ 100, as row and column sums of `y`).
//! 2. Choose the number of communities `C` by held-out likelihood: hide a random 10 % of the
//!    off-diagonal entries, fit the non-private block model to the rest for each candidate `C`
//!    (the hidden entries are imputed by the sampler), score `Σ_held-out ln Pois(y_ij; μ̂_ij)` with
//!    the posterior-mean rates, keep the best `C`.
//! 3. Fit the non-private block model with that `C` to all entries and keep the posterior means
//!    `θ*`, `π*`.
//!
//! Everything is seeded (one stream per candidate), so the same input and seed give the same
//! file, byte for byte, whatever the thread count.

use crate::base::BaseParameters;
use crate::error::PrepareError;
use distributions::{Poisson, Streams};
use enron::{CountNetwork, InclusionRule, ReadReport};
use inference::{NonPrivate, Schedule, run_chain};
use models::ModelKind;
use models::{BlockModel, GammaPrior};
use rand::RngExt;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::ops::ControlFlow;
use std::path::Path;

/// Settings of the base fit.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepareOptions {
    pub seed: u64,
    /// Candidate numbers of communities.
    pub components: Vec<usize>,
    /// Gamma prior shape and **rate** of θ and π.
    pub a0: f64,
    pub b0: f64,
    /// Fraction of off-diagonal entries held out for choosing `C`.
    pub holdout: f64,
    /// Schedules of the selection fits and of the final fit: (iterations, burn-in, thin).
    pub selection: (usize, usize, usize),
    pub fit: (usize, usize, usize),
}

impl Default for PrepareOptions {
    /// The settings of the committed `data/enron/base.toml` (see `docs/fig4.md`).
    fn default() -> Self {
        Self {
            seed: 2019,
            components: vec![2, 4, 6, 8, 10, 12],
            a0: 0.1,
            b0: 0.1,
            holdout: 0.1,
            selection: (2_000, 1_000, 10),
            fit: (4_000, 2_000, 10),
        }
    }
}

/// The prepared base parameters and what was read.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub base: BaseParameters,
    pub report: ReadReport,
    /// `(C, held-out log-likelihood)` per candidate.
    pub scores: Vec<(usize, f64)>,
}

/// The SHA-256 of `bytes` in hex (what a base file records as `input_sha256`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The `input_sha256` a base file records (`None` if it has none or cannot be read).
pub fn recorded_input_checksum(base_file: &Path) -> Option<String> {
    let table: toml::Table = std::fs::read_to_string(base_file).ok()?.parse().ok()?;
    table.get("provenance")?.get("input_sha256")?.as_str().map(str::to_string)
}

/// Reads `input` (a directory: maildir; a file: the cleaned table) and fits the base parameters.
pub fn prepare_enron(input: &Path, options: &PrepareOptions) -> Result<Prepared, PrepareError> {
    let (messages, report, reader, checksum) = if input.is_dir() {
        let (m, r) = enron::read_maildir(input)
            .map_err(|e| PrepareError::Io { path: input.to_path_buf(), message: e.to_string() })?;
        (m, r, "maildir", None)
    } else {
        let bytes =
            std::fs::read(input).map_err(|e| PrepareError::Io { path: input.to_path_buf(), message: e.to_string() })?;
        let (m, r) = enron::parse_table_bytes(&bytes);
        (m, r, "table", Some(sha256_hex(&bytes)))
    };
    let network = CountNetwork::from_messages(&messages).included(InclusionRule::PAPER);
    let v = network.actors();
    if v < 2 {
        return Err(PrepareError::Data(format!(
            "{}: only {v} actors pass the inclusion rule (sent >= 1, sent + received >= 100); read: {report}",
            input.display()
        )));
    }
    let prior = GammaPrior::new(options.a0, options.b0)?;
    let schedule = |(i, b, t): (usize, usize, usize)| Schedule::new(i, b, t).map_err(PrepareError::from);
    let (selection, fit) = (schedule(options.selection)?, schedule(options.fit)?);
    let root = Streams::new(options.seed);

    // Held-out mask over the off-diagonal entries.
    let mut rng = root.child(0).rng();
    let held_out: Vec<bool> = (0..v * v).map(|n| n / v != n % v && rng.random::<f64>() < options.holdout).collect();
    let scores: Vec<(usize, f64)> = options
        .components
        .par_iter()
        .map(|&c| {
            let streams = root.child(1).child(c as u64);
            let model = BlockModel::new(v, c, prior, streams.child(0));
            let mut sampler = NonPrivate::new(model, network.counts.clone()).and_then(|s| s.with_missing(&held_out))?;
            let summary = run_chain(&mut sampler, &selection, streams.child(1), |_| ControlFlow::Continue(()))?;
            let mut score = 0.0;
            for n in (0..v * v).filter(|&n| held_out[n]) {
                score += Poisson::new(summary.mean_rates[n])?.ln_pmf(u64::from(network.counts[n]));
            }
            Ok((c, score))
        })
        .collect::<Result<_, PrepareError>>()?;
    let (best, _) = scores
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| PrepareError::Options("no candidate number of communities".into()))?;

    let streams = root.child(2);
    let model = BlockModel::new(v, best, prior, streams.child(0));
    let mut sampler = NonPrivate::new(model, network.counts.clone())?;
    let summary = run_chain(&mut sampler, &fit, streams.child(1), |_| ControlFlow::Continue(()))?;
    let factor = |name: &str| {
        summary
            .mean_factors
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| PrepareError::Data(format!("no factor {name}")))
    };
    let rows = |f: &inference::MeanFactor| -> Vec<Vec<f64>> {
        f.mean.chunks_exact(f.cols).map(|r| r.iter().map(|x| x.max(f64::MIN_POSITIVE)).collect()).collect()
    };
    let factors = ModelKind::Block.factors().iter().map(|l| factor(l.name).map(rows)).collect::<Result<_, _>>()?;

    let mut provenance = toml::Table::new();
    let mut put = |k: &str, v: toml::Value| {
        provenance.insert(k.to_string(), v);
    };
    let name = input.file_name().map_or_else(|| input.display().to_string(), |n| n.to_string_lossy().into_owned());
    put("input", name.into());
    put("reader", reader.into());
    if let Some(sum) = checksum {
        put("input_sha256", sum.into());
    }
    put("messages", (report.messages as i64).into());
    put("malformed", (report.malformed.len() as i64).into());
    put("inclusion_rule", "sent >= 1 and sent + received >= 100 (row and column sums of y)".into());
    put("actors", (v as i64).into());
    put("total_count", (network.total() as i64).into());
    put("seed", (options.seed as i64).into());
    put("a0", options.a0.into());
    put("b0", options.b0.into());
    put("holdout", options.holdout.into());
    let triple = |(i, b, t): (usize, usize, usize)| toml::Value::from(vec![i as i64, b as i64, t as i64]);
    put("selection_schedule", triple(options.selection));
    put("fit_schedule", triple(options.fit));
    put("candidates", toml::Value::from(scores.iter().map(|s| s.0 as i64).collect::<Vec<_>>()));
    put("heldout_loglik", toml::Value::from(scores.iter().map(|s| s.1).collect::<Vec<_>>()));
    put("chosen_components", (best as i64).into());
    put("software", format!("lppf {}", env!("CARGO_PKG_VERSION")).into());

    let base = BaseParameters {
        model: ModelKind::Block,
        row_labels: network.labels,
        col_labels: Vec::new(),
        factors,
        provenance,
    };
    base.check().map_err(PrepareError::Data)?;
    Ok(Prepared { base, report, scores })
}

/// The text of the Fig. 4 base file: a header comment, then the TOML of `base`.
pub fn base_file_text(base: &BaseParameters) -> Result<String, PrepareError> {
    base_file_text_with(
        base,
        "# Base parameters of the Fig. 4 design: posterior means of the non-private block model fitted\n\
         # to the Enron network. Generated by `lppf prepare-enron` (see [provenance] and docs/fig4.md);\n\
         # do not edit — rerun the preparation instead.\n",
    )
}

/// `header` (comment lines, each ending in a newline), then the TOML of `base`.
pub fn base_file_text_with(base: &BaseParameters, header: &str) -> Result<String, PrepareError> {
    let body = toml::to_string(base).map_err(|e| PrepareError::Data(e.to_string()))?;
    Ok(format!("{header}{body}"))
}
