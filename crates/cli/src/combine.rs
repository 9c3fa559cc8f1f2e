//! `lppf combine`: per-person releases (each person privatized their own rows, with their own
//! level) assembled into one release whose sidecar states every row's `α` — what `lppf fit`
//! reads. Nothing is re-noised: the values are copied. Refused: a row in two releases
//! (overlapping cells), column labels that differ, releases at different precisions or by
//! different mechanisms, and a release without its sidecar.

use crate::{Failure, bad_input, failed};
use std::path::PathBuf;
use tables::{Labels, PrivacySidecar, ReleasedTable, read_released, recover_release, sidecar_path};

#[derive(clap::Args)]
pub struct CombineArgs {
    /// The releases to combine (each with its <release>.privacy.toml), in the order their rows
    /// go in the combined release. Every release has the same column labels (in any order).
    #[arg(long, num_args = 1.., required = true, value_name = "RELEASE")]
    inputs: Vec<PathBuf>,
    /// Where to write the combined release (row,col,value; CSV, TSV or Parquet by extension) and
    /// its sidecar.
    #[arg(long)]
    output: PathBuf,
    /// Replace an existing release at --output.
    #[arg(long)]
    force: bool,
}

pub fn combine(args: &CombineArgs) -> Result<(), Failure> {
    // The same file however it is named (`./a.csv`, a link to it), or the same path.
    if let Some(same) = args.inputs.iter().find(|p| **p == args.output || results::same_file(p, &args.output)) {
        return Err(bad_input(format!("--output {} is one of the --inputs", same.display())));
    }
    let mut rows = Labels::default();
    let mut cols: Option<Labels> = None;
    let mut values = Vec::new();
    let (mut stated, mut first): (Vec<tables::StatedLevel>, Option<PrivacySidecar>) = (Vec::new(), None);
    let (mut private, mut randomness) = (true, Vec::<String>::new());
    let mut owner: Vec<usize> = Vec::new();
    for (k, path) in args.inputs.iter().enumerate() {
        recover_release(path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
        let sidecar_file = sidecar_path(path);
        // An undirected release (each pair once, by one of its two people) has no rows of its own
        // to combine: refused before reading it as a grid.
        if sidecar_file.exists() && PrivacySidecar::load(&sidecar_file).is_ok_and(|s| s.symmetric) {
            return Err(bad_input(format!(
                "{}: is an undirected release (--symmetric); lppf combine assembles releases of rows, each \
                 person's own, and an undirected network's pairs are not split by rows",
                path.display()
            )));
        }
        let table = read_released(path).map_err(bad_input)?;
        if !sidecar_file.exists() {
            return Err(bad_input(format!(
                "{}: no sidecar {}; combine releases made by lppf privatize, each with its levels",
                path.display(),
                sidecar_file.display()
            )));
        }
        let sidecar = PrivacySidecar::load(&sidecar_file).map_err(bad_input)?;
        if (sidecar.rows, sidecar.cols) != (table.rows.len(), table.cols.len()) {
            return Err(bad_input(format!(
                "{}: states a {} × {} grid but {} has {} × {}",
                sidecar_file.display(),
                sidecar.rows,
                sidecar.cols,
                path.display(),
                table.rows.len(),
                table.cols.len()
            )));
        }
        let levels = sidecar.levels(&sidecar_file, &table.rows).map_err(bad_input)?;
        if let Some(f) = &first {
            let differs = |what: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
                bad_input(format!(
                    "{}: {what} {b}, but {} has {a}; combine releases made alike",
                    sidecar_file.display(),
                    args.inputs[0].display()
                ))
            };
            if f.precision != sidecar.precision {
                return Err(differs("precision", &f.precision, &sidecar.precision));
            }
            if f.mechanism != sidecar.mechanism {
                return Err(differs("mechanism", &f.mechanism, &sidecar.mechanism));
            }
        }
        private &= sidecar.private;
        if !randomness.contains(&sidecar.randomness) {
            randomness.push(sidecar.randomness.clone());
        }
        // Columns: the first release's order; the others' values are placed by label.
        let order: Vec<usize> = match &cols {
            None => (0..table.cols.len()).collect(),
            Some(c) => {
                let missing = c.names.iter().find(|l| table.cols.get(l).is_none());
                let extra = table.cols.names.iter().find(|l| c.get(l).is_none());
                if let Some(label) = missing.or(extra) {
                    return Err(bad_input(format!(
                        "{}: the column labels differ from those of {} (e.g. {label:?}); every release needs the \
                         same grid of columns",
                        path.display(),
                        args.inputs[0].display()
                    )));
                }
                c.names.iter().filter_map(|l| table.cols.get(l)).collect()
            }
        };
        let width = table.cols.len();
        for (i, name) in table.rows.names.iter().enumerate() {
            if !rows.insert_new(name) {
                let other = &args.inputs[owner[rows.get(name).unwrap_or(0)]];
                return Err(bad_input(format!(
                    "{}: row {name:?} is also in {}: the releases overlap; combine releases of different rows",
                    path.display(),
                    other.display()
                )));
            }
            owner.push(k);
            values.extend(order.iter().map(|&j| table.values[i * width + j]));
            if values.len() > tables::MAX_CELLS {
                return Err(bad_input(format!("the combined release exceeds {} cells", tables::MAX_CELLS)));
            }
        }
        stated.extend(levels);
        cols.get_or_insert(table.cols);
        first.get_or_insert(sidecar);
    }
    let (Some(cols), Some(first)) = (cols, first) else { return Err(bad_input("no --inputs")) };
    let square = rows.len() == cols.len() && rows.names.iter().all(|r| cols.get(r).is_some());
    let mut sidecar = PrivacySidecar {
        private,
        randomness: if randomness.len() == 1 {
            randomness.remove(0)
        } else {
            format!("combined from releases made with: {}", randomness.join("; "))
        },
        rows: rows.len(),
        cols: cols.len(),
        square,
        symmetric: false,
        diagonal: false,
        ..first
    };
    sidecar.set_levels(&rows, &stated);
    let released = ReleasedTable::grid(rows, cols, values);
    let text = toml::to_string(&sidecar).map_err(failed)?;
    let header = format!(
        "# What this release states about itself (lppf combine of {} releases; values copied, not re-noised).\n\
         # Nothing here is computed from the raw counts. epsilon = precision * ln(1/alpha) per row.\n",
        args.inputs.len()
    );
    release::commit(&args.output, &released, &format!("{header}{text}"), args.force)
        .map_err(crate::privatize::failure)?;
    eprintln!(
        "combined {} releases into {} × {} cells at {}{}",
        args.inputs.len(),
        released.rows.len(),
        released.cols.len(),
        args.output.display(),
        if private { "" } else { " (NOT PRIVATE: a seeded release was among the inputs)" }
    );
    Ok(())
}
