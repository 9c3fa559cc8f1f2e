//! The integration tests of `accountant`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod accountant;
mod rounding;
