//! Enron corpus readers → a directed count network and a document–term matrix.
//!
//! Two inputs give the same [`Message`] list:
//! - [`read_table`]: the cleaned message table (`Enron.csv`: unix time, sender id, quoted list of
//!   recipient ids, subject — Zhou et al. 2007 / Perry & Wolfe), actors named by employee id;
//! - [`read_maildir`]: the CMU corpus as users download it (`maildir/<user>/<folder>/<n>.`,
//!   RFC 822 headers), actors named by lower-cased e-mail address, copies of one message in
//!   several mailboxes deduplicated by `Message-ID`;
//! - [`read_aeslc`]: sent-mail bodies of the AESLC corpus (Zhang & Tetreault 2019), one document per
//!   e-mail, sender = mailbox owner, no recipients (documents for the topic study, not edges).
//!
//! Malformed rows and files are counted in a [`ReadReport`] and skipped, never a panic.
//! [`CountNetwork`] counts one e-mail from i to j per recipient (§5.1 of Schein et al. 2019) and
//! applies the paper's inclusion rule; [`DocumentTerms`] makes one document per sent e-mail;
//! [`read_employees`] reads the employee table that names the actors.

mod aeslc;
mod by_month;
mod documents;
mod employees;
mod maildir;
mod network;
mod table;

pub use aeslc::{parse_body, read_aeslc};
pub use by_month::{MonthlyNetwork, month_of};
pub use documents::{DocumentTerms, STOP_WORDS, TokenizerOptions, tokenize};
pub use employees::{Employee, employees_location, read_employees};
pub use maildir::{parse_email, read_maildir};
pub use network::{CountNetwork, InclusionRule};
pub use table::{parse_table, parse_table_bytes, read_table};

use std::fmt;
use std::path::PathBuf;

/// Where the real cleaned table is expected: `$LPPF_ENRON_CSV`, else
/// `../shared/data/enron/Enron.csv` beside the workspace (the project's layout).
pub fn table_location() -> PathBuf {
    std::env::var_os("LPPF_ENRON_CSV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/enron/Enron.csv")))
}

/// Where the AESLC e-mail bodies are expected: `$LPPF_AESLC_DIR`, else
/// `../shared/data/enron-aeslc/enron_subject_line` beside the workspace.
pub fn aeslc_location() -> PathBuf {
    std::env::var_os("LPPF_AESLC_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/enron-aeslc/enron_subject_line"))
    })
}

/// For tests that need the real table: its path. Such tests are `#[ignore]`d (the summary counts
/// them) and run with `cargo test -- --include-ignored`, as `.ci/run` does wherever the corpus is
/// present; asked to run without the table they fail with this message rather than pass.
#[doc(hidden)]
pub fn table_for_tests() -> PathBuf {
    let path = table_location();
    assert!(
        path.exists(),
        "{} is missing: this test needs the real Enron table (see docs/README.md, 'Data outside the repository'; or set LPPF_ENRON_CSV)",
        path.display()
    );
    path
}

/// One e-mail: its sender, its distinct recipients (never the sender), and its text (subject for
/// the table; subject and body for maildir).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// When it was sent (Unix seconds), where the source says (the cleaned table does).
    pub time: Option<i64>,
    pub sender: String,
    pub recipients: Vec<String>,
    pub text: String,
}

/// What a reader read, kept and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadReport {
    /// Rows (table) or files (maildir) seen.
    pub items: usize,
    /// Messages kept.
    pub messages: usize,
    /// Maildir copies of a message already read (same `Message-ID`, skipped).
    pub duplicates: usize,
    /// Table rows identical to an earlier row (kept: the table has no message id to tell a copy
    /// from a message sent twice, but they are counted so that a corrupted table shows).
    pub repeated_rows: usize,
    /// Messages without any recipient (kept out of the network; nothing to count).
    pub without_recipients: usize,
    /// Malformed items: where and why (skipped).
    pub malformed: Vec<(String, String)>,
}

impl fmt::Display for ReadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} read, {} messages kept, {} duplicates, {} repeated rows, {} without recipients, {} malformed",
            self.items,
            self.messages,
            self.duplicates,
            self.repeated_rows,
            self.without_recipients,
            self.malformed.len()
        )?;
        for (where_, why) in self.malformed.iter().take(5) {
            write!(f, "\n  malformed: {where_}: {why}")?;
        }
        if self.malformed.len() > 5 {
            write!(
                f,
                "\n  … and {} more (the commands write the full list beside their output)",
                self.malformed.len() - 5
            )?;
        }
        Ok(())
    }
}

/// An input that cannot be read at all (a single bad row or file is a [`ReadReport`] entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnronError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for EnronError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for EnronError {}
