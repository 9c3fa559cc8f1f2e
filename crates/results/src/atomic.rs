//! Atomic file writes: a temporary file in the same directory, flushed, then renamed over the
//! target, so a reader (or a killed writer) sees the old file or the new one, never a part.

use crate::ResultsError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (creating the parent directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let io = |e: std::io::Error| ResultsError::new(path, e);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let tmp = temporary_name(path);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// `<name>.<pid>.tmp` beside `path`: unique per process, so concurrent shards never share one.
fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}
