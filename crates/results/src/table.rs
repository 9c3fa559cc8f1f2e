//! A generic tidy Parquet table (named columns of strings, integers, nullable floats, booleans or
//! lists of floats) for the experiment kinds whose rows are not [`crate::ResultRow`]s (e.g. DPVI
//! sweeps) and for users' tables. Written atomically and streamed (row groups of up to 2²⁰
//! rows), no compression, with key–value metadata; read batch by batch, in any common codec.

use crate::ResultsError;
use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray};
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
    /// A text column with nulls, as read (a sweep's `warning` is null where there is none);
    /// written as a nullable string column.
    OptionalText(Vec<Option<String>>),
    Int(Vec<i64>),
    /// An integer column with nulls, as read (a sweep's `burn_in` is null for CAVI rows); written
    /// as a nullable integer column.
    OptionalInt(Vec<Option<i64>>),
    /// Nullable floats.
    Float(Vec<Option<f64>>),
    /// Nullable booleans (a sweep's `converged`).
    Bool(Vec<Option<bool>>),
    /// Nullable lists of floats (a sweep's per-chain `chain_mean_kl` and `stacking_weights`).
    FloatList(Vec<Option<Vec<f64>>>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Text(v) => v.len(),
            Values::OptionalText(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::OptionalInt(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::FloatList(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads every column of a Parquet file: strings as [`Values::Text`], integers of any width as
/// [`Values::Int`] (unsigned values above `i64::MAX` are an error), floats as [`Values::Float`],
/// booleans as [`Values::Bool`], lists of floats as [`Values::FloatList`]; columns of other types
/// (dates, structs, binary) are skipped. A text or integer column with nulls is
/// [`Values::OptionalText`] or [`Values::OptionalInt`].
pub fn read_table(path: &Path) -> Result<Vec<(String, Values)>, ResultsError> {
    let mut columns: Vec<(String, Values)> = Vec::new();
    for_each_batch(path, |_, batch: Vec<(String, Values)>| {
        if columns.is_empty() {
            columns = batch;
        } else {
            for ((_, all), (_, part)) in columns.iter_mut().zip(batch) {
                match (all, part) {
                    (Values::Text(a), Values::Text(p)) => a.extend(p),
                    (Values::OptionalText(a), Values::OptionalText(p)) => a.extend(p),
                    (Values::OptionalText(a), Values::Text(p)) => a.extend(p.into_iter().map(Some)),
                    (all @ Values::Text(_), Values::OptionalText(p)) => {
                        let Values::Text(a) = std::mem::replace(all, Values::Text(Vec::new())) else { unreachable!() };
                        *all = Values::OptionalText(a.into_iter().map(Some).chain(p).collect());
                    }
                    (Values::Int(a), Values::Int(p)) => a.extend(p),
                    (Values::OptionalInt(a), Values::OptionalInt(p)) => a.extend(p),
                    (Values::OptionalInt(a), Values::Int(p)) => a.extend(p.into_iter().map(Some)),
                    (all @ Values::Int(_), Values::OptionalInt(p)) => {
                        let Values::Int(a) = std::mem::replace(all, Values::Int(Vec::new())) else { unreachable!() };
                        *all = Values::OptionalInt(a.into_iter().map(Some).chain(p).collect());
                    }
                    (Values::Float(a), Values::Float(p)) => a.extend(p),
                    (Values::Bool(a), Values::Bool(p)) => a.extend(p),
                    (Values::FloatList(a), Values::FloatList(p)) => a.extend(p),
                    _ => unreachable!("every batch has the schema's columns"),
                }
            }
        }
        Ok::<(), ResultsError>(())
    })?;
    Ok(columns)
}

/// Reads a Parquet file batch by batch (as [`read_table`] converts them), calling `visit` with
/// the index of the batch's first row and its columns: memory stays one batch (1,024 rows)
/// however large the file. Every column of a batch has its values; a file without rows calls
/// `visit` never.
pub fn for_each_batch<E: From<ResultsError>>(
    path: &Path,
    mut visit: impl FnMut(usize, Vec<(String, Values)>) -> Result<(), E>,
) -> Result<(), E> {
    let file = std::fs::File::open(path).map_err(|e| ResultsError::new(path, e))?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| ResultsError::new(path, e))?;
    let mut offset = 0;
    for batch in reader {
        let batch = batch.map_err(|e| ResultsError::new(path, e))?;
        let rows = batch.num_rows();
        visit(offset, batch_columns(path, &batch, offset)?)?;
        offset += rows;
    }
    Ok(())
}

/// The columns of one batch whose first row is row `offset` of the file (see [`read_table`]).
fn batch_columns(path: &Path, batch: &RecordBatch, offset: usize) -> Result<Vec<(String, Values)>, ResultsError> {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
        UInt64Type,
    };
    let mut columns: Vec<(String, Values)> = Vec::new();
    for field in batch.schema().fields() {
        let empty = match field.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Values::Text(Vec::new()),
            // Categorical text (pandas' `category`, R factors): dictionary-encoded strings.
            DataType::Dictionary(_, values)
                if matches!(values.as_ref(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) =>
            {
                Values::Text(Vec::new())
            }
            // Every integer width (pandas downcasts small counts to int8/int16/uint8/uint16).
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64 => Values::Int(Vec::new()),
            DataType::Float32 | DataType::Float64 => Values::Float(Vec::new()),
            DataType::Boolean => Values::Bool(Vec::new()),
            DataType::List(item) | DataType::LargeList(item)
                if matches!(item.data_type(), DataType::Float32 | DataType::Float64) =>
            {
                Values::FloatList(Vec::new())
            }
            _ => continue,
        };
        columns.push((field.name().clone(), empty));
    }
    for (name, values) in &mut columns {
        let array = batch
            .column_by_name(name)
            .ok_or_else(|| ResultsError::new(path, format!("column {name} missing in a row group")))?;
        match values {
            Values::Text(_) => {
                // A dictionary's values are read through its keys.
                let (keys, values_of) = match array.as_any_dictionary_opt() {
                    Some(d) => (Some(d.normalized_keys()), d.values().clone()),
                    None => (None, array.clone()),
                };
                // Which string layout it is, found once for the batch.
                let (a, b, c) = (
                    values_of.as_string_opt::<i32>(),
                    values_of.as_string_opt::<i64>(),
                    values_of.as_string_view_opt(),
                );
                let text = |j: usize| {
                    a.map(|a| a.value(j)).or_else(|| b.map(|b| b.value(j))).or_else(|| c.map(|c| c.value(j)))
                };
                let read: Vec<Option<String>> = (0..array.len())
                    .map(|i| {
                        (!array.is_null(i))
                            .then(|| text(keys.as_ref().map_or(i, |k| k[i])).unwrap_or_default().to_string())
                    })
                    .collect();
                *values = if read.iter().any(Option::is_none) {
                    Values::OptionalText(read)
                } else {
                    Values::Text(read.into_iter().map(Option::unwrap_or_default).collect())
                };
            }
            Values::Int(_) => {
                let mut nulls = false;
                let mut read = Vec::with_capacity(array.len());
                for i in 0..array.len() {
                    if array.is_null(i) {
                        nulls = true;
                        read.push(None);
                        continue;
                    }
                    let x = if let Some(a) = array.as_primitive_opt::<Int64Type>() {
                        a.value(i)
                    } else if let Some(a) = array.as_primitive_opt::<Int32Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<UInt32Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<Int16Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<UInt16Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<Int8Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<UInt8Type>() {
                        i64::from(a.value(i))
                    } else if let Some(a) = array.as_primitive_opt::<UInt64Type>() {
                        i64::try_from(a.value(i)).map_err(|_| {
                            ResultsError::new(
                                path,
                                format!("column {name}, row {}: {} exceeds 2^63 - 1", offset + i + 1, a.value(i)),
                            )
                        })?
                    } else {
                        return Err(ResultsError::new(path, format!("column {name}: unexpected integer type")));
                    };
                    read.push(Some(x));
                }
                *values = if nulls {
                    Values::OptionalInt(read)
                } else {
                    Values::Int(read.into_iter().map(Option::unwrap_or_default).collect())
                };
            }
            Values::OptionalText(_) | Values::OptionalInt(_) => unreachable!("columns start as Text, Int or Float"),
            Values::Float(v) => {
                for i in 0..array.len() {
                    let x = if let Some(a) = array.as_primitive_opt::<Float64Type>() {
                        a.value(i)
                    } else if let Some(a) = array.as_primitive_opt::<Float32Type>() {
                        f64::from(a.value(i))
                    } else {
                        return Err(ResultsError::new(path, format!("column {name}: unexpected float type")));
                    };
                    v.push((!array.is_null(i)).then_some(x));
                }
            }
            Values::Bool(v) => {
                let a = array
                    .as_boolean_opt()
                    .ok_or_else(|| ResultsError::new(path, format!("column {name}: not boolean")))?;
                v.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            Values::FloatList(v) => {
                let floats = |item: ArrayRef| -> Result<Vec<f64>, ResultsError> {
                    if let Some(a) = item.as_primitive_opt::<Float64Type>() {
                        Ok(a.iter().map(|x| x.unwrap_or(f64::NAN)).collect())
                    } else if let Some(a) = item.as_primitive_opt::<Float32Type>() {
                        Ok(a.iter().map(|x| x.map_or(f64::NAN, f64::from)).collect())
                    } else {
                        Err(ResultsError::new(path, format!("column {name}: unexpected list item type")))
                    }
                };
                // Which list layout it is, found once for the batch.
                let (small, large) = (array.as_list_opt::<i32>(), array.as_list_opt::<i64>());
                let item = |i: usize| small.map(|l| l.value(i)).or_else(|| large.map(|l| l.value(i)));
                for i in 0..array.len() {
                    if array.is_null(i) {
                        v.push(None);
                        continue;
                    }
                    let list = item(i)
                        .ok_or_else(|| ResultsError::new(path, format!("column {name}: unexpected list type")))?;
                    v.push(Some(floats(list)?));
                }
            }
        }
    }
    Ok(columns)
}

/// Writes the named columns (all of one length) to `path` atomically.
pub fn write_table(path: &Path, columns: &[(&str, Values)], metadata: &[(&str, String)]) -> Result<(), ResultsError> {
    write_batch(path, &batch_of(path, columns)?, metadata)
}

/// Writes a table made part by part: `part(i)` gives part `i`'s named columns, all of one
/// length, with the names and types of part 0, or `None` after the last part (part 0 is
/// required: it gives the columns). Each part is written before the next is made, so memory
/// stays one part and one row group however large the table (the fit's rates of 10⁸ cells,
/// say). Atomic, as [`write_table`].
pub fn write_table_parts<'a>(
    path: &Path,
    metadata: &[(&str, String)],
    part: impl FnMut(usize) -> Result<Option<Vec<(&'a str, Values)>>, ResultsError>,
) -> Result<(), ResultsError> {
    crate::atomic::persist(write_table_parts_pending(path, metadata, part)?, path)
}

/// [`write_table_parts`] into a complete pending file for `path`, which the caller puts in place
/// (see [`crate::write_pending_with`]).
pub fn write_table_parts_pending<'a>(
    path: &Path,
    metadata: &[(&str, String)],
    mut part: impl FnMut(usize) -> Result<Option<Vec<(&'a str, Values)>>, ResultsError>,
) -> Result<tempfile::TempPath, ResultsError> {
    let first = part(0)?.ok_or_else(|| ResultsError::new(path, "a table needs its columns (part 0)"))?;
    let first = batch_of(path, &first)?;
    let schema = first.schema();
    let rest = (1..).map_while(|i| match part(i) {
        Ok(Some(columns)) => Some(batch_of(path, &columns).and_then(|batch| {
            if batch.schema() == schema {
                Ok(batch)
            } else {
                Err(ResultsError::new(path, format!("part {i} has other columns than part 0")))
            }
        })),
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    });
    write_batches(path, &schema, std::iter::once(Ok(first)).chain(rest), metadata)
}

/// One record batch of named columns, all of one length.
fn batch_of(path: &Path, columns: &[(&str, Values)]) -> Result<RecordBatch, ResultsError> {
    let rows = columns.first().map_or(0, |(_, v)| v.len());
    if let Some((name, v)) = columns.iter().find(|(_, v)| v.len() != rows) {
        return Err(ResultsError::new(path, format!("column {name} has {} values, expected {rows}", v.len())));
    }
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, v)| match v {
            Values::Text(_) => Field::new(*name, DataType::Utf8, false),
            Values::OptionalText(_) => Field::new(*name, DataType::Utf8, true),
            Values::Int(_) => Field::new(*name, DataType::Int64, false),
            Values::OptionalInt(_) => Field::new(*name, DataType::Int64, true),
            Values::Float(_) => Field::new(*name, DataType::Float64, true),
            Values::Bool(_) => Field::new(*name, DataType::Boolean, true),
            Values::FloatList(_) => {
                Field::new(*name, DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))), true)
            }
        })
        .collect();
    let arrays: Vec<ArrayRef> = columns
        .iter()
        .map(|(_, v)| -> ArrayRef {
            match v {
                Values::Text(v) => Arc::new(StringArray::from_iter_values(v)),
                Values::OptionalText(v) => Arc::new(v.iter().map(Option::as_deref).collect::<StringArray>()),
                Values::Int(v) => Arc::new(Int64Array::from_iter_values(v.iter().copied())),
                Values::OptionalInt(v) => Arc::new(v.iter().copied().collect::<Int64Array>()),
                Values::Float(v) => Arc::new(v.iter().copied().collect::<Float64Array>()),
                Values::Bool(v) => Arc::new(v.iter().copied().collect::<BooleanArray>()),
                Values::FloatList(v) => {
                    Arc::new(ListArray::from_iter_primitive::<arrow_array::types::Float64Type, _, _>(
                        v.iter().map(|list| list.as_ref().map(|l| l.iter().map(|&x| Some(x)).collect::<Vec<_>>())),
                    ))
                }
            }
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| ResultsError::new(path, e))
}

/// Writes one record batch as a Parquet file (see [`write_batches`]).
pub(crate) fn write_batch(path: &Path, batch: &RecordBatch, metadata: &[(&str, String)]) -> Result<(), ResultsError> {
    let pending = write_batches(path, &batch.schema(), std::iter::once(Ok(batch.clone())), metadata)?;
    crate::atomic::persist(pending, path)
}

/// Writes record batches of `schema` as a Parquet file (row groups of up to 2²⁰ rows, no
/// compression, `metadata` as key–value pairs of the file and of the Arrow schema, created-by
/// lppf) into a pending file for `path`, streaming: each batch is encoded as it comes.
fn write_batches(
    path: &Path,
    schema: &arrow_schema::SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, ResultsError>>,
    metadata: &[(&str, String)],
) -> Result<tempfile::TempPath, ResultsError> {
    let pq = |e: parquet::errors::ParquetError| ResultsError::new(path, e);
    let kv = metadata.iter().map(|(k, v)| KeyValue::new(k.to_string(), v.clone())).collect();
    let props = WriterProperties::builder()
        .set_created_by(format!("lppf {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(kv))
        .build();
    // The same pairs on the Arrow schema, so readers that show the schema's metadata (pyarrow's
    // `read_table(...).schema.metadata`, polars) show the manifest and provenance too.
    let schema = Arc::new(schema.as_ref().clone().with_metadata(
        metadata.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<std::collections::HashMap<_, _>>(),
    ));
    crate::atomic::write_pending_with(path, |file| {
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(pq)?;
        for batch in batches {
            let batch = batch?.with_schema(schema.clone()).map_err(|e| ResultsError::new(path, e))?;
            writer.write(&batch).map_err(pq)?;
        }
        writer.close().map_err(pq)?;
        Ok(())
    })
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

    /// A table written in parts reads back whole and batch by batch; a part with other columns
    /// is an error that leaves neither the file nor a temporary one behind.
    #[test]
    fn parts_stream_in_and_out() {
        let dir = std::env::temp_dir().join(format!("table-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let part = |i: usize| {
            let n = 1000 + i;
            Ok(vec![
                ("label", Values::Text((0..n).map(|j| format!("{i}-{j}")).collect())),
                ("value", Values::Int((0..n as i64).collect())),
            ])
        };
        write_table_parts(&path, &[], |i| part(i).map(|p| (i < 3).then_some(p))).unwrap();
        let whole = read_table(&path).unwrap();
        assert_eq!(whole[0].1.len(), 3003);
        assert_eq!(
            whole[0].1,
            Values::Text((0..3).flat_map(|i| (0..1000 + i).map(move |j| format!("{i}-{j}"))).collect())
        );
        let (mut rows, mut batches) = (0, 0);
        for_each_batch(&path, |offset, columns| {
            assert_eq!(offset, rows);
            rows += columns[1].1.len();
            batches += 1;
            Ok::<(), ResultsError>(())
        })
        .unwrap();
        assert_eq!((rows, batches > 1), (3003, true));
        let bad = dir.join("bad.parquet");
        let mismatch = |i: usize| Ok((i < 2).then(|| vec![(if i == 0 { "a" } else { "b" }, Values::Int(vec![1]))]));
        assert!(write_table_parts(&bad, &[], mismatch).unwrap_err().message.contains("part 1"));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("t.parquet")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Booleans and lists of floats (a sweep's `converged` and per-chain `chain_mean_kl`) read
    /// back with their nulls, also across batches.
    #[test]
    fn booleans_and_lists_of_floats_read_back() {
        let dir = std::env::temp_dir().join(format!("table-lists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let n = 2500; // three batches
        let flags: Vec<Option<bool>> = (0..n).map(|i| (i % 7 != 3).then_some(i % 2 == 0)).collect();
        let lists: Vec<Option<Vec<f64>>> =
            (0..n).map(|i| (i % 5 != 1).then(|| (0..i % 4).map(|j| i as f64 + 0.25 * j as f64).collect())).collect();
        let columns = [("converged", Values::Bool(flags.clone())), ("chain_mean_kl", Values::FloatList(lists.clone()))];
        write_table(&path, &columns, &[]).unwrap();
        let read = read_table(&path).unwrap();
        assert_eq!(read[0], ("converged".to_string(), Values::Bool(flags)));
        assert_eq!(read[1], ("chain_mean_kl".to_string(), Values::FloatList(lists)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Text and integer columns with nulls (a sweep's `warning` and CAVI's `burn_in`) read back
    /// with their nulls, also when only a later batch has one: the whole column becomes optional.
    #[test]
    fn nulls_in_text_and_integer_columns_read_back() {
        let dir = std::env::temp_dir().join(format!("table-nulls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let n = 3000; // three batches of 1,024 rows; only the last has nulls
        let text: Vec<Option<String>> = (0..n).map(|i| (i < 2500).then(|| format!("w{i}"))).collect();
        let ints: Vec<Option<i64>> = (0..n).map(|i| (i != 2999).then_some(i as i64)).collect();
        let columns = [("warning", Values::OptionalText(text.clone())), ("burn_in", Values::OptionalInt(ints.clone()))];
        write_table(&path, &columns, &[]).unwrap();
        let read = read_table(&path).unwrap();
        assert_eq!(read[0], ("warning".to_string(), Values::OptionalText(text)));
        assert_eq!(read[1], ("burn_in".to_string(), Values::OptionalInt(ints)));
        // A column without nulls stays plain.
        write_table(&path, &[("k", Values::OptionalInt(vec![Some(1), Some(2)]))], &[]).unwrap();
        assert_eq!(read_table(&path).unwrap()[0].1, Values::Int(vec![1, 2]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What pandas, polars and R write reads back: every common codec, and text as
    /// dictionaries (categoricals) or string views.
    #[test]
    fn every_codec_and_text_layout_reads() {
        use arrow_array::types::Int32Type;
        use arrow_array::{DictionaryArray, StringViewArray};
        use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
        let dir = std::env::temp_dir().join(format!("table-codecs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let codecs = [
            Compression::SNAPPY,
            Compression::GZIP(GzipLevel::default()),
            Compression::LZ4,
            Compression::LZ4_RAW,
            Compression::ZSTD(ZstdLevel::default()),
            Compression::BROTLI(BrotliLevel::default()),
        ];
        let row: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::from_iter(["a", "b", "a"]));
        let col: ArrayRef = Arc::new(StringViewArray::from(vec!["x", "y", "z"]));
        let count: ArrayRef = Arc::new(Int64Array::from(vec![3, 0, 2]));
        let batch = RecordBatch::try_from_iter([("row", row), ("col", col), ("count", count)]).unwrap();
        for codec in codecs {
            let path = dir.join(format!("{codec:?}.parquet"));
            let props = WriterProperties::builder().set_compression(codec).build();
            let mut writer = ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), batch.schema(), Some(props))
                .unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            writer.write(&batch).unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            writer.close().unwrap();
            let columns = read_table(&path).unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            let text = |v: &[&str]| Values::Text(v.iter().map(|s| s.to_string()).collect());
            assert_eq!(columns[0], ("row".to_string(), text(&["a", "b", "a"])), "{codec:?}");
            assert_eq!(columns[1], ("col".to_string(), text(&["x", "y", "z"])), "{codec:?}");
            assert_eq!(columns[2], ("count".to_string(), Values::Int(vec![3, 0, 2])), "{codec:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Integer columns of every width read as integers (pandas downcasts small counts to
    /// int8/int16/uint8/uint16; they read as "no column" before).
    #[test]
    fn every_integer_width_reads() {
        use arrow_array::{Int8Array, Int16Array, UInt8Array, UInt16Array};
        let dir = std::env::temp_dir().join(format!("table-widths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let arrays: [(&str, ArrayRef); 4] = [
            ("int8", Arc::new(Int8Array::from(vec![3, -1, 127]))),
            ("int16", Arc::new(Int16Array::from(vec![3, -1, 127]))),
            ("uint8", Arc::new(UInt8Array::from(vec![3, 255, 127]))),
            ("uint16", Arc::new(UInt16Array::from(vec![3, 65535, 127]))),
        ];
        for (name, count) in arrays {
            let row: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c"]));
            let batch = RecordBatch::try_from_iter([("row", row), ("count", count)]).unwrap();
            let path = dir.join(format!("{name}.parquet"));
            let mut writer = ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), batch.schema(), None).unwrap();
            writer.write(&batch).unwrap();
            writer.close().unwrap();
            let columns = read_table(&path).unwrap();
            let expected = match name {
                "int8" | "int16" => vec![3, -1, 127],
                "uint8" => vec![3, 255, 127],
                _ => vec![3, 65535, 127],
            };
            assert_eq!(columns[1], ("count".to_string(), Values::Int(expected)), "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
