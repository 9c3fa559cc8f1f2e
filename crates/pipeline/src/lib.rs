//! The experiment pipeline: TOML manifests → validated experiments → sweep cells.
//!
//! Work in progress (issue 4): today the manifest schema, its strict validation and the expansion
//! of a sweep into cells. Execution, Parquet results and figures follow.

mod manifest;

pub use manifest::{Cell, DataSource, Manifest, ManifestError, Method, ModelKind, NoiseLevel, Precision, load, parse};
