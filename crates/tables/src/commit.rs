//! A release and its sidecar are one thing (issue 31): they are committed together, so that after
//! any kill either both exist or neither does, and two concurrent releases onto one name cannot
//! both succeed (the budget would be spent twice).
//!
//! 1. Both files are written in full (synced) under pending names of this process beside the
//!    target ([`results::pending_path`]).
//! 2. With `replace`, the old sidecar and then the old release are removed.
//! 3. The release is linked to its name **exclusively** (a hard link refuses an existing name):
//!    a second, concurrent release fails here and removes its pending files.
//! 4. The sidecar is linked to its name exclusively, last: the commit point.
//! 5. The pending names are removed.
//!
//! A kill before 3 leaves only pending files (neither); between 3 and 4 the release, its pending
//! twin (the same file) and the pending sidecar: [`recover_release`], which every command that
//! reads or writes a release runs first, completes that commit (both); after 4, both. Pending
//! files of ended processes are removed. `lppf fit` runs the recovery before it reads a release
//! and takes the noise levels from the sidecar (a release without one needs the levels stated).

use crate::error::TableError;
use crate::released::{ReleasedTable, write_released};
use crate::sidecar::sidecar_path;
use results::{link_exclusive, pending_path, pending_path_of, remove_entry, same_file, stale_entries};
use std::path::Path;

/// What [`recover_release`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovery {
    /// An interrupted commit of this process id was completed (the release had been linked,
    /// its sidecar not yet).
    pub completed: Option<u32>,
    /// Pending or temporary files of ended processes that were removed.
    pub removed: Vec<String>,
}

/// Completes or removes what an ended process left beside `release` (see the module
/// documentation). Safe to run at any time: files of live processes are left alone.
pub fn recover_release(release: &Path) -> Result<Recovery, TableError> {
    let sidecar = sidecar_path(release);
    let mut recovery = Recovery::default();
    let io = |path: &Path, e: std::io::Error| TableError::file(path, format!("cannot recover: {e}"));
    let stale = stale_entries(release);
    // First complete an interrupted commit (while its pending twin still names the release).
    for &(_, pid, _) in &stale {
        let (pending_release, pending_sidecar) = (pending_path_of(release, pid), pending_path_of(&sidecar, pid));
        if pending_sidecar.exists() && !sidecar.exists() && same_file(&pending_release, release) {
            link_exclusive(&pending_sidecar, &sidecar).map_err(|e| io(&sidecar, e))?;
            recovery.completed = Some(pid);
        }
    }
    for (entry, _, _) in stale {
        remove_entry(&entry).map_err(|e| io(&entry, e))?;
        recovery.removed.push(entry.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    }
    Ok(recovery)
}

/// Why [`commit_release`] did not commit.
#[derive(Debug)]
pub enum CommitError {
    /// A release or sidecar is already at the name (and `replace` was not asked, or another
    /// process committed first). Nothing of this release was left behind.
    Exists(String),
    /// Writing failed (disk full, permissions): nothing of this release was left behind.
    Write(TableError),
}

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Exists(m) => f.write_str(m),
            Self::Write(e) => write!(f, "{e}"),
        }
    }
}

/// The refusal of a second release onto a name.
fn already_there(path: &Path) -> CommitError {
    CommitError::Exists(format!(
        "{}: a release is already there; a second release of the same counts spends the budget again \
         (pass --force to replace it)",
        path.display()
    ))
}

/// Refuses `release` if it or its sidecar exists (before the work of a release that
/// [`commit_release`] would refuse anyway).
pub fn check_release_free(release: &Path) -> Result<(), CommitError> {
    if release.exists() || sidecar_path(release).exists() { Err(already_there(release)) } else { Ok(()) }
}

/// Writes `table` to `release` and `sidecar_text` to its sidecar as one commit (see the module
/// documentation). Without `replace`, an existing release or sidecar at the name is refused.
pub fn commit_release(
    release: &Path,
    table: &ReleasedTable,
    sidecar_text: &str,
    replace: bool,
) -> Result<(), CommitError> {
    let sidecar = sidecar_path(release);
    let (pending_release, pending_sidecar) = (pending_path(release), pending_path(&sidecar));
    let cleanup = || {
        let _ = remove_entry(&pending_release);
        let _ = remove_entry(&pending_sidecar);
    };
    let write = write_released(&pending_release, table)
        .and_then(|()| results::write_atomic(&pending_sidecar, sidecar_text.as_bytes()).map_err(TableError::from));
    if let Err(e) = write {
        cleanup();
        return Err(CommitError::Write(TableError { file: release.to_path_buf(), ..e }));
    }
    let io = |path: &Path, e: std::io::Error| CommitError::Write(TableError::file(path, e));
    if replace {
        for old in [&sidecar, release] {
            if let Err(e) = remove_entry(old) {
                cleanup();
                return Err(io(old, e));
            }
        }
    }
    if let Err(e) = link_exclusive(&pending_release, release) {
        cleanup();
        return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
            already_there(release)
        } else {
            io(release, e)
        });
    }
    if let Err(e) = link_exclusive(&pending_sidecar, &sidecar) {
        // The release at the name is ours (just linked): take it back, so neither remains.
        if same_file(release, &pending_release) {
            let _ = std::fs::remove_file(release);
        }
        cleanup();
        return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
            already_there(&sidecar)
        } else {
            io(&sidecar, e)
        });
    }
    cleanup();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Labels;

    fn table() -> ReleasedTable {
        let labels = Labels::from_names(["a".to_string(), "b".to_string()]);
        ReleasedTable::grid(labels.clone(), labels, vec![1, -2, 0, 3])
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tables-commit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_commit_is_exclusive_and_leaves_no_pending_files() {
        let dir = scratch("exclusive");
        let release = dir.join("released.csv");
        commit_release(&release, &table(), "x = 1\n", false).unwrap();
        assert_eq!(names(&dir), ["released.csv", "released.csv.privacy.toml"]);
        let e = commit_release(&release, &table(), "x = 2\n", false).unwrap_err();
        assert!(matches!(e, CommitError::Exists(_)), "{e}");
        assert_eq!(std::fs::read_to_string(sidecar_path(&release)).unwrap(), "x = 1\n");
        assert_eq!(names(&dir), ["released.csv", "released.csv.privacy.toml"]);
        // A sidecar alone (someone else's) also refuses, and nothing of ours stays.
        std::fs::remove_file(&release).unwrap();
        let e = commit_release(&release, &table(), "x = 3\n", false).unwrap_err();
        assert!(matches!(e, CommitError::Exists(_)), "{e}");
        assert_eq!(names(&dir), ["released.csv.privacy.toml"]);
        commit_release(&release, &table(), "x = 4\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(sidecar_path(&release)).unwrap(), "x = 4\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The states a kill can leave, made by hand for an ended process (a pid above pid_max).
    #[test]
    fn recovery_completes_an_interrupted_commit_and_removes_the_rest() {
        let dead = 4_000_000_000u32;
        // Killed between linking the release and linking the sidecar: completed.
        let dir = scratch("between");
        let release = dir.join("released.csv");
        let (pr, ps) = (pending_path_of(&release, dead), pending_path_of(&sidecar_path(&release), dead));
        write_released(&pr, &table()).unwrap();
        std::fs::write(&ps, "x = 1\n").unwrap();
        std::fs::hard_link(&pr, &release).unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!(r.completed, Some(dead));
        assert_eq!(names(&dir), ["released.csv", "released.csv.privacy.toml"]);
        std::fs::remove_dir_all(&dir).unwrap();
        // Killed while writing: only pending and temporary files, all removed (neither).
        let dir = scratch("writing");
        let release = dir.join("released.csv");
        std::fs::write(pending_path_of(&release, dead), "row,col,val").unwrap();
        std::fs::write(dir.join(format!(".lppf-pending.{dead}.released.csv.privacy.toml.{dead}.tmp")), "x").unwrap();
        std::fs::write(dir.join(format!("released.csv.{dead}.tmp")), "x").unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!((r.completed, r.removed.len()), (None, 3));
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        // A pending sidecar beside someone else's release (not linked from ours): removed, and the
        // release is not given a sidecar it never had.
        std::fs::write(&release, "row,col,value\n").unwrap();
        std::fs::write(pending_path_of(&sidecar_path(&release), dead), "x").unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!(r.completed, None);
        assert_eq!(names(&dir), ["released.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
