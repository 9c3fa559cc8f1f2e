//! The fit directory: whole or absent after any kill, and replaced (`--force`) file by file, so
//! that what a user keeps there (a `score.toml`, notes) survives a new fit (issues 31 and 53).
//!
//! A fit is written in full into a pending directory beside the output, created exclusively
//! under an unpredictable name ([`results::pending_dir`]), and marked complete ([`COMPLETE`],
//! which lists the files the fit wrote).
//! Then:
//! - a new (or empty) output: the marker is removed and the pending directory renamed into place;
//! - an existing fit: its `fit.toml` is removed first (the directory stops being a fit), each
//!   file the new fit wrote is renamed over its old twin, each file of the old fit that the new
//!   one does not write (a figure, say) is removed, `fit.toml` is renamed in last (the commit
//!   point) and the empty pending directory removed. Names a fit never writes are not touched.
//!
//! A kill in between leaves the pending directory of an ended process: the next `lppf fit` onto
//! the output completes the move if the marker is there, else discards the pending directory —
//! only the files a fit writes, and the directory itself only if that empties it.

use crate::{CHECK_FIGURES, FIT_FILE, FitError, OUTPUT_FILES};
use std::path::Path;

/// Marks a pending fit directory whose every file is written; holds their names, one a line.
const COMPLETE: &str = ".lppf-complete";

/// Every name a fit may write.
fn fit_files() -> impl Iterator<Item = &'static str> {
    OUTPUT_FILES.into_iter().chain(CHECK_FIGURES)
}

fn io(path: &Path, e: impl std::fmt::Display) -> FitError {
    FitError::Output(format!("{}: {e}", path.display()))
}

fn is_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Before a fit: completes or discards what a killed fit left beside `output`, then refuses an
/// output that is not a place for one ([`results::check_output_dir`]: the root, a file, someone
/// else's non-empty directory), or that holds a fit already (unless `force`).
pub(crate) fn prepare_output(output: &Path, force: bool) -> Result<(), FitError> {
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for pending in results::stale_entries(output, &[&name]) {
        if !is_dir(&pending.path) {
            continue;
        }
        if pending.path.join(COMPLETE).is_file() {
            finish(&pending.path, output)?;
            eprintln!("{}: completed the fit that a stopped `lppf fit` was putting in place", output.display());
        } else {
            discard(&pending.path);
        }
    }
    results::check_output_dir(output, &[FIT_FILE], "fit (no fit.toml)").map_err(|e| FitError::Input(e.to_string()))?;
    if output.join(FIT_FILE).exists() && !force {
        return Err(FitError::Input(format!(
            "{}: already holds a fit (fit.toml); pass --force to replace it or choose another --output",
            output.display()
        )));
    }
    Ok(())
}

/// Removes a pending fit directory that will not be completed: the files a fit writes (and the
/// marker), then the directory if that empties it. Anything else in it stays.
fn discard(pending: &Path) {
    for name in fit_files().chain([COMPLETE]) {
        let _ = results::remove_file_if_present(&pending.join(name));
    }
    let _ = std::fs::remove_dir(pending);
}

/// Puts the complete fit in `pending` at `output` (see the module documentation). The marker's
/// list says which files are the new fit's, also after a kill moved some of them already.
fn finish(pending: &Path, output: &Path) -> Result<(), FitError> {
    let marker = pending.join(COMPLETE);
    let listed = std::fs::read_to_string(&marker).map_err(|e| io(&marker, e))?;
    let written: Vec<&str> = listed.lines().collect();
    let empty = std::fs::read_dir(output).map_or(true, |mut entries| entries.next().is_none());
    if empty {
        std::fs::remove_file(&marker).map_err(|e| io(&marker, e))?;
        return std::fs::rename(pending, output).map_err(|e| io(output, e));
    }
    results::remove_file_if_present(&output.join(FIT_FILE)).map_err(|e| io(&output.join(FIT_FILE), e))?;
    for name in fit_files().filter(|&n| n != FIT_FILE) {
        let (new, old) = (pending.join(name), output.join(name));
        if !written.contains(&name) {
            results::remove_file_if_present(&old).map_err(|e| io(&old, e))?;
        } else if new.is_file() {
            std::fs::rename(&new, &old).map_err(|e| io(&old, e))?;
        }
    }
    let fit = output.join(FIT_FILE);
    std::fs::rename(pending.join(FIT_FILE), &fit).map_err(|e| io(&fit, e))?;
    std::fs::remove_file(&marker).map_err(|e| io(&marker, e))?;
    std::fs::remove_dir(pending).map_err(|e| io(pending, e))
}

/// Writes a fit with `write` into a pending directory beside `output` and puts it in place (see
/// the module documentation): `output` holds a whole fit or none, and an existing fit's
/// directory keeps every file that is not a fit's.
pub(crate) fn commit_fit(output: &Path, write: impl FnOnce(&Path) -> Result<(), FitError>) -> Result<(), FitError> {
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    let pending = results::pending_dir(output).map_err(|e| io(output, e))?;
    let written = write(&pending).and_then(|()| {
        let names: String = fit_files().filter(|n| pending.join(n).is_file()).map(|n| format!("{n}\n")).collect();
        if !names.lines().any(|n| n == FIT_FILE) {
            return Err(io(&pending, "the fit wrote no fit.toml"));
        }
        let marker =
            results::write_exclusive(&pending.join(COMPLETE), names.as_bytes()).map_err(|e| io(&pending, e))?;
        marker.keep().map(drop).map_err(|e| io(&pending, e))
    });
    if let Err(e) = written {
        discard(&pending);
        return Err(e);
    }
    finish(&pending, output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        results::test_support::scratch_dir("analysis-fit-dir", name)
    }

    fn names(dir: &Path) -> Vec<String> {
        results::test_support::sorted_names(dir)
    }

    /// A fake fit: `fit.toml` saying `which`, a summary, and the figure only if `figure`.
    fn fake_fit(which: &'static str, figure: bool) -> impl FnOnce(&Path) -> Result<(), FitError> {
        move |dir: &Path| {
            std::fs::write(dir.join(FIT_FILE), which).unwrap();
            std::fs::write(dir.join("summary.txt"), which).unwrap();
            if figure {
                std::fs::write(dir.join("figure.png"), which).unwrap();
            }
            Ok(())
        }
    }

    /// `--force` replaces the fit's files, removes the old fit's files the new one does not
    /// write, and keeps everything else in the directory (files and folders).
    #[test]
    fn force_replaces_only_a_fits_files() {
        let dir = scratch("force");
        let output = dir.join("fit");
        commit_fit(&output, fake_fit("one", true)).unwrap();
        assert_eq!(names(&output), ["figure.png", "fit.toml", "summary.txt"]);
        std::fs::write(output.join("score.toml"), "mine").unwrap();
        std::fs::create_dir(output.join("notes")).unwrap();
        std::fs::write(output.join("notes").join("n.md"), "mine").unwrap();
        assert!(prepare_output(&output, false).is_err());
        prepare_output(&output, true).unwrap();
        commit_fit(&output, fake_fit("two", false)).unwrap();
        assert_eq!(names(&output), ["fit.toml", "notes", "score.toml", "summary.txt"]);
        assert_eq!(std::fs::read_to_string(output.join(FIT_FILE)).unwrap(), "two");
        assert_eq!(std::fs::read_to_string(output.join("score.toml")).unwrap(), "mine");
        assert!(output.join("notes").join("n.md").exists());
        assert_eq!(names(&dir), ["fit"], "no pending directory is left");
        // A failed write leaves the old fit whole and no pending directory.
        let failed = commit_fit(&output, |d: &Path| {
            std::fs::write(d.join("summary.txt"), "three").unwrap();
            Err(FitError::Output("disk full".into()))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(output.join("summary.txt")).unwrap(), "two");
        assert_eq!(names(&dir), ["fit"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The states a kill can leave (made by hand for an ended process): a complete pending fit is
    /// put in place by the next fit's preparation, an incomplete one discarded (its fit files
    /// only: a user's file in it, and so the directory, stay).
    #[test]
    fn a_killed_commit_is_completed_or_discarded() {
        let dir = scratch("killed");
        let output = dir.join("fit");
        commit_fit(&output, fake_fit("one", true)).unwrap();
        std::fs::write(output.join("score.toml"), "mine").unwrap();
        // Killed after the old fit.toml was removed and the summary moved.
        let pending = dir.join(".lppf-pending.4000000000.abcd1234.fit");
        std::fs::create_dir(&pending).unwrap();
        fake_fit("two", false)(&pending).unwrap();
        std::fs::write(pending.join(COMPLETE), "fit.toml\nsummary.txt\n").unwrap();
        std::fs::remove_file(output.join(FIT_FILE)).unwrap();
        std::fs::rename(pending.join("summary.txt"), output.join("summary.txt")).unwrap();
        prepare_output(&output, true).unwrap();
        assert_eq!(names(&output), ["fit.toml", "score.toml", "summary.txt"]);
        assert_eq!(std::fs::read_to_string(output.join(FIT_FILE)).unwrap(), "two");
        assert_eq!(names(&dir), ["fit"]);
        // Killed while writing: discarded; a stranger's file in it keeps the directory.
        std::fs::create_dir(&pending).unwrap();
        std::fs::write(pending.join("rates.parquet"), "partial").unwrap();
        std::fs::write(pending.join("mine.txt"), "mine").unwrap();
        prepare_output(&output, true).unwrap();
        assert_eq!(names(&pending), ["mine.txt"]);
        assert_eq!(std::fs::read_to_string(output.join(FIT_FILE)).unwrap(), "two");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
