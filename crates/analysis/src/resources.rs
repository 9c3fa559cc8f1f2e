//! What a fit will cost, from its settings and the table's shape alone (issue 31): computed in
//! floating point before anything is allocated, so an absurd `--iterations` is refused with a
//! message instead of a "capacity overflow" panic or an abort. The factorization sweep's estimate
//! (`pipeline/src/resources.rs`) uses the same per-cell constants.

use crate::settings::FitSettings;
use inference::Algorithm;

// The per-cell constants below were measured (issue 34, BENCHMARKS.md "Memory per cell"): peak
// RSS of private topic fits of a 10⁷-cell release, 2 chains on 1 and 2 threads, gave 13–21
// bytes a cell shared, 75 a running chain (40 with the collapsed step; 24 more with the
// negative binomial) and 16 a finished one. Each constant is that measurement rounded up by a
// tenth or more.

/// Bytes per cell of one data set: its counts (4), rates (8) or released values (4), the missing
/// mask (1), the values as read (8, until the fit starts), and the pooled means and sds (16).
pub const DATA_BYTES_PER_CELL: f64 = 24.0;
/// Bytes per cell a chain keeps once it has finished: its posterior mean and sd of every rate.
const FINISHED_BYTES_PER_CELL: f64 = 16.0;
/// Bytes per cell of one running chain: the sampler's counts, released values, level classes
/// and rates, the private step's auxiliaries, and the chain's rate buffers (rates, sums,
/// squares; in a sweep also the calibration targets and ranks).
const CHAIN_BYTES_PER_CELL: f64 = 84.0;
/// Of those, the augmented private step's noise auxiliaries, which the collapsed step does not hold.
const AUXILIARY_BYTES_PER_CELL: f64 = 32.0;
/// Bytes per factor value of one chain: the factors, their running means, the best sample and
/// the per-chunk allocation counts (up to 16 chunks).
const CHAIN_BYTES_PER_FACTOR: f64 = 8.0 * 20.0;
/// Bytes per kept sample (or CAVI iteration) of one chain's trace (three numbers).
const BYTES_PER_KEPT: f64 = 24.0;
/// Seconds per cell-component sweep on one core (measured: the single-chain Fig. 4 sweep,
/// 6.96·10¹¹ cell-component sweeps in 5,306 core-seconds on the 2-core CI machine, ≈ 7.6 ns;
/// private topic sweeps are ≈ 3 ns, BENCHMARKS.md). A rough guide, not a promise.
pub const SECONDS_PER_CELL_COMPONENT: f64 = 7.6e-9;
/// Seconds per cell per Gibbs sweep on one core that the private step adds (drawing each cell's
/// true count given its released value), whatever the components: 25–55 ns measured (BENCHMARKS.md,
/// "The cost estimate of `lppf fit`").
pub const PRIVATE_SECONDS_PER_CELL: f64 = 5e-8;
/// Seconds per cell per Gibbs sweep on one core that the negative binomial adds (each cell's
/// multiplier drawn from its gamma conditional, and the slice steps of the shape `r`, each a sum
/// over the cells): 110–250 ns measured (BENCHMARKS.md, "The cost estimate of `lppf fit`").
pub const NEGATIVE_BINOMIAL_SECONDS_PER_CELL: f64 = 2e-7;
/// The same for the contaminated likelihood (each point of `r`'s slice sampler takes a logarithm
/// and an exponential per cell, each of `π`'s a product, and each cell draws its indicator):
/// 170–200 ns per sweep measured on both shapes of BENCHMARKS.md, "The contaminated likelihood"
/// (one sweep beside the papers' model), with the margin the negative binomial's constant has for
/// the kept samples' work.
pub const CONTAMINATED_SECONDS_PER_CELL: f64 = 3e-7;
/// Seconds per cell on one core of one bootstrap table of the test of structure on the release
/// (drawn, refitted and searched): 3.2·10⁻⁷ on a 250 × 300 table at K = 5, 3.3·10⁻⁷ on a
/// 1,000 × 3,000 one at K = 10, 5.7·10⁻⁷ on a 117-actor network at K = 8 (BENCHMARKS.md, "The test
/// of structure on the release").
pub const STRUCTURE_TEST_SECONDS_PER_CELL: f64 = 4e-7;
/// Seconds per cell-component per sweep on one core that the block model's Hamiltonian move adds
/// (`--hamiltonian-move`: 32 leapfrog steps on average, each a gradient of `O(V² C)`): 4.1·10⁻⁸
/// measured at V = 117, C = 10 (5.6 ms a sweep on top of the default's 2.2 ms; BENCHMARKS.md,
/// "The Hamiltonian move").
pub const HAMILTONIAN_SECONDS_PER_CELL_COMPONENT: f64 = 4.1e-8;

/// Seconds per cell per Gibbs sweep on one core that `likelihood`'s own updates add.
pub fn likelihood_seconds_per_cell(likelihood: models::Likelihood) -> f64 {
    match likelihood {
        models::Likelihood::Poisson => 0.0,
        models::Likelihood::NegativeBinomial(_) => NEGATIVE_BINOMIAL_SECONDS_PER_CELL,
        models::Likelihood::Contaminated(_) => CONTAMINATED_SECONDS_PER_CELL,
    }
}

/// Seconds per cell per Gibbs sweep on one core that the block model's Hamiltonian move adds with
/// `components` components (nothing when it is off).
pub fn move_seconds_per_cell(hamiltonian_move: bool, components: f64) -> f64 {
    match hamiltonian_move {
        true => HAMILTONIAN_SECONDS_PER_CELL_COMPONENT * components,
        false => 0.0,
    }
}

/// The estimated cost of a fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitCost {
    /// Peak memory, bytes, with [`FitCost::chains_at_once`] chains running at a time.
    pub bytes: f64,
    /// Peak memory with one chain at a time: the least the fit can run in.
    pub least_bytes: f64,
    /// How many chains are started together: all of them when their memory fits in what is
    /// available, else as many as fit, at most one per thread ([`ChainMemory::at_once`]).
    pub chains_at_once: usize,
    /// Gibbs sweeps (or CAVI iterations) × chains × cells × components.
    pub cell_component_sweeps: f64,
    /// Work of the chains on one core, seconds (rough: within 0.9–1.7× of six measured fits,
    /// BENCHMARKS.md).
    pub core_seconds: f64,
    /// Work on one core of the test of structure on the release when it draws all its tables
    /// (`K ≥ 2`; a table without structure stops it earlier), seconds.
    pub test_core_seconds: f64,
}

impl FitCost {
    /// The same cost with the test of the release drawing at most `tables` tables instead of
    /// [`crate::structure_test::STRUCTURE_TEST_REPLICATES`] (0: no test).
    pub fn with_structure_tables(mut self, tables: usize) -> Self {
        self.test_core_seconds *= tables as f64 / crate::structure_test::STRUCTURE_TEST_REPLICATES as f64;
        self
    }

    /// `≈ 1.2 GB of memory; about 3.5 h of one core for the chains and up to 3 min for the test
    /// of structure (rough)`.
    pub fn describe(&self) -> String {
        let test = match self.test_core_seconds > 0.0 {
            true => format!(" and up to {} for the test of structure", runner::duration_text(self.test_core_seconds)),
            false => String::new(),
        };
        format!(
            "≈ {} of memory; about {} of one core for the chains{test} (rough)",
            runner::bytes_text(self.bytes),
            runner::duration_text(self.core_seconds)
        )
    }
}

/// The machine a fit runs on, as far as its cost goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Threads the fit may use (rayon's pool).
    pub threads: usize,
    /// Memory available, bytes (`None`: unknown, no limit).
    pub available: Option<f64>,
}

impl Machine {
    /// This machine: rayon's threads and `MemAvailable` ([`runner::available_memory`]).
    pub fn this() -> Self {
        Self { threads: rayon::current_num_threads(), available: runner::available_memory() }
    }
}

/// What a fit's chains hold in memory: the data and pooled results all chains share, each running
/// chain's state, and what a finished chain keeps until the chains are pooled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainMemory {
    pub shared: f64,
    pub running: f64,
    pub finished: f64,
}

impl ChainMemory {
    /// Peak bytes of `chains` chains run `at_once` at a time: `shared + at_once · running +
    /// (chains − at_once) · finished`.
    pub fn bytes(&self, chains: usize, at_once: usize) -> f64 {
        let at_once = at_once.clamp(1, chains.max(1));
        self.shared + at_once as f64 * self.running + chains.saturating_sub(at_once) as f64 * self.finished
    }

    /// How many of `chains` chains to start together on `machine`: all of them when all their
    /// memory fits in what is available (rayon then runs as many as it has threads, and a thread
    /// waiting inside one chain may start another, so all may be alive at once); else as many as
    /// fit, at most one per thread, and at least one. Which chains run together changes nothing
    /// in the results: each chain has its own stream.
    pub fn at_once(&self, chains: usize, machine: Machine) -> usize {
        let chains = chains.max(1);
        match machine.available {
            Some(available) if self.bytes(chains, chains) > available => {
                let most = chains.min(machine.threads).max(1);
                (1..=most).rev().find(|&k| self.bytes(chains, k) <= available).unwrap_or(1)
            }
            _ => chains,
        }
    }
}

/// Peak bytes of one running chain of `model` on a `rows × cols` table with `k` components that
/// keeps `kept` samples, each with the rates of `heldout` held-out cells: the per-cell buffers,
/// the factors, the block model's `V × C × C` running sums of its allocation's second stage, and
/// the trace; with an overdispersed likelihood also its per-cell multipliers `δ` (the state,
/// their running mean, the best sample's copy and the sweep's scratch rates) and the running sum
/// of each cell's rate in this table `μδ`: 5 doubles a cell.
/// Used by [`fit_cost`] and by the factorization sweep's estimate alike.
pub fn chain_bytes(
    (model, likelihood): (models::ModelKind, models::Likelihood),
    (rows, cols, k): (f64, f64, f64),
    kept: f64,
    heldout: f64,
) -> f64 {
    let derived = if model.square() { rows * k * k } else { 0.0 };
    let per_cell = CHAIN_BYTES_PER_CELL + if likelihood == models::Likelihood::Poisson { 0.0 } else { 40.0 };
    per_cell * (rows * cols)
        + CHAIN_BYTES_PER_FACTOR * ((rows + cols + k) * k)
        + 8.0 * derived
        + kept * (BYTES_PER_KEPT + 8.0 * heldout)
}

/// The cost of fitting a `rows × cols` table with `heldout` held-out cells by `settings` on
/// `machine`.
pub fn fit_cost(settings: &FitSettings, shape: (usize, usize), heldout: usize, machine: Machine) -> FitCost {
    let memory = chain_memory(settings, shape, heldout);
    let chains = settings.chains * settings.replicas.max(1);
    let (rows, cols) = (shape.0 as f64, shape.1 as f64);
    let iterations = match settings.algorithm {
        Algorithm::Gibbs(s) => s.iterations() as f64,
        Algorithm::Cavi(c) => c.max_iterations() as f64,
    };
    // A CAVI start's iterations cost about what sweeps of the components do.
    let start = match settings.algorithm {
        Algorithm::Gibbs(s) if settings.model.has_cavi() => s.start().cavi_iterations() as f64,
        _ => 0.0,
    };
    let cell_component_sweeps = chains as f64 * (iterations + start) * rows * cols * settings.components as f64;
    // Gibbs: per cell and sweep, the private step and the likelihood's own updates on top of the
    // components' work.
    let per_cell = match settings.algorithm {
        Algorithm::Gibbs(_) => {
            let private = if settings.method == inference::Method::Private { PRIVATE_SECONDS_PER_CELL } else { 0.0 };
            let hamiltonian = move_seconds_per_cell(settings.hamiltonian_move, settings.components as f64);
            private + likelihood_seconds_per_cell(settings.likelihood) + hamiltonian
        }
        Algorithm::Cavi(_) => 0.0,
    };
    let chains_at_once = memory.at_once(settings.chains, machine);
    FitCost {
        bytes: memory.bytes(settings.chains, chains_at_once),
        least_bytes: memory.bytes(settings.chains, 1),
        chains_at_once,
        cell_component_sweeps,
        core_seconds: cell_component_sweeps * SECONDS_PER_CELL_COMPONENT
            + chains as f64 * iterations * rows * cols * per_cell,
        test_core_seconds: match settings.components >= 2 {
            true => {
                crate::structure_test::STRUCTURE_TEST_REPLICATES as f64 * rows * cols * STRUCTURE_TEST_SECONDS_PER_CELL
            }
            false => 0.0,
        },
    }
}

/// What the chains of a fit of a `rows × cols` table with `heldout` held-out cells by `settings`
/// hold ([`ChainMemory`]).
pub fn chain_memory(settings: &FitSettings, (rows, cols): (usize, usize), heldout: usize) -> ChainMemory {
    let (rows, cols, k) = (rows as f64, cols as f64, settings.components as f64);
    let cells = rows * cols;
    let kept = match settings.algorithm {
        Algorithm::Gibbs(s) => s.kept() as f64,
        Algorithm::Cavi(c) => c.max_iterations() as f64,
    };
    let mut per_chain = chain_bytes((settings.model, settings.likelihood), (rows, cols, k), kept, heldout as f64);
    // The collapsed private step holds no noise auxiliaries (λ₁, λ₂, g₁, g₂: 32 bytes a cell).
    if let Algorithm::Gibbs(s) = settings.algorithm
        && settings.method == inference::Method::Private
        && s.private_step() == inference::PrivateStep::Collapsed
    {
        per_chain -= AUXILIARY_BYTES_PER_CELL * cells;
    }
    // What a chain keeps when it has finished: its means and sds of the rates (and, overdispersed,
    // of the cells' rates in this table), its factors and trace, and its samples of the held-out
    // rates.
    let overdispersed = if settings.likelihood == models::Likelihood::Poisson { 0.0 } else { 8.0 };
    let mut finished = (FINISHED_BYTES_PER_CELL + overdispersed) * cells
        + CHAIN_BYTES_PER_FACTOR * ((rows + cols + k) * k)
        + kept * (BYTES_PER_KEPT + 8.0 * heldout as f64);
    // A Gibbs chain keeps every kept sample's log-likelihood of the scored cells (the monitored
    // marginal log-likelihood, PSIS-LOO and stacking by it).
    if matches!(settings.algorithm, Algorithm::Gibbs(_)) {
        let pointwise = 8.0 * kept * cells.min(inference::loo::MAX_LOO_CELLS as f64);
        per_chain += pointwise;
        finished += pointwise;
    }
    // Each replica of replica exchange is a chain's worth of state.
    let replicas = settings.replicas.max(1) as f64;
    ChainMemory { shared: DATA_BYTES_PER_CELL * cells, running: replicas * per_chain, finished }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inference::{Method, Schedule};
    use models::{GammaPrior, ModelKind};

    #[test]
    fn absurd_schedules_cost_a_finite_huge_amount_without_allocating() {
        let schedule = Schedule::new(usize::MAX, 0, 1).unwrap();
        let settings = FitSettings {
            model: ModelKind::Topic,
            components: 5,
            prior: GammaPrior::new(1.0, 1.0).unwrap(),
            scale: None,
            likelihood: models::Likelihood::Poisson,
            method: Method::Private,
            chains: 4,
            algorithm: Algorithm::Gibbs(schedule),
            seed: 1,
            weighting: crate::Weighting::Equal,
            replicas: 1,
            hamiltonian_move: false,
        };
        let four = Machine { threads: 4, available: None };
        let cost = fit_cost(&settings, (10, 10), 0, four);
        assert!(cost.bytes > 1e20 && cost.bytes.is_finite(), "{}", cost.bytes);
        // The augmented step's chains (with the noise auxiliaries; the collapsed step's are 32 bytes
        // a cell less, tested below).
        let augmented = Schedule::new(100, 50, 5).unwrap().with_private_step(inference::PrivateStep::Augmented);
        let small = FitSettings { algorithm: Algorithm::Gibbs(augmented), ..settings };
        let cost = fit_cost(&small, (10, 10), 0, four);
        // All 4 chains at once: 24·100 + 4·(84·100 + 160·(25·5) + 10·24 + 8·10·100) = 2400 +
        // 4·(8400 + 20000 + 240 + 8000) = 148,960 bytes (the last term: each kept sample's
        // marginal log-likelihood of the scored cells, all 100 here).
        assert_eq!((cost.bytes, cost.chains_at_once), (148_960.0, 4));
        // One at a time: one running chain and three finished ones (16·100 + 20000 + 240 + 8000
        // each).
        assert_eq!(cost.least_bytes, 2400.0 + 36_640.0 + 3.0 * 29_840.0);
        // Two threads and 140 kB: two at a time (135,360 bytes; three take 142,160); 130 kB: one,
        // the least there is (128,560).
        let two = Machine { threads: 2, available: Some(140_000.0) };
        let cost = fit_cost(&small, (10, 10), 0, two);
        assert_eq!((cost.bytes, cost.chains_at_once), (2400.0 + 2.0 * 36_640.0 + 2.0 * 29_840.0, 2));
        let tight = Machine { threads: 4, available: Some(130_000.0) };
        assert_eq!(fit_cost(&small, (10, 10), 0, tight).chains_at_once, 1);
        let ample = Machine { threads: 2, available: Some(1e9) };
        assert_eq!(fit_cost(&small, (10, 10), 0, ample).chains_at_once, 4);
        // The collapsed step: 4 chains × 100 cells × 32 bytes fewer.
        let schedule = Schedule::new(100, 50, 5).unwrap().with_private_step(inference::PrivateStep::Collapsed);
        let collapsed = FitSettings { algorithm: Algorithm::Gibbs(schedule), ..small };
        assert_eq!(fit_cost(&collapsed, (10, 10), 0, four).bytes, 148_960.0 - 4.0 * 100.0 * 32.0);
        // The work: 4 chains × 100 sweeps × 100 cells × (5 components × 7.6 ns + 50 ns for the
        // private step), and 200 ns more under the negative binomial; a non-private fit has no
        // private step.
        let seconds = |settings: &FitSettings| fit_cost(settings, (10, 10), 0, four).core_seconds;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12 * b;
        assert!(close(seconds(&collapsed), 40_000.0 * (5.0 * 7.6e-9 + 5e-8)), "{}", seconds(&collapsed));
        let nb = models::Likelihood::NegativeBinomial(models::Dispersion::default_learned());
        let default = FitSettings { likelihood: nb, ..collapsed };
        assert!(close(seconds(&default), 40_000.0 * (5.0 * 7.6e-9 + 5e-8 + 2e-7)), "{}", seconds(&default));
        let counts = FitSettings { method: Method::NonPrivate, ..default };
        assert!(close(seconds(&counts), 40_000.0 * (5.0 * 7.6e-9 + 2e-7)), "{}", seconds(&counts));
        // A running chain of an overdispersed likelihood holds 5 doubles a cell more: δ, its
        // running mean, the best sample's, the scratch rates and the sum of each cell's μδ.
        let shape = (10.0, 10.0, 5.0);
        let extra = chain_bytes((models::ModelKind::Topic, nb), shape, 0.0, 0.0)
            - chain_bytes((models::ModelKind::Topic, models::Likelihood::Poisson), shape, 0.0, 0.0);
        assert_eq!(extra, 40.0 * 100.0);
        // The contaminated likelihood: 300 ns per cell and sweep.
        let contaminated = models::Likelihood::Contaminated(models::Dispersion::default_learned());
        let contaminated = FitSettings { likelihood: contaminated, ..collapsed };
        assert!(close(seconds(&contaminated), 40_000.0 * (5.0 * 7.6e-9 + 5e-8 + 3e-7)), "{}", seconds(&contaminated));
        // The Hamiltonian move: 41 ns per cell and component on top.
        let moved = FitSettings { hamiltonian_move: true, ..contaminated };
        let expected = 40_000.0 * (5.0 * 7.6e-9 + 5e-8 + 3e-7 + 5.0 * 4.1e-8);
        assert!(close(seconds(&moved), expected), "{}", seconds(&moved));
        // The test of structure: 199 tables × 100 cells × 400 ns, whatever the chains; none at
        // K = 1, which has no test.
        let cost = fit_cost(&collapsed, (10, 10), 0, four);
        assert!(close(cost.test_core_seconds, 199.0 * 100.0 * 4e-7), "{}", cost.test_core_seconds);
        assert!(close(cost.with_structure_tables(99).test_core_seconds, 99.0 * 100.0 * 4e-7));
        assert_eq!(cost.with_structure_tables(0).test_core_seconds, 0.0);
        assert!(
            cost.describe().ends_with("of one core for the chains and up to 0 s for the test of structure (rough)")
        );
        let one = FitSettings { components: 1, ..collapsed };
        let cost = fit_cost(&one, (10, 10), 0, four);
        assert_eq!(cost.test_core_seconds, 0.0);
        assert!(cost.describe().ends_with("of one core for the chains (rough)"), "{}", cost.describe());
    }
}
