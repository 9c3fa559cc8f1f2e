//! The experiment kinds of lppf, run by the `runner` crate: a TOML manifest → validated
//! experiment ([`load_experiment`], which finds the kind in [`KINDS`]) → units of work (the
//! runner: parallel, resumable, sharded) → tidy Parquet results, summary and figure (through the
//! `results` crate).
//!
//! - `registry`: the table of kinds ([`KINDS`]); `kinds`: the [`Loaded`] interface `lppf`
//!   drives them through, and [`ExperimentError`];
//! - the factorization kind (Schein et al.'s sweeps): `manifest` (schema, strict validation,
//!   data sets and cells), `run` (one unit:
//!   a data set's non-private reference or a cell's naïve and private fits, streams derived from
//!   (seed, replication, e₀ index, purpose, level, method)), `sweep` (its units for the runner)
//!   and `outputs` (its files); `recovery`: one data set's truth, privatized data and every
//!   method's estimate, for the paper's recovery figures (Fig. 1, Fig. 3);
//! - the DPVI kind (`[experiment] kind = "dpvi"`): `dpvi_manifest`, `dpvi_run`;
//! - the DP-SEP kind (`kind = "dp-sep"`): `dpsep` — Table 1 and Fig. 1 of Vinaroz & Park;
//! - `draws`: [`DRAWS_VERSION`], which every kind's unit identity starts with, so that a run
//!   resumed by a binary that draws other numbers recomputes its units instead of mixing them;

mod dpsep;
mod dpvi_manifest;
mod dpvi_run;
mod draws;
mod error;
mod heldout;
mod kinds;
mod manifest;
mod outputs;
mod recovery;
mod registry;
mod resources;
mod run;
mod sweep;

pub use dpsep::{
    DpSepManifest, DpSepMethod, DpSepRow, DpSepSpec, TableLine, dpsep_table, dpsep_table_text, run_dpsep,
    run_replication, write_dpsep_outputs,
};
pub use dpvi_manifest::{DpviCell, DpviDataset, DpviManifest, DpviMethod, DpviSpec};
pub use dpvi_run::{
    DpviRow, DpviSummary, MIXTURE_MEANS, dpvi_summary_table, run_dpvi, summarize_dpvi, write_dpvi_outputs,
};
pub use draws::DRAWS_VERSION;
pub use heldout::{HeldOutLine, HeldOutManifest, HeldOutRow, heldout_summary};
pub use kinds::{ExperimentError, Loaded};
pub use manifest::{
    Cell, DEFAULT_F0, DataSet, DataSource, EXPERIMENT_KINDS, Manifest, ManifestError, Method, ModelKind, NoiseLevel,
    Precision, PriorName, RescaleAxis, load, parse,
};
pub use outputs::{
    FIGURE_PNG, FIGURE_SVG, MANIFEST_FILE, PROVENANCE_FILE, RESULTS_FILE, SUMMARY_FILE, TOPICS_PNG, TOPICS_SVG,
    claim_output, result_rows, write_outputs, write_summary, write_summary_figure,
};
pub use recovery::{Estimate, NoisyData, RecoveredTopics, Recovery, recovered_topics, recovery};
pub use registry::{KINDS, Kind, ParseManifest, load_experiment, parse_experiment};
pub use resources::{Cost, PRIOR_COUNTS_CAVEAT, available_memory, bytes_text};
pub use run::{MethodResult, OnIteration, RunError, SBC_DRAWS, TrueData, covers, run_cell, run_reference, true_data};
pub use semisynthetic::BaseParameters;
pub use sweep::{FactorizationSweep, SweepOptions, Unit, run_sweep};
