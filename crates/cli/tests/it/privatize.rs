//! `lppf privatize`: every cell of the grid released once, zeros included; the sidecar's ε
//! matches α and N; unseeded releases differ; each kind of bad input exits 2 and writes nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lppf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lppf"))
}

fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::scratch("privatize", name)
}

fn privatize(dir: &Path, input: &str, extra: &[&str]) -> (Output, PathBuf) {
    let counts = dir.join("counts.csv");
    std::fs::write(&counts, input).unwrap();
    let out = dir.join("released.csv");
    let mut args = vec!["privatize", "--input", counts.to_str().unwrap(), "--output", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    (lppf().args(&args).output().unwrap(), out)
}

/// `row,col,value` lines as a map from cell to value.
fn cells(path: &Path) -> Vec<(String, String, i64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("row,col,value"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect()
}

const COUNTS: &str = "row,col,count\nann,x,3\nbob,y,1\ncid,x,0\nann,z,2\n";

#[test]
fn every_cell_once_and_the_sidecar_states_the_level() {
    let dir = scratch("grid");
    let (out, released) = privatize(&dir, COUNTS, &["--epsilon", "1.5", "--precision", "3", "--seed", "7"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("NOT PRIVATE"), "{stderr}");
    let got = cells(&released);
    // 3 row labels × 3 column labels, each cell once, in first-appearance order.
    let grid: Vec<(&str, &str)> = ["ann", "bob", "cid"].iter().flat_map(|r| ["x", "y", "z"].map(|c| (*r, c))).collect();
    assert_eq!(got.iter().map(|(r, c, _)| (r.as_str(), c.as_str())).collect::<Vec<_>>(), grid);

    let sidecar: toml::Table = std::fs::read_to_string(dir.join("released.csv.privacy.toml")).unwrap().parse().unwrap();
    let alpha = sidecar["alpha"].as_float().unwrap();
    let epsilon = sidecar["epsilon"].as_float().unwrap();
    assert!((alpha - (-1.5f64 / 3.0).exp()).abs() < 1e-15, "alpha {alpha}");
    assert!((epsilon - 3.0 * (1.0 / alpha).ln()).abs() < 1e-12 && (epsilon - 1.5).abs() < 1e-12);
    assert_eq!(sidecar["private"].as_bool(), Some(false));
    assert_eq!((sidecar["rows"].as_integer(), sidecar["cols"].as_integer()), (Some(3), Some(3)));
    assert!(sidecar["randomness"].as_str().unwrap().contains("NOT PRIVATE"));
    assert!(sidecar["software"].as_str().unwrap().starts_with("lppf "));
    // Nothing derived from the counts: the keys are exactly the stated ones.
    let keys: Vec<&str> = sidecar.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["alpha", "cols", "epsilon", "mechanism", "precision", "private", "randomness", "rows", "software", "square"]
    );

    // The same seed gives the same release (a demonstration is reproducible).
    let again = scratch("grid-again");
    let (_, released_again) = privatize(&again, COUNTS, &["--epsilon", "1.5", "--precision", "3", "--seed", "7"]);
    assert_eq!(cells(&released_again), got);
}

#[test]
fn square_grid_is_the_union_of_labels() {
    let dir = scratch("square");
    let (out, released) = privatize(&dir, "row,col,count\na,b,2\nc,a,1\n", &["--alpha", "0.5", "--square"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = cells(&released);
    let labels = ["a", "b", "c"];
    let grid: Vec<(&str, &str)> = labels.iter().flat_map(|r| labels.map(|c| (*r, c))).collect();
    assert_eq!(got.iter().map(|(r, c, _)| (r.as_str(), c.as_str())).collect::<Vec<_>>(), grid);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("NOT PRIVATE") && stderr.contains("operating-system entropy"), "{stderr}");
}

/// A label file for the other shape of grid is refused, naming the options that apply, and no
/// release is written.
#[test]
fn label_options_of_the_other_shape_are_refused() {
    let dir = scratch("label-options");
    std::fs::write(dir.join("people.csv"), "label\na\nb\nc\n").unwrap();
    let people = dir.join("people.csv").display().to_string();
    let cases = [
        (vec!["--alpha", "0.5", "--labels", people.as_str()], "needs --square or --symmetric"),
        (vec!["--alpha", "0.5", "--square", "--rows", people.as_str()], "cannot be used with '--rows"),
    ];
    for (args, says) in cases {
        let (out, released) = privatize(&dir, "row,col,count\na,b,2\nc,a,1\n", &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(2) && stderr.contains(says), "{args:?}: {stderr}");
        assert!(!released.exists(), "{args:?}: a refused release must leave nothing");
    }
}

#[test]
fn zeros_are_noised_and_unseeded_releases_differ() {
    // 400 zero cells (one listed, the rest implied): at α = 0.5 a cell stays 0 with probability
    // (1−α)/(1+α) = 1/3, so all 400 staying 0 has probability 3⁻⁴⁰⁰; two OS-entropy releases
    // agreeing on all 400 cells has probability below (Σ_k P(k)²)^400 = 0.2^400 (P(0)² + ... = 1/5).
    let mut input = String::from("row,col,count\n");
    for r in 0..20 {
        input.push_str(&format!("r{r},c{r},0\n"));
    }
    let (d1, d2) = (scratch("entropy-1"), scratch("entropy-2"));
    let (o1, f1) = privatize(&d1, &input, &["--alpha", "0.5"]);
    let (o2, f2) = privatize(&d2, &input, &["--alpha", "0.5"]);
    assert!(o1.status.success() && o2.status.success());
    let (v1, v2) = (cells(&f1), cells(&f2));
    assert_eq!(v1.len(), 400);
    assert!(v1.iter().any(|c| c.2 != 0), "zero cells must be noised");
    assert_ne!(v1, v2, "two releases from OS entropy must differ");
    let sidecar = std::fs::read_to_string(d1.join("released.csv.privacy.toml")).unwrap();
    assert!(sidecar.contains("private = true"), "{sidecar}");
}

#[test]
fn per_row_levels_from_a_file() {
    let dir = scratch("levels");
    let levels = dir.join("levels.csv");
    std::fs::write(&levels, "row,epsilon\nbob,2\nann,1\ncid,0.5\n").unwrap();
    let (out, released) = privatize(&dir, COUNTS, &["--alpha-file", levels.to_str().unwrap(), "--seed", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(cells(&released).len(), 9);
    let sidecar: toml::Table = std::fs::read_to_string(dir.join("released.csv.privacy.toml")).unwrap().parse().unwrap();
    assert!(sidecar.get("alpha").is_none());
    let rows = sidecar["row"].as_array().unwrap();
    let by_label: HashMap<&str, (f64, f64)> = rows
        .iter()
        .map(|r| {
            let t = r.as_table().unwrap();
            (t["label"].as_str().unwrap(), (t["alpha"].as_float().unwrap(), t["epsilon"].as_float().unwrap()))
        })
        .collect();
    for (label, eps) in [("ann", 1.0), ("bob", 2.0), ("cid", 0.5)] {
        let (alpha, epsilon) = by_label[label];
        assert!((epsilon - eps).abs() < 1e-12 && (alpha - (-eps).exp()).abs() < 1e-15, "{label}: {alpha} {epsilon}");
    }
}

#[test]
fn parquet_in_and_out() {
    let dir = scratch("parquet");
    let (out, csv_release) = privatize(&dir, COUNTS, &["--alpha", "0.3", "--seed", "11"]);
    assert!(out.status.success());
    let parquet = dir.join("released.parquet");
    let counts = dir.join("counts.csv");
    let ok = lppf()
        .args(["privatize", "--input", counts.to_str().unwrap(), "--output", parquet.to_str().unwrap()])
        .args(["--alpha", "0.3", "--seed", "11"])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let table = tables::read_released(&parquet).unwrap();
    let from_csv = tables::read_released(&csv_release).unwrap();
    assert_eq!(table, from_csv, "the same seed gives the same release in either format");
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("negative", "row,col,count\na,x,-3\n", &["--alpha", "0.5"], "line 2"),
        ("non-integer", "row,col,count\na,x,1\na,y,2.5\n", &["--alpha", "0.5"], "line 3"),
        ("duplicate", "row,col,count\na,x,1\nb,x,2\na,x,1\n", &["--alpha", "0.5"], "listed twice"),
        ("missing column", "row,column,count\na,x,1\n", &["--alpha", "0.5"], "no column `col`"),
        ("empty label", "row,col,count\n,x,1\n", &["--alpha", "0.5"], "empty `row` label"),
        ("no cells", "row,col,count\n", &["--alpha", "0.5"], "no cells"),
        ("alpha 1", COUNTS, &["--alpha", "1"], "alpha"),
        ("alpha 0", COUNTS, &["--alpha", "0"], "alpha"),
        ("alpha nan", COUNTS, &["--alpha", "NaN"], "alpha"),
        ("epsilon 0", COUNTS, &["--epsilon", "0"], "epsilon"),
        ("epsilon negative", COUNTS, &["--epsilon", "-1"], "epsilon"),
        ("precision 0", COUNTS, &["--epsilon", "1", "--precision", "0"], "precision"),
        ("no level", COUNTS, &[], "required"),
        ("decimal count", "row,col,count\na,x,1.0\na,y,2.5\n", &["--alpha", "0.5"], "2.5"),
        ("bad delimiter", COUNTS, &["--alpha", "0.5", "--delimiter", "ab"], "not a delimiter"),
        ("renamed column", COUNTS, &["--alpha", "0.5", "--count-column", "n"], "no column `n`"),
    ];
    for (name, input, extra, says) in cases {
        let dir = scratch(&name.replace(' ', "-"));
        let (out, released) = privatize(&dir, input, extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr:?} should mention {says:?}");
        assert!(!released.exists() && !dir.join("released.csv.privacy.toml").exists(), "{name}: wrote output");
    }
}

#[test]
fn bad_level_files_and_an_existing_release() {
    let dir = scratch("bad-levels");
    let levels = dir.join("levels.csv");
    for (text, says) in [
        ("row,alpha\nann,0.5\nbob,0.5\n", "no level for row \"cid\""),
        ("row,alpha\nann,0.5\nbob,0.5\ncid,0.5\ndan,0.5\n", "\"dan\" is not a row"),
        ("row,alpha\nann,0.5\nbob,1.5\ncid,0.5\n", "bob"),
        ("row,epsilon\nann,1\nbob,-1\ncid,1\n", "bob"),
        ("row,level\nann,1\n", "row,alpha or row,epsilon"),
    ] {
        std::fs::write(&levels, text).unwrap();
        let (out, released) = privatize(&dir, COUNTS, &["--alpha-file", levels.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(says), "{text}: {stderr:?} should mention {says:?}");
        assert!(!released.exists(), "{text}: wrote output");
    }
    // A release already there is not replaced without --force.
    let (first, released) = privatize(&dir, COUNTS, &["--alpha", "0.5"]);
    assert!(first.status.success());
    let before = std::fs::read(&released).unwrap();
    let (second, _) = privatize(&dir, COUNTS, &["--alpha", "0.5"]);
    assert_eq!(second.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&second.stderr).contains("--force"));
    assert_eq!(std::fs::read(&released).unwrap(), before);
    let (forced, _) = privatize(&dir, COUNTS, &["--alpha", "0.5", "--force"]);
    assert!(forced.status.success());
}

/// Tables as they come: TSV by extension, another delimiter, other column names and counts
/// written `3.0` or `2e0` give the same release as `row,col,count` (same seed, same grid).
#[test]
fn tables_as_they_come_give_the_same_release() {
    let dir = scratch("as-they-come");
    let level = ["--epsilon", "1.5", "--precision", "3", "--seed", "7"];
    let (out, reference) = privatize(&dir, COUNTS, &level);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected = std::fs::read(&reference).unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        ("counts.tsv", "doc\tword\tn\nann\tx\t3.0\nbob\ty\t1\ncid\tx\t0\nann\tz\t2e0\n", &[]),
        ("counts.txt", "row;col;count\nann;x;3\nbob;y;1.0\ncid;x;0\nann;z;2\n", &["--delimiter", ";"]),
    ];
    for (i, (name, text, extra)) in cases.iter().enumerate() {
        let input = dir.join(name);
        std::fs::write(&input, text).unwrap();
        let output = dir.join(format!("released-{i}.csv"));
        let mut args = vec!["privatize", "--input", input.to_str().unwrap(), "--output", output.to_str().unwrap()];
        args.extend_from_slice(&level);
        args.extend_from_slice(extra);
        if name.ends_with(".tsv") {
            args.extend(["--row-column", "doc", "--col-column", "word", "--count-column", "n"]);
        }
        let out = lppf().args(&args).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read(&output).unwrap(), expected, "{name}");
    }
    // A release written as .tsv is tab-separated and fits like any other.
    let tsv = dir.join("released.tsv");
    let counts = dir.join("counts.csv");
    let out = lppf()
        .args(["privatize", "--input", counts.to_str().unwrap(), "--output", tsv.to_str().unwrap()])
        .args(level)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&tsv).unwrap();
    assert!(text.starts_with("row\tcol\tvalue\n"), "{text}");
    let fit = dir.join("fit");
    let out = lppf()
        .args(["fit", "--input", tsv.to_str().unwrap(), "--output", fit.to_str().unwrap()])
        .args(["--model", "topic", "--components", "1", "--method", "private", "--iterations", "20", "--burn-in", "10"])
        .args(["--quiet", "--threads", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `lppf combine`: per-person releases, each with its own level and column order, become one
/// release whose sidecar lists every row's level, values copied by label; overlapping rows,
/// other columns and other precisions are refused.
#[test]
fn per_person_releases_combine_into_one() {
    let dir = scratch("combine");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let run = |args: &[&str]| lppf().args(args).output().unwrap();
    let (xyz, zyx) = (write("xyz.csv", "label\nx\ny\nz\n"), write("zyx.csv", "label\nz\ny\nx\n"));
    let ann = write("ann-counts.csv", "row,col,count\nann,x,3\nann,z,1\n");
    let others = write("others-counts.csv", "row,col,count\nbob,y,2\ncid,x,5\n");
    let (rows_ann, rows_others) = (write("ann-rows.csv", "label\nann\n"), write("o-rows.csv", "label\nbob\ncid\n"));
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    for (input, rows, cols, output, level) in [
        (&ann, &rows_ann, &xyz, out("ann.csv"), ["--alpha", "0.3", "--seed", "1"]),
        (&others, &rows_others, &zyx, out("others.csv"), ["--epsilon", "2", "--seed", "2"]),
    ] {
        let o =
            run(&[&["privatize", "--input", input, "--output", &output, "--rows", rows, "--cols", cols], &level[..]]
                .concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let combined = out("all.csv");
    let o = run(&["combine", "--inputs", &out("ann.csv"), &out("others.csv"), "--output", &combined]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("NOT PRIVATE"));
    let by_cell = |path: &str| -> HashMap<(String, String), i64> {
        cells(Path::new(path)).into_iter().map(|(r, c, v)| ((r, c), v)).collect()
    };
    let all = by_cell(&combined);
    assert_eq!(all.len(), 9);
    for part in [out("ann.csv"), out("others.csv")] {
        for (cell, v) in by_cell(&part) {
            assert_eq!(all[&cell], v, "{cell:?}");
        }
    }
    let order: Vec<(String, String)> = cells(Path::new(&combined)).into_iter().map(|(r, c, _)| (r, c)).collect();
    assert_eq!(order[..3], [("ann", "x"), ("ann", "y"), ("ann", "z")].map(|(r, c)| (r.to_string(), c.to_string())));
    let sidecar: toml::Table = std::fs::read_to_string(format!("{combined}.privacy.toml")).unwrap().parse().unwrap();
    let levels: Vec<(String, f64)> = sidecar["row"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["label"].as_str().unwrap().to_string(), r["alpha"].as_float().unwrap()))
        .collect();
    let e2 = (-2.0f64).exp();
    assert_eq!(levels, vec![("ann".into(), 0.3), ("bob".into(), e2), ("cid".into(), e2)]);
    assert_eq!(sidecar["private"].as_bool(), Some(false));
    // Refusals: the same rows twice; other columns; another precision.
    let o = run(&["combine", "--inputs", &out("ann.csv"), &out("ann.csv"), "--output", &out("twice.csv")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("overlap"), "{}", String::from_utf8_lossy(&o.stderr));
    let xy = write("xy.csv", "label\nx\ny\n");
    let dan = write("dan-counts.csv", "row,col,count\ndan,x,1\n");
    let o = run(&[
        "privatize",
        "--input",
        &dan,
        "--output",
        &out("dan.csv"),
        "--cols",
        &xy,
        "--alpha",
        "0.5",
        "--seed",
        "3",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["combine", "--inputs", &out("ann.csv"), &out("dan.csv"), "--output", &out("bad.csv")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("column labels differ"));
    let eve = write("eve-counts.csv", "row,col,count\neve,x,1\n");
    let level = ["--epsilon", "1", "--precision", "4", "--seed", "4"];
    let o = run(&[&["privatize", "--input", &eve, "--output", &out("eve.csv"), "--cols", &xyz], &level[..]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["combine", "--inputs", &out("ann.csv"), &out("eve.csv"), "--output", &out("bad.csv")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("precision"));
    assert!(!dir.join("bad.csv").exists() && !dir.join("twice.csv").exists());
}
