//! A release and its sidecar are one thing (issue 31): they are committed together, so that after
//! any kill either both exist or neither does, and two concurrent releases onto one name cannot
//! both succeed (the budget would be spent twice).
//!
//! 1. Both files are written in full (synced) under pending names of this process beside the
//!    target, created exclusively with one random token ([`results::pending_file`],
//!    [`results::pending_twin`]): `.lppf-pending.<pid>.<token>.<release>` and the same with
//!    `.privacy.toml`. A link planted at any name cannot redirect them (issue 53).
//! 2. With `replace`, the old sidecar and then the old release are removed (files only: a
//!    directory at the name is refused, never removed).
//! 3. The release is linked to its name **exclusively** (a hard link refuses an existing name):
//!    a second, concurrent release fails here and removes its pending files.
//! 4. The sidecar is linked to its name exclusively, last: the commit point.
//! 5. The pending names are removed.
//!
//! A kill before 3 leaves only pending files (neither); between 3 and 4 the release, its pending
//! twin (the same file) and the pending sidecar: [`recover_release`], which every command that
//! reads or writes a release runs first, completes that commit (both); after 4, both. Pending
//! files of ended processes are removed — exactly the two names above for this release, nothing
//! else. `lppf fit` runs the recovery before it reads a release and takes the noise levels from
//! the sidecar (a release without one needs the levels stated).

use crate::error::TableError;
use crate::released::{ReleasedTable, write_released_pending};
use crate::sidecar::sidecar_path;
use results::{link_exclusive, pending_twin, remove_file_if_present, same_file, stale_entries};
use std::path::Path;

/// What [`recover_release`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovery {
    /// An interrupted commit of this process id was completed (the release had been linked,
    /// its sidecar not yet).
    pub completed: Option<u32>,
    /// Pending files of ended processes that were removed.
    pub removed: Vec<String>,
}

/// Completes or removes what an ended process left beside `release` (see the module
/// documentation). Safe to run at any time: files of live processes, directories and names
/// lppf did not create are left alone.
pub fn recover_release(release: &Path) -> Result<Recovery, TableError> {
    let sidecar = sidecar_path(release);
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (release_name, sidecar_name) = (name(release), name(&sidecar));
    let mut recovery = Recovery::default();
    let io = |path: &Path, e: std::io::Error| TableError::file(path, format!("cannot recover: {e}"));
    let stale = stale_entries(release, &[&release_name, &sidecar_name]);
    // First complete an interrupted commit (while its pending twin still names the release).
    for pending in stale.iter().filter(|p| p.target == release_name) {
        let Some(pending_sidecar) = pending_twin(&pending.path, &sidecar) else { continue };
        let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
        if is_file(&pending_sidecar) && !sidecar.exists() && same_file(&pending.path, release) {
            link_exclusive(&pending_sidecar, &sidecar).map_err(|e| io(&sidecar, e))?;
            recovery.completed = Some(pending.pid);
        }
    }
    for pending in stale {
        if std::fs::symlink_metadata(&pending.path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        remove_file_if_present(&pending.path).map_err(|e| io(&pending.path, e))?;
        recovery.removed.push(name(&pending.path));
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
    stage_release(release, table, sidecar_text, replace)?.publish()
}

/// A release and its sidecar written in full under their pending names (steps 1 of the module
/// documentation), not yet in place: [`StagedRelease::publish`] puts them there (steps 2–5, a
/// few file-system calls); dropping it instead removes them, and nothing was released.
pub struct StagedRelease {
    release: std::path::PathBuf,
    pending_release: results::TempPath,
    pending_sidecar: results::TempPath,
    replace: bool,
}

/// Step 1 of [`commit_release`]: the two pending files, written and synced.
pub fn stage_release(
    release: &Path,
    table: &ReleasedTable,
    sidecar_text: &str,
    replace: bool,
) -> Result<StagedRelease, CommitError> {
    let sidecar = sidecar_path(release);
    // Dropping the pending paths removes the pending files, on every way out.
    let pending_release = write_released_pending(release, table).map_err(|e| CommitError::Write(e.on(release)))?;
    let pending_sidecar = pending_twin(&pending_release, &sidecar)
        .ok_or_else(|| CommitError::Write(TableError::file(release, "cannot name its pending sidecar")))
        .and_then(|twin| {
            results::write_exclusive(&twin, sidecar_text.as_bytes())
                .map_err(|e| CommitError::Write(TableError::from(e).on(release)))
        })?;
    Ok(StagedRelease { release: release.to_path_buf(), pending_release, pending_sidecar, replace })
}

impl StagedRelease {
    /// Steps 2–5 of [`commit_release`]: the release and then its sidecar linked into place.
    pub fn publish(self) -> Result<(), CommitError> {
        let Self { release, pending_release, pending_sidecar, replace } = self;
        let (release, sidecar) = (release.as_path(), sidecar_path(&release));
        let io = |path: &Path, e: std::io::Error| CommitError::Write(TableError::file(path, e));
        if replace {
            for old in [&sidecar, release] {
                remove_file_if_present(old).map_err(|e| io(old, e))?;
            }
        }
        if let Err(e) = link_exclusive(&pending_release, release) {
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
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                already_there(&sidecar)
            } else {
                io(&sidecar, e)
            });
        }
        Ok(())
    }
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
        results::test_support::scratch_dir("tables-commit", name)
    }

    fn names(dir: &Path) -> Vec<String> {
        results::test_support::sorted_names(dir)
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

    /// The pending name of `path` for an ended process (a pid above pid_max) and a fixed token.
    fn dead_pending(path: &Path) -> std::path::PathBuf {
        let name = path.file_name().unwrap().to_string_lossy();
        path.with_file_name(format!(".lppf-pending.4000000000.abcd1234.{name}"))
    }

    /// The states a kill can leave, made by hand for an ended process.
    #[test]
    fn recovery_completes_an_interrupted_commit_and_removes_the_rest() {
        let dead = 4_000_000_000u32;
        // Killed between linking the release and linking the sidecar: completed.
        let dir = scratch("between");
        let release = dir.join("released.csv");
        let (pr, ps) = (dead_pending(&release), dead_pending(&sidecar_path(&release)));
        crate::write_released(&pr, &table()).unwrap();
        std::fs::write(&ps, "x = 1\n").unwrap();
        std::fs::hard_link(&pr, &release).unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!(r.completed, Some(dead));
        assert_eq!(names(&dir), ["released.csv", "released.csv.privacy.toml"]);
        std::fs::remove_dir_all(&dir).unwrap();
        // Killed while writing: only pending files, all removed (neither).
        let dir = scratch("writing");
        let release = dir.join("released.csv");
        std::fs::write(dead_pending(&release), "row,col,val").unwrap();
        std::fs::write(dead_pending(&sidecar_path(&release)), "x").unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!((r.completed, r.removed.len()), (None, 2));
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        // A pending sidecar beside someone else's release (not linked from ours): removed, and the
        // release is not given a sidecar it never had.
        std::fs::write(&release, "row,col,value\n").unwrap();
        std::fs::write(dead_pending(&sidecar_path(&release)), "x").unwrap();
        let r = recover_release(&release).unwrap();
        assert_eq!(r.completed, None);
        assert_eq!(names(&dir), ["released.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Recovery touches only the exact pending names lppf creates for this release: a user's
    /// files and directories that start with the release's name and end `.<digits>.tmp` (what
    /// earlier versions removed), other targets, and a directory even at a pending name, stay.
    #[test]
    fn recovery_never_removes_a_users_files_or_trees() {
        let dir = scratch("users");
        let release = dir.join("released.csv");
        let keep = [
            "released.csv.4000000000.tmp",
            "released.csv.backup.4000000000.tmp",
            "released.csv-v2.csv",
            ".lppf-pending.4000000000.released.csv",
            ".lppf-pending.4000000000.abcd1234.released.csv.bak",
        ];
        for name in keep {
            std::fs::write(dir.join(name), "mine").unwrap();
        }
        let tree = dir.join("released.csv.notes.4000000000.tmp");
        std::fs::create_dir_all(tree.join("inner")).unwrap();
        std::fs::write(tree.join("inner").join("data.txt"), "mine").unwrap();
        let pending_tree = dead_pending(&release);
        std::fs::create_dir_all(&pending_tree).unwrap();
        std::fs::write(pending_tree.join("data.txt"), "mine").unwrap();
        let before = names(&dir);
        let r = recover_release(&release).unwrap();
        assert_eq!(r, Recovery::default());
        assert_eq!(names(&dir), before);
        assert!(tree.join("inner").join("data.txt").exists() && pending_tree.join("data.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Links planted at the pending names earlier versions used (predictable from the pid) do
    /// not make a release write through them: the target of the link keeps its content and the
    /// release and sidecar are regular files.
    #[cfg(unix)]
    #[test]
    fn planted_links_do_not_redirect_a_release() {
        let dir = scratch("links");
        let release = dir.join("released.csv");
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let pid = std::process::id();
        for name in [
            format!(".lppf-pending.{pid}.released.csv"),
            format!(".lppf-pending.{pid}.released.csv.privacy.toml"),
            format!("released.csv.{pid}.tmp"),
            format!(".lppf-pending.{pid}.released.csv.{pid}.tmp"),
            format!(".lppf-pending.{pid}.released.csv.privacy.toml.{pid}.tmp"),
        ] {
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        }
        commit_release(&release, &table(), "x = 1\n", false).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        for file in [&release, &sidecar_path(&release)] {
            assert!(std::fs::symlink_metadata(file).unwrap().file_type().is_file(), "{}", file.display());
        }
        // A link at the release's own name is refused (not replaced) without --force.
        std::fs::remove_file(&release).unwrap();
        std::fs::remove_file(sidecar_path(&release)).unwrap();
        std::os::unix::fs::symlink(&victim, &release).unwrap();
        assert!(matches!(commit_release(&release, &table(), "x\n", false), Err(CommitError::Exists(_))));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
