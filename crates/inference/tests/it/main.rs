//! The integration tests of `inference`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod cavi;
mod chain;
mod diagnostics;
mod estimator;
mod recovery;
