//! What a factorization sweep will cost, from its design alone (nothing proportional to a number
//! the user typed is allocated to compute it): the peak memory, and the work in entry-component
//! sweeps with a rough time. `lppf validate` prints it; `lppf run` refuses a sweep whose memory
//! exceeds what the machine has available unless `--allow-memory`.

use crate::manifest::Manifest;
// The costs of data and chains per cell are a fit's (`analysis::resources`, where they and the
// measured time per cell-component sweep are documented): a unit's fits are `lppf fit`'s.
use analysis::resources::{
    DATA_BYTES_PER_CELL, PRIVATE_SECONDS_PER_CELL, SECONDS_PER_CELL_COMPONENT, chain_bytes,
    likelihood_seconds_per_cell, move_seconds_per_cell,
};
pub use runner::{available_memory, bytes_text, duration_text};

/// Bytes of bookkeeping per unit of work (its name, path and result slot in the runner).
const UNIT_BYTES: f64 = 200.0;

/// The estimated cost of a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Peak resident memory of the fits running at once, bytes.
    pub bytes: f64,
    /// Units running at once (the threads the estimate assumed).
    pub threads: usize,
    /// Units of work.
    pub units: f64,
    /// Gibbs sweeps × chains × entries × components over the whole sweep (CAVI iterations count
    /// like sweeps).
    pub entry_component_sweeps: f64,
    /// `entry_component_sweeps` × the measured time per entry-component sweep, core-seconds.
    pub core_seconds: f64,
    /// What `entry_component_sweeps` counts, for messages ("entry-component sweeps"; DPVI:
    /// "example-feature gradient terms").
    pub work: &'static str,
    /// What the estimate cannot see, said after it (e.g. data drawn from the prior, whose counts
    /// are not known before they are drawn); `None`: nothing to add.
    pub caveat: Option<&'static str>,
}

/// The caveat of a sweep whose data come from the prior with nothing bounding their counts: the
/// allocation's work grows with the counts, and one draw of a model with heavy-tailed factors can
/// hold many times the typical counts (a calibration run at Fig. 4's size had single units take
/// 1,900 s of chains against an estimate of about 90 s per unit).
pub const PRIOR_COUNTS_CAVEAT: &str =
    "data drawn from the prior with no bound on their counts: draws with many counts cost several times this";

impl Cost {
    /// `≈ 1.2 GB peak memory with 2 threads; 3.4e11 entry-component sweeps ≈ 0.7 core-hours`.
    pub fn describe(&self) -> String {
        let threads = self.threads;
        format!(
            "≈ {} peak memory with {threads} threads; {:.2e} {} ≈ {} of one core (rough{})",
            bytes_text(self.bytes),
            self.entry_component_sweeps,
            self.work,
            duration_text(self.core_seconds),
            self.caveat.map_or(String::new(), |c| format!("; {c}"))
        )
    }
}

impl Manifest {
    /// The cost of the sweep with `threads` units running at once, in floating point (so an
    /// absurd design gives a huge number, not an overflow or an allocation).
    pub fn cost(&self, threads: usize) -> Cost {
        let (rows, cols) = (self.rows() as f64, self.cols() as f64);
        let entries = rows * cols;
        let k = self.model.components as f64;
        let kept =
            self.sampler.as_ref().map_or(0.0, |s| (s.iterations.saturating_sub(s.burn_in) / s.thin.max(1)) as f64);
        // Every run `until_mixed` allows: a chain continued to the longest makes its sweeps once;
        // replica exchange runs each afresh (at most twice the longest in all).
        let gibbs_iterations = self.gibbs_runs().map_or(0.0, |runs| match self.tempered() {
            true => runs.iter().map(|s| s.iterations() as f64).sum::<f64>(),
            false => runs.last().map_or(0.0, |s| s.iterations() as f64),
        });
        // A CAVI start's iterations cost about what sweeps of the components do.
        let start_iterations = match self.schedule() {
            Ok(s) if self.model.kind.has_cavi() => s.start().cavi_iterations() as f64,
            _ => 0.0,
        };
        let cavi_iterations = self.cavi_settings().max_iterations() as f64;
        // A chain of replica exchange holds and sweeps each of its replicas.
        let chains = self.methods.iter().map(|&m| self.chains(m) * self.replicas(m)).max().unwrap_or(1) as f64;
        let likelihood = self.model.likelihood().model().unwrap_or(models::Likelihood::Poisson);
        let per_chain = chain_bytes((self.model.kind, likelihood), (rows, cols, k), kept, 0.0);
        let per_unit = DATA_BYTES_PER_CELL * entries + chains * per_chain;
        let datasets = self.sweep.replications as f64 * self.sweep.e0.as_ref().map_or(1, Vec::len) as f64;
        let levels = self.noise.alpha.as_ref().or(self.noise.epsilon.as_ref()).map_or(1, Vec::len) as f64;
        let reference = self.methods.iter().any(|m| m.is_reference());
        let released = self.methods.iter().any(|m| !m.is_reference());
        let units = datasets * (f64::from(u8::from(reference)) + if released { levels } else { 0.0 });
        // Fits per data set and level, each × its chains × its iterations.
        let fit_sweeps = |filter: &dyn Fn(&crate::Method) -> bool| -> f64 {
            self.methods
                .iter()
                .filter(|m| filter(m))
                .map(|&m| {
                    (self.chains(m) * self.replicas(m)) as f64
                        * if m.is_cavi() { cavi_iterations } else { gibbs_iterations + start_iterations }
                })
                .sum()
        };
        let sweeps =
            datasets * fit_sweeps(&|m| m.is_reference()) + datasets * levels * fit_sweeps(&|m| !m.is_reference());
        let entry_component_sweeps = sweeps * entries * k;
        // Per entry and Gibbs sweep, whatever the components: the private step of the private
        // method, and the likelihood's own updates (as `lppf fit` counts them).
        let private_sweeps = datasets * levels * fit_sweeps(&|m| *m == crate::Method::Private);
        let gibbs_sweeps = datasets * fit_sweeps(&|m| m.is_reference() && !m.is_cavi())
            + datasets * levels * fit_sweeps(&|m| !m.is_reference() && !m.is_cavi());
        // The block model's Hamiltonian move adds its gradients' work to every Gibbs sweep.
        let hamiltonian = move_seconds_per_cell(self.hamiltonian_move(), k);
        let nb = likelihood_seconds_per_cell(likelihood) + hamiltonian;
        let per_entry_seconds = entries * (private_sweeps * PRIVATE_SECONDS_PER_CELL + gibbs_sweeps * nb);
        Cost {
            bytes: per_unit * (threads as f64).min(units.max(1.0)) + UNIT_BYTES * units,
            threads,
            units,
            entry_component_sweeps,
            core_seconds: entry_component_sweeps * SECONDS_PER_CELL_COMPONENT + per_entry_seconds,
            work: "entry-component sweeps",
            caveat: self.data.is_unconditioned_prior().then_some(PRIOR_COUNTS_CAVEAT),
        }
    }
}

/// DPVI: the number of examples (train + test) of each data set and the number of variational
/// parameters one example's gradient touches: Abalone 4,177 × (10 features + intercept);
/// Adult's 32,561 rows with the one-hot encoding of its eight categorical columns, at most 110;
/// the mixture's points, each touching the weights, means and log-sds of its K components (5K).
fn dpvi_data_shape(m: &crate::DpviManifest) -> (f64, f64) {
    match m.dpvi.dataset {
        crate::DpviDataset::Abalone => (4177.0, 11.0),
        crate::DpviDataset::Adult => (32_561.0, 110.0),
        crate::DpviDataset::Gmm => {
            let (k, train, test, _) = m.dpvi.gmm();
            ((train + test) as f64, 5.0 * k as f64)
        }
    }
}

/// Seconds per example-parameter term of a DPVI gradient step on one core, a rough guide: the
/// shipped designs measured 1.3e-8 (Abalone), 1.7e-8 (Adult) and 2.5e-8 (mixture), as the sum of
/// the runs' `seconds` over the design's terms (release build, 2-core VM, 2026-11-25).
const DPVI_SECONDS_PER_EXAMPLE_FEATURE: f64 = 2e-8;
/// Copies of each replication's data held while the data sets are loaded and split (measured:
/// `dpvi-adult`, 10 replications of 32,561 × 111 values, peaked at 493 MB; one copy is 289 MB).
const DPVI_DATA_COPIES: f64 = 1.7;

impl crate::DpviManifest {
    /// The cost of the DPVI runs with `threads` at once: every replication's split held at once
    /// (`x` and `y`, 8 bytes a value, 1.7 copies while loading, measured), each running
    /// fit's copy of its training data and the predictive draws of the mixture; work = Σ over
    /// runs of iterations × expected batch (q × training examples) × parameters per example.
    pub fn cost(&self, threads: usize) -> Cost {
        let d = &self.dpvi;
        let (points, features) = dpvi_data_shape(self);
        let train = points * d.train_fraction();
        let data = DPVI_DATA_COPIES * d.replications as f64 * points * (features + 1.0) * 8.0;
        let (k, _, _, draws) = d.gmm();
        let draws_bytes = if d.dataset == crate::DpviDataset::Gmm { draws as f64 * 5.0 * k as f64 * 8.0 } else { 0.0 };
        let per_run = train * features * 8.0 + draws_bytes;
        let cells = self.cells();
        let units = cells.len() as f64;
        let example_features: f64 = cells
            .iter()
            .map(|c| {
                let iterations = match c.method {
                    crate::DpviMethod::NonPrivate => d.non_private_iterations.unwrap_or(d.iterations),
                    _ => d.iterations,
                };
                iterations as f64 * c.sampling_rate * train * features
            })
            .sum();
        Cost {
            bytes: data + per_run * (threads as f64).min(units.max(1.0)) + UNIT_BYTES * units,
            threads,
            units,
            entry_component_sweeps: example_features,
            core_seconds: example_features * DPVI_SECONDS_PER_EXAMPLE_FEATURE,
            work: "example-parameter gradient terms",
            caveat: None,
        }
    }
}
