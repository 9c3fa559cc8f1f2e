//! Who owns an output directory, and who computes which unit.
//!
//! - **The directory lock** `<output>/lppf.lock`, created exclusively (`O_EXCL`) when a run
//!   starts and removed when it ends, names its holder: process id, host, and a hash of the
//!   manifest text. A second run of a *different* manifest is refused, naming the holder. A second
//!   run of the *same* manifest shares the directory: it computes only the units nobody holds.
//! - **Unit claims** `<output>/units/<unit>.claim`, created exclusively before a unit is
//!   computed and removed once its unit file is written, so runs sharing a directory (on one
//!   machine, or several machines on a shared file system) never compute a unit twice.
//! - **Stale holders**: a lock or claim whose process is gone (same host, no `/proc/<pid>`) is
//!   taken over; a holder on another host cannot be checked and counts as alive (the message says
//!   which file to delete if that machine's run is dead).

use crate::{RunnerError, io_error};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The directory lock's file name.
pub const LOCK_FILE: &str = "lppf.lock";

/// The holder of a lock or claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    pub host: String,
    /// FNV-1a hash of the manifest text (hex), to tell a run of the same manifest from another.
    pub manifest: String,
}

impl Holder {
    /// This process, running `manifest`.
    fn me(manifest: &str) -> Self {
        Holder { pid: std::process::id(), host: host_name(), manifest: manifest_hash(manifest) }
    }

    fn text(&self) -> String {
        format!("pid = {}\nhost = {:?}\nmanifest = {:?}\n", self.pid, self.host, self.manifest)
    }

    /// Parses [`Holder::text`]; `None` for anything else (e.g. a file still being written).
    fn parse(text: &str) -> Option<Self> {
        let field = |key: &str| {
            text.lines().find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('=')).map(|v| v.trim())
        };
        let unquote = |v: &str| v.strip_prefix('"')?.strip_suffix('"').map(str::to_string);
        Some(Holder {
            pid: field("pid")?.parse().ok()?,
            host: unquote(field("host")?)?,
            manifest: unquote(field("manifest")?)?,
        })
    }

    /// Whether the holder's process has certainly ended: same host and no `/proc/<pid>` (on a
    /// system with `/proc`). A holder on another host counts as alive.
    fn is_gone(&self) -> bool {
        self.host == host_name() && results::process_gone(self.pid)
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}", self.pid, self.host)
    }
}

/// This machine's name (`/proc/sys/kernel/hostname`, `$HOSTNAME`, or `"unknown"`).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// 64-bit FNV-1a of the text, in hex (not cryptographic: it tells manifests apart).
fn manifest_hash(text: &str) -> String {
    format!("{:016x}", crate::fnv1a(text.as_bytes()))
}

/// What [`try_hold`] found.
enum Attempt {
    /// The file is ours now.
    Held,
    /// Someone alive holds it.
    Taken(Holder),
}

/// Creates `path` exclusively with this process as holder; a stale holder's file is replaced.
/// A file that cannot be parsed (being written right now) is read again a few times first.
fn try_hold(path: &Path, me: &Holder) -> Result<Attempt, RunnerError> {
    for _ in 0..50 {
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(mut file) => {
                file.write_all(me.text().as_bytes()).and_then(|()| file.sync_all()).map_err(|e| io_error(path, e))?;
                return Ok(Attempt::Held);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = match std::fs::read_to_string(path) {
                    Ok(text) => text,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(io_error(path, e)),
                };
                match Holder::parse(&text) {
                    Some(holder) if holder.is_gone() => {
                        // A dead run's file: remove it and try again (another run may win the race).
                        let _ = std::fs::remove_file(path);
                    }
                    Some(holder) => return Ok(Attempt::Taken(holder)),
                    None => std::thread::sleep(std::time::Duration::from_millis(20)),
                }
            }
            Err(e) => return Err(io_error(path, e)),
        }
    }
    Err(io_error(path, "cannot be created or read as a lock file; delete it if no lppf run is using the directory"))
}

/// The directory lock, held while a run writes into its output directory. Dropping it removes
/// the lock file if this run created it.
#[derive(Debug)]
#[must_use = "the directory is unlocked when the lock is dropped"]
pub struct DirLock {
    path: PathBuf,
    owned: bool,
}

impl DirLock {
    /// Whether this run created the lock (`false`: it shares the directory with a live run of
    /// the same manifest).
    pub fn owned(&self) -> bool {
        self.owned
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Locks `dir` for a run of `manifest`: creates it and `lppf.lock` in it. A live holder running
/// another manifest is [`RunnerError::Busy`]; one running the same manifest is shared
/// ([`DirLock::owned`] is `false`), unless `exclusive` (e.g. `--force`, which would recompute
/// the units the other run is computing), which refuses it too.
pub fn lock_dir(dir: &Path, manifest: &str, exclusive: bool) -> Result<DirLock, RunnerError> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let path = dir.join(LOCK_FILE);
    let me = Holder::me(manifest);
    match try_hold(&path, &me)? {
        Attempt::Held => Ok(DirLock { path, owned: true }),
        Attempt::Taken(holder) if holder.manifest == me.manifest && !exclusive => Ok(DirLock { path, owned: false }),
        Attempt::Taken(holder) => {
            Err(RunnerError::Busy { dir: dir.to_path_buf(), lock: path, holder: holder.to_string() })
        }
    }
}

/// A unit claim: dropping it removes the claim file.
#[derive(Debug)]
pub(crate) struct UnitClaim(PathBuf);

impl Drop for UnitClaim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The claim file of a unit file.
pub(crate) fn claim_path(unit_file: &Path) -> PathBuf {
    unit_file.with_extension("claim")
}

/// Claims the unit whose file is `unit_file`: `Ok(Some(claim))` if this run may compute it,
/// `Ok(None)` if a live run holds it.
pub(crate) fn claim_unit(unit_file: &Path) -> Result<Option<UnitClaim>, RunnerError> {
    let path = claim_path(unit_file);
    Ok(match try_hold(&path, &Holder::me(""))? {
        Attempt::Held => Some(UnitClaim(path)),
        Attempt::Taken(_) => None,
    })
}

/// The holder named in a lock or claim file if it is a process alive on this host (the one
/// liveness that can be checked; a holder on another host, or a file that cannot be read or
/// parsed, is `None`).
pub(crate) fn live_local_holder(path: &Path) -> Option<Holder> {
    let holder = Holder::parse(&std::fs::read_to_string(path).ok()?)?;
    (holder.host == host_name() && !results::process_gone(holder.pid)).then_some(holder)
}

/// The holder of a unit's claim, if a live run holds it.
pub(crate) fn unit_holder(unit_file: &Path) -> Option<Holder> {
    let text = std::fs::read_to_string(claim_path(unit_file)).ok()?;
    Holder::parse(&text).filter(|h| !h.is_gone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lppf-lock-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn holder_text_round_trips() {
        let h = Holder { pid: 42, host: "node-7.cluster".into(), manifest: manifest_hash("x = 1") };
        assert_eq!(Holder::parse(&h.text()), Some(h));
        assert_eq!(Holder::parse("pid = 4"), None);
        assert_ne!(manifest_hash("a"), manifest_hash("b"));
    }

    #[test]
    fn a_second_lock_is_shared_for_the_same_manifest_and_refused_for_another() {
        let dir = scratch("second");
        let first = lock_dir(&dir, "m1", false).unwrap();
        assert!(first.owned());
        let same = lock_dir(&dir, "m1", false).unwrap();
        assert!(!same.owned());
        let err = lock_dir(&dir, "m2", false).unwrap_err();
        assert!(err.is_bad_input());
        let text = err.to_string();
        assert!(text.contains(&format!("process {}", std::process::id())) && text.contains("lppf.lock"), "{text}");
        assert!(lock_dir(&dir, "m1", true).is_err(), "--force while another run holds the directory");
        drop(same);
        assert!(dir.join(LOCK_FILE).exists(), "only the owner removes the lock");
        drop(first);
        assert!(!dir.join(LOCK_FILE).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `release_claims` refuses while a holder on this host is alive, and then removes nothing;
    /// dead local holders and holders on other hosts (unknowable) are released.
    #[test]
    fn claims_of_a_live_local_run_are_never_released() {
        let dir = scratch("release");
        let units = crate::units_dir(&dir);
        std::fs::create_dir_all(&units).unwrap();
        let alive = Holder::me("m");
        let dead = Holder { pid: u32::MAX - 1, ..alive.clone() };
        let remote = Holder { host: format!("{}-elsewhere", host_name()), ..alive.clone() };
        std::fs::write(units.join("a.claim"), dead.text()).unwrap();
        std::fs::write(units.join("b.claim"), remote.text()).unwrap();
        std::fs::write(units.join("c.claim"), alive.text()).unwrap();
        let err = crate::release_claims(&dir).unwrap_err();
        assert!(err.is_bad_input() && err.to_string().contains("c.claim"), "{err}");
        for name in ["a.claim", "b.claim", "c.claim"] {
            assert!(units.join(name).exists(), "{name} removed although a run is alive");
        }
        // The same with the live run's directory lock instead of a claim.
        std::fs::remove_file(units.join("c.claim")).unwrap();
        std::fs::write(dir.join(LOCK_FILE), alive.text()).unwrap();
        assert!(crate::release_claims(&dir).unwrap_err().to_string().contains(LOCK_FILE));
        std::fs::write(dir.join(LOCK_FILE), dead.text()).unwrap();
        assert_eq!(crate::release_claims(&dir).unwrap(), 3);
        assert!(std::fs::read_dir(&units).unwrap().next().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_dead_holders_lock_and_claims_are_taken_over() {
        let dir = scratch("stale");
        std::fs::create_dir_all(&dir).unwrap();
        // No process has pid u32::MAX − 1 (Linux pids are below 2^22).
        let dead = Holder { pid: u32::MAX - 1, host: host_name(), manifest: manifest_hash("other") };
        std::fs::write(dir.join(LOCK_FILE), dead.text()).unwrap();
        let lock = lock_dir(&dir, "mine", false).unwrap();
        assert!(lock.owned());
        let unit = dir.join("unit0.toml");
        std::fs::write(claim_path(&unit), dead.text()).unwrap();
        assert!(unit_holder(&unit).is_none());
        let claim = claim_unit(&unit).unwrap().unwrap();
        assert!(claim_unit(&unit).unwrap().is_none(), "held by this (live) process");
        assert_eq!(unit_holder(&unit).map(|h| h.pid), Some(std::process::id()));
        drop(claim);
        assert!(!claim_path(&unit).exists());
        // A holder on another host cannot be checked: it counts as alive.
        let remote = Holder { host: format!("{}-elsewhere", host_name()), ..dead };
        std::fs::write(claim_path(&unit), remote.text()).unwrap();
        assert!(claim_unit(&unit).unwrap().is_none());
        drop(lock);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
