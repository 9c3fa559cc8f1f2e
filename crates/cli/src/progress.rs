//! Progress of a sweep on the terminal: a bar over the Gibbs iterations of the units to compute
//! (units done/total, iterations/s, ETA) and one log line per finished unit. When stderr is not a
//! terminal (batch jobs, CI logs) there is no bar, only the log lines; `--quiet` prints neither.

use indicatif::{ProgressBar, ProgressStyle};
use pipeline::{Manifest, MethodResult, NoiseLevel, Observer, Plan, Unit, UnitDone};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

pub struct Reporter<'a> {
    manifest: &'a Manifest,
    quiet: bool,
    bar: ProgressBar,
    done: AtomicUsize,
    total: AtomicUsize,
    start: Instant,
}

impl<'a> Reporter<'a> {
    pub fn new(manifest: &'a Manifest, quiet: bool) -> Self {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let style =
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg} · {per_sec} · ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
            ProgressBar::new(0).with_style(style.progress_chars("=> "))
        };
        Self { manifest, quiet, bar, done: AtomicUsize::new(0), total: AtomicUsize::new(0), start: Instant::now() }
    }

    /// Removes the bar (the log lines stay).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn log(&self, line: String) {
        if self.quiet {
            return;
        }
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    fn describe(&self, unit: Unit) -> String {
        let data = |d: &pipeline::DataSet| match d.e0 {
            Some(e0) => format!("replication {}, e0 = {e0}", d.replication),
            None => format!("replication {}", d.replication),
        };
        match unit {
            Unit::Reference { dataset } => {
                format!("non-private reference ({})", data(&self.manifest.datasets()[dataset]))
            }
            Unit::Cell { cell } => {
                let c = self.manifest.cells()[cell];
                let level = match c.noise {
                    NoiseLevel::Alpha(a) => format!("α = {a}"),
                    NoiseLevel::Epsilon(e) => format!("ε = {e}"),
                };
                format!("cell {cell} ({}, {level})", data(&c.dataset))
            }
        }
    }
}

fn metrics(rows: &[MethodResult]) -> String {
    rows.iter().map(|r| format!("{} KL {:.4}", r.method.name(), r.mean_kl)).collect::<Vec<_>>().join(", ")
}

impl Observer for Reporter<'_> {
    fn start(&self, plan: &Plan) {
        self.total.store(plan.units, Ordering::Relaxed);
        self.bar.set_length(plan.iterations);
        self.bar.set_message(format!("units 0/{}", plan.units));
        if plan.to_compute < plan.units {
            self.log(format!(
                "{} of {} units already on disk; computing {}",
                plan.units - plan.to_compute,
                plan.units,
                plan.to_compute
            ));
        }
    }

    fn iteration(&self) {
        self.bar.inc(1);
    }

    fn unit_done(&self, done: &UnitDone) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        self.bar.set_message(format!("units {n}/{total}"));
        if done.computed {
            let seconds: f64 = done.rows.iter().map(|r| r.seconds).sum();
            self.log(format!(
                "[{n}/{total}] {}: {} ({seconds:.1} s of chains, {:.0} s elapsed)",
                self.describe(done.unit),
                metrics(&done.rows),
                self.start.elapsed().as_secs_f64()
            ));
        }
    }
}
