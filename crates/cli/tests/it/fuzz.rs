//! Seeded fuzz tests of `lppf privatize` and `lppf fit` (issue 31), and of `lppf slurm`,
//! `combine` and `score` (issue 53): mutated count tables, releases, sidecars, truths, names and
//! flags (the Python entry points have theirs in python/tests). Every case must end in exit 0 with a whole release (both files)
//! or a whole fit, or in exit 2 with a message and nothing left behind — never a panic, an
//! abort, a partial file, or exit 1 for bad input. The cases are fixed by the seed.

use crate::common::s;
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
    if std::env::var("FUZZ_DEBUG").is_ok() {
        eprintln!("CASE {case} {}: {}", &what[..what.len().min(60)], err.lines().last().unwrap_or(""));
    }
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
    let dir = crate::common::scratch("fuzz", "privatize-fit");
    let mut rng = Rng(distributions::Streams::new(20_261_125).rng());
    let (mut ok, mut refused) = (0, 0);
    // A good release to mutate for the fit cases.
    let good_counts = dir.join("good.csv");
    std::fs::write(&good_counts, COUNTS).unwrap();
    let good_release = dir.join("good-release.csv");
    let out =
        crate::common::lppf(["privatize", "--input", s(&good_counts), "--output", s(&good_release), "--alpha", "0.5"]);
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
            let out = crate::common::lppf(&args);
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
            let out = crate::common::lppf(&args);
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
}

/// Hostile text for names: shell code, quotes, control characters, Slurm's patterns.
const NAMES: &[&str] =
    &["gpu", "a b", "x\ny", "$(touch PWNED)", "`id`", "'", "\"", "p#q", "%x", "é", "", "a,b", "-x", "\t"];

/// Every script `lppf slurm` writes parses in bash.
fn scripts_parse(dir: &Path) -> bool {
    ["array.sbatch", "merge.sbatch", "submit.sh"]
        .iter()
        .all(|f| std::process::Command::new("bash").arg("-n").arg(dir.join(f)).status().is_ok_and(|s| s.success()))
}

/// A seeded fuzz test of `lppf slurm`, `combine` and `score` (issue 53): hostile flags, names,
/// mutated sidecars, releases and truths. Every case ends in exit 0 with whole outputs (scripts
/// that parse, a release with its sidecar, a score with no NaN) or exit 2 with a message and
/// nothing written; inputs are never changed and no hostile name runs a command.
#[test]
fn slurm_combine_and_score_mutants_exit_0_whole_or_2_with_nothing_left() {
    let dir = crate::common::scratch("fuzz", "slurm-combine-score");
    let mut rng = Rng(distributions::Streams::new(20_261_127).rng());
    let (mut ok, mut refused) = (0, 0);
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/smoke.toml");
    // Two per-person releases to combine, a fit and its counts to score.
    let counts = dir.join("counts.csv");
    std::fs::write(&counts, COUNTS).unwrap();
    std::fs::write(dir.join("a.csv"), "row,col,count\nd0,w0,3\nd0,w1,0\nd0,w2,1\n").unwrap();
    std::fs::write(dir.join("b.csv"), "row,col,count\nd1,w0,0\nd1,w1,4\nd1,w2,0\n").unwrap();
    for name in ["a", "b"] {
        let (input, output) = (dir.join(format!("{name}.csv")), dir.join(format!("{name}-r.csv")));
        let out = crate::common::lppf(["privatize", "--input", s(&input), "--output", s(&output), "--alpha", "0.5"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let release = dir.join("r.csv");
    let out = crate::common::lppf(["privatize", "--input", s(&counts), "--output", s(&release), "--alpha", "0.5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fit = dir.join("fit");
    let mut args = vec!["fit", "--input", s(&release), "--output", s(&fit), "--model", "topic", "--components", "2"];
    args.extend([
        "--method",
        "private",
        "--iterations",
        "20",
        "--burn-in",
        "10",
        "--thin",
        "2",
        "--seed",
        "1",
        "--quiet",
    ]);
    assert!(crate::common::lppf(&args).status.success());
    let texts: Vec<(String, String)> = ["a-r.csv", "a-r.csv.privacy.toml", "b-r.csv", "b-r.csv.privacy.toml"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read_to_string(dir.join(f)).unwrap()))
        .collect();

    for case in 0..150 {
        let case_dir = dir.join(format!("case{case}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        match case % 3 {
            0 => {
                // slurm: in half the cases one hostile name or number, in the rest none.
                let hostile = rng.below(14);
                let mut pick = |slot: usize, good: &'static str, values: &[&'static str]| {
                    if hostile == slot { rng.pick(values) } else { good }
                };
                let scripts = case_dir.join(pick(0, "scripts", NAMES));
                let (tasks, cpus) = (pick(1, "3", NUMBERS), pick(2, "2", NUMBERS));
                let (time, memory) = (pick(3, "5", NUMBERS), pick(4, "2", NUMBERS));
                let (partition, account) = (pick(5, "short", NAMES), pick(6, "lab-1", NAMES));
                let mut args = vec!["slurm", manifest, "--dir", s(&scripts), "--tasks", tasks, "--cpus-per-task", cpus];
                args.extend(["--time-factor", time, "--memory-factor", memory]);
                args.extend(["--partition", partition, "--account", account]);
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_lppf"))
                    .args(&args)
                    .current_dir(&case_dir)
                    .output()
                    .unwrap();
                let what = format!("slurm {args:?}");
                if check(case, &what, &out) {
                    ok += 1;
                    assert!(scripts_parse(&scripts), "case {case} ({what}): a script does not parse");
                } else {
                    refused += 1;
                    assert!(left_behind(&case_dir, &[]).is_empty(), "case {case} ({what}): left files");
                }
            }
            1 => {
                // combine: mutated per-person releases and sidecars, hostile outputs.
                let mut written = Vec::new();
                // At most one input mutated, in half the cases.
                let mutated = rng.below(2 * texts.len());
                for (k, (name, text)) in texts.iter().enumerate() {
                    let text = if k == mutated {
                        if name.ends_with(".toml") {
                            mutate_sidecar(text, &mut rng)
                        } else {
                            mutate_csv(text, &mut rng)
                        }
                    } else {
                        text.clone()
                    };
                    std::fs::write(case_dir.join(name), &text).unwrap();
                    written.push((name, text));
                }
                let (a, b) = (case_dir.join("a-r.csv"), case_dir.join("b-r.csv"));
                let output = match rng.below(8) {
                    0 => format!("{}/./a-r.csv", s(&case_dir)),
                    1 => s(&case_dir.join(rng.pick(NAMES))).to_string(),
                    _ => s(&case_dir.join("all.csv")).to_string(),
                };
                let mut args = vec!["combine", "--inputs", s(&a), s(&b), "--output", &output];
                if rng.below(3) == 0 {
                    args.push("--force");
                }
                let out = crate::common::lppf(&args);
                let what = format!("combine {args:?}");
                let inputs: Vec<&str> = texts.iter().map(|(n, _)| n.as_str()).collect();
                if check(case, &what, &out) {
                    ok += 1;
                    let made = Path::new(&output);
                    assert!(
                        made.exists() && tables::sidecar_path(made).exists(),
                        "case {case}: a release without its sidecar"
                    );
                    assert_eq!(
                        left_behind(&case_dir, &inputs).len(),
                        2,
                        "case {case}: {:?}",
                        left_behind(&case_dir, &inputs)
                    );
                } else {
                    refused += 1;
                    assert!(left_behind(&case_dir, &inputs).is_empty(), "case {case} ({what}): left files");
                }
                for (name, text) in &written {
                    let now = std::fs::read_to_string(case_dir.join(name)).unwrap_or_default();
                    assert_eq!(&now, text, "case {case} ({what}): the input {name} changed");
                }
            }
            _ => {
                // score: mutated truths and hostile references.
                let truth = case_dir.join("t.csv");
                let text = if rng.below(2) == 0 { mutate_csv(COUNTS, &mut rng) } else { COUNTS.to_string() };
                std::fs::write(&truth, text).unwrap();
                let mut args = vec!["score", "--fit", s(&fit), "--truth", s(&truth)];
                let nowhere = case_dir.join("none");
                match rng.below(4) {
                    0 => args.extend(["--reference", s(&fit)]),
                    1 => args.extend(["--reference", s(&nowhere)]),
                    2 => args.extend(["--reference", s(&case_dir)]),
                    _ => {}
                }
                let out = crate::common::lppf(&args);
                let what = format!("score {args:?}");
                if check(case, &what, &out) {
                    ok += 1;
                    let printed = String::from_utf8_lossy(&out.stdout);
                    assert!(!printed.to_lowercase().contains("nan"), "case {case} ({what}): {printed}");
                    printed.parse::<toml::Table>().unwrap_or_else(|e| panic!("case {case}: not TOML: {e}"));
                } else {
                    refused += 1;
                }
                assert_eq!(left_behind(&case_dir, &["t.csv"]), Vec::<String>::new(), "case {case}: score wrote files");
            }
        }
        assert!(!case_dir.join("PWNED").exists() && !dir.join("PWNED").exists(), "case {case}: a name ran a command");
        std::fs::remove_dir_all(&case_dir).unwrap();
    }
    println!("{ok} cases succeeded, {refused} refused with exit 2");
    assert!(ok >= 20 && refused >= 20, "ok {ok}, refused {refused}");
}
