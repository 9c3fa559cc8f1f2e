//! `lppf._core`: the Python package's bridge to the Rust library, through the `lppf` facade only.
//!
//! Each function is one library call with the options of the matching CLI command, by the same
//! names and defaults: `privatize` is [`lppf::release::privatize_file`] (`lppf privatize`),
//! `fit` is [`lppf::analysis::plan_fit`] and [`lppf::analysis::run_fit`] (`lppf fit`), and the
//! readers return plain Python values that `lppf/*.py` turns into NumPy arrays and DataFrames.
//! Errors keep the library's messages: the user's input or options raise `InputError` (a
//! `ValueError`), failures while running or writing raise `RunError` (a `RuntimeError`). Fits release the GIL.

use lppf::analysis::{self, FitError, FitRequest, LevelSource, LikelihoodChoice, MoveChoice, PriorChoice, ScaleMean};
use lppf::inference::{Method, PrivateStep, Start};
use lppf::models::ModelKind;
use lppf::release::{LabelSource, Levels, PrivatizeError, PrivatizeRequest, prepare_release};
use lppf::results::Values;
use lppf::tables::{CountRecords, CountsFormat};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

create_exception!(
    _core,
    InputError,
    PyValueError,
    "The input or an option cannot be used (the CLI's exit code 2): names the file or option, the value and what is allowed."
);
create_exception!(_core, RunError, PyRuntimeError, "A failure while running or writing (the CLI's exit code 1).");

/// The most threads a call may ask for (as `lppf --threads`).
const MAX_THREADS: usize = 1024;

fn input_error(message: impl std::fmt::Display) -> PyErr {
    InputError::new_err(message.to_string())
}

fn fit_error(e: FitError) -> PyErr {
    if e.is_user_error() { InputError::new_err(e.to_string()) } else { RunError::new_err(e.to_string()) }
}

fn privatize_error(e: PrivatizeError) -> PyErr {
    if e.is_user_error() { InputError::new_err(e.to_string()) } else { RunError::new_err(e.to_string()) }
}

/// Runs `work` on `threads` threads (all cores when `None`), without the GIL.
fn detached<T: Send>(py: Python<'_>, threads: Option<usize>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(py.detach(work)),
        Some(n) if (1..=MAX_THREADS).contains(&n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| RunError::new_err(format!("cannot start {n} threads: {e}")))?;
            Ok(py.detach(|| pool.install(work)))
        }
        Some(n) => Err(input_error(format!("threads = {n} is not allowed: it must be from 1 to {MAX_THREADS}"))),
    }
}

/// Progress of a fit for a Python callable, called with the GIL taken from the worker threads:
/// `callback(text)` once with the estimate, then `callback((done, total))` each time another whole
/// percent of the work is done (at most 100 calls; the fit itself never waits on Python otherwise).
/// A callback that raises is reported once by Python's `sys.unraisablehook` and then left alone.
struct Progress<'a> {
    callback: &'a Py<PyAny>,
    /// Units of work in all; grows when `--until-mixed` runs the chains on ([`Progress::grow`]).
    total: AtomicU64,
    done: AtomicU64,
    percent: AtomicU64,
    failed: AtomicBool,
}

impl<'a> Progress<'a> {
    fn new(callback: &'a Py<PyAny>, total: u64) -> Self {
        Self {
            callback,
            total: AtomicU64::new(total.max(1)),
            done: AtomicU64::new(0),
            percent: AtomicU64::new(0),
            failed: AtomicBool::new(false),
        }
    }

    fn call<A: for<'py> pyo3::call::PyCallArgs<'py>>(&self, args: A) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = self.callback.call1(py, args) {
                self.failed.store(true, Ordering::Relaxed);
                e.write_unraisable(py, Some(self.callback.bind(py)));
            }
        });
    }

    fn say(&self, text: &str) {
        self.call((text,));
    }

    /// The fit is done: reports 100 % if the last report was below (the plan counts every unit
    /// the fit may need, e.g. all 199 tables of the test of structure, which stops early when
    /// the release shows none).
    fn finish(&self) {
        if self.percent.fetch_max(100, Ordering::Relaxed) < 100 {
            let total = self.total.load(Ordering::Relaxed);
            self.call(((total, total),));
        }
    }

    /// `added` more units of work (a longer run of the chains): the percent done falls back to
    /// what is now done of the new total, and the next whole percent is reported again.
    fn grow(&self, added: u64) {
        let total = self.total.fetch_add(added, Ordering::Relaxed) + added;
        let done = self.done.load(Ordering::Relaxed).min(total);
        self.percent.store(done * 100 / total, Ordering::Relaxed);
    }

    /// One unit of work done; calls back when the whole percent done moves up (the thread that
    /// moves it calls, so each percent is reported once).
    fn tick(&self) {
        let total = self.total.load(Ordering::Relaxed);
        let done = (self.done.fetch_add(1, Ordering::Relaxed) + 1).min(total);
        let percent = done * 100 / total;
        if percent > self.percent.fetch_max(percent, Ordering::Relaxed) {
            self.call(((done, total),));
        }
    }
}

/// How a counts file is laid out: the delimiter (one ASCII character, `None`: by extension) and
/// the three columns, and for counts over time the time column.
fn counts_format(delimiter: Option<&str>, columns: [String; 3], time: Option<String>) -> PyResult<CountsFormat> {
    let delimiter = delimiter.map(lppf::tables::parse_delimiter).transpose().map_err(input_error)?;
    Ok(CountsFormat { delimiter, columns, time })
}

/// Labels held in memory, for messages named `name`.
fn label_list(name: &str, labels: Option<Vec<String>>) -> Option<LabelSource> {
    labels.map(|labels| LabelSource::List { name: name.to_string(), labels })
}

/// Raw counts held in memory, as Python hands them over: the cells' row labels, column labels,
/// counts as text, and each cell's place in the caller's frame (its index label).
type Records = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);

fn count_records((rows, cols, counts, index): Records) -> CountRecords {
    CountRecords { rows, cols, counts, index }
}

/// Privatizes counts into a release and its sidecar (`lppf privatize`); returns what the release
/// says about itself: `rows`, `cols`, `private`, `report`, `warnings`.
///
/// The counts are a file (`input`) or, from a DataFrame, `counts = (rows, cols, counts, index)`
/// held in memory: lists of text read exactly as a file's cells (`input` then only names them in
/// messages, and `index` names each cell as the frame does), so raw counts never touch the disk.
/// Grid labels (`rows`, `cols`, `labels`) and per-row levels (`levels`, with `levels_are`
/// "alpha" or "epsilon") are lists too. The release is made and written under pending names
/// without the GIL; Python's signals are checked before it is put in place, so a Ctrl-C until
/// then publishes nothing.
#[pyfunction]
#[pyo3(signature = (input, output, *, counts=None, epsilon=None, alpha=None, levels=None, levels_are="alpha",
    precision=1.0, square=false, symmetric=false, diagonal=false, rows=None, cols=None, labels=None, seed=None,
    force=false, delimiter=None, row_column="row".to_owned(), col_column="col".to_owned(),
    count_column="count".to_owned(), time_column=None, times=None))]
#[allow(clippy::too_many_arguments)]
fn privatize<'py>(
    py: Python<'py>,
    input: PathBuf,
    output: PathBuf,
    counts: Option<Records>,
    epsilon: Option<f64>,
    alpha: Option<f64>,
    levels: Option<Vec<(String, f64)>>,
    levels_are: &str,
    precision: f64,
    square: bool,
    symmetric: bool,
    diagonal: bool,
    rows: Option<Vec<String>>,
    cols: Option<Vec<String>>,
    labels: Option<Vec<String>>,
    seed: Option<u64>,
    force: bool,
    delimiter: Option<&str>,
    row_column: String,
    col_column: String,
    count_column: String,
    time_column: Option<String>,
    times: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let levels = match (epsilon, alpha, levels) {
        (Some(e), None, None) => Levels::Epsilon(e),
        (None, Some(a), None) => Levels::Alpha(a),
        (None, None, Some(given)) => {
            let epsilon = match levels_are {
                "alpha" => false,
                "epsilon" => true,
                other => return Err(input_error(format!("levels_are {other:?} is not allowed: alpha or epsilon"))),
            };
            let name = format!("the {levels_are} of each row");
            let checked =
                lppf::tables::levels_from_list(std::path::Path::new(&name), &given, epsilon).map_err(input_error)?;
            Levels::Rows { name, levels: checked }
        }
        _ => return Err(input_error("give exactly one of epsilon and alpha (a number, or a mapping of each row's)")),
    };
    let request = PrivatizeRequest {
        records: counts.map(count_records),
        format: counts_format(delimiter, [row_column, col_column, count_column], time_column)?,
        times: label_list("times", times),
        precision,
        square,
        symmetric,
        diagonal,
        rows: label_list("rows", rows),
        cols: label_list("cols", cols),
        labels: label_list("rows (the network's labels)", labels),
        seed,
        force,
        ..PrivatizeRequest::new(input, output, levels)
    };
    let staged =
        py.detach(|| prepare_release(&request).and_then(|prepared| prepared.stage())).map_err(privatize_error)?;
    // A Ctrl-C (or another signal with a Python handler) while the release was made: raise it,
    // and the staged files are removed as `staged` drops.
    py.check_signals()?;
    let released = staged.publish().map_err(privatize_error)?;
    let out = PyDict::new(py);
    out.set_item("rows", released.rows)?;
    out.set_item("cols", released.cols)?;
    out.set_item("private", released.private)?;
    out.set_item("report", released.report)?;
    out.set_item("warnings", released.warnings)?;
    Ok(out)
}

/// `hamiltonian_move`: `"auto"`, `"on"` or `"off"` as on the command line, or `True` / `False`
/// for `"on"` / `"off"` (`None`: `"auto"`).
#[derive(FromPyObject)]
enum MoveArg {
    Flag(bool),
    Name(String),
}

/// Fits a release (or raw counts, for the non-private methods) and writes the fit directory
/// (`lppf fit`); returns `estimate`, `summary` and `output`. The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (input, output, *, model, components, method, counts=None, chains=4, iterations=2000, burn_in=None,
    thin=5, max_iterations=1000, tolerance=1e-6, a0=1.0, b0=1.0, prior="auto", scale_shape=None,
    scale_mean=None, likelihood="auto", dispersion=None, dispersion_prior=None, dispersion_warm_up=None, alpha=None, alpha_file=None, precision=1.0,
    holdout=None, weights="auto", replicas=1, hamiltonian_move=None, structure_tables=analysis::structure_test::STRUCTURE_TEST_REPLICATES, private_step="collapsed", start="prior", until_mixed=None, seed=None,
    force=false,
    override_sidecar=false, allow_memory=false, threads=None, delimiter=None, row_column="row".to_owned(),
    col_column="col".to_owned(), count_column="count".to_owned(), time_column=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn fit<'py>(
    py: Python<'py>,
    input: PathBuf,
    output: PathBuf,
    model: &str,
    components: usize,
    method: &str,
    counts: Option<Records>,
    chains: usize,
    iterations: usize,
    burn_in: Option<usize>,
    thin: usize,
    max_iterations: usize,
    tolerance: f64,
    a0: f64,
    b0: f64,
    prior: &str,
    scale_shape: Option<f64>,
    scale_mean: Option<&str>,
    likelihood: &str,
    dispersion: Option<f64>,
    dispersion_prior: Option<(f64, f64)>,
    dispersion_warm_up: Option<usize>,
    alpha: Option<f64>,
    alpha_file: Option<PathBuf>,
    precision: f64,
    holdout: Option<f64>,
    weights: &str,
    replicas: usize,
    hamiltonian_move: Option<MoveArg>,
    structure_tables: usize,
    private_step: &str,
    start: &str,
    until_mixed: Option<usize>,
    seed: Option<u64>,
    force: bool,
    override_sidecar: bool,
    allow_memory: bool,
    threads: Option<usize>,
    delimiter: Option<&str>,
    row_column: String,
    col_column: String,
    count_column: String,
    time_column: Option<String>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let names = |all: &[&str]| all.join(", ");
    let model = ModelKind::ALL.into_iter().find(|k| k.name() == model).ok_or_else(|| {
        input_error(format!(
            "model {model:?} is not allowed: use one of {}",
            names(&ModelKind::ALL.map(ModelKind::name))
        ))
    })?;
    let method = Method::from_name(method).ok_or_else(|| {
        input_error(format!("method {method:?} is not allowed: use one of {}", names(&Method::ALL.map(Method::name))))
    })?;
    let private_step = PrivateStep::from_name(private_step).ok_or_else(|| {
        input_error(format!("private_step {private_step:?} is not allowed: use augmented or collapsed"))
    })?;
    let start = Start::from_name(start)
        .ok_or_else(|| input_error(format!("start {start:?} is not allowed: use prior or cavi")))?;
    let levels = match (alpha, alpha_file) {
        (None, None) => LevelSource::Sidecar,
        (Some(a), None) => LevelSource::Alpha(a),
        (None, Some(path)) => LevelSource::File { path, precision },
        (Some(_), Some(_)) => return Err(input_error("give alpha or alpha_file, not both")),
    };
    let request = FitRequest {
        records: counts.map(count_records),
        counts_format: counts_format(delimiter, [row_column, col_column, count_column], time_column)?,
        chains,
        iterations,
        burn_in,
        thin,
        max_iterations,
        tolerance,
        a0,
        b0,
        prior: PriorChoice::from_name(prior).map_err(fit_error)?,
        scale_shape,
        scale_mean: scale_mean.map(ScaleMean::from_name).transpose().map_err(fit_error)?,
        likelihood: LikelihoodChoice::from_name(likelihood).map_err(fit_error)?,
        dispersion,
        dispersion_prior,
        dispersion_warm_up,
        levels,
        override_sidecar,
        holdout,
        weighting: analysis::weighting_from_name(weights).map_err(fit_error)?,
        replicas,
        hamiltonian_move: match hamiltonian_move {
            None => MoveChoice::Auto,
            Some(MoveArg::Flag(true)) => MoveChoice::On,
            Some(MoveArg::Flag(false)) => MoveChoice::Off,
            Some(MoveArg::Name(name)) => MoveChoice::from_name(&name).map_err(fit_error)?,
        },
        structure_tables,
        private_step,
        start,
        until_mixed,
        seed,
        force,
        allow_memory,
        ..FitRequest::new(input, model, components, method, output)
    };
    let done = detached(py, threads, || {
        let plan = analysis::plan_fit(&request)?;
        let reporter = progress.as_ref().map(|callback| Progress::new(callback, plan.progress_len));
        if let Some(reporter) = &reporter {
            reporter.say(&plan.estimate);
        }
        let on_iteration = || {
            if let Some(reporter) = &reporter {
                reporter.tick();
            }
        };
        // A longer run of until_mixed grows the count and says why.
        let on_extend = |extension: analysis::Extension| {
            if let Some(reporter) = &reporter {
                reporter.grow(extension.added);
                reporter.say(&extension.message());
            }
        };
        let done = analysis::run_fit_observed(&plan, &request, &on_iteration, &on_extend)?;
        if let Some(reporter) = &reporter {
            reporter.finish();
        }
        Ok::<_, FitError>((plan.estimate, done))
    })?;
    let (estimate, done) = done.map_err(fit_error)?;
    let out = PyDict::new(py);
    out.set_item("estimate", estimate)?;
    out.set_item("summary", done.summary)?;
    out.set_item("warnings", done.warnings)?;
    out.set_item("output", done.output)?;
    Ok(out)
}

/// A Parquet table's columns, in order, as `(name, values)`: strings, integers, floats, booleans
/// or lists of floats, with `None` for nulls (columns of other types are skipped).
#[pyfunction]
fn read_table<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let columns = py.detach(|| lppf::results::read_table(&path)).map_err(input_error)?;
    columns
        .into_iter()
        .map(|(name, values)| {
            let values = match values {
                Values::Text(v) => v.into_pyobject(py)?.into_any(),
                Values::OptionalText(v) => v.into_pyobject(py)?.into_any(),
                Values::Int(v) => v.into_pyobject(py)?.into_any(),
                Values::OptionalInt(v) => v.into_pyobject(py)?.into_any(),
                Values::Float(v) => v.into_pyobject(py)?.into_any(),
                Values::Bool(v) => v.into_pyobject(py)?.into_any(),
                Values::FloatList(v) => v.into_pyobject(py)?.into_any(),
            };
            Ok((name, values))
        })
        .collect()
}

/// A release (`row,col,value`, any format `lppf fit` reads; an undirected one as a symmetric
/// matrix): its row labels, column labels, and the values row by row as little-endian 64-bit
/// integers (for `numpy.frombuffer`).
#[pyfunction]
fn read_release<'py>(py: Python<'py>, path: PathBuf) -> PyResult<(Vec<String>, Vec<String>, Bound<'py, PyBytes>)> {
    let table = py.detach(|| lppf::tables::read_release_as_stated(&path)).map_err(input_error)?;
    let bytes: Vec<u8> = table.values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok((table.rows.names, table.cols.names, PyBytes::new(py, &bytes)))
}

/// Where a release's sidecar is (`<release>.privacy.toml`).
#[pyfunction]
fn sidecar_path(path: PathBuf) -> PathBuf {
    lppf::tables::sidecar_path(&path)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add_function(wrap_pyfunction!(privatize, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(read_table, m)?)?;
    m.add_function(wrap_pyfunction!(read_release, m)?)?;
    m.add_function(wrap_pyfunction!(sidecar_path, m)?)?;
    Ok(())
}
