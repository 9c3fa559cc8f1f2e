//! The table a fit reads, and the cells it holds out.

use crate::error::FitError;
use distributions::Streams;
use inference::Method;
use mechanism::{Noise, Privatized};
use models::{ModelKind, ModelledCells};
use rand::RngExt;
use std::path::{Path, PathBuf};
use tables::{
    CountsFormat, GridLabels, Labels, Layout, Level, PrivacySidecar, TimeAxes, read_counts_as, read_levels,
    read_release_as_stated, recover_release, sidecar_path,
};

/// Where a released table's noise levels come from.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelSource {
    /// The release's `<file>.privacy.toml`.
    Sidecar,
    /// One `α` for every row (`--alpha`).
    Alpha(f64),
    /// A `row,alpha` or `row,epsilon` file (`--alpha-file`), `ε` at this precision `N`.
    File { path: PathBuf, precision: f64 },
}

/// What the fit sees.
#[derive(Clone, Debug)]
pub enum Input {
    /// Released values with their noise levels (`α_d` per row); held-out cells marked missing
    /// (and zeroed in `privatized`, so the sampler cannot read them), their values kept apart in
    /// `heldout_values` (in the order of [`FitData::heldout`]) for scoring. The values are held
    /// once, in 32 bits ([`Privatized::values`]), not a second time in 64 (issue 34).
    Released { privatized: Privatized, alphas: Vec<f64>, heldout_values: Vec<i64> },
    /// Raw counts (the non-private reference methods only), with the held-out cells marked
    /// (`missing` empty when nothing is held out).
    Counts { counts: Vec<u32>, missing: Vec<bool> },
}

/// A loaded table: labels of both axes (the same for a network), the data, and what was held
/// out.
#[derive(Clone, Debug)]
pub struct FitData {
    pub file: PathBuf,
    pub rows: Labels,
    /// The grid's columns (for counts over time, the `(column, time)` pairs of `axes`).
    pub cols: Labels,
    /// Counts over time: the column and time labels behind `cols` (the tensor model).
    pub axes: Option<TimeAxes>,
    pub input: Input,
    /// How the noise levels were found, for the record (`None` for raw counts).
    pub levels: Option<String>,
    /// What the stated levels (`--alpha`, `--alpha-file`) override: the sidecar's own levels,
    /// which the release contradicts only when asked to (`--override-sidecar`).
    pub overrides_sidecar: Option<String>,
    /// The cells the model describes (the block model leaves out the diagonal, the undirected
    /// one the lower triangle too).
    pub modelled: ModelledCells,
    /// Row-major indices of the held-out cells (sorted).
    pub heldout: Vec<usize>,
}

impl FitData {
    /// Rows and columns of the grid.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows.len(), self.cols.len())
    }

    /// `(rows, columns, times)`: for counts over time the tensor's three modes, else the grid and
    /// one time.
    pub fn modes(&self) -> (usize, usize, usize) {
        tables::modes(&self.rows, &self.cols, self.axes.as_ref())
    }

    /// Whether cell `n` is part of the model.
    pub fn is_modelled(&self, n: usize) -> bool {
        !self.modelled.excludes(n, self.cols.len())
    }

    /// Whether cell `n` (row-major) is marked missing: the fit does not see it.
    pub fn is_missing(&self, n: usize) -> bool {
        let missing = match &self.input {
            Input::Released { privatized, .. } => privatized.missing(),
            Input::Counts { missing, .. } => missing.as_slice(),
        };
        missing.get(n).copied().unwrap_or(false)
    }
}

/// Reads `path` for `method` and `kind`: released values (`row,col,value`) with their levels for
/// the naïve and private methods, raw counts (`row,col,count`) for the non-private references. A
/// block model needs the same labels on both axes (a release made with `--square`).
///
/// `records`: raw counts held in memory instead of the file `path` (which then only names them in
/// messages), for the non-private methods.
/// A release's sidecar is checked field by field whenever it exists ([`PrivacySidecar::load`]);
/// levels given instead (`levels` other than [`LevelSource::Sidecar`]) that contradict it are
/// refused unless `override_sidecar`, and the override is then recorded. Before reading, an
/// interrupted `lppf privatize` of this release is completed or cleaned up
/// ([`recover_release`]).
pub fn load(
    path: &Path,
    method: Method,
    kind: ModelKind,
    levels: &LevelSource,
    override_sidecar: bool,
    counts_format: &CountsFormat,
    records: Option<&tables::CountRecords>,
) -> Result<FitData, FitError> {
    let modelled = kind.modelled_cells();
    let counts_format = match (kind.has_times(), &counts_format.time) {
        (true, _) => &counts_format.over_time(),
        (false, Some(column)) => {
            return Err(FitError::Input(format!(
                "{}: a time column ({column:?}) is read by the tensor model only (--model tensor); the {} model \
                 fits a matrix",
                path.display(),
                kind.name()
            )));
        }
        _ => counts_format,
    };
    if kind.has_times() && records.is_some() {
        return Err(FitError::Input(format!(
            "{}: counts over time are read from a file (row,col,time,count), not from counts held in memory",
            path.display()
        )));
    }
    if records.is_some() && method.reads_released() {
        return Err(FitError::Input(format!(
            "{}: counts held in memory are raw counts, for the non-private methods; method {} reads a release \
             (with its sidecar) from a file",
            path.display(),
            method.name()
        )));
    }
    if !method.reads_released() {
        let mut table = match records {
            Some(records) => tables::counts_from_records(path, records, kind.square(), &GridLabels::default())?,
            None => read_counts_as(path, kind.square(), &GridLabels::default(), counts_format)?,
        };
        if kind == ModelKind::Undirected {
            table = table.undirected(path)?;
        }
        let counts = table
            .counts
            .iter()
            .enumerate()
            .map(|(n, &c)| {
                u32::try_from(c).map_err(|_| {
                    let (r, col) = (&table.rows.names[n / table.cols.len()], &table.cols.names[n % table.cols.len()]);
                    FitError::Input(format!("{}: the count of ({r}, {col}) is {c}, above {}", path.display(), u32::MAX))
                })
            })
            .collect::<Result<_, _>>()?;
        let (rows, cols, axes) = (table.rows, table.cols, table.axes);
        let input = Input::Counts { counts, missing: Vec::new() };
        return Ok(FitData {
            file: path.into(),
            rows,
            cols,
            axes,
            input,
            levels: None,
            overrides_sidecar: None,
            modelled,
            heldout: Vec::new(),
        });
    }
    recover_release(path)?;
    let mut table = read_release_as_stated(path)?;
    match (table.axes.is_some(), kind.has_times()) {
        (true, false) => {
            return Err(FitError::Input(format!(
                "{}: is a release over time (row,col,time,value; its sidecar states times = {}); fit it with --model \
                 tensor",
                path.display(),
                table.axis_sizes().2
            )));
        }
        (false, true) => {
            return Err(FitError::Input(format!(
                "{}: the tensor model reads a release over time (lppf privatize --time-column, whose sidecar states \
                 its times); this release is a matrix",
                path.display()
            )));
        }
        _ => {}
    }
    match (table.layout, kind) {
        (Layout::Pairs { .. }, ModelKind::Undirected)
        | (Layout::Grid, ModelKind::Topic | ModelKind::Block | ModelKind::Tensor) => {}
        (Layout::Pairs { .. }, _) => {
            return Err(FitError::Input(format!(
                "{}: is an undirected release (privatized with --symmetric: each pair once); fit it with --model \
                 undirected",
                path.display()
            )));
        }
        (Layout::Grid, ModelKind::Undirected) => {
            return Err(FitError::Input(format!(
                "{}: the undirected model reads an undirected release (lppf privatize --symmetric, which its \
                 sidecar records); this release lists every cell of a directed grid: fit it with --model block",
                path.display()
            )));
        }
    }
    let sidecar = load_sidecar(path, &table)?;
    if kind.square() {
        let (rows, cols) = (table.rows.len(), table.cols.len());
        table = table.into_square().ok_or_else(|| {
            FitError::Input(format!(
                "{}: the {} model needs the same labels on both axes (a network); this table has {} row and {} column \
                 labels (privatize with --square)",
                path.display(),
                kind.name(),
                rows,
                cols
            ))
        })?;
    }
    // The samplers store released values in 32 bits: name the cell by its labels (not an index).
    let cols = table.cols.len();
    if let Some(n) = table.values.iter().position(|&v| i32::try_from(v).is_err()) {
        return Err(FitError::Input(format!(
            "{}: the value {} of ({}, {}) is not allowed: released values must be integers from {} to {}",
            path.display(),
            table.values[n],
            table.rows.names[n / cols],
            table.cols.names[n % cols],
            i32::MIN,
            i32::MAX
        )));
    }
    let (alphas, described) = row_levels(path, &table.rows, levels, sidecar.as_ref())?;
    let overrides_sidecar = match (&sidecar, levels) {
        (Some(s), LevelSource::Alpha(_) | LevelSource::File { .. }) => {
            let stated = s.alphas(&sidecar_path(path), &table.rows)?;
            contradiction(&stated, &alphas, &table.rows)
        }
        _ => None,
    };
    if let Some(what) = &overrides_sidecar
        && !override_sidecar
    {
        return Err(FitError::Input(format!(
            "{}: the levels given contradict its sidecar {} ({what}); a release's levels are what its \
             sidecar states. Pass --override-sidecar to fit with the given levels anyway (fit.toml records it)",
            path.display(),
            sidecar_path(path).display()
        )));
    }
    let privatized = Privatized::from_released(
        table.rows.len(),
        table.cols.len(),
        std::mem::take(&mut table.values),
        Noise::PerRow(alphas.clone()),
    )
    .map_err(|e| FitError::Input(format!("{}: {e}", path.display())))?;
    Ok(FitData {
        file: path.into(),
        rows: table.rows,
        cols: table.cols,
        axes: table.axes,
        input: Input::Released { privatized, alphas, heldout_values: Vec::new() },
        levels: Some(described),
        overrides_sidecar,
        modelled,
        heldout: Vec::new(),
    })
}

/// The release's sidecar, checked ([`PrivacySidecar::load`]) and matched against the table's
/// grid; `None` when there is none.
fn load_sidecar(path: &Path, table: &tables::ReleasedTable) -> Result<Option<PrivacySidecar>, FitError> {
    let sidecar_file = sidecar_path(path);
    if !sidecar_file.exists() {
        return Ok(None);
    }
    let sidecar = PrivacySidecar::load(&sidecar_file)?;
    let (rows, cols, times) = table.axis_sizes();
    if sidecar.axis_sizes() != (rows, cols, times) {
        let (r, c, t) = sidecar.axis_sizes();
        return Err(FitError::Input(format!(
            "{}: states a {r} × {c} grid over {t} times but {} has {rows} × {cols} over {times}",
            sidecar_file.display(),
            path.display(),
        )));
    }
    if sidecar.square && !table.is_square() {
        return Err(FitError::Input(format!(
            "{}: states square = true (a network), but the row and column labels of {} differ",
            sidecar_file.display(),
            path.display()
        )));
    }
    Ok(Some(sidecar))
}

/// The first row whose given level differs from the sidecar's beyond rounding, described.
fn contradiction(stated: &[f64], given: &[f64], rows: &Labels) -> Option<String> {
    let (d, (a, b)) =
        stated.iter().zip(given).enumerate().find(|(_, (a, b))| (*a - *b).abs() > 1e-12 * a.abs().max(b.abs()))?;
    Some(format!("row {:?}: the sidecar states alpha = {a}, the levels given say {b}", rows.names[d]))
}

/// `α_d` of every row, and a description of where they came from.
fn row_levels(
    path: &Path,
    rows: &Labels,
    source: &LevelSource,
    sidecar: Option<&PrivacySidecar>,
) -> Result<(Vec<f64>, String), FitError> {
    let check = |a: f64, what: &str| {
        if a > 0.0 && a < 1.0 {
            Ok(a)
        } else {
            Err(FitError::setting("alpha", format!("{a} ({what})"), "a number in (0, 1)"))
        }
    };
    match source {
        LevelSource::Alpha(a) => {
            Ok((vec![check(*a, "--alpha")?; rows.len()], format!("alpha = {a} for every row (--alpha)")))
        }
        LevelSource::File { path: file, precision } => {
            let n = *precision;
            if !(n.is_finite() && n > 0.0) {
                return Err(FitError::setting("precision", n, "a finite number > 0"));
            }
            let given = read_levels(file)?;
            let by_row = Labels::from_names(given.iter().map(|(r, _)| r.clone()));
            let alphas = rows
                .names
                .iter()
                .map(|row| {
                    let i = by_row.get(row).ok_or_else(|| {
                        FitError::Input(format!("{}: no level for row {row:?} of {}", file.display(), path.display()))
                    })?;
                    match given[i].1 {
                        Level::Alpha(a) => check(a, row),
                        Level::Epsilon(e) => check((-e / n).exp(), row),
                    }
                })
                .collect::<Result<_, _>>()?;
            Ok((alphas, format!("per row from {} (precision N = {n})", file.display())))
        }
        LevelSource::Sidecar => {
            let sidecar_file = sidecar_path(path);
            let Some(sidecar) = sidecar else {
                return Err(FitError::Input(format!(
                    "{}: no noise levels: {} is missing; give --alpha or --alpha-file",
                    path.display(),
                    sidecar_file.display()
                )));
            };
            let alphas = sidecar.alphas(&sidecar_file, rows)?;
            let described = match sidecar.alpha {
                Some(a) => format!(
                    "alpha = {a} for every row (epsilon = {:.6} at precision N = {})",
                    sidecar.precision * (1.0 / a).ln(),
                    sidecar.precision
                ),
                None => format!("per row (precision N = {})", sidecar.precision),
            };
            let private = if sidecar.private { "" } else { "; the release was seeded and is NOT private" };
            Ok((alphas, format!("{described}, from {}{private}", sidecar_file.display())))
        }
    }
}

/// How many cells [`hold_out`] hides: `round(fraction × modelled cells)`, which must leave at
/// least one modelled cell on each side (checked by `lppf fit` and by `lppf validate` of a
/// held-out manifest alike).
pub fn heldout_count(data: &FitData, fraction: f64) -> Result<usize, FitError> {
    if !(fraction > 0.0 && fraction < 1.0) {
        return Err(FitError::setting("holdout", fraction, "a fraction in (0, 1)"));
    }
    let (rows, cols) = data.shape();
    let modelled = (0..rows * cols).filter(|&n| data.is_modelled(n)).count();
    let count = (fraction * modelled as f64).round() as usize;
    if count == 0 || count == modelled {
        return Err(FitError::setting(
            "holdout",
            fraction,
            format!(
                "a fraction that leaves at least one of the {modelled} modelled cells on each side (from {:e} to {:e} \
                 here)",
                0.5 / modelled as f64,
                1.0 - 0.5 / modelled as f64
            ),
        ));
    }
    Ok(count)
}

/// Holds out `round(fraction × modelled cells)` cells chosen uniformly without replacement from
/// `streams` (a partial Fisher–Yates shuffle): they are marked missing in the released data (or
/// the raw counts), so the fit leaves them out of the likelihood.
pub fn hold_out(data: &mut FitData, fraction: f64, streams: Streams) -> Result<(), FitError> {
    let count = heldout_count(data, fraction)?;
    let (rows, cols) = data.shape();
    let mut cells: Vec<usize> = (0..rows * cols).filter(|&n| data.is_modelled(n)).collect();
    let mut rng = streams.rng();
    for i in 0..count {
        let j = rng.random_range(i..cells.len());
        cells.swap(i, j);
    }
    let mut heldout = cells[..count].to_vec();
    heldout.sort_unstable();
    let mut mask = vec![false; rows * cols];
    for &n in &heldout {
        mask[n] = true;
    }
    match &mut data.input {
        Input::Released { privatized, heldout_values, .. } => {
            *heldout_values = heldout.iter().map(|&n| i64::from(privatized.values()[n])).collect();
            *privatized = privatized.clone().with_missing(mask).map_err(|e| FitError::Inference(e.to_string()))?;
        }
        Input::Counts { missing, .. } => *missing = mask,
    }
    data.heldout = heldout;
    Ok(())
}

/// The largest seed a fit takes: `fit.toml` records it as a TOML integer, which is 64-bit
/// signed (a larger one made fit.toml unreadable to TOML parsers, `lppf score` among them).
pub const MAX_SEED: u64 = i64::MAX as u64;

/// A fresh seed from the operating system (63 bits, up to `MAX_SEED` = `i64::MAX`), for a fit run without
/// `--seed` (the seed is then recorded in `fit.toml`, so the fit can be repeated exactly).
pub fn seed_from_os() -> Result<u64, FitError> {
    use rand::TryRng;
    let seed = rand::rngs::SysRng
        .try_next_u64()
        .map_err(|e| FitError::Inference(format!("no operating-system entropy: {e}")))?;
    Ok(seed & MAX_SEED)
}
