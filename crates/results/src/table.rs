//! A generic tidy Parquet table (named columns of strings, integers or nullable floats) for the
//! experiment kinds whose rows are not [`crate::ResultRow`]s (e.g. DPVI sweeps). Written
//! atomically, one row group, no compression, with key–value metadata.

use crate::ResultsError;
use crate::atomic::write_atomic;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::path::Path;
use std::sync::Arc;

/// The values of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Text(Vec<String>),
    Int(Vec<i64>),
    /// Nullable floats.
    Float(Vec<Option<f64>>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Text(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }
}

/// Writes the named columns (all of one length) to `path` atomically.
pub fn write_table(path: &Path, columns: &[(&str, Values)], metadata: &[(&str, String)]) -> Result<(), ResultsError> {
    let rows = columns.first().map_or(0, |(_, v)| v.len());
    if let Some((name, v)) = columns.iter().find(|(_, v)| v.len() != rows) {
        return Err(ResultsError::new(path, format!("column {name} has {} values, expected {rows}", v.len())));
    }
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, v)| match v {
            Values::Text(_) => Field::new(*name, DataType::Utf8, false),
            Values::Int(_) => Field::new(*name, DataType::Int64, false),
            Values::Float(_) => Field::new(*name, DataType::Float64, true),
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let arrays: Vec<ArrayRef> = columns
        .iter()
        .map(|(_, v)| -> ArrayRef {
            match v {
                Values::Text(v) => Arc::new(StringArray::from(v.clone())),
                Values::Int(v) => Arc::new(Int64Array::from(v.clone())),
                Values::Float(v) => Arc::new(Float64Array::from(v.clone())),
            }
        })
        .collect();
    let batch = RecordBatch::try_new(schema, arrays).map_err(|e| ResultsError::new(path, e))?;
    write_batch(path, &batch, metadata)
}

/// Writes one record batch as a Parquet file (one row group, no compression, `metadata` as
/// key–value pairs of the file and of the Arrow schema, created-by lppf) to `path` atomically.
pub(crate) fn write_batch(path: &Path, batch: &RecordBatch, metadata: &[(&str, String)]) -> Result<(), ResultsError> {
    let pq = |e: parquet::errors::ParquetError| ResultsError::new(path, e);
    let kv = metadata.iter().map(|(k, v)| KeyValue::new(k.to_string(), v.clone())).collect();
    let props = WriterProperties::builder()
        .set_created_by(format!("lppf {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(kv))
        .build();
    // The same pairs on the Arrow schema, so readers that show the schema's metadata (pyarrow's
    // `read_table(...).schema.metadata`, polars) show the manifest and provenance too.
    let schema = std::sync::Arc::new(batch.schema().as_ref().clone().with_metadata(
        metadata.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<std::collections::HashMap<_, _>>(),
    ));
    let batch = batch.clone().with_schema(schema.clone()).map_err(|e| ResultsError::new(path, e))?;
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, schema, Some(props)).map_err(pq)?;
    writer.write(&batch).map_err(pq)?;
    writer.close().map_err(pq)?;
    write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float64Type;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    #[test]
    fn round_trip_with_nulls_and_a_length_check() {
        let dir = std::env::temp_dir().join(format!("table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let columns = [
            ("method", Values::Text(vec!["a".into(), "b".into()])),
            ("replication", Values::Int(vec![0, 1])),
            ("epsilon", Values::Float(vec![None, Some(2.5)])),
        ];
        write_table(&path, &columns, &[("k", "v".into())]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
        let batch = reader.map(|b| b.unwrap()).next().unwrap();
        assert_eq!(batch.num_rows(), 2);
        let eps = batch.column_by_name("epsilon").unwrap().as_primitive::<Float64Type>();
        assert!(eps.is_null(0) && eps.value(1) == 2.5);
        let bad = [("a", Values::Int(vec![1])), ("b", Values::Int(vec![]))];
        assert!(write_table(&path, &bad, &[]).unwrap_err().message.contains("column b"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
