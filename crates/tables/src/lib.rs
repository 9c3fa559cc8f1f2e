//! Users' count tables, the files on both sides of the trust boundary:
//!
//! - [`read_counts`]: what a data holder has — `row,col,count` (CSV with a header, or Parquet
//!   with those columns when the name ends in `.parquet`), unlisted cells zero, into a labelled
//!   grid ([`CountTable`]) whose labels are stated ([`GridLabels`], [`read_labels`]) or sorted;
//! - [`write_counts`]: the non-zero cells of a [`CountTable`] back as `row,col,count`;
//! - [`write_released`] / [`read_released`]: what is released — `row,col,value` for **every**
//!   cell of the grid, same format rule;
//! - with a third key (`row,col,time,count`, [`CountsFormat::time`]): counts over time on the
//!   grid `rows × cols·times` ([`TimeAxes`]), released as `row,col,time,value`;
//! - [`read_levels`]: per-row privacy levels (`row,alpha` or `row,epsilon`);
//! - [`PrivacySidecar`]: `<release>.privacy.toml`, what the release states about itself;
//! - [`commit_release`] / [`recover_release`]: a release and its sidecar written as one commit.
//!
//! Errors name the file, the line (CSV) or row (Parquet), the field, the value and what is
//! allowed. Output files are written atomically.

mod cells;
mod commit;
mod error;
mod grid;
mod levels;
mod records;
mod released;
mod sidecar;
mod times;

pub use commit::{
    CommitError, Recovery, StagedRelease, check_release_free, commit_release, recover_release, stage_release,
};
pub use error::TableError;
pub use grid::{
    CountRecords, CountTable, CountsFormat, GridLabels, LabelOptionError, LabelOptionMisuse, Labels, MAX_CELLS,
    MAX_COUNT, counts_from_records, labels_from_list, parse_delimiter, read_counts, read_counts_as, read_labels,
    write_labels,
};
pub use levels::{Level, levels_from_list, read_levels};
pub use released::{
    Layout, ReleasedTable, read_released, read_released_over_time, read_released_pairs, write_counts, write_released,
};
pub use sidecar::{PrivacySidecar, StatedLevel, read_release_as_stated, sidecar_path, stated_epsilon};
pub use times::{TimeAxes, modes, pair_label};
