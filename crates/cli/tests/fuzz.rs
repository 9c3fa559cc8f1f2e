//! A seeded fuzz test of `lppf privatize` and `lppf fit` (issue 31): mutated count tables,
//! releases, sidecars and flags. Every case must end in exit 0 with a whole release (both files)
//! or a whole fit, or in exit 2 with a message and nothing left behind — never a panic, an
//! abort, a partial file, or exit 1 for bad input. The cases are fixed by the seed.

mod common;

use common::s;
use rand::RngExt;
use std::path::Path;
use std::process::Output;

/// Hostile field values: empty, negative, fractional, huge, not numbers, quoting, unicode.
const VALUES: &[&str] = &[
    "",
    "-1",
    "0",
    "3.0",
    "1e3",
    "9223372036854775808",
    "18446744073709551616",
    "4611686018427387905",
    "x",
    "\"a,b\"",
    "é",
    "nan",
    "inf",
    " 7 ",
    "0x10",
];

/// Hostile numbers for flags and sidecar fields.
const NUMBERS: &[&str] = &[
    "-1",
    "0",
    "0.5",
    "1",
    "1e-300",
    "5e-324",
    "708",
    "709",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "9223372036854775808",
    "x",
];

/// The case stream: the project's seeded simulation generator.
struct Rng(distributions::StreamRng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }

    fn pick<'a>(&mut self, values: &[&'a str]) -> &'a str {
        values[self.below(values.len())]
    }

    /// `good` three times in four, else a hostile value from `values`.
    fn mostly<'a>(&mut self, good: &'a str, values: &[&'a str]) -> &'a str {
        if self.below(4) == 0 { self.pick(values) } else { good }
    }
}

/// One mutant of a CSV text: a field replaced, a line deleted, repeated or cut, or a column added.
fn mutate_csv(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = rng.below(lines.len());
    match rng.below(6) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(i, lines[i].clone()),
        2 => {
            let cut = rng.below(lines[i].len() + 1);
            lines[i].truncate(cut);
        }
        3 => lines[i].push_str(&format!(",{}", rng.pick(VALUES))),
        _ => {
            let mut fields: Vec<String> = lines[i].split(',').map(str::to_string).collect();
            let j = rng.below(fields.len());
            fields[j] = rng.pick(VALUES).to_string();
            lines[i] = fields.join(",");
        }
    }
    lines.join("\n") + "\n"
}

/// One mutant of a sidecar: a value replaced, a line deleted or repeated, or a row table added.
fn mutate_sidecar(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let keyed: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
    let i = keyed[rng.below(keyed.len())];
    let key = lines[i].split(" = ").next().unwrap_or("").to_string();
    match rng.below(5) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(i, lines[i].clone()),
        2 => lines.push(format!(
            "[[row]]\nlabel = \"d0\"\nalpha = {}\nepsilon = {}",
            rng.pick(NUMBERS),
            rng.pick(NUMBERS)
        )),
        _ => lines[i] = format!("{key} = {}", rng.pick(NUMBERS)),
    }
    lines.join("\n") + "\n"
}

/// Names in `dir` other than the inputs of the case.
fn left_behind(dir: &Path, inputs: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !inputs.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

fn check(case: usize, what: &str, out: &Output) -> bool {
    let err = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => true,
        Some(2) => {
            assert!(err.contains("error"), "case {case} ({what}): exit 2 without a message");
            assert!(!err.contains("panicked"), "case {case} ({what}): {err}");
            false
        }
        code => panic!("case {case} ({what}): exit {code:?} for bad input\n{err}"),
    }
}

const COUNTS: &str = "row,col,count\nd0,w0,3\nd0,w2,1\nd1,w1,4\nd2,w0,2\nd2,w3,5\n";

#[test]
fn mutated_inputs_exit_0_whole_or_2_with_nothing_left() {
    let dir = std::env::temp_dir().join(format!("lppf-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(distributions::Streams::new(20_261_125).rng());
    let (mut ok, mut refused) = (0, 0);
    // A good release to mutate for the fit cases.
    let good_counts = dir.join("good.csv");
    std::fs::write(&good_counts, COUNTS).unwrap();
    let good_release = dir.join("good-release.csv");
    let out = common::lppf(["privatize", "--input", s(&good_counts), "--output", s(&good_release), "--alpha", "0.5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let release_text = std::fs::read_to_string(&good_release).unwrap();
    let sidecar_text = std::fs::read_to_string(dir.join("good-release.csv.privacy.toml")).unwrap();

    for case in 0..400 {
        let case_dir = dir.join(format!("case{case}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        if case % 2 == 0 {
            // privatize: mutated counts (two mutations at most) and a hostile level or precision.
            let mut counts = mutate_csv(COUNTS, &mut rng);
            if rng.below(2) == 0 {
                counts = mutate_csv(&counts, &mut rng);
            }
            std::fs::write(case_dir.join("c.csv"), &counts).unwrap();
            let (input, output) = (case_dir.join("c.csv"), case_dir.join("r.csv"));
            let mut args = vec!["privatize", "--input", s(&input), "--output", s(&output)];
            match rng.below(3) {
                0 => args.extend(["--epsilon", rng.mostly("1", NUMBERS), "--precision", rng.mostly("2", NUMBERS)]),
                1 => args.extend(["--alpha", rng.mostly("0.5", NUMBERS)]),
                _ => args.extend(["--epsilon", rng.mostly("0.7", NUMBERS)]),
            }
            if rng.below(4) == 0 {
                args.push("--square");
            }
            let out = common::lppf(&args);
            let what = format!("privatize {args:?} on {counts:?}");
            if check(case, &what, &out) {
                ok += 1;
                let sidecar = case_dir.join("r.csv.privacy.toml");
                assert!(output.exists() && sidecar.exists(), "case {case}: a release without its sidecar");
                let stated: toml::Table = std::fs::read_to_string(&sidecar).unwrap().parse().unwrap();
                if let Some(alpha) = stated.get("alpha").and_then(toml::Value::as_float) {
                    assert!(alpha.is_normal() && alpha < 1.0, "case {case}: alpha {alpha}");
                }
                assert_eq!(left_behind(&case_dir, &["c.csv"]), ["r.csv", "r.csv.privacy.toml"], "case {case}");
            } else {
                refused += 1;
                assert!(left_behind(&case_dir, &["c.csv"]).is_empty(), "case {case} ({what}): left files");
            }
        } else {
            // fit: a mutated release or sidecar, and hostile settings.
            let (mut release, mut sidecar) = (release_text.clone(), sidecar_text.clone());
            match rng.below(3) {
                0 => release = mutate_csv(&release, &mut rng),
                1 => sidecar = mutate_sidecar(&sidecar, &mut rng),
                _ => {}
            }
            std::fs::write(case_dir.join("r.csv"), &release).unwrap();
            std::fs::write(case_dir.join("r.csv.privacy.toml"), &sidecar).unwrap();
            let (input, output) = (case_dir.join("r.csv"), case_dir.join("fit"));
            let mut args = vec!["fit", "--input", s(&input), "--output", s(&output), "--quiet"];
            args.extend(["--model", rng.mostly("topic", &["block", "x"])]);
            args.extend(["--method", rng.mostly("private", &["naive", "private-cavi", "non-private", "x"])]);
            args.extend(["--components", rng.mostly("2", &["1", "0", "100000", "x"])]);
            args.extend(["--chains", rng.mostly("1", &["2", "0", "1000000"])]);
            args.extend(["--iterations", rng.mostly("20", &["0", "18446744073709551615", "10000000000"])]);
            args.extend(["--burn-in", "10", "--thin", "2", "--max-iterations", "20", "--seed", "1"]);
            match rng.below(5) {
                0 => args.extend(["--alpha", rng.pick(NUMBERS)]),
                1 => args.extend(["--holdout", rng.pick(NUMBERS)]),
                2 => args.extend(["--a0", rng.pick(NUMBERS)]),
                _ => {}
            }
            let out = common::lppf(&args);
            let what = format!("fit {args:?}");
            if check(case, &what, &out) {
                ok += 1;
                for file in analysis::OUTPUT_FILES {
                    assert!(output.join(file).exists(), "case {case}: {file} missing");
                }
            } else {
                refused += 1;
                let left = left_behind(&case_dir, &["r.csv", "r.csv.privacy.toml"]);
                assert!(left.is_empty(), "case {case} ({what}): left {left:?}");
            }
        }
        std::fs::remove_dir_all(&case_dir).unwrap();
    }
    println!("{ok} cases succeeded, {refused} refused with exit 2");
    // Both outcomes are exercised (with this seed: 47 succeed, 353 are refused; the bounds
    // only guard against a change that makes every case fail or pass).
    assert!(ok >= 25 && refused >= 100, "ok {ok}, refused {refused}");
    std::fs::remove_dir_all(&dir).unwrap();
}
