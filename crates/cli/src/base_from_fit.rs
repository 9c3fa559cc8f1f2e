//! `lppf base-from-fit`: the base parameters of a semi-synthetic sweep from a finished fit — the
//! factors of its `factors.parquet` (the best kept sample of its best chain), labelled as the
//! fit's table, for any model kind. Fitting the non-private model to real counts and converting
//! the fit is how a sweep over a model gets its base without code of its own (the Fig. 4 recipe:
//! `[data] base` of a manifest).

use crate::{Failure, bad_input, failed};
use results::{Values, read_table};
use semisynthetic::{BaseParameters, base_file_text_with};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct BaseFromFitArgs {
    /// A fit directory written by `lppf fit` (a non-private fit of the real counts, as a rule).
    #[arg(long)]
    fit: PathBuf,
    /// The base-parameter file to write (TOML).
    #[arg(long)]
    output: PathBuf,
}

/// The columns of `factors.parquet`: each entry's matrix, label, component and value.
struct Entries {
    matrix: Vec<String>,
    label: Vec<String>,
    component: Vec<i64>,
    value: Vec<f64>,
}

fn read_entries(path: &Path) -> Result<Entries, Failure> {
    let columns = read_table(path).map_err(bad_input)?;
    let get = |name: &str| columns.iter().find(|(c, _)| c == name).map(|(_, v)| v);
    match (get("matrix"), get("label"), get("component"), get("value")) {
        (Some(Values::Text(m)), Some(Values::Text(l)), Some(Values::Int(c)), Some(Values::Float(v))) => {
            let value = v.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
            Ok(Entries { matrix: m.clone(), label: l.clone(), component: c.clone(), value })
        }
        _ => Err(bad_input(format!(
            "{}: expected the columns matrix, label, component, value of lppf fit's factors.parquet",
            path.display()
        ))),
    }
}

/// Labels in the order they first appear.
fn first_seen<'a>(labels: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut seen = Vec::new();
    for l in labels {
        if !seen.contains(l) {
            seen.push(l.clone());
        }
    }
    seen
}

pub fn base_from_fit(args: &BaseFromFitArgs) -> Result<(), Failure> {
    let record_path = args.fit.join("fit.toml");
    let text = std::fs::read_to_string(&record_path).map_err(|e| {
        bad_input(format!("{}: {e} (--fit takes a directory written by lppf fit)", record_path.display()))
    })?;
    let record: toml::Table = text.parse().map_err(|e| bad_input(format!("{}: {e}", record_path.display())))?;
    let model =
        record.get("model").cloned().ok_or_else(|| bad_input(format!("{}: no `model`", record_path.display())))?;
    let model: models::ModelKind =
        model.try_into().map_err(|e| bad_input(format!("{}: model: {e}", record_path.display())))?;
    let factors_path = args.fit.join("factors.parquet");
    let entries = read_entries(&factors_path)?;
    // Each factor's entries in the file's (row-major) order; a factor with components along its
    // columns is `labels × K`, else `K × labels` (the topic model's φ) or `K × K` (π).
    let mut factors = Vec::new();
    let mut labels_of = Vec::new();
    for layout in model.factors() {
        let at: Vec<usize> = (0..entries.matrix.len()).filter(|&n| entries.matrix[n] == layout.name).collect();
        let k = at.iter().map(|&n| entries.component[n] + 1).max().unwrap_or(0).max(0) as usize;
        if at.is_empty() || k == 0 || !at.len().is_multiple_of(k) {
            return Err(bad_input(format!("{}: no complete matrix `{}`", factors_path.display(), layout.name)));
        }
        let width = if layout.cols == models::Axis::Components { k } else { at.len() / k };
        let values: Vec<f64> = at.iter().map(|&n| entries.value[n]).collect();
        factors.push(values.chunks_exact(width).map(<[f64]>::to_vec).collect::<Vec<_>>());
        labels_of.push((layout, first_seen(at.iter().map(|&n| &entries.label[n]))));
    }
    let labels = |axis: models::Axis| {
        labels_of.iter().find(|(l, _)| l.rows == axis || l.cols == axis).map(|(_, names)| names.clone())
    };
    let row_labels = labels(models::Axis::Rows).unwrap_or_default();
    let col_labels = if model.square() { Vec::new() } else { labels(models::Axis::Cols).unwrap_or_default() };
    let mut provenance = toml::Table::new();
    provenance.insert("fit".into(), args.fit.display().to_string().into());
    for key in ["input", "model", "components", "method", "prior", "likelihood", "seed", "iterations", "software"] {
        if let Some(v) = record.get(key) {
            provenance.insert(key.into(), v.clone());
        }
    }
    provenance.insert("factors".into(), "the best kept sample of the fit's best chain (factors.parquet)".into());
    let base = BaseParameters { model, row_labels, col_labels, factors, provenance };
    base.check().map_err(|e| bad_input(format!("{}: {e}", factors_path.display())))?;
    let header = format!(
        "# Base parameters from the fit {} (`lppf base-from-fit`): its factors, as [provenance] says.\n",
        args.fit.display()
    );
    let text = base_file_text_with(&base, &header).map_err(failed)?;
    results::write_atomic(&args.output, text.as_bytes()).map_err(failed)?;
    println!(
        "{}: base parameters of a {} model, {} rows, {} components",
        args.output.display(),
        model.name(),
        base.rows(),
        base.components()
    );
    Ok(())
}
