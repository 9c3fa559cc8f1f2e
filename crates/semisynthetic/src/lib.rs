//! Base parameters of semi-synthetic designs (§5.1, §5.2 of Schein et al. 2019): point estimates
//! fitted to real data, from which a sweep draws data sets with re-scaled rows.
//!
//! - `base`: the file ([`BaseParameters`]: the named factor matrices of a registered
//!   [`ModelKind`] — `θ*` and `π*` or `φ*` — row labels, provenance);
//! - `prepare`: deriving them from the Enron corpus ([`prepare_enron`], `lppf prepare-enron`).

mod base;
mod error;
mod prepare;
mod prepare_topics;

pub use base::{BaseParameters, Rows};
pub use error::PrepareError;
pub use models::ModelKind;
pub use prepare::{
    PrepareOptions, Prepared, base_file_text, base_file_text_with, prepare_enron, recorded_input_checksum, sha256_hex,
};
pub use prepare_topics::{PreparedTopics, TopicPrepareOptions, prepare_enron_topics, topic_base_file_text};
