//! The audits of `privatize`, `fit`, `epsilon` and `run` as a data holder, an analyst and an
//! attacker on a shared machine would use them (issues 31 and 53): one test per finding, each of
//! which failed before the fix.

use crate::common::{lppf, s};
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::scratch("audit", name)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn privatize(dir: &Path, counts: &str, output: &str, extra: &[&str]) -> Output {
    let input = dir.join(counts);
    let mut args = vec!["privatize", "--input", s(&input), "--output"];
    let output = dir.join(output);
    args.push(s(&output));
    args.extend_from_slice(extra);
    lppf(&args)
}

/// Finding 1: The release's labels and order depend on nothing but the label set: the audit's example
/// lists a's columns first in input order; shuffled lines, zeros listed or left out, give a
/// byte-identical release under a seed (sorted labels, or the stated ones).
#[test]
fn the_release_order_reveals_nothing_about_non_zero_cells() {
    let dir = scratch("labels");
    std::fs::write(dir.join("a.csv"), "row,col,count\na,x,3\na,z,7\nb,y,1\nc,w,2\n").unwrap();
    let out = privatize(&dir, "a.csv", "ra.csv", &["--alpha", "0.5", "--seed", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("--rows FILE and --cols FILE"), "a note on the label set: {}", stderr(&out));
    let text = std::fs::read_to_string(dir.join("ra.csv")).unwrap();
    let cells: Vec<&str> = text.lines().skip(1).map(|l| l.rsplit_once(',').unwrap().0).collect();
    assert_eq!(&cells[..4], ["a,w", "a,x", "a,y", "a,z"], "columns sorted, not in the order of a's counts");
    let sidecar = std::fs::read_to_string(dir.join("ra.csv.privacy.toml")).unwrap();
    assert!(!sidecar.contains("\"x\""), "the sidecar lists no labels: {sidecar}");

    // The same counts in another order with zeros listed: the same bytes.
    std::fs::write(dir.join("b.csv"), "row,col,count\nc,w,2\nb,x,0\nb,y,1\na,z,7\nc,z,0\na,x,3\n").unwrap();
    let out = privatize(&dir, "b.csv", "rb.csv", &["--alpha", "0.5", "--seed", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("ra.csv")).unwrap(), std::fs::read(dir.join("rb.csv")).unwrap());

    // Stated labels: public input in the order given; a zero row (d) and column (v) are released
    // too, and the note is not printed. With fewer cells listed, still the same bytes.
    std::fs::write(dir.join("rows.csv"), "label\nd\nc\nb\na\n").unwrap();
    std::fs::write(dir.join("cols.csv"), "label\nz\ny\nx\nw\nv\n").unwrap();
    let labels = ["--rows", s(&dir.join("rows.csv")), "--cols", s(&dir.join("cols.csv"))].map(str::to_string);
    let flags = |seed: &'static str| {
        let mut v: Vec<&str> = labels.iter().map(String::as_str).collect();
        v.extend(["--alpha", "0.5", "--seed", seed]);
        v
    };
    let out = privatize(&dir, "a.csv", "rc.csv", &flags("3"));
    assert!(out.status.success() && !stderr(&out).contains("NOTE: the grid"), "{}", stderr(&out));
    let out = privatize(&dir, "b.csv", "rd.csv", &flags("3"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("rc.csv")).unwrap(), std::fs::read(dir.join("rd.csv")).unwrap());
    let text = std::fs::read_to_string(dir.join("rc.csv")).unwrap();
    assert_eq!(text.lines().count(), 1 + 4 * 5);
    assert!(text.lines().nth(1).unwrap().starts_with("d,z,"), "{text}");
    // A label outside the stated ones is an error naming its line and label.
    std::fs::write(dir.join("rows.csv"), "label\na\nb\n").unwrap();
    let out = privatize(&dir, "a.csv", "re.csv", &flags("3"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 5") && stderr(&out).contains("\"c\""), "{}", stderr(&out));
    assert!(!dir.join("re.csv").exists());
}

/// Finding 2: σ → 0 gives no finite ε (it printed ε = 0 at σ = 1e-154).
#[test]
fn epsilon_never_rounds_down_to_zero() {
    let out = lppf([
        "epsilon",
        "--sampling-rate",
        "0.01",
        "--noise-multiplier",
        "1e-154",
        "--steps",
        "10",
        "--delta",
        "1e-5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("inf"), "{text}");
}

/// Finding 3: ε/N from 708 up (α not a normal double) is refused with the largest ε allowed; so is a
/// subnormal α.
#[test]
fn levels_whose_alpha_underflows_are_refused() {
    let dir = scratch("underflow");
    std::fs::write(dir.join("c.csv"), "row,col,count\na,x,3\n").unwrap();
    for (flags, says) in [
        (["--epsilon", "800", "--precision", "1"], "the largest epsilon allowed at precision N = 1 is 708"),
        (["--epsilon", "1500", "--precision", "2"], "at precision N = 2 is 1416"),
        (["--alpha", "5e-324", "--precision", "1"], "3.3e-308"),
    ] {
        let out = privatize(&dir, "c.csv", "r.csv", &flags);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{flags:?}: {}", stderr(&out));
        assert_eq!(listing(&dir), ["c.csv"]);
    }
    let out = privatize(&dir, "c.csv", "r.csv", &["--epsilon", "700", "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sidecar: toml::Table = std::fs::read_to_string(dir.join("r.csv.privacy.toml")).unwrap().parse().unwrap();
    let alpha = sidecar["alpha"].as_float().unwrap();
    assert!(alpha.is_normal() && sidecar["epsilon"].as_float().unwrap().is_finite(), "{sidecar}");
}

/// A table big enough that writing its release takes a while (200 × 500 = 10⁵ cells).
fn big_counts(dir: &Path) {
    let mut text = String::from("row,col,count\n");
    for r in 0..200 {
        text.push_str(&format!("r{r:03},c{:03},{}\n", r % 500, r % 7));
    }
    text.push_str("r000,c499,1\n");
    std::fs::write(dir.join("big.csv"), text).unwrap();
}

/// Finding 4: Two concurrent releases onto one name: exactly one succeeds, and the pair on disk is its.
#[test]
fn concurrent_releases_onto_one_name_cannot_both_succeed() {
    let dir = scratch("concurrent");
    big_counts(&dir);
    for round in 0..4 {
        let output = dir.join(format!("r{round}.csv"));
        let spawn = || {
            std::process::Command::new(env!("CARGO_BIN_EXE_lppf"))
                .args(["privatize", "--input", s(&dir.join("big.csv")), "--output", s(&output), "--alpha", "0.5"])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let codes = [a.status.code(), b.status.code()];
        assert!(
            codes == [Some(0), Some(2)] || codes == [Some(2), Some(0)],
            "round {round}: {codes:?}\n{}\n{}",
            stderr(&a),
            stderr(&b)
        );
        let loser = if a.status.success() { &b } else { &a };
        assert!(stderr(loser).contains("a release is already there"), "{}", stderr(loser));
    }
    let names = listing(&dir);
    assert_eq!(names.len(), 1 + 2 * 4, "a release and its sidecar each, no pending files: {names:?}");
}

/// Finding 5: `kill -9` at any moment leaves both files or neither once the next command has run (it
/// completes a commit stopped between its two links, and removes pending files).
#[test]
fn a_killed_release_leaves_both_files_or_neither() {
    let dir = scratch("kill");
    big_counts(&dir);
    let mut states = std::collections::BTreeSet::new();
    for (round, delay_ms) in [0u64, 5, 10, 20, 30, 45, 60, 80, 110, 150].into_iter().enumerate() {
        let output = dir.join(format!("k{round}.csv"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lppf"))
            .args(["privatize", "--input", s(&dir.join("big.csv")), "--output", s(&output), "--alpha", "0.5"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // The next command on that name recovers first: a fit reading it, here.
        let _ = lppf(
            ["fit", "--input", s(&output), "--model", "topic", "--components", "1", "--method", "naive"]
                .iter()
                .chain(&["--iterations", "2", "--burn-in", "1", "--thin", "1", "--output", s(&dir.join("unused"))]),
        );
        let (release, sidecar) = (output.exists(), dir.join(format!("k{round}.csv.privacy.toml")).exists());
        assert_eq!(release, sidecar, "delay {delay_ms} ms: release {release}, sidecar {sidecar}");
        states.insert(release);
        let _ = std::fs::remove_dir_all(dir.join("unused"));
    }
    let stray: Vec<String> =
        listing(&dir).into_iter().filter(|n| n.contains("pending") || n.ends_with(".tmp")).collect();
    assert!(stray.is_empty(), "pending files of killed runs were removed: {stray:?}");
    println!("states seen after kills (release present): {states:?}");
}

/// Finding 6: The release may not overwrite its input (even with --force, even through a link).
#[test]
fn output_onto_the_input_is_refused() {
    let dir = scratch("same");
    let counts = "row,col,count\na,x,3\n";
    std::fs::write(dir.join("c.csv"), counts).unwrap();
    std::os::unix::fs::symlink(dir.join("c.csv"), dir.join("link.csv")).unwrap();
    for output in ["c.csv", "link.csv"] {
        let out = privatize(&dir, "c.csv", output, &["--alpha", "0.5", "--force"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("same file"), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(dir.join("c.csv")).unwrap(), counts);
    }
}

/// A seeded release of a 6 × 5 table at α = 0.5 (ε = ln 2 at N = 1), returning its path.
fn release(dir: &Path) -> PathBuf {
    let mut text = String::from("row,col,count\n");
    for r in 0..6 {
        for c in 0..5 {
            text.push_str(&format!("r{r},c{c},{}\n", (r + c) % 4));
        }
    }
    std::fs::write(dir.join("c.csv"), text).unwrap();
    let out = privatize(dir, "c.csv", "r.csv", &["--alpha", "0.5", "--seed", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    dir.join("r.csv")
}

fn fit(release: &Path, output: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["fit", "--input", s(release), "--model", "topic", "--components", "2", "--method", "private"];
    args.extend(["--iterations", "20", "--burn-in", "10", "--thin", "2", "--chains", "1", "--seed", "1", "--quiet"]);
    args.extend(["--output", s(output)]);
    args.extend_from_slice(extra);
    lppf(&args)
}

/// Finding 7: Every sidecar field is checked, and `--alpha` may not contradict the sidecar silently.
#[test]
fn fit_checks_the_sidecar_and_refuses_a_contradicting_alpha() {
    let dir = scratch("sidecar");
    let released = release(&dir);
    let sidecar_file = dir.join("r.csv.privacy.toml");
    let good = std::fs::read_to_string(&sidecar_file).unwrap();
    // As stated: ln 2, rounded up.
    let eps = good.lines().find_map(|l| l.strip_prefix("epsilon = ")).unwrap().to_string();
    assert!(eps.parse::<f64>().unwrap() >= 2f64.ln());
    let edits: Vec<(String, &str)> = vec![
        (good.replace(&format!("epsilon = {eps}"), "epsilon = 0.0"), "epsilon = 0"),
        (good.replace(&format!("epsilon = {eps}"), "epsilon = -1.0"), "epsilon = -1"),
        (good.replace(&format!("epsilon = {eps}"), "epsilon = nan"), "epsilon = NaN"),
        (good.replace(&format!("epsilon = {eps}"), "epsilon = inf"), "epsilon = inf"),
        (good.replace(&format!("epsilon = {eps}"), "epsilon = 2.0"), "does not match alpha"),
        (good.replace("precision = 1.0", "precision = 0.0"), "precision = 0"),
        (good.replace("precision = 1.0", "precision = -2.0"), "precision = -2"),
        (good.replace("square = false", "square = true"), "square = true with rows = 6 and cols = 5"),
        (format!("{good}\n[[row]]\nlabel = \"r0\"\nalpha = 0.5\nepsilon = {eps}\n"), "both a level for every row"),
        (good.replace("alpha = 0.5\n", ""), "alpha and epsilon go together"),
    ];
    for (i, (text, says)) in edits.iter().enumerate() {
        assert_ne!(text, &good, "edit {i} changed nothing");
        std::fs::write(&sidecar_file, text).unwrap();
        let out = fit(&released, &dir.join(format!("f{i}")), &[]);
        assert_eq!(out.status.code(), Some(2), "edit {i} ({says}): {}", stderr(&out));
        assert!(stderr(&out).contains(says), "edit {i}: {}", stderr(&out));
        assert!(!dir.join(format!("f{i}")).exists());
    }
    std::fs::write(&sidecar_file, &good).unwrap();
    let out = fit(&released, &dir.join("contra"), &["--alpha", "0.3"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("contradict") && stderr(&out).contains("--override-sidecar"), "{}", stderr(&out));
    let out = fit(&released, &dir.join("same"), &["--alpha", "0.5"]);
    assert!(out.status.success(), "--alpha agreeing with the sidecar: {}", stderr(&out));
    let out = fit(&released, &dir.join("over"), &["--alpha", "0.3", "--override-sidecar"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let record = std::fs::read_to_string(dir.join("over/fit.toml")).unwrap();
    assert!(record.contains("overrides_sidecar") && record.contains("alpha = 0.5"), "{record}");
}

/// Finding 8, 13: `fit --output /` (and an existing file, and someone else's directory) is refused with
/// exit 2 before anything is written.
#[test]
fn fit_refuses_output_directories_that_are_not_its_own() {
    let dir = scratch("outdir");
    let released = release(&dir);
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("theirs")).unwrap();
    std::fs::write(dir.join("theirs/notes.txt"), "mine").unwrap();
    for (output, says) in [
        (PathBuf::from("/"), "root of the file system"),
        (dir.join("file"), "not a directory"),
        (dir.join("theirs"), "other files in it"),
    ] {
        let out = fit(&released, &output, &["--force"]);
        assert_eq!(out.status.code(), Some(2), "{}: {}", output.display(), stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    assert!(!Path::new("/fit.toml").exists() && !Path::new("/rates.parquet").exists());
    assert_eq!(listing(&dir.join("theirs")), ["notes.txt"]);
}

/// Finding 9: A fit that cannot be written whole (here: the file-size limit, as a full disk would) leaves
/// no directory behind, and the rerun is not refused as "already holds a fit". A fit replaced
/// with --force is whole too.
#[test]
fn a_failed_fit_leaves_nothing_and_a_rerun_proceeds() {
    let dir = scratch("partial");
    let released = release(&dir);
    let output = dir.join("fit");
    // SIGXFSZ ignored, so writes past 8 kB fail with EFBIG (as ENOSPC would) instead of killing.
    let command = format!(
        "trap '' XFSZ; ulimit -f 16; exec '{}' fit --input '{}' --model topic --components 2 --method private \
         --iterations 20 --burn-in 10 --thin 2 --chains 1 --seed 1 --quiet --output '{}'",
        env!("CARGO_BIN_EXE_lppf"),
        s(&released),
        s(&output)
    );
    let out = std::process::Command::new("bash").args(["-c", &command]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!output.exists(), "a partial fit was left: {:?}", listing(&dir));
    assert!(listing(&dir).iter().all(|n| !n.contains("pending")), "{:?}", listing(&dir));
    let out = fit(&released, &output, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = std::fs::read(output.join("rates.parquet")).unwrap();
    let out = fit(&released, &output, &["--force", "--a0", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(std::fs::read(output.join("rates.parquet")).unwrap(), first);
    assert_eq!(listing(&output).len(), analysis::OUTPUT_FILES.len() + analysis::CHECK_FIGURES.len());
}

/// Finding 10: Huge iteration counts are refused before anything is allocated (they panicked with
/// "capacity overflow" or aborted on an 80 GB allocation).
#[test]
fn huge_iteration_counts_are_refused_not_panicked() {
    let dir = scratch("huge");
    let released = release(&dir);
    for iterations in ["9223372036854775808", "10000000000"] {
        let mut args = vec!["fit", "--input", s(&released), "--model", "topic", "--components", "2"];
        args.extend(["--method", "private", "--iterations", iterations, "--burn-in", "0", "--thin", "1"]);
        let output = dir.join("f");
        args.extend(["--output", s(&output)]);
        let out = lppf(&args);
        assert_eq!(out.status.code(), Some(2), "--iterations {iterations}: {}", stderr(&out));
        assert!(stderr(&out).contains("of memory") && stderr(&out).contains("--allow-memory"), "{}", stderr(&out));
        assert!(!output.exists());
    }
    // A held-out manifest with fit.iterations = 2^63 − 1: validate states the cost, run refuses.
    let manifest = dir.join("h.toml");
    std::fs::write(
        &manifest,
        format!(
            "[experiment]\nname = \"huge\"\nseed = 1\nkind = \"held-out\"\noutput = \"{}\"\n\
             [data]\nsource = \"released\"\npath = \"{}\"\n[model]\nkind = \"topic\"\ncomponents = [2]\na0 = 1.0\nb0 = 1.0\n\
             [fit]\nmethods = [\"private\"]\nchains = 1\niterations = 9223372036854775807\nburn_in = 0\nthin = 1\n\
             [holdout]\nfraction = 0.1\nreplications = 1\n",
            s(&dir.join("out")),
            s(&released)
        ),
    )
    .unwrap();
    let out = lppf(["validate", s(&manifest)]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("memory"), "{}", stderr(&out));
    let out = lppf(["run", s(&manifest), "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("needs about"), "{}", stderr(&out));
    // A DPVI design at its caps (10⁵ replications of 10⁷ points): estimated, and refused.
    let dpvi = dir.join("d.toml");
    std::fs::write(
        &dpvi,
        format!(
            "[experiment]\nname = \"huge-dpvi\"\nseed = 1\nkind = \"dpvi\"\noutput = \"{}\"\n[dpvi]\ndataset = \"gmm\"\n\
             methods = [\"non-private\"]\nepsilon = []\nsampling_rate = [0.1]\nclip = []\niterations = 10\n\
             replications = 100000\n[dpvi.gmm]\ntrain_points = 10000000\ntest_points = 10000000\n",
            s(&dir.join("dout"))
        ),
    )
    .unwrap();
    let out = lppf(["validate", s(&dpvi)]);
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("GB peak memory"),
        "{}",
        stderr(&out)
    );
    let out = lppf(["run", s(&dpvi), "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("needs about") && !dir.join("dout").exists(), "{}", stderr(&out));
}

/// Finding 13: a released value outside the 32 bits the samplers store is named by its labels
/// (it was "value … at entry 5", a 0-based index).
#[test]
fn a_released_value_too_large_is_named_by_its_labels() {
    let dir = scratch("large-value");
    let released = release(&dir);
    let text = std::fs::read_to_string(&released).unwrap();
    let line = text.lines().find(|l| l.starts_with("r2,c3,")).unwrap().to_string();
    std::fs::write(&released, text.replace(&line, "r2,c3,3000000000")).unwrap();
    let out = fit(&released, &dir.join("f"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("3000000000 of (r2, c3)"), "{}", stderr(&out));
}

/// Finding 13: Counts of 2^63 and above, and duplicate header columns, are bad input (exit 2) naming the
/// line and the labels.
#[test]
fn bad_counts_and_headers_exit_2_with_line_and_labels() {
    let dir = scratch("exit");
    for (text, says) in [
        ("row,col,count\nann,x,3\nbob,y,9223372036854775808\n", "line 3: (bob, y): count \"9223372036854775808\""),
        ("row,col,count\nann,x,4611686018427387905\n", "from 0 to 4611686018427387904"),
        ("row,col,count,count\nann,x,3,4\n", "names the column `count` twice"),
    ] {
        std::fs::write(dir.join("c.csv"), text).unwrap();
        let out = privatize(&dir, "c.csv", "r.csv", &["--alpha", "0.5"]);
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert_eq!(listing(&dir), ["c.csv"]);
    }
}

// ---- Issue 53: a shared machine and a careless user ----

/// `fit --force` replaces a fit's files and nothing else: a `score.toml` and a folder of notes the
/// user keeps in the fit directory survive, and a figure the new fit does not draw is removed.
#[test]
fn fit_force_keeps_the_files_it_did_not_write() {
    let dir = scratch("force-keeps");
    let released = release(&dir);
    let output = dir.join("fit");
    let out = fit(&released, &output, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(output.join("score.toml"), "mine").unwrap();
    std::fs::create_dir(output.join("notes")).unwrap();
    std::fs::write(output.join("notes").join("a.md"), "mine").unwrap();
    let out = fit(&released, &output, &["--force", "--weights", "equal"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(output.join("score.toml")).unwrap(), "mine");
    assert!(output.join("notes").join("a.md").exists());
    let names = listing(&output);
    assert!(names.contains(&"fit.toml".to_string()) && names.contains(&"rates.parquet".to_string()), "{names:?}");
    assert!(listing(&dir).iter().all(|n| !n.contains("pending")), "{:?}", listing(&dir));
}

/// Recovery after a kill removes only the exact pending names lppf creates: a user's files and
/// directory trees named like `<release>.<anything>.<digits>.tmp` (which earlier versions deleted)
/// survive a release, a `--force` release and a fit of it.
#[test]
fn recovery_never_deletes_a_users_files_or_trees() {
    let dir = scratch("recovery-keeps");
    let released = release(&dir);
    let keep = ["r.csv.4000000000.tmp", "r.csv.backup.4000000000.tmp", "r.csv.privacy.toml.1.tmp"];
    for name in keep {
        std::fs::write(dir.join(name), "mine").unwrap();
    }
    let tree = dir.join("r.csv.runs.4000000000.tmp");
    std::fs::create_dir_all(tree.join("inner")).unwrap();
    std::fs::write(tree.join("inner").join("data.txt"), "mine").unwrap();
    let out = privatize(&dir, "c.csv", "r.csv", &["--alpha", "0.5", "--seed", "4", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fit(&released, &dir.join("fit"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    for name in keep {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), "mine", "{name}");
    }
    assert!(tree.join("inner").join("data.txt").exists());
}

/// The cost of the pointwise likelihoods (PSIS-LOO weights under the default `--weights auto`, and
/// the held-out score with `--holdout`) does not grow with the released values: a 6 × 5 release of
/// counts near 2·10⁷ fits as fast as one of small counts (it did not finish in 90 s). The bound
/// below is a guard against a hang, not a benchmark: the fit takes about a second.
#[test]
fn fit_time_does_not_grow_with_the_released_values() {
    let dir = scratch("big-values");
    let mut text = String::from("row,col,count\n");
    for r in 0..6 {
        for c in 0..5 {
            text.push_str(&format!("r{r},c{c},{}\n", 20_000_000 + 1_000 * r - 700 * c));
        }
    }
    std::fs::write(dir.join("big.csv"), text).unwrap();
    let out = privatize(&dir, "big.csv", "big-r.csv", &["--alpha", "0.5", "--seed", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let input = dir.join("big-r.csv");
    for (name, extra) in [("loo", &[][..]), ("holdout", &["--holdout", "0.2"][..])] {
        let output = dir.join(name);
        let mut args = vec!["fit", "--input", s(&input), "--model", "topic", "--components", "2"];
        args.extend(["--method", "private", "--seed", "1", "--quiet", "--output", s(&output)]);
        args.extend_from_slice(extra);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lppf"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > std::time::Duration::from_secs(300) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(status.is_some_and(|s| s.success()), "{name}: the fit did not finish within 300 s ({status:?})");
        assert!(output.join("fit.toml").exists());
    }
}

/// The small findings: each refused or read as it should be, with the option or value named.
#[test]
fn the_small_findings_of_the_second_audit() {
    let dir = scratch("small");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        dir.join(name)
    };
    // --symmetric implies --square, also for --labels.
    write("net.csv", "row,col,count\na,b,2\nb,c,1\n");
    write("labels.csv", "label\na\nb\nc\nd\n");
    let labels = dir.join("labels.csv");
    let out = privatize(&dir, "net.csv", "net-r.csv", &["--symmetric", "--labels", s(&labels), "--alpha", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // combine refuses an --output that is one of the inputs under another name (./ or a link).
    let out = privatize(&dir, "net.csv", "one.csv", &["--alpha", "0.5", "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::os::unix::fs::symlink(dir.join("one.csv"), dir.join("alias.csv")).unwrap();
    let before = std::fs::read(dir.join("one.csv")).unwrap();
    for output in [format!("{}/./one.csv", s(&dir)), s(&dir.join("alias.csv")).to_string()] {
        let out = lppf(["combine", "--inputs", s(&dir.join("one.csv")), "--output", &output, "--force"]);
        assert_eq!(out.status.code(), Some(2), "{output}: {}", stderr(&out));
        assert!(stderr(&out).contains("is one of the --inputs"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(dir.join("one.csv")).unwrap(), before);
    // Counts that are not exact integers are refused, not rounded.
    for count in ["2.9999999999999999", "0.5", "1e-1"] {
        write("frac.csv", &format!("row,col,count\na,x,{count}\nb,y,1\n"));
        let out = privatize(&dir, "frac.csv", "frac-r.csv", &["--alpha", "0.5"]);
        assert_eq!(out.status.code(), Some(2), "{count}: {}", stderr(&out));
        assert!(stderr(&out).contains(count) && stderr(&out).contains("line 2"), "{count}: {}", stderr(&out));
    }
    // lppf epsilon prints only levels a release can have.
    for args in [["--epsilon", "800"], ["--epsilon", "1e-300"], ["--alpha", "1e-310"]] {
        let out = lppf(["epsilon", args[0], args[1], "--precision", "1"]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("privatize refuses this level"), "{}", stderr(&out));
    }
    // The sidecar never states less ε than the mechanism gives: ε = 2⁻²⁴ exactly, rounded up.
    let tiny = 2f64.powi(-24);
    let out = privatize(&dir, "net.csv", "tiny.csv", &["--epsilon", &tiny.to_string(), "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sidecar: toml::Table = std::fs::read_to_string(dir.join("tiny.csv.privacy.toml")).unwrap().parse().unwrap();
    let stated = sidecar["epsilon"].as_float().unwrap();
    assert!(stated >= tiny && stated < tiny * (1.0 + 1e-14), "{stated} vs {tiny}");
    // --scale-shape / --scale-mean with a flat prior would do nothing: refused.
    let released = release(&dir);
    for extra in [["--scale-shape", "3"], ["--scale-mean", "2"]] {
        let out = fit(&released, &dir.join("flat"), &[&["--prior", "flat"][..], &extra[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("hierarchical prior, which this fit does not use"), "{}", stderr(&out));
    }
    // --allow-memory does not let a fit allocate more than the machine has in all.
    let huge = dir.join("huge");
    let mut args = vec!["fit", "--input", s(&released), "--model", "topic", "--components", "2"];
    args.extend(["--method", "private", "--iterations", "10000000000", "--burn-in", "0", "--thin", "1"]);
    args.extend(["--allow-memory", "--output", s(&huge)]);
    let out = lppf(&args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("this machine has in all"), "{}", stderr(&out));
    // A manifest integer beyond 2⁶³ − 1 is blamed on its own field.
    let manifest = write("h.toml", "[experiment]\nname = \"h\"\nseed = 18446744073709551616\n");
    let out = lppf(["validate", s(&manifest)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("experiment.seed"), "{}", stderr(&out));
}

/// `score`: a reference fit of another grid is refused (it printed rate_correlation = nan and
/// exit 0), and a row of the counts the fit does not have is refused, not left out.
#[test]
fn score_refuses_fits_and_counts_it_cannot_compare() {
    let dir = scratch("score");
    let released = release(&dir);
    let out = fit(&released, &dir.join("a"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(dir.join("other.csv"), "row,col,count\nq,x,1\nw,y,2\n").unwrap();
    let out = privatize(&dir, "other.csv", "other-r.csv", &["--alpha", "0.5", "--seed", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fit(&dir.join("other-r.csv"), &dir.join("b"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let counts = dir.join("c.csv");
    let out = lppf(["score", "--fit", s(&dir.join("a")), "--truth", s(&counts), "--reference", s(&dir.join("b"))]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr(&out).contains("do not hold the same cells"), "{}", stderr(&out));
    let mut wider = std::fs::read_to_string(&counts).unwrap();
    wider.push_str("r9,c0,4\n");
    std::fs::write(dir.join("wider.csv"), wider).unwrap();
    let out = lppf(["score", "--fit", s(&dir.join("a")), "--truth", s(&dir.join("wider.csv"))]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr(&out).contains("\"r9\""), "{}", stderr(&out));
}
