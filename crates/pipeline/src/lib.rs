//! The experiment pipeline: a TOML manifest → validated experiment → data sets × noise levels
//! (cells) → units of work run in parallel and persisted atomically (resume, shards) → tidy
//! Parquet results, summary and figure (through the `results` crate).
//!
//! - `manifest`: schema, strict validation, expansion into data sets and cells;
//! - `base`: stored base parameters of semi-synthetic designs;
//! - `run`: one unit of work (a data set's non-private reference, or a cell's naïve and private
//!   fits), streams derived from (seed, replication, e₀ index, purpose, level, method);
//! - `sweep`: all units in parallel, unit files, resume, shards, progress observer;
//! - `outputs`: the files a run leaves in its output directory;
//! - `dpvi_manifest`, `dpvi_run`: the DPVI experiment kind (`[experiment] kind = "dpvi"`,
//!   [`load_any`] dispatches): central-DP baselines on UCI and synthetic mixture data;
//! - `dpsep`: the DP-SEP experiment kind (`kind = "dp-sep"`): Table 1 and Fig. 1 of Vinaroz & Park.

mod base;
mod dpsep;
mod dpvi_manifest;
mod dpvi_run;
mod manifest;
mod outputs;
mod prepare;
mod run;
mod sweep;

pub use base::BaseParameters;
pub use dpsep::{
    DpSepManifest, DpSepMethod, DpSepRow, DpSepSpec, TableLine, dpsep_table, run_dpsep, run_replication,
    write_dpsep_outputs,
};
pub use dpvi_manifest::{DpviCell, DpviDataset, DpviManifest, DpviMethod, DpviSpec};
pub use dpvi_run::{
    DpviRow, DpviSummary, MIXTURE_MEANS, dpvi_summary_table, run_dpvi, summarize_dpvi, write_dpvi_outputs,
};
pub use manifest::{
    AnyManifest, Cell, DEFAULT_F0, DataSet, DataSource, EXPERIMENT_KINDS, Manifest, ManifestError, Method, ModelKind,
    NoiseLevel, Precision, load, load_any, parse,
};
pub use outputs::{
    FIGURE_PNG, FIGURE_SVG, MANIFEST_FILE, PROVENANCE_FILE, RESULTS_FILE, SUMMARY_FILE, TOPICS_PNG, TOPICS_SVG,
    claim_dpsep_output, claim_dpvi_output, claim_output, result_rows, stored_description, write_outputs, write_summary,
    write_summary_figure,
};
pub use prepare::{PrepareOptions, Prepared, base_file_text, prepare_enron};
pub use run::{
    MethodResult, OnIteration, RecoveredTopics, RunError, TrueData, recovered_topics, run_cell, run_reference,
    true_data,
};
pub use sweep::{FactorizationSweep, SweepOptions, Unit, run_sweep};
