//! The runner on a toy experiment: rows in unit order whatever the threads, resume reads finished
//! units back, `force` recomputes, shards split the units and a final run merges them, a failed
//! unit leaves the others on disk, another experiment's directory is refused.

use runner::{Experiment, OnUnitDone, RunOptions, RunnerError, UnitError, claim, collect, collect_finished, run};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    unit: usize,
    value: f64,
}

struct Toy {
    dir: PathBuf,
    /// What [`Experiment::identity`] hashes (a stand-in for the manifest's seed and design).
    seed: u64,
    units: usize,
    fail: Option<usize>,
    computed: AtomicUsize,
}

impl Experiment for Toy {
    type Unit = usize;
    type Row = Row;

    fn output_dir(&self) -> PathBuf {
        self.dir.clone()
    }

    fn identity(&self) -> String {
        runner::identity(&[b"toy", &self.seed.to_le_bytes()])
    }

    fn units(&self) -> Vec<usize> {
        (0..self.units).collect()
    }

    fn unit_name(&self, unit: usize) -> String {
        format!("toy-{unit}")
    }

    fn run_unit(&self, unit: usize, progress: &(dyn Fn() + Sync)) -> Result<Vec<Row>, UnitError> {
        if self.fail == Some(unit) {
            return Err("deliberate failure".into());
        }
        self.computed.fetch_add(1, Ordering::Relaxed);
        progress();
        Ok(vec![Row { unit, value: (unit as f64).sqrt() }, Row { unit, value: 1.0 / (unit as f64 + 3.0) }])
    }
}

fn toy(dir: &Path, fail: Option<usize>) -> Toy {
    Toy { dir: dir.to_path_buf(), seed: 1, units: 9, fail, computed: AtomicUsize::new(0) }
}

#[test]
fn resume_force_shards_failures_and_claims() {
    let dir = std::env::temp_dir().join(format!("runner-toy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let all = RunOptions::default();
    // A failing unit: the error names it, the other units are on disk.
    let failing = toy(&dir, Some(4));
    let e = run(&failing, all, &()).unwrap_err();
    assert!(matches!(&e, RunnerError::Unit { unit, .. } if unit == "toy-4"), "{e}");
    assert_eq!(failing.computed.load(Ordering::Relaxed), 8);
    // Resume: only the failed unit is computed; rows come back in unit order.
    let t = toy(&dir, None);
    let rows = run(&t, all, &()).unwrap();
    assert_eq!(t.computed.load(Ordering::Relaxed), 1);
    assert_eq!(rows.iter().map(|r| r.unit).collect::<Vec<_>>(), (0..9).flat_map(|u| [u, u]).collect::<Vec<_>>());
    assert_eq!(collect(&t, &dir).unwrap(), rows);
    // Force recomputes all, with the same rows.
    let t = toy(&dir, None);
    assert_eq!(run(&t, RunOptions { force: true, shard: None }, &()).unwrap(), rows);
    assert_eq!(t.computed.load(Ordering::Relaxed), 9);
    // Shards: each computes its share; a final run merges without computing.
    let fresh = dir.join("sharded");
    for i in 0..3 {
        let t = toy(&fresh, None);
        let part = run(&t, RunOptions { force: false, shard: Some((i, 3)) }, &()).unwrap();
        assert_eq!(t.computed.load(Ordering::Relaxed), 3);
        assert!(part.iter().all(|r| r.unit % 3 == i));
    }
    let done = AtomicUsize::new(0);
    let t = toy(&fresh, None);
    let observer = OnUnitDone(|_: usize, computed: bool, _: &[Row]| {
        assert!(!computed, "the merge run computed a unit");
        done.fetch_add(1, Ordering::Relaxed);
    });
    let merged = run(&t, all, &observer).unwrap();
    assert_eq!(done.load(Ordering::Relaxed), 9, "every unit reported");
    assert_eq!((merged, t.computed.load(Ordering::Relaxed)), (rows.clone(), 0));
    assert!(matches!(
        run(&t, RunOptions { force: false, shard: Some((3, 3)) }, &()),
        Err(RunnerError::BadShard { .. })
    ));
    // A missing unit is named by collect.
    std::fs::remove_file(fresh.join("units/toy-5.toml")).unwrap();
    let e = collect(&t, &fresh).unwrap_err();
    assert!(matches!(&e, RunnerError::MissingUnit { path } if path.ends_with("units/toy-5.toml")), "{e}");
    // collect_finished reads the others (for a run stopped early) and names the missing one.
    let (finished, missing) = collect_finished(&t, &fresh).unwrap();
    assert_eq!(missing, ["toy-5"]);
    assert_eq!(finished, rows.iter().filter(|r| r.unit != 5).cloned().collect::<Vec<_>>());
    // A unit file of another experiment is still refused.
    let other = Toy { seed: 2, ..toy(&fresh, None) };
    assert!(matches!(collect_finished(&other, &fresh), Err(RunnerError::CorruptUnit { .. })));
    // Claims: the same experiment may reuse its directory, another may not (unless forced).
    drop(claim(&dir, "name = \"a\"", None, |_| true, false).unwrap());
    let e = claim(&dir, "name = \"b\"", None, |stored| stored == "name = \"b\"", false).unwrap_err();
    assert!(e.is_bad_input() && e.to_string().contains("different manifest"), "{e}");
    drop(claim(&dir, "name = \"b\"", Some("a note"), |_| false, true).unwrap());
    assert!(std::fs::read_to_string(dir.join("provenance.toml")).unwrap().contains("description = \"a note\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An output directory must be one a run may own: not an empty path, not the root, not a file,
/// not somebody else's non-empty directory (refused as bad input naming `experiment.output`).
#[test]
fn output_directories_that_are_not_ours_are_refused() {
    let base = std::env::temp_dir().join(format!("lppf-runner-output-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(base.join("theirs")).unwrap();
    std::fs::write(base.join("theirs/thesis.tex"), "keep me").unwrap();
    std::fs::write(base.join("file"), "x").unwrap();
    for dir in [Path::new(""), Path::new("/"), &base.join("theirs"), &base.join("file")] {
        let e = claim(dir, "name = \"a\"", None, |_| true, false).unwrap_err();
        assert!(e.is_bad_input() && e.to_string().contains("experiment.output"), "{}: {e}", dir.display());
    }
    assert_eq!(std::fs::read_dir(base.join("theirs")).unwrap().count(), 1, "nothing written there");
    // New, empty, and lppf's own directories are fine.
    std::fs::create_dir_all(base.join("empty")).unwrap();
    for dir in [base.join("new/sub"), base.join("empty"), base.join("empty")] {
        drop(claim(&dir, "name = \"a\"", None, |_| true, false).unwrap());
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// Records how many unit files a run set aside as corrupt.
struct Planned(AtomicUsize);

impl runner::Observer<Toy> for Planned {
    fn start(&self, plan: &runner::Plan) {
        self.0.store(plan.corrupt, Ordering::Relaxed);
    }
}

/// Issue 31: a unit file copied over another unit's name, or the unit files of a run of another
/// seed, are set aside like damaged files and recomputed; the rows are those of a fresh run.
#[test]
fn unit_files_of_another_unit_or_run_are_not_used() {
    let dir = std::env::temp_dir().join(format!("runner-foreign-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let intact = run(&toy(&dir, None), RunOptions::default(), &()).unwrap();
    std::fs::copy(dir.join("units/toy-1.toml"), dir.join("units/toy-2.toml")).unwrap();
    let again = toy(&dir, None);
    let planned = Planned(AtomicUsize::new(0));
    assert_eq!(run(&again, RunOptions::default(), &planned).unwrap(), intact);
    assert_eq!((planned.0.load(Ordering::Relaxed), again.computed.load(Ordering::Relaxed)), (1, 1));
    // The same directory resumed by a run of another seed: every file is another run's.
    let other_seed = Toy { seed: 2, ..toy(&dir, None) };
    let planned = Planned(AtomicUsize::new(0));
    run(&other_seed, RunOptions::default(), &planned).unwrap();
    assert_eq!((planned.0.load(Ordering::Relaxed), other_seed.computed.load(Ordering::Relaxed)), (9, 9));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged unit file (cut inside its last number, or altered) is set aside as
/// `<unit>.toml.corrupt` and its unit recomputed; the run's rows are those of an intact run.
#[test]
fn damaged_unit_files_are_set_aside_and_recomputed() {
    let dir = std::env::temp_dir().join(format!("runner-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let intact = run(&toy(&dir, None), RunOptions::default(), &()).unwrap();
    let unit = dir.join("units/toy-3.toml");
    let text = std::fs::read_to_string(&unit).unwrap();
    std::fs::write(&unit, &text[..text.len() - 30]).unwrap();
    let other = dir.join("units/toy-5.toml");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&other, text.replacen("value = ", "value = 1", 1)).unwrap();
    let again = toy(&dir, None);
    let planned = Planned(AtomicUsize::new(0));
    let rows = run(&again, RunOptions::default(), &planned).unwrap();
    assert_eq!(planned.0.load(Ordering::Relaxed), 2);
    assert_eq!(again.computed.load(Ordering::Relaxed), 2);
    assert_eq!(rows, intact);
    assert!(dir.join("units/toy-3.toml.corrupt").exists() && dir.join("units/toy-5.toml.corrupt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A merge waits for the units a killed shard left (`missing_units` names them), and claims a
/// killed task on another host left behind are released by `release_claims`, after which a run
/// computes those units; unit files are never removed.
#[test]
fn missing_units_are_named_and_stale_claims_released() {
    let dir = std::env::temp_dir().join(format!("runner-claims-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t = toy(&dir, None);
    assert_eq!(runner::missing_units(&t).len(), 9);
    run(&t, RunOptions { force: false, shard: Some((0, 3)) }, &()).unwrap();
    assert_eq!(runner::missing_units(&t), ["toy-1", "toy-2", "toy-4", "toy-5", "toy-7", "toy-8"]);
    // A task killed on another node: its claim names a host this run cannot check, so it
    // counts as alive and the unit is left to it.
    let units = runner::units_dir(&dir);
    let remote = "pid = 12\nhost = \"node-7.elsewhere\"\nmanifest = \"\"\n";
    std::fs::write(units.join("toy-1.claim"), remote).unwrap();
    std::fs::write(dir.join(runner::LOCK_FILE), remote.replace("\"\"", "\"0123456789abcdef\"")).unwrap();
    let pending = run(&t, RunOptions::default(), &());
    assert!(matches!(&pending, Err(RunnerError::Pending { units }) if units[0].0 == "toy-1"), "{pending:?}");
    assert!(matches!(runner::lock_dir(&dir, "a manifest", false), Err(RunnerError::Busy { .. })));
    assert_eq!(runner::release_claims(&dir).unwrap(), 2);
    assert_eq!(runner::release_claims(&dir).unwrap(), 0);
    let rows = run(&t, RunOptions::default(), &()).unwrap();
    assert_eq!(rows.len(), 18);
    assert!(runner::missing_units(&t).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rerun after a task failed: the tasks whose own shard is on disk help with the missing units
/// of the others, each computing at most a shard's number of units, so the rerun spreads them
/// instead of leaving them all to the failed shard's task; the results are the same.
#[test]
fn a_rerun_spreads_the_missing_units_over_the_shards() {
    let dir = std::env::temp_dir().join(format!("runner-help-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shard = |i| RunOptions { force: false, shard: Some((i, 3)) };
    // The first run: only shard 0's task finished (shards 1 and 2 failed), and it helped with
    // nothing (it computed a whole shard of its own).
    let first = toy(&dir, None);
    run(&first, shard(0), &()).unwrap();
    assert_eq!(first.computed.load(Ordering::Relaxed), 3);
    assert_eq!(runner::missing_units(&first).len(), 6);
    // The rerun: shard 0 has nothing left of its own and takes a shard's worth of the others'.
    let helped = AtomicUsize::new(0);
    let observer = Helped(&helped);
    let again = toy(&dir, None);
    run(&again, shard(0), &observer).unwrap();
    assert_eq!((again.computed.load(Ordering::Relaxed), helped.load(Ordering::Relaxed)), (3, 3));
    // Shards 1 and 2 compute what is left between them, neither more than three units.
    let mut total = 3;
    for i in [1, 2] {
        let t = toy(&dir, None);
        let rows = run(&t, shard(i), &()).unwrap_or_default();
        let computed = t.computed.load(Ordering::Relaxed);
        assert!(computed <= 3, "shard {i} computed {computed}");
        assert!(rows.iter().all(|r| r.unit % 3 == i));
        total += computed;
    }
    assert_eq!(total, 6, "every missing unit computed once");
    assert!(runner::missing_units(&first).is_empty());
    let all = toy(&dir.join("unsharded"), None);
    assert_eq!(collect(&first, &dir).unwrap(), run(&all, RunOptions::default(), &()).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Counts the units a shard helped with.
struct Helped<'a>(&'a AtomicUsize);

impl runner::Observer<Toy> for Helped<'_> {
    fn helped(&self, units: usize) {
        self.0.store(units, Ordering::Relaxed);
    }
}
