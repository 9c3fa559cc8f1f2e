//! The integration tests of `cli`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod audit;
mod cli;
mod common;
mod enron_network;
mod fit;
mod fuzz;
mod heldout_sweep;
mod over_time;
mod privatize;
