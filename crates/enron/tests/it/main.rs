//! The integration tests of `enron`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod aeslc;
mod maildir;
mod table;
