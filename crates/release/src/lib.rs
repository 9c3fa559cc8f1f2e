//! Privatize a table of one's own counts (`lppf privatize`, `lppf.privatize` in Python): the data
//! holder's side of the trust boundary.
//!
//! [`privatize_file`] reads `row,col,count` ([`tables::read_counts_as`]), noises **every** cell of
//! the grid, zeros included, with the exact two-sided geometric mechanism
//! `ỹ = y + τ, P(τ) ∝ α^|τ|` (Schein et al. 2019, eq. 5; the integer sampler of Canonne, Kamath &
//! Steinke 2020), and commits `row,col,value` with its `<output>.privacy.toml` as one
//! ([`tables::commit_release`]). The noise comes from the operating system unless a seed is given,
//! and a seeded release says it is NOT PRIVATE. Each row's level is `α_d = exp(−ε_d / N)`: changes
//! of up to `N` in one count are `ε_d`-indistinguishable.
//!
//! Nothing here reads a fit or a model: inference takes the release only.

use distributions::{ExactTwoSidedGeometric, MAX_DECAY};
use mechanism::{Randomness, ReleaseError, release_cells};
use std::fmt;
use std::path::{Path, PathBuf};
use tables::{
    CommitError, CountsFormat, GridLabels, Layout, Level, PrivacySidecar, ReleasedTable, check_release_free,
    commit_release, read_counts_as, read_labels, read_levels, recover_release, sidecar_path,
};

/// How much noise.
#[derive(Clone, Debug, PartialEq)]
pub enum Levels {
    /// One privacy level `ε > 0` for every row (`α = exp(−ε/N)`).
    Epsilon(f64),
    /// One noise level `α ∈ (0, 1)` for every row (`ε = N ln(1/α)`).
    Alpha(f64),
    /// Each row's own level: a file of `row,alpha` or `row,epsilon`, one line per row.
    File(PathBuf),
    /// Each row's own level, held in memory (checked as a file's: [`tables::levels_from_list`]);
    /// `name` stands for them in messages.
    Rows { name: String, levels: Vec<(String, Level)> },
}

/// Where stated grid labels come from: a file (`label` column) or a list held in memory.
#[derive(Clone, Debug, PartialEq)]
pub enum LabelSource {
    File(PathBuf),
    /// Labels in the order given (checked as a file's: [`tables::labels_from_list`]); `name`
    /// stands for them in messages.
    List {
        name: String,
        labels: Vec<String>,
    },
}

impl LabelSource {
    fn read(&self) -> Result<tables::Labels, tables::TableError> {
        match self {
            Self::File(path) => read_labels(path),
            Self::List { name, labels } => tables::labels_from_list(Path::new(name), labels),
        }
    }

    fn file(&self) -> Option<&Path> {
        match self {
            Self::File(path) => Some(path),
            Self::List { .. } => None,
        }
    }
}

/// What to privatize and where to put it: the options of `lppf privatize`, by the same names.
#[derive(Clone, Debug)]
pub struct PrivatizeRequest {
    /// The counts (CSV, TSV or Parquet, laid out as `format` says); with `records`, the name
    /// that stands for the counts held in memory in messages.
    pub input: PathBuf,
    /// The counts held in memory instead of a file (a DataFrame from Python): raw counts never
    /// touch the disk.
    pub records: Option<tables::CountRecords>,
    pub format: CountsFormat,
    /// The release file; its sidecar goes beside it ([`sidecar_path`]).
    pub output: PathBuf,
    pub levels: Levels,
    /// The precision `N > 0`: how large a change in one count is protected.
    pub precision: f64,
    /// A network: the grid is the union of all labels on both axes.
    pub square: bool,
    /// An undirected network (implies `square`): each unordered pair released once, listed with
    /// the first of its two labels in the grid's order, at the one level of every row (a pair
    /// belongs to two people, so per-row levels are refused); the diagonal not at all unless
    /// `diagonal`. The input may list a pair either way or both (with the same count).
    pub symmetric: bool,
    /// With `symmetric`: release the self-pairs (the diagonal) too.
    pub diagonal: bool,
    /// Files stating the grid's row and column labels (`rows`, `cols`), or with `square` both axes'
    /// (`labels`), so empty rows and columns are kept and the grid is public.
    pub rows: Option<LabelSource>,
    pub cols: Option<LabelSource>,
    pub labels: Option<LabelSource>,
    /// With a time column (`format.time`): the file stating the time labels (`times`).
    pub times: Option<LabelSource>,
    /// Seed the noise: for demonstrations and tests only; the release is then NOT private.
    pub seed: Option<u64>,
    /// Replace an existing release at `output`.
    pub force: bool,
}

impl PrivatizeRequest {
    /// A request with the CLI's defaults: `row,col,count`, precision 1, labels from the input,
    /// OS entropy, no replacing.
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>, levels: Levels) -> Self {
        Self {
            input: input.into(),
            records: None,
            format: CountsFormat::default(),
            output: output.into(),
            levels,
            precision: 1.0,
            square: false,
            symmetric: false,
            diagonal: false,
            rows: None,
            cols: None,
            labels: None,
            times: None,
            seed: None,
            force: false,
        }
    }
}

/// Why a release was not made: the user's input (exit code 2 in the CLI) or a failure while
/// writing (exit code 1). Nothing is written in either case.
#[derive(Clone, Debug, PartialEq)]
pub enum PrivatizeError {
    /// The input, a setting or the output place: names the file or option, the value and what is
    /// allowed.
    Input(String),
    /// The release could not be written.
    Failed(String),
}

impl PrivatizeError {
    /// Whether the user can fix it by changing the input or the options.
    pub fn is_user_error(&self) -> bool {
        matches!(self, Self::Input(_))
    }
}

impl fmt::Display for PrivatizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Input(m) | Self::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PrivatizeError {}

fn bad_input(e: impl fmt::Display) -> PrivatizeError {
    PrivatizeError::Input(e.to_string())
}

fn failed(e: impl fmt::Display) -> PrivatizeError {
    PrivatizeError::Failed(e.to_string())
}

/// What a release says about itself once made.
#[derive(Clone, Debug, PartialEq)]
pub struct Released {
    pub rows: usize,
    pub cols: usize,
    /// Whether the noise came from the operating system (false: seeded, NOT private).
    pub private: bool,
    /// What was done, for the person who made it: the grid, the levels, the randomness, the
    /// sidecar's place.
    pub report: String,
    /// Things to read before sharing the release: labels taken from the input, a seeded release.
    pub warnings: Vec<String>,
}

/// Writes a release and its sidecar as one ([`commit_release`]): one already there is the
/// user's to resolve, a failed write a failure.
pub fn commit(output: &Path, released: &ReleasedTable, sidecar: &str, force: bool) -> Result<(), PrivatizeError> {
    commit_release(output, released, sidecar, force).map_err(commit_error)
}

fn commit_error(e: CommitError) -> PrivatizeError {
    match e {
        CommitError::Exists(_) => bad_input(e),
        CommitError::Write(_) => failed(e),
    }
}

/// The files a release reads: none may be the release or its sidecar.
fn inputs(request: &PrivatizeRequest) -> Vec<(&'static str, &Path)> {
    let level_file = match &request.levels {
        Levels::File(path) => Some(path),
        _ => None,
    };
    fn label_file(source: &Option<LabelSource>) -> Option<&Path> {
        source.as_ref().and_then(LabelSource::file)
    }
    let files = [
        ("--input", request.records.is_none().then_some(request.input.as_path())),
        ("--alpha-file", level_file.map(PathBuf::as_path)),
        ("--rows", label_file(&request.rows)),
        ("--cols", label_file(&request.cols)),
        ("--labels", label_file(&request.labels)),
        ("--times", label_file(&request.times)),
    ];
    files.into_iter().filter_map(|(flag, path)| Some((flag, path?))).collect()
}

/// `--symmetric` on a table whose row labels and column labels (of its non-zero cells) are two
/// disjoint sets of at least two each: a bipartite table (documents × words), which the network's
/// grid of their union would fold into one network. Refused with a note; a network listed once
/// per pair that happens to look like this states its labels with `--labels`, which skips this.
fn refuse_bipartite(input: &Path, table: &tables::CountTable) -> Result<(), PrivatizeError> {
    let n = table.rows.len();
    let mut as_row = vec![false; n];
    let mut as_col = vec![false; n];
    for (k, _) in table.counts.iter().enumerate().filter(|&(_, &c)| c != 0) {
        as_row[k / n] = true;
        as_col[k % n] = true;
    }
    let rows = as_row.iter().filter(|&&r| r).count();
    let cols = as_col.iter().filter(|&&c| c).count();
    let shared = as_row.iter().zip(&as_col).filter(|&(&r, &c)| r && c).count();
    if shared == 0 && rows >= 2 && cols >= 2 {
        return Err(bad_input(format!(
            "{}: its {rows} row labels and {cols} column labels do not overlap, so this looks like a bipartite \
             table (documents × words, say), not an undirected network: --symmetric would fold it into one \
             network of {} people. Privatize it without --symmetric; if it is a network listed once per pair, \
             state its labels with --labels",
            input.display(),
            rows + cols
        )));
    }
    Ok(())
}

/// The stated grid labels (`rows`, `cols`, `labels`).
fn grid_labels(request: &PrivatizeRequest) -> Result<GridLabels, PrivatizeError> {
    let square = request.square || request.symmetric;
    GridLabels::from_options(
        square,
        request.labels.as_ref(),
        request.rows.as_ref(),
        request.cols.as_ref(),
        LabelSource::read,
    )
    .map_err(|e| match e {
        tables::LabelOptionError::Misuse(tables::LabelOptionMisuse::TableOptionsOnNetwork) => {
            bad_input("--rows and --cols are for a rows × columns table; a network (--square) takes --labels")
        }
        tables::LabelOptionError::Misuse(tables::LabelOptionMisuse::NetworkOptionOnTable) => bad_input(
            "--labels states the labels of a network and needs --square or --symmetric; a table takes --rows and --cols",
        ),
        tables::LabelOptionError::Read(e) => bad_input(e),
    })
    .and_then(|mut given| {
        given.times = match (&request.times, request.format.time.is_some()) {
            (Some(_), false) => {
                return Err(bad_input("--times states the time labels of counts over time and needs --time-column"));
            }
            (source, _) => source.as_ref().map(LabelSource::read).transpose().map_err(bad_input)?,
        };
        Ok(given)
    })
}

/// The mechanism of each row, in the order of `rows`.
fn row_levels(
    request: &PrivatizeRequest,
    rows: &tables::Labels,
    n: f64,
) -> Result<Vec<ExactTwoSidedGeometric>, PrivatizeError> {
    let decay_of = |level: Level, what: &str| -> Result<ExactTwoSidedGeometric, PrivatizeError> {
        let built = match level {
            Level::Alpha(a) => ExactTwoSidedGeometric::from_alpha(a),
            Level::Epsilon(e) => ExactTwoSidedGeometric::from_decay(e / n),
        };
        built.map_err(|e| {
            let largest = match level {
                Level::Epsilon(e) if e / n > MAX_DECAY => format!(
                    "; the largest epsilon allowed at precision N = {n} is {} (alpha = exp(-epsilon/N) must stay a \
                     normal positive number)",
                    MAX_DECAY * n
                ),
                _ => String::new(),
            };
            bad_input(format!("{what}: {e}{largest}"))
        })
    };
    // One level for every row, or each row's own (from a file or held in memory).
    let (given, file) = match &request.levels {
        Levels::Epsilon(e) => {
            return Ok(vec![decay_of(Level::Epsilon(*e), &format!("--epsilon {e} with --precision {n}"))?; rows.len()]);
        }
        Levels::Alpha(a) => return Ok(vec![decay_of(Level::Alpha(*a), &format!("--alpha {a}"))?; rows.len()]),
        Levels::File(file) => (read_levels(file).map_err(bad_input)?, file.clone()),
        Levels::Rows { name, levels } => (levels.clone(), PathBuf::from(name)),
    };
    let by_row = tables::Labels::from_names(given.iter().map(|(r, _)| r.clone()));
    if let Some((extra, _)) = given.iter().find(|(r, _)| rows.get(r).is_none()) {
        return Err(bad_input(format!(
            "{}: row {extra:?} is not a row of {}",
            file.display(),
            request.input.display()
        )));
    }
    rows.names
        .iter()
        .map(|row| match by_row.get(row) {
            Some(i) => decay_of(given[i].1, &format!("{}: row {row:?}", file.display())),
            None => Err(bad_input(format!("{}: no level for row {row:?}; every row needs one", file.display()))),
        })
        .collect()
}

/// Reads the counts, noises every cell and commits the release with its sidecar. Refuses, before
/// reading anything, an output that is an input, a directory, or an existing release (without
/// `force`); completes or cleans up what an interrupted run left at `output` first.
pub fn privatize_file(request: &PrivatizeRequest) -> Result<Released, PrivatizeError> {
    prepare_release(request)?.commit()
}

/// A release made in memory and not yet written ([`prepare_release`]): nothing is on disk until
/// [`Prepared::commit`], so a caller can still abandon it (Python does on Ctrl-C).
pub struct Prepared {
    output: PathBuf,
    released: ReleasedTable,
    sidecar: String,
    force: bool,
    done: Released,
}

impl Prepared {
    /// Writes the release and its sidecar as one ([`commit`]).
    pub fn commit(self) -> Result<Released, PrivatizeError> {
        self.stage()?.publish()
    }

    /// Writes the release and its sidecar in full under pending names, not yet in place
    /// ([`tables::stage_release`]): the slow part of [`Prepared::commit`].
    pub fn stage(self) -> Result<Staged, PrivatizeError> {
        let staged =
            tables::stage_release(&self.output, &self.released, &self.sidecar, self.force).map_err(commit_error)?;
        Ok(Staged { staged, done: self.done })
    }
}

/// A release written under pending names ([`Prepared::stage`]): [`Staged::publish`] puts it in
/// place in a few file-system calls; dropping it releases nothing.
pub struct Staged {
    staged: tables::StagedRelease,
    done: Released,
}

impl Staged {
    pub fn publish(self) -> Result<Released, PrivatizeError> {
        self.staged.publish().map_err(commit_error)?;
        Ok(self.done)
    }
}

/// Everything [`privatize_file`] does but the writing: checks, reads the counts, noises every cell
/// and states the sidecar.
pub fn prepare_release(request: &PrivatizeRequest) -> Result<Prepared, PrivatizeError> {
    let n = request.precision;
    if !(n.is_finite() && n > 0.0) {
        return Err(bad_input(format!("--precision {n}: must be a finite number > 0")));
    }
    let output = &request.output;
    let sidecar_file = sidecar_path(output);
    for (flag, input) in inputs(request) {
        for (what, out) in [("--output", output), ("the sidecar of --output", &sidecar_file)] {
            if results::same_file(input, out) {
                return Err(bad_input(format!(
                    "{}: {flag} and {what} are the same file; the release would overwrite its input",
                    out.display()
                )));
            }
        }
    }
    if output.is_dir() {
        return Err(bad_input(format!("{}: is a directory; --output names the release file", output.display())));
    }
    let mut warnings = Vec::new();
    let recovery = recover_release(output).map_err(failed)?;
    if let Some(pid) = recovery.completed {
        warnings.push(format!(
            "{}: completed the release that process {pid} had nearly finished when it was stopped",
            output.display()
        ));
    }
    if !request.force {
        check_release_free(output).map_err(bad_input)?;
    }
    if request.symmetric && matches!(request.levels, Levels::File(_) | Levels::Rows { .. }) {
        return Err(bad_input(
            "--symmetric takes one level for every row (--epsilon or --alpha), not --alpha-file: each pair belongs \
             to two people, and is released once at the level both chose",
        ));
    }
    if request.diagonal && !request.symmetric {
        return Err(bad_input(
            "--diagonal applies to --symmetric releases (a directed release already lists every cell, the diagonal included)",
        ));
    }
    if request.symmetric && request.format.time.is_some() {
        return Err(bad_input(
            "--symmetric with --time-column: an undirected network over time is not supported; release the directed \
             network over time (--square) instead",
        ));
    }
    let square = request.square || request.symmetric;
    let given = grid_labels(request)?;
    let mut table = match &request.records {
        Some(records) => tables::counts_from_records(&request.input, records, square, &given),
        None => read_counts_as(&request.input, square, &given, &request.format),
    }
    .map_err(bad_input)?;
    let layout = if request.symmetric {
        if table.rows.len() < 2 {
            return Err(bad_input(format!(
                "{}: an undirected network needs at least two labels (one pair)",
                request.input.display()
            )));
        }
        if request.labels.is_none() {
            refuse_bipartite(&request.input, &table)?;
        }
        table = table.undirected(&request.input).map_err(bad_input)?;
        Layout::Pairs { diagonal: request.diagonal }
    } else {
        Layout::Grid
    };
    let levels = row_levels(request, &table.rows, n)?;
    let randomness = request.seed.map_or(Randomness::OsEntropy, Randomness::Seeded);
    let (v, cols) = (table.rows.len(), table.cols.len());
    let cells = (0..v).flat_map(|i| layout.columns(i, cols).map(move |j| (i, j)));
    let listed = cells.clone().map(|(i, j)| (i, j, table.counts[i * cols + j]));
    let drawn = release_cells(listed, v, &levels, randomness).map_err(|e| match e {
        ReleaseError::TooLarge { row, col } => bad_input(format!(
            "{}: the count of ({}, {}) plus its noise leaves the 64-bit range",
            request.input.display(),
            table.rows.names[row],
            table.cols.names[col]
        )),
        e => failed(e),
    })?;
    // The released values on the grid; an undirected release's matrix is symmetric, its
    // unreleased diagonal 0.
    let values = match layout {
        Layout::Grid => drawn,
        Layout::Pairs { .. } => {
            let mut values = vec![0; v * v];
            for ((i, j), value) in cells.zip(drawn) {
                (values[i * v + j], values[j * v + i]) = (value, value);
            }
            let unreleased = (0..v).filter(|&i| table.counts[i * v + i] > 0).count();
            if unreleased > 0 && !request.diagonal {
                warnings.push(format!(
                    "NOTE: {unreleased} non-zero self-pairs (the diagonal) of {} are not released; pass \
                     --diagonal to release them",
                    request.input.display()
                ));
            }
            values
        }
    };
    let alphas: Vec<f64> = levels.iter().map(ExactTwoSidedGeometric::alpha).collect();
    let released = ReleasedTable { rows: table.rows, cols: table.cols, values, layout, axes: table.axes };

    let mut sidecar = PrivacySidecar {
        mechanism: "two-sided geometric (discrete Laplace) noise on every cell, zeros included; exact integer sampler \
                    (Canonne, Kamath & Steinke 2020)"
            .into(),
        private: randomness.is_private(),
        randomness: randomness.describe(),
        precision: n,
        rows: released.rows.len(),
        cols: released.axis_sizes().1,
        square,
        times: released.axes.as_ref().map(|a| a.times.len()),
        symmetric: request.symmetric,
        diagonal: request.diagonal,
        alpha: None,
        epsilon: None,
        row: Vec::new(),
        software: format!("lppf {}", env!("CARGO_PKG_VERSION")),
    };
    let stated: Vec<tables::StatedLevel> = levels
        .iter()
        .map(|m| tables::StatedLevel { alpha: m.alpha(), epsilon: tables::stated_epsilon(n, m.decay()) })
        .collect();
    sidecar.set_levels(&released.rows, &stated);
    let sidecar_text = toml::to_string(&sidecar).map_err(failed)?;
    let header = "# What this release states about itself (lppf privatize). Nothing here is computed from the\n\
                  # raw counts. epsilon = precision * ln(1/alpha) per row, rounded up.\n";
    let sidecar_text = format!("{header}{sidecar_text}");

    let (lo, hi) = alphas.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &a| (lo.min(a), hi.max(a)));
    let eps = |a: f64| n * (1.0 / a).ln();
    let level = if lo == hi {
        format!("alpha = {lo:.6}, epsilon = {:.6} per row at precision N = {n}", eps(lo))
    } else {
        format!("alpha from {lo:.6} to {hi:.6} (epsilon {:.6} to {:.6}) at precision N = {n}", eps(hi), eps(lo))
    };
    let what = match (layout, &released.axes) {
        (Layout::Grid, Some(axes)) => format!(
            "{} × {} × {} times = {} cells (every cell, zeros included)",
            released.rows.len(),
            axes.cols.len(),
            axes.times.len(),
            released.values.len()
        ),
        (Layout::Grid, None) => format!(
            "{} × {} = {} cells (every cell, zeros included)",
            released.rows.len(),
            released.cols.len(),
            released.values.len()
        ),
        (Layout::Pairs { diagonal }, _) => format!(
            "the {} pairs of {v} labels of an undirected network (each pair once, zeros included; the diagonal {})",
            v * (v - 1) / 2,
            if diagonal { "too" } else { "not released" }
        ),
    };
    let report = format!(
        "released {what} to {}\n  {level}\n  randomness: {}\n  sidecar: {}",
        output.display(),
        randomness.describe(),
        sidecar_file.display()
    );
    let timed = request.format.time.is_some();
    if !given.complete(square, timed) {
        // The options of the axes whose labels were not stated.
        let unstated = [
            (square && given.rows.is_none(), "--labels FILE"),
            (!square && given.rows.is_none(), "--rows FILE"),
            (!square && given.cols.is_none(), "--cols FILE"),
            (timed && given.times.is_none(), "--times FILE"),
        ];
        let flags: Vec<&str> = unstated.iter().filter(|(missing, _)| *missing).map(|(_, flag)| *flag).collect();
        let flags = match flags.as_slice() {
            [.., last] if flags.len() > 1 => format!("{} and {last}", flags[..flags.len() - 1].join(", ")),
            _ => flags.join(""),
        };
        warnings.push(format!(
            "NOTE: the grid's labels were taken from {} (sorted, so their order reveals nothing). If that file \
             lists only non-zero cells, a label that appears nowhere else reveals that its cells are non-zero: \
             when the label set is not public, state it with {flags} (docs/privacy.md, \"Labels\").",
            request.input.display()
        ));
    }
    if !randomness.is_private() {
        warnings.push("WARNING: this release was seeded and is NOT PRIVATE; use it for demonstrations only.".into());
    }
    let done = Released {
        rows: released.rows.len(),
        cols: released.cols.len(),
        private: randomness.is_private(),
        report,
        warnings,
    };
    Ok(Prepared { output: output.clone(), released, sidecar: sidecar_text, force: request.force, done })
}
