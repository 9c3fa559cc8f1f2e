//! Output paths that a killed or concurrent command never leaves half-made (issue 31): pending
//! names of this process beside the target, their clean-up once their process is gone, links
//! that refuse to replace, and the one check of an output directory that every command writing
//! a directory uses.
//!
//! A pending file or directory is named `.lppf-pending.<pid>.<name>` beside `<name>`: it holds
//! complete content before anything is renamed or linked into place, and a later command removes
//! (or completes, see `tables::commit_release`) those of processes that have ended.

use std::path::{Path, PathBuf};

/// The prefix of pending names.
const PENDING: &str = ".lppf-pending.";

/// Whether process `pid` has certainly ended: this machine has `/proc` and no `/proc/<pid>`.
/// Where that cannot be told, a process counts as alive (nothing of it is removed).
pub fn process_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether `a` and `b` are the same existing file (after links: device and inode on Unix, the
/// canonical paths elsewhere). A path that does not exist is nobody's file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// `<dir>/.lppf-pending.<pid>.<name>` for `<dir>/<name>`, with this process's id.
pub fn pending_path(path: &Path) -> PathBuf {
    pending_path_of(path, std::process::id())
}

/// The pending name of `path` for process `pid`.
pub fn pending_path_of(path: &Path, pid: u32) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{PENDING}{pid}.{name}"))
}

/// Pending entries beside `path` whose process has ended: `(entry, pid, the name it was for)`,
/// for every name that starts with `path`'s file name (so a release's sidecar is found with the
/// release). Also the `<name>.<pid>.tmp` files of [`crate::write_atomic`] of ended processes,
/// with the name they were for.
pub fn stale_entries(path: &Path) -> Vec<(PathBuf, u32, String)> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { return Vec::new() };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let parsed = if let Some(rest) = file.strip_prefix(PENDING) {
            rest.split_once('.').and_then(|(pid, target)| Some((pid.parse::<u32>().ok()?, target.to_string())))
        } else if let Some(rest) = file.strip_suffix(".tmp") {
            rest.rsplit_once('.').and_then(|(target, pid)| Some((pid.parse::<u32>().ok()?, target.to_string())))
        } else {
            None
        };
        if let Some((pid, target)) = parsed
            && target.starts_with(&name)
            && process_gone(pid)
        {
            stale.push((entry.path(), pid, target));
        }
    }
    stale.sort();
    stale
}

/// Removes a file or a directory tree, ignoring one that is already gone.
pub fn remove_entry(path: &Path) -> std::io::Result<()> {
    let result = if path.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Puts the complete file `from` at `to` only if nothing is there (a hard link, which the file
/// system creates atomically and refuses over an existing name): two processes committing to
/// one name cannot both succeed. `from` keeps its name too.
pub fn link_exclusive(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::hard_link(from, to)
}

/// Why an output directory is refused.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputDirError {
    pub dir: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for OutputDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: cannot be the output directory: it is {}", self.dir.display(), self.reason)
    }
}

impl std::error::Error for OutputDirError {}

/// The one check of an output directory for every command that writes one (`lppf run`, `lppf
/// fit`): refuses an empty path, the file-system root, an existing file that is not a
/// directory, and an existing non-empty directory holding none of `ours` (the names that mark
/// this command's outputs) — the command would scatter its files among someone else's. Returns
/// the directory as resolved (links followed) when it exists.
pub fn check_output_dir(dir: &Path, ours: &[&str], what: &str) -> Result<PathBuf, OutputDirError> {
    let bad = |reason: String| OutputDirError { dir: dir.to_path_buf(), reason };
    if dir.as_os_str().is_empty() {
        return Err(bad("an empty path (it would be the working directory)".into()));
    }
    // The root always exists, so its canonical form is `/` (also for `//`, `/.`, `/..`).
    let resolved = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if resolved.parent().is_none() {
        return Err(bad("the root of the file system".into()));
    }
    if resolved.exists() && !resolved.is_dir() {
        return Err(bad("an existing file that is not a directory".into()));
    }
    let is_ours = ours.iter().any(|name| resolved.join(name).exists());
    let empty = std::fs::read_dir(&resolved).map_or(true, |mut entries| entries.next().is_none());
    if !is_ours && !empty {
        return Err(bad(format!("an existing directory with other files in it and no {what}")));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_names_and_stale_entries() {
        let dir = std::env::temp_dir().join(format!("results-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("released.csv");
        let mine = pending_path(&target);
        assert_eq!(
            mine.file_name().unwrap().to_str().unwrap(),
            format!(".lppf-pending.{}.released.csv", std::process::id())
        );
        // A pid that cannot be alive (above the kernel's pid_max of 2^22).
        let dead = 4_000_000_000u32;
        for name in [
            format!(".lppf-pending.{dead}.released.csv"),
            format!(".lppf-pending.{dead}.released.csv.privacy.toml"),
            format!("released.csv.{dead}.tmp"),
            format!(".lppf-pending.{dead}.other.csv"),
        ] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        std::fs::write(&mine, "x").unwrap();
        let stale: Vec<String> = stale_entries(&target)
            .iter()
            .map(|(p, _, t)| format!("{}>{t}", p.file_name().unwrap().to_string_lossy()))
            .collect();
        assert_eq!(
            stale,
            [
                format!(".lppf-pending.{dead}.released.csv>released.csv"),
                format!(".lppf-pending.{dead}.released.csv.privacy.toml>released.csv.privacy.toml"),
                format!("released.csv.{dead}.tmp>released.csv"),
            ]
        );
        // Exclusive links: the second refuses.
        let a = dir.join("a");
        std::fs::write(&a, "1").unwrap();
        link_exclusive(&a, &dir.join("b")).unwrap();
        assert_eq!(link_exclusive(&a, &dir.join("b")).unwrap_err().kind(), std::io::ErrorKind::AlreadyExists);
        assert!(same_file(&a, &dir.join("b")) && !same_file(&a, &mine) && !same_file(&a, &dir.join("none")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn output_dirs_are_checked_once_for_every_command() {
        for root in ["/", "//", "/.", "/.."] {
            let e = check_output_dir(Path::new(root), &["fit.toml"], "fit").unwrap_err();
            assert!(e.to_string().contains("root of the file system"), "{root}: {e}");
        }
        assert!(check_output_dir(Path::new(""), &[], "fit").unwrap_err().to_string().contains("empty path"));
        let dir = std::env::temp_dir().join(format!("results-outdir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert!(check_output_dir(&dir, &["fit.toml"], "fit").is_ok());
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let e = check_output_dir(&dir, &["fit.toml"], "fit (no fit.toml)").unwrap_err().to_string();
        assert!(e.contains("other files in it and no fit (no fit.toml)"), "{e}");
        std::fs::write(dir.join("fit.toml"), "").unwrap();
        assert!(check_output_dir(&dir, &["fit.toml"], "fit").is_ok());
        let e = check_output_dir(&dir.join("notes.txt"), &[], "fit").unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
