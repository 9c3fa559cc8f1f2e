//! Writing and reading `results.parquet` (one row group, no compression: a sweep has at most a
//! few thousand rows). Files are written atomically, and key–value metadata (the manifest, the
//! software version) travels inside the file as well as beside it.

use crate::ResultsError;
use crate::row::{Coverage, ResultRow, RowDiagnostics, Sbc, Stacking, TraceDiagnostics, diagnostics_columns, schema};
use crate::table::write_batch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray, UInt64Array,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::Path;
use std::sync::Arc;

/// Writes `rows` to `path` atomically, with `metadata` as key–value pairs of the file.
pub fn write_results(path: &Path, rows: &[ResultRow], metadata: &[(&str, String)]) -> Result<(), ResultsError> {
    let strings = |get: fn(&ResultRow) -> &str| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(get).collect::<Vec<_>>()))
    };
    let ints =
        |get: fn(&ResultRow) -> i64| -> ArrayRef { Arc::new(Int64Array::from_iter_values(rows.iter().map(get))) };
    let floats =
        |get: fn(&ResultRow) -> f64| -> ArrayRef { Arc::new(Float64Array::from_iter_values(rows.iter().map(get))) };
    let nullable = |get: fn(&ResultRow) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(get).collect::<Vec<_>>()))
    };
    let nullable_ints = |get: fn(&ResultRow) -> Option<i64>| -> ArrayRef {
        Arc::new(Int64Array::from(rows.iter().map(get).collect::<Vec<_>>()))
    };
    let mut columns: Vec<ArrayRef> = vec![
        strings(|r| &r.experiment),
        strings(|r| &r.model),
        ints(|r| r.components),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.seed))),
        ints(|r| r.replication),
        nullable(|r| r.e0),
        nullable(|r| r.alpha),
        nullable(|r| r.epsilon),
        nullable(|r| r.precision),
        nullable(|r| r.row_concentration),
        strings(|r| &r.method),
        floats(|r| r.mean_kl),
        floats(|r| r.rate_mae),
        nullable(|r| r.topic_error),
        ints(|r| r.iterations),
        nullable_ints(|r| r.burn_in),
        nullable_ints(|r| r.thin),
        Arc::new(BooleanArray::from(rows.iter().map(|r| r.converged).collect::<Vec<_>>())),
        floats(|r| r.seconds),
        floats(|r| r.iterations_per_second),
        ints(|r| r.chains),
        Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(
            rows.iter().map(|r| Some(r.chain_mean_kl.iter().map(|&x| Some(x)).collect::<Vec<_>>())),
        )),
    ];
    for (t, _) in RowDiagnostics::TRACES.iter().enumerate() {
        for get in [|d: TraceDiagnostics| d.rhat, |d: TraceDiagnostics| d.ess_bulk, |d: TraceDiagnostics| d.ess_tail] {
            let values: Vec<Option<f64>> = rows.iter().map(|r| r.diagnostics.map(|d| get(d.trace(t)))).collect();
            columns.push(Arc::new(Float64Array::from(values)));
        }
    }
    columns.push(Arc::new(StringArray::from(rows.iter().map(|r| r.warning.as_deref()).collect::<Vec<_>>())));
    for c in 0..Coverage::COLUMNS.len() {
        columns.push(Arc::new(Float64Array::from(
            rows.iter().map(|r| r.coverage.map(|v| v.values()[c])).collect::<Vec<_>>(),
        )));
    }
    columns.push(Arc::new(StringArray::from(rows.iter().map(|r| r.convergence.as_deref()).collect::<Vec<_>>())));
    columns.push(Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(
        rows.iter().map(|r| r.stacking.as_ref().map(|s| s.weights.iter().map(|&x| Some(x)).collect::<Vec<_>>())),
    )));
    columns.push(nullable_from(rows, |r| r.stacking.as_ref().map(|s| s.mean_kl)));
    columns.push(nullable_from(rows, |r| r.stacking.as_ref().map(|s| s.unreliable_share)));
    for get in [|s: &Sbc| Some(s.total_rank), |s: &Sbc| Some(s.draws), |s: &Sbc| s.ln_likelihood_rank] {
        columns.push(Arc::new(Int64Array::from(
            rows.iter().map(|r| r.sbc.as_ref().and_then(get).map(i64::from)).collect::<Vec<_>>(),
        )));
    }
    columns.push(nullable(|r| r.ladder_min_beta));
    let batch = RecordBatch::try_new(schema(), columns).map_err(|e| ResultsError::new(path, e))?;
    write_batch(path, &batch, metadata)
}

/// A nullable float column of `rows`.
fn nullable_from(rows: &[ResultRow], get: impl Fn(&ResultRow) -> Option<f64>) -> ArrayRef {
    Arc::new(Float64Array::from(rows.iter().map(get).collect::<Vec<_>>()))
}

/// Reads a file written by [`write_results`]; errors name the file and the offending column.
pub fn read_results(path: &Path) -> Result<Vec<ResultRow>, ResultsError> {
    let file = std::fs::File::open(path).map_err(|e| ResultsError::new(path, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| ResultsError::new(path, e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| ResultsError::new(path, e))?;
        rows.extend(batch_rows(&batch).map_err(|column| {
            ResultsError::new(
                path,
                format!("column `{column}` is missing or of the wrong type; expected {:?}", schema()),
            )
        })?);
    }
    Ok(rows)
}

/// The rows of one record batch, or the name of the first column that does not match the schema.
fn batch_rows(batch: &RecordBatch) -> Result<Vec<ResultRow>, &'static str> {
    let column = |name: &'static str| batch.column_by_name(name).ok_or(name);
    let strings = |name| column(name)?.as_string_opt::<i32>().ok_or(name);
    let ints = |name| column(name)?.as_primitive_opt::<Int64Type>().ok_or(name);
    let floats = |name| column(name)?.as_primitive_opt::<Float64Type>().ok_or(name);
    let seeds = column("seed")?.as_primitive_opt::<UInt64Type>().ok_or("seed")?;
    let (experiment, model, method) = (strings("experiment")?, strings("model")?, strings("method")?);
    let (components, replication) = (ints("components")?, ints("replication")?);
    let (iterations, burn_in, thin) = (ints("iterations")?, ints("burn_in")?, ints("thin")?);
    let (e0, alpha, epsilon) = (floats("e0")?, floats("alpha")?, floats("epsilon")?);
    let (precision, row_concentration) = (floats("precision")?, floats("row_concentration")?);
    let (mean_kl, rate_mae, topic_error) = (floats("mean_kl")?, floats("rate_mae")?, floats("topic_error")?);
    let converged = column("converged")?.as_boolean_opt().ok_or("converged")?;
    let (seconds, ips) = (floats("seconds")?, floats("iterations_per_second")?);
    let opt = |a: &arrow_array::Float64Array, i: usize| a.is_valid(i).then(|| a.value(i));
    let opt_int = |a: &arrow_array::Int64Array, i: usize| a.is_valid(i).then(|| a.value(i));
    // Columns added with several chains per fit; files written before have none of them.
    let chains =
        batch.column_by_name("chains").map(|c| c.as_primitive_opt::<Int64Type>().ok_or("chains")).transpose()?;
    let chain_kl =
        batch.column_by_name("chain_mean_kl").map(|c| c.as_list_opt::<i32>().ok_or("chain_mean_kl")).transpose()?;
    let diagnostics = diagnostics_columns()
        .iter()
        .map(|name| batch.column_by_name(name).and_then(|c| c.as_primitive_opt::<Float64Type>()).cloned())
        .collect::<Vec<_>>();
    let warning = batch.column_by_name("warning").map(|c| c.as_string_opt::<i32>().ok_or("warning")).transpose()?;
    let chain_kl_of = |i: usize| -> Result<Vec<f64>, &'static str> {
        let Some(list) = chain_kl else { return Ok(Vec::new()) };
        let values = list.value(i);
        let values = values.as_primitive_opt::<Float64Type>().ok_or("chain_mean_kl")?;
        Ok(values.iter().map(|x| x.unwrap_or(f64::NAN)).collect())
    };
    let diagnostics_of = |i: usize| -> Option<RowDiagnostics> {
        let value = |c: usize| diagnostics[c].as_ref().and_then(|a| opt(a, i));
        let trace = |t: usize| -> Option<TraceDiagnostics> {
            Some(TraceDiagnostics { rhat: value(3 * t)?, ess_bulk: value(3 * t + 1)?, ess_tail: value(3 * t + 2)? })
        };
        Some(RowDiagnostics { ln_joint: trace(0)?, total_rate: trace(1)?, kl: trace(2)? })
    };
    let coverage = Coverage::COLUMNS
        .iter()
        .map(|name| batch.column_by_name(name).and_then(|c| c.as_primitive_opt::<Float64Type>()).cloned())
        .collect::<Vec<_>>();
    let coverage_of = |i: usize| -> Option<Coverage> {
        let value = |c: usize| coverage[c].as_ref().and_then(|a| opt(a, i));
        Some(Coverage { rates_50: value(0)?, rates_90: value(1)?, rows_50: value(2)?, rows_90: value(3)? })
    };
    // Columns added with the convergence verdict and stacking (issue 33).
    let convergence =
        batch.column_by_name("convergence").map(|c| c.as_string_opt::<i32>().ok_or("convergence")).transpose()?;
    let stacking_column =
        |name: &'static str| batch.column_by_name(name).and_then(|c| c.as_primitive_opt::<Float64Type>());
    let (stacked_kl, unreliable) = (stacking_column(Stacking::COLUMNS[1]), stacking_column(Stacking::COLUMNS[2]));
    let weights = batch
        .column_by_name(Stacking::COLUMNS[0])
        .map(|c| c.as_list_opt::<i32>().ok_or(Stacking::COLUMNS[0]))
        .transpose()?;
    let stacking_of = |i: usize| -> Option<Stacking> {
        let list = weights?;
        if !list.is_valid(i) {
            return None;
        }
        let values = list.value(i);
        let weights = values.as_primitive_opt::<Float64Type>()?.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
        Some(Stacking { weights, mean_kl: opt(stacked_kl?, i)?, unreliable_share: opt(unreliable?, i)? })
    };
    // Columns added with simulation-based calibration of the total (issue 36).
    let sbc_column = |name: &'static str| batch.column_by_name(name).and_then(|c| c.as_primitive_opt::<Int64Type>());
    // The log-likelihood's rank: added later, absent from older files.
    let [sbc_rank, sbc_draws, sbc_ln_likelihood] = Sbc::COLUMNS.map(sbc_column);
    let sbc_of = |i: usize| -> Option<Sbc> {
        let value =
            |a: Option<&arrow_array::Int64Array>| a.and_then(|a| opt_int(a, i)).and_then(|x| u32::try_from(x).ok());
        Some(Sbc {
            total_rank: value(sbc_rank)?,
            draws: value(sbc_draws)?,
            ln_likelihood_rank: value(sbc_ln_likelihood),
        })
    };
    // Added with replica exchange in manifests (issue 36).
    let ladder = batch
        .column_by_name("ladder_min_beta")
        .map(|c| c.as_primitive_opt::<Float64Type>().ok_or("ladder_min_beta"))
        .transpose()?;
    let mut chain_kls = Vec::with_capacity(batch.num_rows());
    for i in 0..batch.num_rows() {
        chain_kls.push(chain_kl_of(i)?);
    }
    Ok((0..batch.num_rows())
        .map(|i| ResultRow {
            experiment: experiment.value(i).to_string(),
            model: model.value(i).to_string(),
            components: components.value(i),
            seed: seeds.value(i),
            replication: replication.value(i),
            e0: opt(e0, i),
            alpha: opt(alpha, i),
            epsilon: opt(epsilon, i),
            precision: opt(precision, i),
            row_concentration: opt(row_concentration, i),
            method: method.value(i).to_string(),
            mean_kl: mean_kl.value(i),
            rate_mae: rate_mae.value(i),
            topic_error: opt(topic_error, i),
            iterations: iterations.value(i),
            burn_in: opt_int(burn_in, i),
            thin: opt_int(thin, i),
            converged: converged.is_valid(i).then(|| converged.value(i)),
            seconds: seconds.value(i),
            iterations_per_second: ips.value(i),
            chains: chains.map_or(1, |c| c.value(i)),
            chain_mean_kl: std::mem::take(&mut chain_kls[i]),
            diagnostics: diagnostics_of(i),
            warning: warning.and_then(|w| w.is_valid(i).then(|| w.value(i).to_string())),
            coverage: coverage_of(i),
            convergence: convergence.and_then(|c| c.is_valid(i).then(|| c.value(i).to_string())),
            stacking: stacking_of(i),
            sbc: sbc_of(i),
            ladder_min_beta: ladder.and_then(|a| opt(a, i)),
        })
        .collect())
}

/// What a results file holds besides its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    /// The Arrow schema stored in the file.
    pub schema: arrow_schema::Schema,
    /// Key–value metadata (`lppf.manifest`, `lppf.version`).
    pub metadata: Vec<(String, String)>,
}

/// The schema and key–value metadata of a results file.
pub fn read_info(path: &Path) -> Result<FileInfo, ResultsError> {
    let file = std::fs::File::open(path).map_err(|e| ResultsError::new(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| ResultsError::new(path, e))?;
    let schema = builder.schema().as_ref().clone();
    let metadata = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| kv.iter().map(|k| (k.key.clone(), k.value.clone().unwrap_or_default())).collect())
        .unwrap_or_default();
    Ok(FileInfo { schema, metadata })
}
