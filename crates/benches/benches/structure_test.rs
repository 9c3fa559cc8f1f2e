//! The test of structure on the release (`analysis::structure_test`), whole tests with up to 199
//! bootstrap tables, on two threads: a 45-actor network of the error-rate study (3 communities, or
//! none: then the test stops early), a 117-actor network (Enron's size, K = 8) and a 250 × 300
//! document–term table (K = 5), each released at α = 0.5. Run: `cargo bench -p benches --bench
//! structure_test` (figures in BENCHMARKS.md).

use analysis::structure_test::{STRUCTURE_TEST_REPLICATES, TestTable, structure_test};
use criterion::{Criterion, criterion_group, criterion_main};
use distributions::{Gamma, Poisson, Streams, TwoSidedGeometric};
use rand::distr::Distribution;
use std::time::Duration;

/// `rows × cols` released values with rates `a_i b_j B_{g(i) h(j)}` (`within` on matching groups of
/// `groups`, 1 elsewhere), the diagonal unused for a network.
fn release(rows: usize, cols: usize, groups: usize, within: f64, network: bool) -> (Vec<f64>, Vec<bool>) {
    let mut rng = Streams::new(1).rng();
    let activity = Gamma::new(4.0, 4.0).expect("valid");
    let (a, b): (Vec<f64>, Vec<f64>) =
        (0..rows.max(cols)).map(|_| (activity.sample(&mut rng), activity.sample(&mut rng))).unzip();
    let noise = TwoSidedGeometric::new(0.5).expect("valid");
    let used: Vec<bool> = (0..rows * cols).map(|n| !network || n / cols != n % cols).collect();
    let values = (0..rows * cols)
        .map(|n| {
            let (i, j) = (n / cols, n % cols);
            let block = if i * groups / rows == j * groups / cols { within } else { 1.0 };
            let rate = a[i] * b[j] * block * if network { 1.0 } else { 3.0 };
            match used[n] {
                true => Poisson::new(rate).expect("finite").sample(&mut rng) as f64 + noise.sample(&mut rng) as f64,
                false => 0.0,
            }
        })
        .collect();
    (values, used)
}

fn whole_test(c: &mut Criterion) {
    let mut group = c.benchmark_group("structure test, alpha = 0.5, 2 threads");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    let cases = [
        ("network 45, 3 communities", 45, 45, 3, 3.0, true),
        ("network 45, none (stops early)", 45, 45, 3, 1.0, true),
        ("network 117, K = 8, 8 communities", 117, 117, 8, 3.0, true),
        ("table 250 x 300, K = 5, 5 topics", 250, 300, 5, 3.0, false),
    ];
    for (name, rows, cols, groups, within, network) in cases {
        let (values, used) = release(rows, cols, groups, within, network);
        let alphas = vec![0.5; rows];
        let table =
            TestTable { rows, cols, values: &values, used: &used, alphas: &alphas, shared: network, mirror: false };
        group.bench_function(name, |bench| {
            bench.iter(|| structure_test(&table, groups, STRUCTURE_TEST_REPLICATES, Streams::new(2), &|| {}))
        });
    }
    group.finish();
}

criterion_group!(benches, whole_test);
criterion_main!(benches);
