//! Atomic file writes: a temporary file in the same directory, flushed, then renamed over the
//! target, so a reader (or a killed writer) sees the old file or the new one, never a part.

use crate::ResultsError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (creating the parent directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    write_atomic_with(path, |file| file.write_all(bytes).map_err(|e| ResultsError::new(path, e)))
}

/// Writes `path` atomically from `write`, which streams into a buffered temporary file beside
/// it: nothing of the output is held in memory, however large. On an error from `write` or the
/// disk the temporary file is removed and `path` is untouched.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), ResultsError>,
) -> Result<(), ResultsError> {
    let io = |e: std::io::Error| ResultsError::new(path, e);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let tmp = temporary_name(path);
    let result = (|| {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        write(&mut file)?;
        let file = file.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `<name>.<pid>.tmp` beside `path`: unique per process, so concurrent shards never share one.
fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}
