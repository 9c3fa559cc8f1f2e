//! Unit files: the rows of one finished unit, in TOML, written atomically (a temporary name,
//! then a rename, so a killed run leaves a whole file or none). The file states its format and
//! its row count, and ends with a checksum of everything before it, so a file cut short (at a
//! row boundary or inside a number) or altered is recognized as corrupt.
//!
//! ```toml
//! lppf_unit_format = 5
//! unit = "r0-e0-a0"
//! manifest = "9c1e…"
//! rows = 2
//! [[row]]
//! replication = 0
//! …
//! # lppf-checksum 5d1f0e4c9a7b3e21
//! ```
//! The file names its unit and the identity of the manifest that made it
//! ([`crate::Experiment::identity`]): a unit file copied over another unit's name, or from a run
//! of another seed or design, is reported like a damaged file (set aside and recomputed; issue
//! 31). The checksum is the 64-bit FNV-1a hash of the bytes before its line, in hex. Files of
//! format 4 were made without the names (recomputed); files of formats 2
//! and 3 were made with the earlier ChaCha8 streams: they are reported as another version's (the
//! runner sets them aside and recomputes the unit), so a resumed sweep never mixes numbers of two
//! generators. Floats are written in their shortest round-trip form, so rows read back are
//! bit-identical.

use crate::{RunnerError, io_error};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format of unit files this version writes (1 was the CSV files before the runner, 2 the
/// TOML files without a checksum, 3 the files of the ChaCha8 streams; 4 is 3 written with the
/// xoshiro256++ streams of issue 21, whose numbers must not be mixed with 2 and 3 in one sweep; 5
/// is 4 with the unit's name and the manifest's identity, issue 31).
const FORMAT: u32 = 5;
/// The last line of a unit file starts with this, followed by the checksum in hex.
const CHECKSUM: &str = "# lppf-checksum ";

/// Whose rows a unit file holds: the unit's name and the manifest's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitId<'a> {
    pub unit: &'a str,
    pub manifest: &'a str,
}

#[derive(Serialize)]
struct UnitOut<'a, R> {
    lppf_unit_format: u32,
    unit: &'a str,
    manifest: &'a str,
    rows: usize,
    row: &'a [R],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitIn<R> {
    lppf_unit_format: u32,
    #[serde(default)]
    unit: String,
    #[serde(default)]
    manifest: String,
    rows: usize,
    #[serde(default = "Vec::new")]
    row: Vec<R>,
}

/// Writes the rows of unit `id` to `path` atomically.
pub fn write_unit<R: Serialize>(path: &Path, id: UnitId, rows: &[R]) -> Result<(), RunnerError> {
    let out = UnitOut { lppf_unit_format: FORMAT, unit: id.unit, manifest: id.manifest, rows: rows.len(), row: rows };
    let mut text = toml::to_string(&out).map_err(|e| io_error(path, format!("cannot encode the unit's rows: {e}")))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let checksum = crate::fnv1a(text.as_bytes());
    text.push_str(&format!("{CHECKSUM}{checksum:016x}\n"));
    results::write_atomic(path, text.as_bytes()).map_err(|e| io_error(path, e))
}

/// Reads a unit file written by [`write_unit`] for unit `id`; anything else — including a file
/// of another unit or of another manifest — is [`RunnerError::CorruptUnit`].
pub fn read_unit<R: DeserializeOwned>(path: &Path, id: UnitId) -> Result<Vec<R>, RunnerError> {
    let corrupt = |reason: String| RunnerError::CorruptUnit { path: path.to_path_buf(), reason };
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    let text = String::from_utf8(bytes).map_err(|_| corrupt("not UTF-8 text".into()))?;
    let unit: UnitIn<R> =
        toml::from_str(&text).map_err(|e| corrupt(format!("not a unit file of this version ({e})")))?;
    match unit.lppf_unit_format {
        FORMAT => {
            let body = text.strip_suffix('\n').unwrap_or(&text);
            let (before, last) = body.rsplit_once('\n').unwrap_or(("", body));
            let stated = last.strip_prefix(CHECKSUM).ok_or_else(|| corrupt("its checksum line is missing".into()))?;
            let actual = format!("{:016x}", crate::fnv1a(format!("{before}\n").as_bytes()));
            if stated != actual {
                return Err(corrupt(format!("checksum {stated} where the content gives {actual}")));
            }
        }
        4 => {
            return Err(corrupt(
                "written by an earlier lppf that did not record the unit's name and manifest (unit format 4); \
                 recomputed so that no unit file of another unit or run is used"
                    .into(),
            ));
        }
        2 | 3 => {
            return Err(corrupt(format!(
                "written by an lppf from before its random streams changed (unit format {}, this version \
                 writes {FORMAT}); recomputed so that one sweep never mixes the two",
                unit.lppf_unit_format
            )));
        }
        other => return Err(corrupt(format!("unit file format {other} (this version writes {FORMAT})"))),
    }
    if unit.unit != id.unit {
        return Err(corrupt(format!("it holds the rows of unit {:?}, not of {:?}", unit.unit, id.unit)));
    }
    if unit.manifest != id.manifest {
        return Err(corrupt(format!(
            "it was made by another manifest (identity {}, this one's is {}: another seed or design, or an lppf \
             that draws other numbers from the same seed)",
            unit.manifest, id.manifest
        )));
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

    const ID: UnitId = UnitId { unit: "u1", manifest: "00ff" };

    /// A unit file of another unit (copied over this one's name) or of another manifest (another
    /// seed) is refused like a damaged file; each is named in the reason.
    #[test]
    fn unit_files_belong_to_their_unit_and_manifest() {
        let dir = std::env::temp_dir().join(format!("runner-unit-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("u.toml");
        let rows = vec![Row { name: "a".into(), x: 1.0, maybe: None, n: 1 }];
        write_unit(&path, ID, &rows).unwrap();
        assert_eq!(read_unit::<Row>(&path, ID).unwrap(), rows);
        let other_unit = read_unit::<Row>(&path, UnitId { unit: "u2", ..ID }).unwrap_err().to_string();
        assert!(other_unit.contains("rows of unit \"u1\", not of \"u2\""), "{other_unit}");
        let other_run = read_unit::<Row>(&path, UnitId { manifest: "1234", ..ID }).unwrap_err().to_string();
        assert!(other_run.contains("another manifest") && other_run.contains("00ff"), "{other_run}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_round_trip_bit_for_bit_and_damage_is_named() {
        let dir = std::env::temp_dir().join(format!("runner-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("u.toml");
        let rows = vec![
            Row { name: "a".into(), x: 0.1 + 0.2, maybe: None, n: 3 },
            Row { name: "b,c".into(), x: f64::MIN_POSITIVE, maybe: Some(1e-300), n: 0 },
            Row { name: "e".into(), x: 123_456_789.123_456_79, maybe: Some(f64::from_bits(1)), n: 1 },
            Row { name: "d".into(), x: f64::INFINITY, maybe: Some(-0.0), n: usize::MAX >> 12 },
        ];
        write_unit(&path, ID, &rows).unwrap();
        let back: Vec<Row> = read_unit(&path, ID).unwrap();
        assert_eq!(back.len(), rows.len());
        for (a, b) in rows.iter().zip(&back) {
            assert_eq!((a.x.to_bits(), a.maybe.map(f64::to_bits)), (b.x.to_bits(), b.maybe.map(f64::to_bits)));
            assert_eq!(a, b);
        }
        write_unit::<Row>(&path, ID, &[]).unwrap();
        assert!(read_unit::<Row>(&path, ID).unwrap().is_empty());
        // A file cut after its second row (a whole TOML file, one row short): no checksum line.
        write_unit(&path, ID, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let cut: String = text.split("[[row]]").take(3).collect::<Vec<_>>().join("[[row]]");
        std::fs::write(&path, &cut).unwrap();
        let e = read_unit::<Row>(&path, ID).unwrap_err().to_string();
        assert!(e.contains("checksum line is missing") && e.contains("delete the file"), "{e}");
        // Cut inside the last number (n = 4503599627370495 → 45035996273704): still valid TOML with
        // the stated row count, a different value; only the checksum catches it.
        write_unit(&path, ID, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (body, _) = text.rsplit_once(CHECKSUM).unwrap();
        let cut = &body[..body.trim_end().len() - 2];
        assert!(cut.ends_with("n = 45035996273704"), "{cut}");
        std::fs::write(&path, cut).unwrap();
        let e = read_unit::<Row>(&path, ID).unwrap_err().to_string();
        assert!(e.contains("checksum line is missing"), "{e}");
        // One changed digit with the checksum line kept.
        let altered = text.replacen("n = 3", "n = 4", 1);
        assert_ne!(altered, text);
        std::fs::write(&path, altered).unwrap();
        let e = read_unit::<Row>(&path, ID).unwrap_err().to_string();
        assert!(e.contains("checksum") && e.contains("where the content gives"), "{e}");
        // Files of the formats of the ChaCha8 streams are another version's, whole or not.
        for (format, old) in [
            (2, text.rsplit_once(CHECKSUM).unwrap().0.replace("lppf_unit_format = 5", "lppf_unit_format = 2")),
            (3, text.replace("lppf_unit_format = 5", "lppf_unit_format = 3")),
        ] {
            std::fs::write(&path, old).unwrap();
            let e = read_unit::<Row>(&path, ID).unwrap_err().to_string();
            assert!(e.contains("before its random streams changed") && e.contains(&format!("format {format}")), "{e}");
        }
        std::fs::write(&path, "replication,method\n0,naive\n").unwrap();
        assert!(read_unit::<Row>(&path, ID).unwrap_err().to_string().contains("not a unit file of this version"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
