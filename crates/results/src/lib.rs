//! Tidy experiment results: the schema of `results.parquet` ([`ResultRow`]), writing and reading
//! it, the summary over replications ([`summarize`]) the Fig. 4-style figure ([`plot`]) and
//! the figure of true vs recovered topics ([`plot_topics`]) and the paper's recovery figures
//! ([`plot_panel_grid`]).
//!
//! This crate knows nothing about models or manifests: the pipeline turns its runs into rows.

mod atomic;
mod checks_figure;
mod compare;
mod ellipses;
mod figure;
mod files;
mod paired;
mod parquet_file;
mod recovery_figure;
mod row;
mod sbc;
mod sbc_ecdf;
mod summary;
mod table;
mod topics_figure;

pub use atomic::{persist, write_atomic, write_atomic_with, write_exclusive, write_pending_with};
pub use checks_figure::{CheckPanel, plot_checks};
pub use compare::{Comparison, compare_files, is_timing_column};
pub use ellipses::{EllipsePanel, Gaussian2, plot_ellipses};
pub use figure::{
    Curve, CurveLabels, CurvePanel, CurveRow, CurveStyle, FigureText, plot, plot_coverage, plot_curve_rows, plot_curves,
};
pub use files::test_support;
pub use files::{
    OutputDirError, Pending, TOKEN_LEN, check_output_dir, link_exclusive, pending_dir, pending_file, pending_twin,
    process_gone, remove_file_if_present, same_file, stale_entries, stale_entries_in,
};
pub use paired::{Paired, holm, paired};
pub use parquet_file::{FileInfo, read_info, read_results, write_results};
pub use recovery_figure::{GridPanel, PanelGrid, Shading, count_scale, level_scale, plot_panel_grid};
pub use row::{
    Coverage, ResultRow, RowDiagnostics, Sbc, Stacking, TraceDiagnostics, central_ranks, diagnostics_columns,
    nominal_coverage, schema,
};
pub use sbc::{RankOf, SBC_FAMILY_ALPHA, SBC_QUANTITIES, SbcGroup, plot_sbc, sbc_csv, sbc_summary};
pub use sbc_ecdf::{BAND_LEVEL, EcdfTest, ecdf_test};
pub use summary::{SummaryRow, distinct, mean_sd, summarize, summary_csv, summary_table};
pub use table::{Values, for_each_batch, read_table, write_table, write_table_parts, write_table_parts_pending};
pub use tempfile::TempPath;
pub use topics_figure::{HeatmapText, TopicPanel, plot_heatmaps, plot_topics};

use std::fmt;
use std::path::{Path, PathBuf};

/// A results file that cannot be written or read, with the file it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultsError {
    pub file: PathBuf,
    pub message: String,
}

impl ResultsError {
    /// `file` and what is wrong with it.
    pub fn new(file: &Path, e: impl fmt::Display) -> Self {
        Self { file: file.to_path_buf(), message: e.to_string() }
    }
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for ResultsError {}
