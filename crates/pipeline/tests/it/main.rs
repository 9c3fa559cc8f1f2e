//! The integration tests of `pipeline`, one module per file, built as one test binary (one link
//! instead of one per file: the cold CI build is the budget these share).

mod calibration;
mod chains;
mod dpsep;
mod dpvi;
mod draws;
mod fig3;
mod fig4;
mod manifest;
mod manifest_fuzz;
mod run;
mod semi_synthetic;
mod sweep;
