//! Progress of a run on the terminal, for every experiment kind: a bar over the work of the units
//! to compute (units done/total, rate, ETA) and one log line per finished unit. When stderr is
//! not a terminal (batch jobs, CI logs) there is no bar, only the log lines; `--quiet` prints
//! neither.

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use runner::{Plan, Progress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

pub struct Reporter {
    quiet: bool,
    bar: ProgressBar,
    done: AtomicUsize,
    total: AtomicUsize,
    /// Units of other shards this shard computed ([`runner::help_other_shards`]).
    helped: AtomicUsize,
    start: Instant,
}

impl Reporter {
    pub fn new(quiet: bool) -> Self {
        let bar = if quiet || !std::io::stderr().is_terminal() { ProgressBar::hidden() } else { ProgressBar::new(0) };
        Self {
            quiet,
            bar,
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            helped: AtomicUsize::new(0),
            start: Instant::now(),
        }
    }

    /// `"; computed 3 unit(s) of other shards"` when this shard helped, else empty: for the
    /// line that ends a shard's run (printed also with `--quiet`, so batch logs say it).
    pub fn helped_note(&self) -> String {
        match self.helped.load(Ordering::Relaxed) {
            0 => String::new(),
            n => format!("; computed {n} unit(s) of other shards that were still missing"),
        }
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
}

/// `x` rounded to three significant digits, without trailing zeros (402, 40.2, 0.402).
fn three_digits(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return "0".into();
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

impl Progress for Reporter {
    fn start(&self, plan: &Plan) {
        self.total.store(plan.units, Ordering::Relaxed);
        // The rate is the kind's work per second (Gibbs/CAVI iterations, runs, replications), to
        // three significant digits (not indicatif's raw `402.1853/s`).
        let work_name = plan.work_name;
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg} · {rate} · ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} {work_name}/s", three_digits(state.per_sec()));
            });
        self.bar.set_style(style.progress_chars("=> "));
        self.bar.set_length(plan.work);
        self.bar.set_message(format!("units 0/{}", plan.units));
        if plan.corrupt > 0 {
            self.log(format!(
                "{} unit file(s) were damaged (cut short or altered), of another unit or of another run (seed, \
                 design or input), or of an earlier version: kept as units/*.toml.corrupt, recomputing",
                plan.corrupt
            ));
        }
        if plan.to_compute < plan.units {
            self.log(format!(
                "{} of {} units already on disk; computing {}",
                plan.units - plan.to_compute,
                plan.units,
                plan.to_compute
            ));
        }
        if plan.to_compute > 0 {
            self.log(
                "each unit is saved as it finishes: if this run is interrupted, the same command resumes it".into(),
            );
        }
    }

    fn progress(&self) {
        self.bar.inc(1);
    }

    fn helped(&self, units: usize) {
        self.helped.store(units, Ordering::Relaxed);
    }

    fn unit_done(&self, unit: &str, computed: bool, rows: &str) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        self.bar.set_message(format!("units {n}/{total}"));
        if computed {
            self.log(format!("[{n}/{total}] {unit}: {rows} ({:.0} s elapsed)", self.start.elapsed().as_secs_f64()));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_have_three_significant_digits() {
        assert_eq!(super::three_digits(402.1853), "402");
        assert_eq!(super::three_digits(40.21853), "40.2");
        assert_eq!(super::three_digits(0.4021853), "0.402");
        assert_eq!(super::three_digits(12345.6), "12346");
        assert_eq!(super::three_digits(f64::NAN), "0");
    }
}
