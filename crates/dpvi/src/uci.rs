//! The UCI data sets of the DPVI experiments (`../shared/data/uci/`, see SOURCE.md there),
//! preprocessed as §4.1 of Jälkö et al. 2017 says: Abalone's label is rings ≥ 10 (vs < 10),
//! Adult's is income > 50K; categorical features are one-hot encoded (Abalone's sex, Adult's
//! eight categorical columns, with `?` kept as its own category); features are standardized
//! with the training split's mean and standard deviation; an intercept column is appended.
//! A row that cannot be parsed is counted and skipped, never a panic.

use distributions::StreamRng;
use rand::seq::SliceRandom;
use std::path::Path;

/// A binary classification data set: `x_nd` row-major `n × d` (features, no intercept yet).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub x_nd: Vec<f64>,
    pub y: Vec<bool>,
    pub features: Vec<String>,
    /// Rows that could not be parsed (wrong field count, a non-number, an unknown label).
    pub skipped: usize,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.y.len()
    }

    pub fn dim(&self) -> usize {
        self.features.len()
    }
}

/// A train/test split, standardized with the training statistics, intercept column last.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    pub train_x: Vec<f64>,
    pub train_y: Vec<bool>,
    pub test_x: Vec<f64>,
    pub test_y: Vec<bool>,
    /// Columns including the intercept.
    pub dim: usize,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Abalone (`abalone.data`): sex one-hot (F, I, M) and the seven measurements; label rings ≥ 10.
pub fn abalone(path: &Path) -> Result<Table, String> {
    let text = read(path)?;
    let mut table = Table { x_nd: Vec::new(), y: Vec::new(), features: Vec::new(), skipped: 0 };
    table.features =
        ["sex=F", "sex=I", "sex=M", "length", "diameter", "height", "whole", "shucked", "viscera", "shell"]
            .map(String::from)
            .to_vec();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = (|| {
            if fields.len() != 9 {
                return None;
            }
            let sex = ["F", "I", "M"].iter().position(|s| *s == fields[0])?;
            let numbers: Vec<f64> = fields[1..8].iter().map(|f| f.parse().ok()).collect::<Option<_>>()?;
            let rings: u32 = fields[8].parse().ok()?;
            let mut row = vec![0.0; 3];
            row[sex] = 1.0;
            row.extend(numbers);
            Some((row, rings >= 10))
        })();
        match parsed {
            Some((row, label)) => {
                table.x_nd.extend(row);
                table.y.push(label);
            }
            None => table.skipped += 1,
        }
    }
    if table.y.is_empty() {
        return Err(format!("{}: no parsable Abalone rows ({} skipped)", path.display(), table.skipped));
    }
    Ok(table)
}

/// The continuous columns of Adult (by position) and the categorical ones.
const ADULT_CONTINUOUS: [(usize, &str); 6] = [
    (0, "age"),
    (2, "fnlwgt"),
    (4, "education-num"),
    (10, "capital-gain"),
    (11, "capital-loss"),
    (12, "hours-per-week"),
];
const ADULT_CATEGORICAL: [(usize, &str); 8] = [
    (1, "workclass"),
    (3, "education"),
    (5, "marital-status"),
    (6, "occupation"),
    (7, "relationship"),
    (8, "race"),
    (9, "sex"),
    (13, "native-country"),
];

/// Adult: `adult.data` and `adult.test` of `dir` together (48,842 rows; the test file's first
/// line and the labels' trailing periods handled); the six continuous columns and the eight
/// categorical ones one-hot (categories in order of first appearance); label income > 50K.
pub fn adult(dir: &Path) -> Result<Table, String> {
    let mut records: Vec<(Vec<String>, bool)> = Vec::new();
    let mut skipped = 0;
    for name in ["adult.data", "adult.test"] {
        let path = dir.join(name);
        for line in read(&path)?.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('|') {
                continue;
            }
            let fields: Vec<String> = line.split(',').map(|f| f.trim().to_string()).collect();
            let label = match fields.last().map(|l| l.trim_end_matches('.')) {
                Some(">50K") => true,
                Some("<=50K") => false,
                _ => {
                    skipped += 1;
                    continue;
                }
            };
            let numeric_ok =
                ADULT_CONTINUOUS.iter().all(|(i, _)| fields.get(*i).is_some_and(|f| f.parse::<f64>().is_ok()));
            if fields.len() != 15 || !numeric_ok {
                skipped += 1;
                continue;
            }
            records.push((fields, label));
        }
    }
    if records.is_empty() {
        return Err(format!("{}: no parsable Adult rows ({skipped} skipped)", dir.display()));
    }
    let mut features: Vec<String> = ADULT_CONTINUOUS.iter().map(|(_, n)| n.to_string()).collect();
    let mut categories: Vec<Vec<String>> = Vec::new();
    for (i, name) in ADULT_CATEGORICAL {
        let mut seen: Vec<String> = Vec::new();
        for (fields, _) in &records {
            if !seen.contains(&fields[i]) {
                seen.push(fields[i].clone());
            }
        }
        features.extend(seen.iter().map(|c| format!("{name}={c}")));
        categories.push(seen);
    }
    let mut x_nd = Vec::with_capacity(records.len() * features.len());
    let mut y = Vec::with_capacity(records.len());
    for (fields, label) in &records {
        x_nd.extend(ADULT_CONTINUOUS.iter().map(|(i, _)| fields[*i].parse::<f64>().unwrap_or(0.0)));
        for ((i, _), cats) in ADULT_CATEGORICAL.iter().zip(&categories) {
            x_nd.extend(cats.iter().map(|c| if *c == fields[*i] { 1.0 } else { 0.0 }));
        }
        y.push(*label);
    }
    Ok(Table { x_nd, y, features, skipped })
}

/// A seeded random split (`train_fraction` of the rows for training), standardized with the
/// training mean and standard deviation (constant columns left centred), intercept appended.
pub fn split(table: &Table, train_fraction: f64, rng: &mut StreamRng) -> Result<Split, String> {
    if !(train_fraction > 0.0 && train_fraction < 1.0) {
        return Err(format!("train_fraction: must be in (0, 1), got {train_fraction}"));
    }
    let (n, d) = (table.rows(), table.dim());
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    let n_train = ((n as f64) * train_fraction).round() as usize;
    if n_train == 0 || n_train == n {
        return Err(format!("train_fraction {train_fraction} leaves an empty split of {n} rows"));
    }
    let (train, test) = order.split_at(n_train);
    let row = |i: usize| &table.x_nd[i * d..(i + 1) * d];
    let mut mean = vec![0.0; d];
    for &i in train {
        mean.iter_mut().zip(row(i)).for_each(|(m, x)| *m += x / n_train as f64);
    }
    let mut sd = vec![0.0; d];
    for &i in train {
        sd.iter_mut().zip(row(i)).zip(&mean).for_each(|((s, x), m)| *s += (x - m).powi(2) / n_train as f64);
    }
    let sd: Vec<f64> = sd.iter().map(|v| if *v > 0.0 { v.sqrt() } else { 1.0 }).collect();
    let build = |rows: &[usize]| -> (Vec<f64>, Vec<bool>) {
        let mut x = Vec::with_capacity(rows.len() * (d + 1));
        for &i in rows {
            x.extend(row(i).iter().zip(&mean).zip(&sd).map(|((v, m), s)| (v - m) / s));
            x.push(1.0);
        }
        (x, rows.iter().map(|&i| table.y[i]).collect())
    };
    let (train_x, train_y) = build(train);
    let (test_x, test_y) = build(test);
    Ok(Split { train_x, train_y, test_x, test_y, dim: d + 1 })
}
