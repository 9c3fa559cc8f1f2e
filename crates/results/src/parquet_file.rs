//! Writing and reading `results.parquet` (one row group, no compression: a sweep has at most a
//! few thousand rows). Files are written atomically, and key–value metadata (the manifest, the
//! software version) travels inside the file as well as beside it.

use crate::ResultsError;
use crate::row::{ResultRow, schema};
use crate::table::write_batch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt64Array};
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
    let columns: Vec<ArrayRef> = vec![
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
    ];
    let batch = RecordBatch::try_new(schema(), columns).map_err(|e| ResultsError::new(path, e))?;
    write_batch(path, &batch, metadata)
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
