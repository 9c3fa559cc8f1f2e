//! Output paths that a killed or concurrent command never leaves half-made, and that nobody else
//! on a shared machine can redirect (issues 31 and 53): pending names beside the target, created
//! exclusively; their clean-up once their process is gone; links that refuse to replace; and the
//! one check of an output directory that every command writing a directory uses.
//!
//! A pending file or directory is named `.lppf-pending.<pid>.<token>.<name>` beside `<name>`:
//! `<token>` is [`TOKEN_LEN`] random letters and digits, and the entry is created with
//! `O_CREAT|O_EXCL` (a directory with `mkdir`), which never follows a link: a file or link that
//! someone planted at a name makes the creation pick another name, so a write can never land in a
//! file it was not meant for. It holds complete content before anything is renamed or linked
//! into place. A later command removes (or completes, see `tables::commit_release`) the pending
//! files of processes that have ended — only entries whose whole name has this form with the
//! exact target name, and only files: a directory is never removed here.

use std::path::{Path, PathBuf};

/// The prefix of pending names.
const PENDING: &str = ".lppf-pending.";
/// The length of a pending name's random token.
pub const TOKEN_LEN: usize = 8;

/// Whether process `pid` has certainly ended: this machine has `/proc` and no `/proc/<pid>`.
/// Where that cannot be told, a process counts as alive (nothing of it is removed).
pub fn process_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// The directory `path` is in (`.` for a bare name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The file name of `path` as text.
fn name_of(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A builder of this process's pending names for `path`: prefix `.lppf-pending.<pid>.`, a random
/// token, suffix `.<name>`; files and directories are created with mode 0666 / 0777 less the
/// umask, as `File::create` and `create_dir` would.
fn pending_builder<'a>(prefix: &'a str, suffix: &'a str, mode: u32) -> tempfile::Builder<'a, 'a> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(suffix).rand_bytes(TOKEN_LEN);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    builder
}

/// The prefix and suffix of this process's pending names for `path`, around the token.
fn pending_affixes(path: &Path) -> (String, String) {
    (format!("{PENDING}{}.", std::process::id()), format!(".{}", name_of(path)))
}

/// Creates a new, empty pending file for `path` beside it, exclusively (see the module
/// documentation); it is removed when the returned path is dropped, unless persisted.
pub fn pending_file(path: &Path) -> std::io::Result<(std::fs::File, tempfile::TempPath)> {
    let (prefix, suffix) = pending_affixes(path);
    Ok(pending_builder(&prefix, &suffix, 0o666).tempfile_in(parent_dir(path))?.into_parts())
}

/// Creates a new, empty pending directory for `path` beside it, exclusively, and returns it (it
/// stays until removed).
pub fn pending_dir(path: &Path) -> std::io::Result<PathBuf> {
    let (prefix, suffix) = pending_affixes(path);
    Ok(pending_builder(&prefix, &suffix, 0o777).tempdir_in(parent_dir(path))?.keep())
}

/// The pending name for `path` with the process id and token of the pending entry `twin` (a
/// release's sidecar beside the release's pending file: a recovery pairs them by the two).
/// `None` if `twin` is not a pending name.
pub fn pending_twin(twin: &Path, path: &Path) -> Option<PathBuf> {
    let pending = parse_pending(&name_of(twin))?;
    Some(parent_dir(path).join(format!("{PENDING}{}.{}.{}", pending.pid, pending.token, name_of(path))))
}

/// A pending entry: what [`stale_entries`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub path: PathBuf,
    pub pid: u32,
    pub token: String,
    /// The name it is to become.
    pub target: String,
}

/// Parses `.lppf-pending.<pid>.<token>.<target>` (the path is left empty).
fn parse_pending(name: &str) -> Option<Pending> {
    let rest = name.strip_prefix(PENDING)?;
    let (pid, rest) = rest.split_once('.')?;
    let (token, target) = rest.split_at_checked(TOKEN_LEN)?;
    let target = target.strip_prefix('.').filter(|t| !t.is_empty())?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some(Pending { path: PathBuf::new(), pid: pid.parse().ok()?, token: token.to_string(), target: target.to_string() })
}

/// The pending entries in `path`'s directory of processes that have ended and whose target is
/// exactly one of `targets` (file names in that directory), in name order. Nothing else lppf
/// did not create matches: the whole name must have the pending form.
pub fn stale_entries(path: &Path, targets: &[&str]) -> Vec<Pending> {
    stale_entries_in(&parent_dir(path), targets)
}

/// [`stale_entries`] of the directory `dir`.
pub fn stale_entries_in(dir: &Path, targets: &[&str]) -> Vec<Pending> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut stale: Vec<Pending> = entries
        .flatten()
        .filter_map(|entry| {
            let pending = parse_pending(&entry.file_name().to_string_lossy())?;
            (targets.contains(&pending.target.as_str()) && process_gone(pending.pid))
                .then(|| Pending { path: entry.path(), ..pending })
        })
        .collect();
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    stale
}

/// Removes a file (or a link: never what it points to), ignoring one that is already gone. A
/// directory is refused (`EISDIR`-like error), never removed.
pub fn remove_file_if_present(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "a directory, which lppf never removes"));
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
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
        let (_, mine) = pending_file(&target).unwrap();
        let name = mine.file_name().unwrap().to_str().unwrap().to_string();
        let parsed = parse_pending(&name).unwrap();
        assert_eq!((parsed.pid, parsed.target.as_str()), (std::process::id(), "released.csv"), "{name}");
        assert_eq!(parsed.token.len(), TOKEN_LEN);
        let twin = pending_twin(&mine, &dir.join("released.csv.privacy.toml")).unwrap();
        let twin_name = twin.file_name().unwrap().to_str().unwrap();
        assert_eq!(twin_name, format!(".lppf-pending.{}.{}.released.csv.privacy.toml", parsed.pid, parsed.token));
        // A pid that cannot be alive (above the kernel's pid_max of 2^22).
        let dead = 4_000_000_000u32;
        for name in [
            format!(".lppf-pending.{dead}.abcd1234.released.csv"),
            format!(".lppf-pending.{dead}.abcd1234.released.csv.privacy.toml"),
            // Not lppf's: another target, an old-style name, a short token, a user's .tmp file.
            format!(".lppf-pending.{dead}.abcd1234.other.csv"),
            format!(".lppf-pending.{dead}.released.csv"),
            format!(".lppf-pending.{dead}.abc.released.csv"),
            format!("released.csv.{dead}.tmp"),
            format!("released.csv.backup.{dead}.tmp"),
        ] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        let stale: Vec<String> = stale_entries(&target, &["released.csv", "released.csv.privacy.toml"])
            .iter()
            .map(|p| format!("{}>{}", p.path.file_name().unwrap().to_string_lossy(), p.target))
            .collect();
        assert_eq!(
            stale,
            [
                format!(".lppf-pending.{dead}.abcd1234.released.csv>released.csv"),
                format!(".lppf-pending.{dead}.abcd1234.released.csv.privacy.toml>released.csv.privacy.toml"),
            ]
        );
        // Exclusive links: the second refuses.
        let a = dir.join("a");
        std::fs::write(&a, "1").unwrap();
        link_exclusive(&a, &dir.join("b")).unwrap();
        assert_eq!(link_exclusive(&a, &dir.join("b")).unwrap_err().kind(), std::io::ErrorKind::AlreadyExists);
        assert!(same_file(&a, &dir.join("b")) && !same_file(&a, &mine) && !same_file(&a, &dir.join("none")));
        // Directories are never removed; files and links are (a link, not what it points to).
        std::fs::create_dir(dir.join("tree")).unwrap();
        assert!(remove_file_if_present(&dir.join("tree")).is_err() && dir.join("tree").is_dir());
        assert!(remove_file_if_present(&dir.join("none")).is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&a, dir.join("link")).unwrap();
            remove_file_if_present(&dir.join("link")).unwrap();
            assert!(a.exists());
        }
        drop(mine);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A link planted at every name this process could predict changes nothing: pending files
    /// and directories are created exclusively under random names, and an atomic write replaces
    /// a link at the target instead of writing through it.
    #[cfg(unix)]
    #[test]
    fn planted_links_are_never_followed() {
        let dir = std::env::temp_dir().join(format!("results-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let target = dir.join("out.csv");
        // The names earlier versions used, and this process's pending prefix with every short token.
        let pid = std::process::id();
        for name in [format!("out.csv.{pid}.tmp"), format!(".lppf-pending.{pid}.out.csv")] {
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        }
        for _ in 0..20 {
            crate::write_atomic(&target, b"new").unwrap();
        }
        std::os::unix::fs::symlink(&victim, dir.join("link.csv")).unwrap();
        crate::write_atomic(&dir.join("link.csv"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(dir.join("link.csv")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let pending = pending_dir(&target).unwrap();
        assert!(pending.is_dir() && parse_pending(&name_of(&pending)).is_some_and(|p| p.target == "out.csv"));
        // A planted twin name makes the exclusive write fail instead of following the link.
        let (_, file) = pending_file(&target).unwrap();
        let twin = pending_twin(&file, &dir.join("out.csv.privacy.toml")).unwrap();
        std::os::unix::fs::symlink(&victim, &twin).unwrap();
        assert!(crate::write_exclusive(&twin, b"x").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
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

/// Helpers for the tests of crates that write outputs (not part of the API).
#[doc(hidden)]
pub mod test_support {
    use std::path::{Path, PathBuf};

    /// A new, empty directory `<prefix>-<pid>-<name>` under the system's temporary directory.
    pub fn scratch_dir(prefix: &str, name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    /// The names in `dir`, sorted.
    pub fn sorted_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("a readable directory")
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}
