//! Helpers shared by the CLI tests that privatize a table and then fit or sweep it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `lppf` with `args`.
pub fn lppf<A: AsRef<OsStr>>(args: impl IntoIterator<Item = A>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lppf")).args(args).output().unwrap()
}

/// A path as `&str` (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// An empty scratch directory `lppf-<test>-<pid>-<name>` under the system's temporary directory,
/// removed when the guard is dropped, unless the test is failing (then it stays, to be read).
// Each test binary compiles this module; not every one uses every helper.
#[allow(dead_code)]
pub fn scratch(test: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("lppf-{test}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// See [`scratch`]: derefs to the directory's path.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

// Each test binary compiles this module; the audit and fuzz tests privatize with flags of their own.
#[allow(dead_code)]
/// `lppf privatize --input counts --output released` plus `extra` (the level, `--seed`,
/// `--square`); panics with the command's stderr if it fails.
pub fn privatize(counts: &Path, released: &Path, extra: &[&str]) {
    let mut args = vec!["privatize", "--input", s(counts), "--output", s(released)];
    args.extend_from_slice(extra);
    let out = lppf(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
