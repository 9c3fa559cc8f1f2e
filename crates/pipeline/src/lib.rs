//! The experiment pipeline: TOML manifests → validated experiments → sweep cells.
//!
//! Work in progress (issue 4): today the manifest schema, its strict validation, the expansion
//! of a sweep into cells, and the execution of one unit of work (a replication's non-private
//! reference, or a cell's naïve and private fits). Scheduling, resume, Parquet results and
//! figures follow.

mod manifest;
mod run;
mod sweep;

pub use manifest::{Cell, DataSource, Manifest, ManifestError, Method, ModelKind, NoiseLevel, Precision, load, parse};
pub use run::{MethodResult, RunError, TrueData, run_cell, run_reference, true_data};
pub use sweep::{SweepOptions, Unit, UnitDone, run_sweep};
