//! `lppf --version` names the commit the binary was built from: `git rev-parse --short=12 HEAD`
//! at build time, or `unknown commit` outside a git checkout (a source archive, `cargo install`
//! from a registry). `LPPF_COMMIT` overrides it, for builds from a tarball whose commit is known.
use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=LPPF_COMMIT");
    let commit = std::env::var("LPPF_COMMIT").ok().or_else(|| {
        let dir = git(&["rev-parse", "--absolute-git-dir"])?;
        // Rebuild when HEAD moves: a new commit rewrites the branch's ref (or packed-refs).
        for file in ["HEAD", "refs/heads", "packed-refs"] {
            let path = Path::new(&dir).join(file);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        git(&["rev-parse", "--short=12", "HEAD"])
    });
    println!("cargo:rustc-env=LPPF_COMMIT={}", commit.unwrap_or_else(|| "unknown commit".to_string()));
}
