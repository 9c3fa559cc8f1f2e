//! Counts over time end to end: `lppf privatize --time-column` releases `row,col,time,value` with
//! a sidecar stating the times, `lppf fit --model tensor` fits it and writes every output by its
//! three labels, `lppf score` scores it against the raw counts; and the misuses are refused.

use crate::common::{lppf, s, scratch};
use results::{Values, read_table};
use std::path::Path;

/// Rows, columns, months and components of the planted tensor.
const ROWS: usize = 24;
const COLS: usize = 12;
const MONTHS: usize = 6;

/// Counts `round(μ)` of a planted CP tensor: component `k` holds rows and columns `≡ k (mod 3)`
/// and is active in months `2k` and `2k + 1` only; the months file lists a seventh month with no
/// counts. Deterministic, so the test reads the same data everywhere.
fn planted(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut text = String::from("person,recipient,month,n\n");
    for i in 0..ROWS {
        for j in 0..COLS {
            for t in 0..MONTHS {
                let k = t / 2;
                let mu = if i % 3 == k && j % 3 == k { 4.0 } else { 0.1 };
                let y = (mu + 0.5f64).floor() as u32;
                if y > 0 {
                    text.push_str(&format!("r{i:02},c{j:02},2020-{:02},{y}\n", t + 1));
                }
            }
        }
    }
    let counts = dir.join("counts.csv");
    std::fs::write(&counts, text).unwrap();
    let months = dir.join("months.csv");
    let listed: String = (1..=MONTHS + 1).map(|m| format!("2020-{m:02}\n")).collect();
    std::fs::write(&months, format!("label\n{listed}")).unwrap();
    (counts, months)
}

fn texts(columns: &[(String, Values)], name: &str) -> Vec<String> {
    match columns.iter().find(|(c, _)| c == name).map(|(_, v)| v) {
        Some(Values::Text(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn score_per_cell(fit: &Path, truth: &Path, months: &Path) -> f64 {
    let o = lppf([
        "score",
        "--fit",
        s(fit),
        "--truth",
        s(truth),
        "--times",
        s(months),
        "--row-column",
        "person",
        "--col-column",
        "recipient",
        "--time-column",
        "month",
        "--count-column",
        "n",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let record: toml::Table = String::from_utf8_lossy(&o.stdout).parse().unwrap();
    record["log_likelihood_per_cell"].as_float().unwrap()
}

/// Each component's peak month (by `ψ` in `factors.parquet`) as its planted block of months
/// (`t / 2`), sorted.
fn peak_blocks(fit: &Path) -> Vec<usize> {
    let factors = read_table(&fit.join("factors.parquet")).unwrap();
    let (matrix, label) = (texts(&factors, "matrix"), texts(&factors, "label"));
    let values = match factors.iter().find(|(c, _)| c == "value").map(|(_, v)| v) {
        Some(Values::Float(v)) => v.iter().map(|x| x.unwrap_or(f64::NAN)).collect::<Vec<_>>(),
        other => panic!("value: {other:?}"),
    };
    // ψ's rows are months, K values each.
    let psi: Vec<(String, f64)> =
        (0..matrix.len()).filter(|&n| matrix[n] == "psi").map(|n| (label[n].clone(), values[n])).collect();
    assert_eq!(psi.len(), 3 * (MONTHS + 1));
    let mut blocks: Vec<usize> = (0..3)
        .map(|k| {
            let (month, _) = psi.iter().skip(k).step_by(3).max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
            (month[5..].parse::<usize>().unwrap() - 1) / 2
        })
        .collect();
    blocks.sort_unstable();
    blocks
}

/// The release lists every cell of 24 × 12 × 7 months (the stated empty month too); the private
/// fit finds the three planted time profiles (each pair of planted months is some component's
/// peak), and so does private CAVI; the fit writes rates and factors by label, and describes the
/// raw counts better than the naïve fit of the same release.
#[test]
fn counts_over_time_are_released_fitted_and_scored() {
    let dir = scratch("over-time", "fit");
    let (counts, months) = planted(&dir);
    let released = dir.join("released.csv");
    let layout =
        ["--row-column", "person", "--col-column", "recipient", "--time-column", "month", "--count-column", "n"];
    let mut args = vec!["privatize", "--input", s(&counts), "--output", s(&released), "--times", s(&months)];
    args.extend(["--alpha", "0.3", "--seed", "5"]);
    args.extend(layout);
    let o = lppf(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&released).unwrap();
    assert!(text.starts_with("row,col,time,value\n"), "{}", &text[..60]);
    assert_eq!(text.lines().count(), 1 + ROWS * COLS * (MONTHS + 1));
    let sidecar = std::fs::read_to_string(dir.join("released.csv.privacy.toml")).unwrap();
    assert!(sidecar.contains("rows = 24\ncols = 12\nsquare = false\ntimes = 7\n"), "{sidecar}");
    let fit = |method: &str| {
        let out = dir.join(method);
        let o = lppf([
            "fit",
            "--input",
            s(&released),
            "--model",
            "tensor",
            "--components",
            "3",
            "--method",
            method,
            "--iterations",
            "400",
            "--burn-in",
            "200",
            "--chains",
            "2",
            "--structure-tables",
            "0",
            "--seed",
            "3",
            "--quiet",
            "--output",
            s(&out),
        ]);
        assert!(o.status.success(), "{method}: {}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let (private, naive) = (fit("private"), fit("naive"));
    let rates = read_table(&private.join("rates.parquet")).unwrap();
    assert_eq!(texts(&rates, "time").len(), ROWS * COLS * (MONTHS + 1));
    assert_eq!((texts(&rates, "col")[1].as_str(), texts(&rates, "time")[1].as_str()), ("c00", "2020-02"));
    assert_eq!(peak_blocks(&private), [0, 1, 2], "the private fit's peak months");
    assert_eq!(peak_blocks(&fit("private-cavi")), [0, 1, 2], "the private CAVI fit's peak months");
    let summary = std::fs::read_to_string(private.join("summary.txt")).unwrap();
    assert!(summary.contains("tensor model") && summary.contains("peak times 2020-0"), "{summary}");
    assert!(private.join("figure.png").exists());
    let (p, n) = (score_per_cell(&private, &counts, &months), score_per_cell(&naive, &counts, &months));
    assert!(p > n, "private {p} should describe the raw counts better than naive {n}");
}

/// A release over time is fitted with the tensor model only, the tensor reads only such a
/// release, takes the Poisson likelihood only, and an undirected release over time or `--times`
/// without a time column are refused: exit code 2, nothing written.
#[test]
fn counts_over_time_misuses_are_refused() {
    let dir = scratch("over-time", "refusals");
    let (counts, months) = planted(&dir);
    let layout = ["--row-column", "person", "--col-column", "recipient", "--count-column", "n"];
    let over_time = dir.join("over-time.csv");
    let mut args = vec!["privatize", "--input", s(&counts), "--output", s(&over_time), "--alpha", "0.3"];
    args.extend(layout);
    args.extend(["--time-column", "month", "--seed", "1"]);
    assert!(lppf(&args).status.success());
    let matrix = dir.join("matrix.csv");
    std::fs::write(dir.join("m.csv"), "row,col,count\na,x,1\nb,y,2\n").unwrap();
    let m = dir.join("m.csv");
    assert!(
        lppf(["privatize", "--input", s(&m), "--output", s(&matrix), "--alpha", "0.3", "--seed", "1"]).status.success()
    );
    let fit = |input: &Path, model: &str, extra: &[&str]| {
        let out = dir.join(format!("fit-{model}"));
        let mut args = vec!["fit", "--input", s(input), "--model", model, "--components", "2", "--method", "private"];
        args.extend(["--iterations", "20", "--burn-in", "10", "--quiet", "--output", s(&out)]);
        args.extend(extra);
        (lppf(&args), out)
    };
    let privatize = |extra: &[&str]| {
        let out = dir.join("refused.csv");
        let mut args = vec!["privatize", "--input", s(&counts), "--output", s(&out), "--alpha", "0.3"];
        args.extend(layout);
        args.extend(extra);
        (lppf(&args), out)
    };
    let cases = [
        ("a block fit of a release over time", fit(&over_time, "block", &[]), "fit it with --model tensor"),
        ("a tensor fit of a matrix", fit(&matrix, "tensor", &[]), "this release is a matrix"),
        (
            "an overdispersed tensor",
            fit(&over_time, "tensor", &["--likelihood", "contaminated"]),
            "Poisson likelihood only",
        ),
        ("undirected over time", privatize(&["--time-column", "month", "--symmetric"]), "not supported"),
        ("times without a time column", privatize(&["--times", s(&months)]), "needs --time-column"),
    ];
    for (name, (o, out), says) in cases {
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr:?} should mention {says:?}");
        // A refused fit writes no directory, a refused release no file.
        let wrote = out.join("fit.toml").exists() || out.extension().is_some() && out.exists();
        assert!(!wrote, "{name}: wrote {}", out.display());
    }
}
