//! The integration tests of `distributions`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod bessel_i;
mod goodness_of_fit;
mod properties;
mod sample_once;
