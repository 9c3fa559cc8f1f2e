//! Atomic file writes: a pending file created exclusively beside the target (an unpredictable
//! name, `O_CREAT|O_EXCL`: a planted link cannot redirect it; [`crate::pending_file`]), written,
//! flushed, then renamed over the target, so a reader (or a killed writer) sees the old file or
//! the new one, never a part.

use crate::ResultsError;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically (creating the parent directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    write_atomic_with(path, |file| file.write_all(bytes).map_err(|e| ResultsError::new(path, e)))
}

/// Writes `path` atomically from `write`, which streams into a buffered pending file beside it:
/// nothing of the output is held in memory, however large. On an error from `write` or the disk
/// the pending file is removed and `path` is untouched.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), ResultsError>,
) -> Result<(), ResultsError> {
    persist(write_pending_with(path, write)?, path)
}

/// Renames a complete pending file over `path` (the pending file is removed if that fails).
pub fn persist(pending: tempfile::TempPath, path: &Path) -> Result<(), ResultsError> {
    pending.persist(path).map_err(|e| ResultsError::new(path, e.error))
}

/// Writes a complete, synced pending file for `path` from `write` and returns its path, which
/// removes the file when dropped: for a caller that puts it in place by other means than a
/// rename (a release is linked exclusively, `tables::commit_release`). Creates the parent
/// directory.
pub fn write_pending_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), ResultsError>,
) -> Result<tempfile::TempPath, ResultsError> {
    let io = |e: std::io::Error| ResultsError::new(path, e);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let (file, pending) = crate::pending_file(path).map_err(io)?;
    let mut file = std::io::BufWriter::new(file);
    write(&mut file)?;
    file.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
    Ok(pending)
}

/// Writes `bytes` to a new file at exactly `path`, created exclusively (refused if anything,
/// a link included, is at the name), and synced; the returned path removes it when dropped.
/// For a pending file whose name pairs it with another ([`crate::pending_twin`]).
pub fn write_exclusive(path: &Path, bytes: &[u8]) -> Result<tempfile::TempPath, ResultsError> {
    let io = |e: std::io::Error| ResultsError::new(path, e);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    let mut file = options.open(path).map_err(io)?;
    let pending = tempfile::TempPath::try_from_path(path).map_err(|e| {
        let _ = std::fs::remove_file(path);
        io(e)
    })?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(io)?;
    Ok(pending)
}
