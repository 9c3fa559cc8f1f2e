//! The experiment pipeline: TOML manifests → validated experiments → sweep cells.
//!
//! Work in progress (issue 4): today the manifest schema, its strict validation, the expansion
//! of a sweep into cells, and the execution of one unit of work (a replication's non-private
//! reference, or a cell's naïve and private fits). Scheduling, resume, Parquet results and
//! figures follow.

mod base;
mod manifest;
mod outputs;
mod run;
mod sweep;

pub use base::BaseParameters;
pub use manifest::{
    Cell, DEFAULT_F0, DataSet, DataSource, Manifest, ManifestError, Method, ModelKind, NoiseLevel, Precision, load,
    parse,
};
pub use outputs::{
    FIGURE_PNG, FIGURE_SVG, MANIFEST_FILE, PROVENANCE_FILE, RESULTS_FILE, SUMMARY_FILE, claim_output, result_rows,
    write_outputs, write_summary_and_figure,
};
pub use run::{MethodResult, OnIteration, RunError, TrueData, run_cell, run_reference, true_data};
pub use sweep::{Observer, Plan, SweepOptions, Unit, UnitDone, run_sweep};
