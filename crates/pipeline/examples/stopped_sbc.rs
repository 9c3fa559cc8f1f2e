//! The SBC tests of a run stopped before its last unit: the tests `lppf run` writes to `sbc.csv`
//! (`results::sbc_summary`: the ECDF test with simultaneous bands, the χ² test beside it, Holm's
//! adjustment over the groups), over the fits that finished. `lppf summarize` refuses a run with
//! units missing, since its summary would be of a different sweep; this is for a run stopped on
//! purpose once its verdict was settled, or to look at one still running (docs/calibration.md).
//!
//! Usage:
//! `cargo run --release -p pipeline --example stopped_sbc -- MANIFEST RUN_DIR [OUT_DIR]`
//!
//! reads the unit files in `RUN_DIR/units/` (those of MANIFEST's sweep; a file of another
//! manifest is an error) and writes `sbc-stopped.csv` (the columns of `sbc.csv`) and
//! `sbc-stopped.svg`/`.png` (the ECDF of the ranks minus uniform, with the simultaneous 95 % band)
//! to OUT_DIR (default RUN_DIR). Groups with fewer than 10 finished fits are left out, as in
//! `sbc.csv`.

use pipeline::{FactorizationSweep, load, result_rows};

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(manifest), Some(run_dir)) = (args.get(1), args.get(2)) else {
        return Err("usage: stopped_sbc MANIFEST RUN_DIR [OUT_DIR]".into());
    };
    let run_dir = std::path::Path::new(run_dir);
    let out = args.get(3).map_or(run_dir, |o| std::path::Path::new(o));
    let m = load(manifest.as_ref())?;
    if !m.data.is_sbc_target() {
        return Err(
            format!("{manifest}: its data are not drawn from the prior unselected, so its ranks are no SBC").into()
        );
    }
    let (rows, missing) = runner::collect_finished(&FactorizationSweep(&m), run_dir)?;
    let groups = results::sbc_summary(&result_rows(&m, &rows));
    if groups.is_empty() {
        return Err(format!("{}: no group has 10 finished fits yet", run_dir.display()).into());
    }
    std::fs::create_dir_all(out)?;
    results::write_atomic(&out.join("sbc-stopped.csv"), results::sbc_csv(&groups).as_bytes())?;
    let title = format!("{}: {} fits finished, {} not", m.experiment.name, rows.len(), missing.len());
    runner::write_figure(out, "sbc-stopped", |svg, png| results::plot_sbc(&groups, &title, Some(svg), Some(png)))?;
    for g in &groups {
        let who = g.level.map_or_else(|| g.method.clone(), |l| format!("{} {l}", g.method));
        println!(
            "{who:<14} {:<14} fits {:>3}  ECDF p {:.2e} (Holm {:.2e})  chi2 p {:.2e}  {}",
            g.quantity,
            g.fits,
            g.ecdf.p,
            g.ecdf_p_holm,
            g.p,
            if g.uniform() { "uniform" } else { "NOT UNIFORM" }
        );
    }
    Ok(())
}
