//! Resume: a rerun skips finished units and never duplicates rows; a missing unit is recomputed
//! alone with the same numbers; `force` recomputes everything; a corrupt unit file is named.

use pipeline::{FactorizationSweep, MethodResult, SweepOptions, Unit, parse, run_sweep};
use runner::Observer;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const SMOKE: &str = include_str!("../../../../experiments/smoke.toml");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Counts computed units and records every finished one.
#[derive(Default)]
struct Count {
    computed: AtomicUsize,
    done: Mutex<Vec<pipeline::Unit>>,
}

impl<'a> Observer<FactorizationSweep<'a>> for Count {
    fn unit_done(&self, unit: Unit, computed: bool, _rows: &[MethodResult]) {
        if computed {
            self.computed.fetch_add(1, Ordering::Relaxed);
        }
        self.done.lock().unwrap().push(unit);
    }
}

fn run(manifest: &pipeline::Manifest, force: bool) -> (Vec<pipeline::MethodResult>, usize) {
    let count = Count::default();
    let rows = run_sweep(manifest, SweepOptions { force, shard: None }, &count).unwrap();
    (rows, count.computed.into_inner())
}

#[test]
fn rerun_skips_finished_units_and_recomputes_only_missing_ones() {
    let dir = scratch("resume");
    let text = SMOKE.replace("seed = 1", &format!("seed = 1\noutput = {:?}", dir.display().to_string()));
    let manifest = parse(&text, Path::new("smoke.toml")).unwrap();
    let units = manifest.units().len();
    assert_eq!(units, 2 + 4); // a reference per replication + a unit per cell

    let (first, computed) = run(&manifest, false);
    assert_eq!(computed, units);
    assert_eq!(first.len(), 2 * 2 + 4 * 4); // (non-private, cavi) per replication, 4 methods per cell

    let (second, computed) = run(&manifest, false);
    assert_eq!(computed, 0);
    assert_eq!(second, first, "rows read back must equal the rows written, without duplicates");

    std::fs::remove_file(dir.join("units/cell2.toml")).unwrap();
    // A killed write (a pid above pid_max: its process has ended) is removed by the next run.
    let killed = dir.join("units/.lppf-pending.4000000000.abcd1234.cell3.toml");
    std::fs::write(&killed, "half a file").unwrap();
    let (third, computed) = run(&manifest, false);
    assert_eq!(computed, 1);
    assert!(!killed.exists());
    let strip = |rows: &[pipeline::MethodResult]| -> Vec<(u64, u64)> {
        rows.iter().map(|r| (r.alpha.map_or(0, f64::to_bits), r.mean_kl.to_bits())).collect()
    };
    assert_eq!(strip(&third), strip(&first));

    let (_, computed) = run(&manifest, true);
    assert_eq!(computed, units);

    // A damaged unit file is never used: set aside as .corrupt and recomputed, same numbers.
    std::fs::write(dir.join("units/cell0.toml"), "garbage").unwrap();
    let (fourth, computed) = run(&manifest, false);
    assert_eq!(computed, 1);
    assert_eq!(strip(&fourth), strip(&first));
    assert!(dir.join("units/cell0.toml.corrupt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_split_the_units_and_an_unsharded_run_merges_them() {
    let dir = scratch("shards");
    let text = SMOKE.replace("seed = 1", &format!("seed = 1\noutput = {:?}", dir.display().to_string()));
    let manifest = parse(&text, Path::new("smoke.toml")).unwrap();
    let mut seen = Vec::new();
    for i in 0..2 {
        let count = Count::default();
        run_sweep(&manifest, SweepOptions { force: false, shard: Some((i, 2)) }, &count).unwrap();
        seen.extend(count.done.into_inner().unwrap());
    }
    let mut all = manifest.units();
    assert_eq!(seen.len(), all.len());
    seen.sort_by_key(|u| format!("{u:?}"));
    all.sort_by_key(|u| format!("{u:?}"));
    assert_eq!(seen, all);
    let (rows, computed) = run(&manifest, false);
    assert_eq!((rows.len(), computed), (2 * 2 + 4 * 4, 0));
    assert!(run_sweep(&manifest, SweepOptions { force: false, shard: Some((2, 2)) }, &()).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The numbers of a run (timings excluded), floats as bits, in unit order.
fn numbers(rows: &[pipeline::MethodResult]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let bits = |x: Option<f64>| x.map(f64::to_bits);
            format!(
                "{} {:?} {} {:?} {} {:?}",
                r.replication,
                r.noise_index,
                r.method.name(),
                bits(r.alpha),
                r.mean_kl.to_bits(),
                bits(r.topic_error)
            )
        })
        .collect()
}

/// The same manifest and seed give bit-identical numbers whether the sweep runs on 1 or 2
/// threads, in one run or as two halves (shards 0/2 and 1/2) merged by a final run.
#[test]
fn sweep_numbers_do_not_depend_on_threads_or_splitting() {
    let manifest_in = |dir: &Path| {
        let text = SMOKE.replace("seed = 1", &format!("seed = 1\noutput = {:?}", dir.display().to_string()));
        parse(&text, Path::new("smoke.toml")).unwrap()
    };
    let in_pool = |threads: usize, f: &(dyn Fn() -> Vec<pipeline::MethodResult> + Sync)| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    };
    let (one_dir, two_dir, halves_dir) = (scratch("threads1"), scratch("threads2"), scratch("halves"));
    let one = in_pool(1, &|| run(&manifest_in(&one_dir), false).0);
    let two = in_pool(2, &|| run(&manifest_in(&two_dir), false).0);
    assert_eq!(numbers(&one), numbers(&two));
    let halves = manifest_in(&halves_dir);
    for i in 0..2 {
        in_pool(2, &|| run_sweep(&halves, SweepOptions { force: false, shard: Some((i, 2)) }, &()).unwrap());
    }
    let (merged, computed) = run(&halves, false);
    assert_eq!(computed, 0);
    assert_eq!(numbers(&merged), numbers(&one));
    for dir in [one_dir, two_dir, halves_dir] {
        let _ = std::fs::remove_dir_all(dir);
    }
}
