//! Redraws a run's SBC figure, the ECDF plots of its ranks (`sbc.png`/`sbc.svg`, as `lppf run` draws it:
//! [`results::plot_sbc`]) from its `results.parquet` alone, for committed evidence whose unit
//! files are gone (`lppf plot` redraws from unit files). The title is the run's name.
//!
//! Usage: `cargo run -p results --example sbc_figure -- RUN/results.parquet NAME OUT.png`

use results::{plot_sbc, read_results, sbc_summary};
use std::path::Path;

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(name), Some(output)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err("usage: sbc_figure RUN/results.parquet NAME OUT.png".into());
    };
    let groups = sbc_summary(&read_results(input.as_ref())?);
    if groups.is_empty() {
        return Err(format!("{input}: no SBC ranks (not a run on data from the prior with Gibbs fits)").into());
    }
    plot_sbc(&groups, name, None, Some(Path::new(output)))?;
    eprintln!("wrote {output}");
    Ok(())
}
