//! The workspace's criterion benchmarks live in `benches/`: `cargo bench -p benches --bench NAME`
//! with NAME one of `samplers`, `gibbs`, `cavi`, `scaling`, `structure_test`. This library is
//! empty; the crate exists so that the benchmarks' dependencies stay out of the test build.
