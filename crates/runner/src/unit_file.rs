//! Unit files: the rows of one finished unit, in TOML, written atomically (a temporary name,
//! then a rename, so a killed run leaves a whole file or none). The file states its format and
//! its row count, so a file cut short at a row boundary is recognized as incomplete.
//!
//! ```toml
//! lppf_unit_format = 2
//! rows = 2
//! [[row]]
//! replication = 0
//! …
//! ```
//! Floats are written in their shortest round-trip form, so rows read back are bit-identical.

use crate::{RunnerError, io_error};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format of unit files this version writes (1 was the CSV files before the runner).
const FORMAT: u32 = 2;

#[derive(Serialize)]
struct UnitOut<'a, R> {
    lppf_unit_format: u32,
    rows: usize,
    row: &'a [R],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitIn<R> {
    lppf_unit_format: u32,
    rows: usize,
    #[serde(default = "Vec::new")]
    row: Vec<R>,
}

/// Writes `rows` to `path` atomically.
pub fn write_unit<R: Serialize>(path: &Path, rows: &[R]) -> Result<(), RunnerError> {
    let text = toml::to_string(&UnitOut { lppf_unit_format: FORMAT, rows: rows.len(), row: rows })
        .map_err(|e| io_error(path, format!("cannot encode the unit's rows: {e}")))?;
    results::write_atomic(path, text.as_bytes()).map_err(|e| io_error(path, e))
}

/// Reads a unit file written by [`write_unit`]; anything else is [`RunnerError::CorruptUnit`].
pub fn read_unit<R: DeserializeOwned>(path: &Path) -> Result<Vec<R>, RunnerError> {
    let corrupt = |reason: String| RunnerError::CorruptUnit { path: path.to_path_buf(), reason };
    let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
    let unit: UnitIn<R> =
        toml::from_str(&text).map_err(|e| corrupt(format!("not a unit file of this version ({e})")))?;
    if unit.lppf_unit_format != FORMAT {
        return Err(corrupt(format!("unit file format {} (this version writes {FORMAT})", unit.lppf_unit_format)));
    }
    if unit.row.len() != unit.rows {
        return Err(corrupt(format!("{} rows where the file states {}", unit.row.len(), unit.rows)));
    }
    Ok(unit.row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        name: String,
        x: f64,
        maybe: Option<f64>,
        n: usize,
    }

    #[test]
    fn rows_round_trip_bit_for_bit_and_damage_is_named() {
        let dir = std::env::temp_dir().join(format!("runner-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("u.toml");
        let rows = vec![
            Row { name: "a".into(), x: 0.1 + 0.2, maybe: None, n: 3 },
            Row { name: "b,c".into(), x: f64::MIN_POSITIVE, maybe: Some(1e-300), n: 0 },
            Row { name: "d".into(), x: f64::INFINITY, maybe: Some(-0.0), n: usize::MAX >> 12 },
            Row { name: "e".into(), x: 123_456_789.123_456_79, maybe: Some(f64::from_bits(1)), n: 1 },
        ];
        write_unit(&path, &rows).unwrap();
        let back: Vec<Row> = read_unit(&path).unwrap();
        assert_eq!(back.len(), rows.len());
        for (a, b) in rows.iter().zip(&back) {
            assert_eq!((a.x.to_bits(), a.maybe.map(f64::to_bits)), (b.x.to_bits(), b.maybe.map(f64::to_bits)));
            assert_eq!(a, b);
        }
        write_unit::<Row>(&path, &[]).unwrap();
        assert!(read_unit::<Row>(&path).unwrap().is_empty());
        // A file cut after its second row: the stated count no longer matches.
        write_unit(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let cut: String = text.split("[[row]]").take(3).collect::<Vec<_>>().join("[[row]]");
        std::fs::write(&path, cut).unwrap();
        let e = read_unit::<Row>(&path).unwrap_err().to_string();
        assert!(e.contains("2 rows where the file states 4") && e.contains("delete the file"), "{e}");
        std::fs::write(&path, "replication,method\n0,naive\n").unwrap();
        assert!(read_unit::<Row>(&path).unwrap_err().to_string().contains("not a unit file of this version"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
