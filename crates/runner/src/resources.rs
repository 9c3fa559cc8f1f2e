//! What the machine has, and how big numbers read: the memory a run may use (checked before
//! anything proportional to a number the user typed is allocated, by `lppf run` and `lppf fit`)
//! and the texts of bytes and durations in their messages.

/// `40 kB`, `812 MB`, `1.2 GB`, `3.0e6 GB`.
pub fn bytes_text(bytes: f64) -> String {
    match bytes {
        b if b < 1e6 => format!("{:.0} kB", b / 1e3),
        b if b < 1e9 => format!("{:.0} MB", b / 1e6),
        b if b < 1e15 => format!("{:.1} GB", b / 1e9),
        b => format!("{:.1e} GB", b / 1e9),
    }
}

/// `45 s`, `12 min`, `3.5 h`, `1.2e3 days`.
pub fn duration_text(seconds: f64) -> String {
    match seconds {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 3.0 * 86400.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1e} days", s / 86400.0),
    }
}

/// A field of `/proc/meminfo`, bytes; `None` where it cannot be read.
fn meminfo(field: &str) -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// Memory the machine has available for a run (`MemAvailable` of `/proc/meminfo`), bytes;
/// `None` where it cannot be read.
pub fn available_memory() -> Option<f64> {
    meminfo("MemAvailable")
}

/// All the memory the machine has, swap included (`MemTotal + SwapTotal`), bytes: what no run,
/// even one told to go ahead (`--allow-memory`), can exceed. `None` where it cannot be read.
pub fn total_memory() -> Option<f64> {
    Some(meminfo("MemTotal")? + meminfo("SwapTotal").unwrap_or(0.0))
}
