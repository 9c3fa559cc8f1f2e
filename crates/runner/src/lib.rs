//! The experiment runner: everything a sweep does that does not depend on what is computed.
//!
//! An experiment kind implements [`Experiment`]: its units of work (with stable names), how to
//! run one unit, and the row type a unit produces (serde, so unit files are written and read by
//! one codec). The runner owns the rest:
//!
//! - **claiming the output directory** ([`claim`]): an exclusive lock file names the run that
//!   owns the directory (another manifest's run is refused, a run of the same manifest shares the
//!   work; `lock.rs`); a directory holding another experiment's manifest is refused unless
//!   forced; the manifest text and `provenance.toml` are written;
//! - **running** ([`run`]): the units (of one shard, if asked) in parallel, each unit's rows
//!   persisted atomically under `<output>/units/<unit>.toml` as soon as it finishes, units
//!   already on disk read back instead of recomputed (resume), each unit claimed before it is
//!   computed so that runs sharing the directory never compute it twice, progress reported to an
//!   [`Observer`];
//! - the key–value **metadata** of results files ([`results_metadata`]) and atomic figure writing
//!   ([`write_figure`]).
//!
//! Determinism is the kind's business (each unit derives its streams from the master seed and
//! its own id, so the thread count and the order of units do not matter); the runner never
//! shares anything random between units.

mod claim;
mod lock;
mod resources;
mod unit_file;

pub use claim::{
    MANIFEST_FILE, PROVENANCE_FILE, RESULTS_FILE, claim, record_results_checksum, results_metadata,
    verify_results_checksum, write_figure,
};
pub use lock::{DirLock, Holder, LOCK_FILE, lock_dir};
pub use resources::{available_memory, bytes_text, duration_text, total_memory};
pub use unit_file::{UnitId, read_unit, write_unit};

use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An error from running a unit: the kind's own error, boxed.
pub type UnitError = Box<dyn std::error::Error + Send + Sync>;

/// An experiment kind, resolved from its manifest: what the runner needs to run it.
pub trait Experiment: Sync {
    /// Identifies a unit of work (an index, a (replication, level) pair …).
    type Unit: Copy + Send + Sync;
    /// One result row; a unit produces several.
    type Row: Serialize + DeserializeOwned + Clone + Send;

    /// The output directory.
    fn output_dir(&self) -> PathBuf;
    /// The identity of what determines the units' numbers (seed, design, input data), recorded
    /// in every unit file: a file of another run is never used (see [`identity`]).
    fn identity(&self) -> String;
    /// Every unit, in the order rows are returned.
    fn units(&self) -> Vec<Self::Unit>;
    /// The unit's stable name: its unit file is `units/<name>.toml`. Letters, digits, `-`, `_`.
    fn unit_name(&self, unit: Self::Unit) -> String;
    /// Work of a unit for the progress total (e.g. its Gibbs iterations); 1 by default.
    fn unit_work(&self, _unit: Self::Unit) -> u64 {
        1
    }
    /// What [`Experiment::unit_work`] counts, in the plural ("iterations"); "units" by default.
    fn work_name(&self) -> &'static str {
        "units"
    }
    /// Runs one unit. `progress` is called once per unit of work done (see [`Experiment::unit_work`]).
    fn run_unit(&self, unit: Self::Unit, progress: &(dyn Fn() + Sync)) -> Result<Vec<Self::Row>, UnitError>;
    /// The unit in words, for log lines (its name by default).
    fn describe_unit(&self, unit: Self::Unit) -> String {
        self.unit_name(unit)
    }
    /// The core-seconds a unit's computation took, as its rows record it (`None`: not recorded);
    /// [`measured`] calibrates a time estimate with it.
    fn unit_seconds(&self, _rows: &[Self::Row]) -> Option<f64> {
        None
    }
    /// A unit's rows in a few words, for log lines (the row count by default).
    fn describe_rows(&self, rows: &[Self::Row]) -> String {
        format!("{} rows", rows.len())
    }
}

/// A kind-agnostic observer (a progress bar, a log): what [`ProgressObserver`] hands on.
pub trait Progress: Sync {
    /// Once, before any unit runs.
    fn start(&self, _plan: &Plan) {}
    /// After each unit of work.
    fn progress(&self) {}
    /// After each unit: its description, whether it was computed now, its rows described.
    fn unit_done(&self, _unit: &str, _computed: bool, _rows: &str) {}
    /// Once, after a shard has computed `units` of the other shards' units.
    fn helped(&self, _units: usize) {}
}

/// Observes nothing.
impl Progress for () {}

/// Turns a [`Progress`] into an [`Observer`] of any experiment, describing units and rows with
/// the experiment's own words.
pub struct ProgressObserver<'a, E: ?Sized> {
    pub experiment: &'a E,
    pub progress: &'a dyn Progress,
}

impl<E: Experiment + ?Sized> Observer<E> for ProgressObserver<'_, E> {
    fn start(&self, plan: &Plan) {
        self.progress.start(plan)
    }

    fn progress(&self) {
        self.progress.progress()
    }

    fn unit_done(&self, unit: E::Unit, computed: bool, rows: &[E::Row]) {
        self.progress.unit_done(&self.experiment.describe_unit(unit), computed, &self.experiment.describe_rows(rows))
    }

    fn helped(&self, units: usize) {
        self.progress.helped(units)
    }
}

/// Every unit's rows, read from the unit files under `output` (e.g. to summarize or plot a
/// finished run again); a missing unit is an error naming it.
pub fn collect<E: Experiment>(experiment: &E, output: &Path) -> Result<Vec<E::Row>, RunnerError> {
    let (rows, missing) = collect_finished(experiment, output)?;
    match missing.first() {
        Some(name) => Err(RunnerError::MissingUnit { path: unit_path(&units_dir(output), name) }),
        None => Ok(rows),
    }
}

/// The rows of the units whose files are under `output`, in unit order, and the names of the
/// units without a file (e.g. to test the fits that finished in a run stopped early). A file that
/// is there but not this unit's is an error, as in [`collect`].
pub fn collect_finished<E: Experiment>(
    experiment: &E,
    output: &Path,
) -> Result<(Vec<E::Row>, Vec<String>), RunnerError> {
    let dir = units_dir(output);
    let identity = experiment.identity();
    let (mut rows, mut missing) = (Vec::new(), Vec::new());
    for unit in experiment.units() {
        let name = experiment.unit_name(unit);
        let path = unit_path(&dir, &name);
        if path.exists() {
            rows.extend(read_unit::<E::Row>(&path, UnitId { unit: &name, manifest: &identity })?);
        } else {
            missing.push(name);
        }
    }
    Ok((rows, missing))
}

/// What a run does with units already on disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Recompute every unit even if its file exists.
    pub force: bool,
    /// `Some((i, n))`: run shard `i` of `n` (the units whose position is `i` modulo `n`), e.g.
    /// one task of a Slurm array job; a final unsharded run finds every unit on disk and merges
    /// them. A shard that computes fewer units than a shard holds (a rerun, where most shards are
    /// on disk) then helps: it computes other shards' missing units that no live run has claimed,
    /// up to a shard's number of units in all ([`help_other_shards`]), so the units a failed task
    /// left are spread over every task of the rerun and no task does more than its time limit
    /// was set for.
    pub shard: Option<(usize, usize)>,
}

/// What a run is about to do, reported once before the first unit starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Units of this run (of the shard, if any).
    pub units: usize,
    /// Of these, the units that will be computed (the others are on disk).
    pub to_compute: usize,
    /// Of those, the units whose file was corrupt (cut short, altered, another version's): kept
    /// as `<unit>.toml.corrupt` and recomputed.
    pub corrupt: usize,
    /// The work of the units to compute (sum of [`Experiment::unit_work`]).
    pub work: u64,
    /// What the work counts ([`Experiment::work_name`]).
    pub work_name: &'static str,
}

/// Follows a run: progress bars, logs. Called from worker threads; keep it cheap.
pub trait Observer<E: Experiment + ?Sized>: Sync {
    /// Once, before any unit runs.
    fn start(&self, _plan: &Plan) {}
    /// After each unit of work of any unit.
    fn progress(&self) {}
    /// After each unit, computed now (`computed`) or read from disk.
    fn unit_done(&self, _unit: E::Unit, _computed: bool, _rows: &[E::Row]) {}
    /// Once, after a shard has helped with `units` of the other shards' units
    /// ([`help_other_shards`]); not called when it computed none.
    fn helped(&self, _units: usize) {}
}

/// Observes nothing.
impl<E: Experiment + ?Sized> Observer<E> for () {}

/// An observer that only wants to hear of finished units: `OnUnitDone(|unit, computed, rows| …)`.
pub struct OnUnitDone<F>(pub F);

impl<E, F> Observer<E> for OnUnitDone<F>
where
    E: Experiment + ?Sized,
    F: Fn(E::Unit, bool, &[E::Row]) + Sync,
{
    fn unit_done(&self, unit: E::Unit, computed: bool, rows: &[E::Row]) {
        (self.0)(unit, computed, rows)
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum RunnerError {
    /// A file or directory could not be read or written.
    Io { path: PathBuf, message: String },
    /// A unit file exists but is not a complete, intact unit file (a run sets it aside and
    /// recomputes the unit; `summarize` and `plot` report it).
    CorruptUnit { path: PathBuf, reason: String },
    /// The output directory holds another experiment's manifest.
    OtherExperiment { dir: PathBuf, stored: PathBuf },
    /// A shard index not below the shard count.
    BadShard { index: usize, count: usize },
    /// A unit file that a finished run should have is not there.
    MissingUnit { path: PathBuf },
    /// A unit's own computation failed.
    Unit { unit: String, source: UnitError },
    /// A live run of another manifest (or, with `--force`, any run) holds the output directory.
    Busy { dir: PathBuf, lock: PathBuf, holder: String },
    /// `results.parquet` no longer has the checksum recorded when it was written.
    ResultsChanged { path: PathBuf, recorded: String, actual: String },
    /// The output directory is not one a run may write into (why).
    BadOutput { dir: PathBuf, reason: String },
    /// Every unit this run could take is done, but other live runs of the same manifest still
    /// compute some (name, holder): the last run to finish writes the outputs. Not a failure.
    Pending { units: Vec<(String, String)> },
    /// Claims cannot be released: a process on this host that holds one (file, holder) is alive.
    Alive { dir: PathBuf, holders: Vec<(PathBuf, String)> },
}

impl fmt::Display for RunnerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, message } => write!(f, "{}: {message}", path.display()),
            Self::CorruptUnit { path, reason } => {
                write!(f, "{}: {reason}; delete the file to recompute the unit", path.display())
            }
            Self::OtherExperiment { dir, stored } => write!(
                f,
                "{} holds results of a different manifest ({}); rerun with --force to recompute everything, \
                 or set experiment.output to a new directory",
                dir.display(),
                stored.display()
            ),
            Self::BadShard { index, count } => {
                write!(f, "shard {index}/{count}: the shard index must be below the shard count")
            }
            Self::Unit { unit, source } => write!(f, "unit {unit}: {source}"),
            Self::MissingUnit { path } => {
                write!(f, "{} is missing: the run is not complete (run the manifest to finish it)", path.display())
            }
            Self::Busy { dir, lock, holder } => write!(
                f,
                "{} is in use by {holder} running another manifest (or --force was given while it runs); \
                 wait for it, or choose another experiment.output. If that run is dead on another machine, \
                 delete {}",
                dir.display(),
                lock.display()
            ),
            Self::ResultsChanged { path, recorded, actual } => write!(
                f,
                "{} changed after its run (checksum {actual}, provenance.toml records {recorded}); \
                 run the manifest again to rewrite it from the unit files",
                path.display()
            ),
            Self::BadOutput { dir, reason } => write!(
                f,
                "experiment.output = {:?} is not allowed: {reason}; give a new or empty directory, or one \
                 that holds lppf results",
                dir.display().to_string()
            ),
            Self::Alive { dir, holders } => {
                let (file, holder) = holders.first().map_or((Path::new(""), ""), |(f, h)| (f.as_path(), h.as_str()));
                write!(
                    f,
                    "{}: nothing was released: {} claim or lock file(s) belong to runs alive on this host \
                     (e.g. {} of {holder}); wait for them to end or stop them, then run this again",
                    dir.display(),
                    holders.len(),
                    file.display()
                )
            }
            Self::Pending { units } => {
                let (name, holder) = units.first().map_or(("", ""), |(n, h)| (n.as_str(), h.as_str()));
                write!(
                    f,
                    "{} unit(s) are being computed by other runs of this manifest (e.g. {name} by {holder}); \
                     the last run to finish writes the results",
                    units.len()
                )
            }
        }
    }
}

impl std::error::Error for RunnerError {}

impl RunnerError {
    /// Bad input (exit code 2 in the CLI) rather than a failure while running.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Self::OtherExperiment { .. }
                | Self::BadShard { .. }
                | Self::MissingUnit { .. }
                | Self::Busy { .. }
                | Self::Alive { .. }
                | Self::BadOutput { .. }
                | Self::ResultsChanged { .. }
        )
    }
}

/// The identity of a run from a canonical text of what determines its numbers (e.g. the `Debug`
/// text of the parsed settings, without descriptions and output paths, and the input data):
/// 64-bit FNV-1a of the parts, each followed by a `0xff` separator, in hex. Not cryptographic: it
/// tells runs apart, it does not authenticate.
pub fn identity(parts: &[&[u8]]) -> String {
    let mut hasher = IdentityHasher::default();
    for part in parts {
        hasher.write(part);
        hasher.end_part();
    }
    hasher.finish()
}

/// [`identity`] built part by part, for inputs too large to hold as one byte string (a table
/// written value by value): `write` the bytes of a part, `end_part`, and `finish`.
#[derive(Clone, Copy, Debug)]
pub struct IdentityHasher(u64);

impl Default for IdentityHasher {
    fn default() -> Self {
        Self(FNV_OFFSET)
    }
}

impl IdentityHasher {
    /// Extends the current part by `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a_extend(self.0, bytes);
    }

    /// Ends the current part (the `0xff` separator of [`identity`]).
    pub fn end_part(&mut self) {
        self.write(&[0xff]);
    }

    /// The identity, in hex.
    pub fn finish(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The FNV-1a offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a state `h` extended by `bytes`.
fn fnv1a_extend(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// 64-bit FNV-1a of `bytes` (not cryptographic: it detects damage and tells texts apart).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(FNV_OFFSET, bytes)
}

pub(crate) fn io_error(path: &Path, e: impl fmt::Display) -> RunnerError {
    RunnerError::Io { path: path.to_path_buf(), message: e.to_string() }
}

/// The directory of the unit files.
pub fn units_dir(output: &Path) -> PathBuf {
    output.join("units")
}

/// The file of the unit named `name` in the units directory `dir`: `<name>.toml`.
fn unit_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.toml"))
}

/// Runs `unit` and writes its file at `path` (the caller holds the unit's claim); its rows.
fn compute_unit<E: Experiment>(
    experiment: &E,
    unit: E::Unit,
    (name, path): (&str, &Path),
    identity: &str,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<E::Row>, RunnerError> {
    let rows =
        experiment.run_unit(unit, progress).map_err(|source| RunnerError::Unit { unit: name.to_string(), source })?;
    write_unit(path, UnitId { unit: name, manifest: identity }, &rows)?;
    Ok(rows)
}

/// The units of `experiment` whose unit file is not in its output directory yet, by name, in unit
/// order: what a merge (`lppf run --merge-only`) waits for. A damaged file counts as present here
/// (the run that reads it sets it aside and computes the unit again).
pub fn missing_units<E: Experiment>(experiment: &E) -> Vec<String> {
    let dir = units_dir(&experiment.output_dir());
    experiment
        .units()
        .into_iter()
        .map(|unit| experiment.unit_name(unit))
        .filter(|name| !unit_path(&dir, name).exists())
        .collect()
}

/// What the units already on disk took: `seconds` (as [`Experiment::unit_seconds`] reads them
/// from their rows) for `work` of the experiment's `total_work` ([`Experiment::unit_work`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub units: usize,
    pub seconds: f64,
    pub work: u64,
    pub total_work: u64,
}

impl Measured {
    /// The measured seconds over what `estimate` (core-seconds of the whole experiment) gives
    /// the measured units by their share of the work.
    pub fn ratio_to(&self, estimate: f64) -> Option<f64> {
        let share = estimate * self.work as f64 / self.total_work as f64;
        (share > 0.0 && self.seconds > 0.0 && self.seconds.is_finite()).then(|| self.seconds / share)
    }
}

/// The measured time of the units on disk, read from their files (a file that cannot be read is
/// left out); `None` when none is on disk or the experiment records no time.
pub fn measured<E: Experiment>(experiment: &E) -> Option<Measured> {
    let dir = units_dir(&experiment.output_dir());
    let identity = experiment.identity();
    let mut m = Measured { units: 0, seconds: 0.0, work: 0, total_work: 0 };
    for unit in experiment.units() {
        let work = experiment.unit_work(unit);
        m.total_work = m.total_work.saturating_add(work);
        let name = experiment.unit_name(unit);
        let path = unit_path(&dir, &name);
        if !path.exists() {
            continue;
        }
        let Ok(rows) = read_unit::<E::Row>(&path, UnitId { unit: &name, manifest: &identity }) else { continue };
        if let Some(seconds) = experiment.unit_seconds(&rows) {
            m.units += 1;
            m.seconds += seconds;
            m.work = m.work.saturating_add(work);
        }
    }
    (m.units > 0 && m.total_work > 0).then_some(m)
}

/// Removes every unit claim (`units/*.claim`) and the directory lock (`lppf.lock`) in `output`,
/// returning how many files were removed. For claims left by runs that were killed on other
/// machines (a killed process cannot remove its claims, and a holder on another host cannot be
/// checked): call it only when no run of this manifest is alive anywhere, e.g. when the
/// scheduler shows none of its jobs (`submit.sh` checks every user's). What can be checked is:
/// while any file names a process alive on this host, nothing is removed
/// ([`RunnerError::Alive`]). Unit files are never touched.
pub fn release_claims(output: &Path) -> Result<usize, RunnerError> {
    let dir = units_dir(output);
    let mut files = vec![output.join(LOCK_FILE)];
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries {
                let path = entry.map_err(|e| io_error(&dir, e))?.path();
                if path.extension().is_some_and(|e| e == "claim") {
                    files.push(path);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(&dir, e)),
    }
    let holders: Vec<(PathBuf, String)> =
        files.iter().filter_map(|f| lock::live_local_holder(f).map(|h| (f.clone(), h.to_string()))).collect();
    if !holders.is_empty() {
        return Err(RunnerError::Alive { dir: output.to_path_buf(), holders });
    }
    let mut removed = 0;
    for path in files {
        match std::fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&path, e)),
        }
    }
    Ok(removed)
}

/// Runs every unit (of the shard, if any) not yet on disk (all with `force`) in parallel,
/// persisting each as it finishes, and returns all rows of the run in unit order. A failed unit
/// does not stop the others; the first error (in unit order) is returned after all units ran,
/// and finished units stay on disk for the next run. A unit is claimed (`units/<unit>.claim`)
/// before it is computed; a unit another live run has claimed is left to it, and if its file is
/// still missing when this run is done the result is [`RunnerError::Pending`].
pub fn run<E: Experiment>(
    experiment: &E,
    options: RunOptions,
    observer: &impl Observer<E>,
) -> Result<Vec<E::Row>, RunnerError> {
    if let Some((index, count)) = options.shard
        && index >= count
    {
        return Err(RunnerError::BadShard { index, count });
    }
    let dir = units_dir(&experiment.output_dir());
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    let identity = experiment.identity();
    // Each unit of the run with its rows if its file is on disk (read once, here), `None` if it
    // is to be computed. A damaged unit file is set aside (nothing is deleted) and its unit
    // computed again.
    type Planned<U, R> = (U, String, PathBuf, Option<Vec<R>>);
    let mut units: Vec<Planned<E::Unit, E::Row>> = Vec::new();
    let mut corrupt = 0;
    let all_units = experiment.units();
    for (position, &unit) in all_units.iter().enumerate() {
        if options.shard.is_some_and(|(i, n)| position % n != i) {
            continue;
        }
        let name = experiment.unit_name(unit);
        let path = unit_path(&dir, &name);
        let on_disk = if options.force || !path.exists() {
            None
        } else {
            match read_unit::<E::Row>(&path, UnitId { unit: &name, manifest: &identity }) {
                Ok(rows) => Some(rows),
                Err(RunnerError::CorruptUnit { .. }) => {
                    let mut aside = path.clone().into_os_string();
                    aside.push(".corrupt");
                    std::fs::rename(&path, &aside).map_err(|e| io_error(&path, e))?;
                    corrupt += 1;
                    None
                }
                Err(e) => return Err(e),
            }
        };
        units.push((unit, name, path, on_disk));
    }
    // Pending unit files that killed runs left (exactly the names lppf creates for this run's
    // units, of processes that have ended).
    let names: Vec<String> = units.iter().map(|u| format!("{}.toml", u.1)).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for pending in results::stale_entries_in(&dir, &names) {
        let _ = results::remove_file_if_present(&pending.path);
    }
    let to_compute: Vec<E::Unit> = units.iter().filter(|u| u.3.is_none()).map(|u| u.0).collect();
    observer.start(&Plan {
        units: units.len(),
        corrupt,
        to_compute: to_compute.len(),
        work: to_compute.iter().map(|&u| experiment.unit_work(u)).sum(),
        work_name: experiment.work_name(),
    });
    let progress = || observer.progress();
    let fresh = AtomicUsize::new(0);
    // Per unit: its rows, or (its name and file) when another live run has claimed it.
    type Outcome<R> = Result<Result<Vec<R>, (String, PathBuf)>, RunnerError>;
    let outcomes: Vec<Outcome<E::Row>> = units
        .into_par_iter()
        .map(|(unit, name, path, on_disk)| {
            if let Some(rows) = on_disk {
                observer.unit_done(unit, false, &rows);
                return Ok(Ok(rows));
            }
            let Some(claim) = lock::claim_unit(&path)? else { return Ok(Err((name, path))) };
            // Another run may have finished the unit between the check above and the claim.
            let computed = options.force || !path.exists();
            let rows = if computed {
                let rows = compute_unit(experiment, unit, (&name, &path), &identity, &progress)?;
                fresh.fetch_add(1, Ordering::Relaxed);
                rows
            } else {
                read_unit(&path, UnitId { unit: &name, manifest: &identity })?
            };
            drop(claim);
            observer.unit_done(unit, computed, &rows);
            Ok(Ok(rows))
        })
        .collect();
    let mut all = Vec::new();
    let mut pending = Vec::new();
    for outcome in outcomes {
        match outcome? {
            Ok(rows) => all.extend(rows),
            // Looked at after this run's own unit files are written, so of two runs finishing
            // together at least the later one finds every unit file.
            Err((name, path)) if path.exists() => {
                all.extend(read_unit::<E::Row>(&path, UnitId { unit: &name, manifest: &identity })?)
            }
            Err((name, path)) => {
                let holder =
                    lock::unit_holder(&path).map_or_else(|| "a run that has stopped".into(), |h| h.to_string());
                pending.push((name, holder));
            }
        }
    }
    if let Some((index, count)) = options.shard {
        let share = all_units.len().div_ceil(count);
        let helped = help_other_shards(experiment, (index, count), share.saturating_sub(fresh.into_inner()))?;
        if helped > 0 {
            observer.helped(helped);
        }
    }
    if !pending.is_empty() {
        return Err(RunnerError::Pending { units: pending });
    }
    Ok(all)
}

/// Computes up to `budget` of the units of shards other than `index` of `count` that are not on
/// disk and that no live run has claimed, one at a time on each thread, starting with the units
/// after this shard's first one (so that the tasks of a rerun do not all reach for the same
/// unit); each is claimed first, so two helpers never compute one unit. Returns how many it
/// computed. The units' rows are not returned: the shards' merge reads them from disk.
pub fn help_other_shards<E: Experiment>(
    experiment: &E,
    (index, count): (usize, usize),
    budget: usize,
) -> Result<usize, RunnerError> {
    let dir = units_dir(&experiment.output_dir());
    let identity = experiment.identity();
    let units = experiment.units();
    let others: Vec<E::Unit> =
        (0..units.len()).map(|k| (index + k) % units.len()).filter(|p| p % count != index).map(|p| units[p]).collect();
    let left = AtomicUsize::new(budget);
    let computed: Vec<Result<bool, RunnerError>> = others
        .into_par_iter()
        .with_max_len(1)
        .map(|unit| {
            let name = experiment.unit_name(unit);
            let path = unit_path(&dir, &name);
            if path.exists() || left.load(Ordering::Relaxed) == 0 {
                return Ok(false);
            }
            let Some(claim) = lock::claim_unit(&path)? else { return Ok(false) };
            // Take one unit of the budget, unless the other threads have spent it.
            if path.exists() || left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_err() {
                return Ok(false);
            }
            compute_unit(experiment, unit, (&name, &path), &identity, &|| ())?;
            drop(claim);
            Ok(true)
        })
        .collect();
    let mut helped = 0;
    for outcome in computed {
        helped += usize::from(outcome?);
    }
    Ok(helped)
}
