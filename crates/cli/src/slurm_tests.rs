//! The scripts of `lppf slurm` under hostile names: whatever the paths hold, bash parses every
//! script, runs nothing but lppf and Slurm's commands, and hands lppf and sbatch the exact paths.

use super::*;
use proptest::prelude::*;
use std::process::Command;

/// Pieces of hostile names: command substitutions in both syntaxes, quotes that would end a
/// quoted string, separators, globs, Slurm's `%` patterns and sbatch's comment mark.
const HOSTILE: [&str; 12] = [
    "$(touch PWNED)",
    "`touch PWNED`",
    "';touch PWNED;'",
    "\";touch PWNED;\"",
    "$HOME",
    "${IFS}",
    " -x ",
    "*?[a]",
    "%x%A%%",
    "#SBATCH --mem=1",
    "'\\''",
    "é ü",
];

fn name_part() -> impl Strategy<Value = String> {
    let piece =
        prop_oneof![proptest::sample::select(HOSTILE.to_vec()).prop_map(str::to_string), "[ -~]{1,4}".prop_map(|s| s),];
    prop::collection::vec(piece, 1..4).prop_map(|parts| {
        // One path component: no '/', never '.' or '..'.
        let name = parts.concat().replace('/', "_");
        format!("n{name}")
    })
}

/// Splits what the fake commands logged: one record per call (`\x01`-terminated) of
/// `\0`-terminated fields: the command, its working directory, its arguments.
fn calls(log: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.split('\x01')
        .filter(|r| !r.is_empty())
        .map(|r| r.split('\0').filter(|f| !f.is_empty()).map(str::to_string).collect())
        .collect()
}

/// Whether any entry under `root` is named exactly `name`.
fn find(root: &Path, name: &str) -> bool {
    std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name() == name || (e.file_type().is_ok_and(|t| t.is_dir()) && find(&e.path(), name)))
}

fn fake(path: &Path, name: &str, extra: &str) {
    let text =
        format!("#!/bin/bash\n{{ printf '%s\\0' {name} \"$PWD\" \"$@\"; printf '\\1'; }} >> \"$FAKE_LOG\"\n{extra}\n");
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn bash(script: &Path, cwd: &Path, bin: &Path, log: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .arg(script)
        .current_dir(cwd)
        .env("PATH", path)
        .env("FAKE_LOG", log)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// A sandbox with hostile directory names, fake `lppf`, `sbatch` and `squeue`, and the design's
/// scripts written into it.
struct Sandbox {
    root: PathBuf,
    bin: PathBuf,
    log: PathBuf,
    design: Design,
}

impl Sandbox {
    fn new(case: usize, names: [String; 4]) -> Self {
        let root = std::env::temp_dir().join(format!("lppf-slurm-prop-{}-{case}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let [project, manifest, dir, binary] = names;
        let project = root.join(project);
        let manifest = project.join(format!("{manifest}.toml"));
        let dir = root.join(dir.replace('\\', "_")).join("slurm");
        let lppf = root.join(binary).join("lppf");
        for d in [&project, &dir, lppf.parent().unwrap()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&manifest, "").unwrap();
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        fake(&lppf, "lppf", "");
        fake(&bin.join("sbatch"), "sbatch", "echo '12345;cluster'");
        fake(&bin.join("squeue"), "squeue", "");
        let text = |p: &Path| p.to_str().unwrap().to_string();
        let design = Design {
            name: "sweep-1".into(),
            manifest: text(&manifest),
            project: text(&project),
            lppf: text(&lppf),
            dir: text(&dir),
            tasks: 3,
            cpus: 2,
            minutes: 90,
            megabytes: 2048,
            partition: Some("gpu,short".into()),
            account: Some("lab-1".into()),
        };
        for (file, script) in [
            ("array.sbatch", array_script(&design)),
            ("merge.sbatch", merge_script(&design)),
            ("submit.sh", submit_script(&design)),
        ] {
            std::fs::write(dir.join(file), script).unwrap();
        }
        Sandbox { log: root.join("calls.log"), root, bin, design }
    }

    /// What the fake `squeue` prints from now on.
    fn queue(&self, lines: &str) {
        fake(&self.bin.join("squeue"), "squeue", &format!("printf '%s\\n' {}", shell_word(lines)));
    }

    fn run(&self, file: &str, env: &[(&str, &str)]) -> std::process::Output {
        bash(&Path::new(&self.design.dir).join(file), &self.root, &self.bin, &self.log, env)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every script parses (`bash -n`), its `#SBATCH` lines hold no path, and run with fake
    /// Slurm commands it calls lppf and sbatch with the exact paths and creates no `PWNED`.
    #[test]
    fn scripts_with_hostile_names_run_nothing_else(names in [name_part(), name_part(), name_part(), name_part()]) {
        let s = Sandbox::new(0, names);
        let d = &s.design;
        let sbatch_line = regex_like_sbatch();
        for file in ["array.sbatch", "merge.sbatch", "submit.sh"] {
            let path = Path::new(&d.dir).join(file);
            let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
            prop_assert!(check.status.success(), "{file}: {}", String::from_utf8_lossy(&check.stderr));
            for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| l.starts_with("#SBATCH")) {
                prop_assert!(sbatch_line(line), "{file}: {line}");
            }
        }
        let task = s.run("array.sbatch", &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_CPUS_PER_TASK", "2")]);
        prop_assert!(task.status.success(), "{}", String::from_utf8_lossy(&task.stderr));
        let merge = s.run("merge.sbatch", &[]);
        prop_assert!(merge.status.success(), "{}", String::from_utf8_lossy(&merge.stderr));
        let submit = s.run("submit.sh", &[]);
        prop_assert!(submit.status.success(), "{}", String::from_utf8_lossy(&submit.stderr));
        let logs = format!("{}/logs", d.dir.replace('%', "%%"));
        let expected: Vec<Vec<String>> = [
            vec!["lppf", &d.project, "--threads", "2", "run", &d.manifest, "--shard", "2/3", "--quiet"],
            vec!["lppf", &d.project, "--threads", "1", "run", &d.manifest, "--merge-only", "--quiet"],
            vec!["squeue", &d.project, "-h", "-n", "lppf-sweep-1", "-o", "%Z"],
            vec!["lppf", &d.project, "release-claims", &d.manifest],
            vec!["sbatch", &d.project, "--parsable", &format!("--output={logs}/%x-%A_%a.log"), &format!("{}/array.sbatch", d.dir)],
            vec![
                "sbatch", &d.project, "--parsable", &format!("--output={logs}/%x-merge-%j.log"),
                "--dependency=afterany:12345", &format!("{}/merge.sbatch", d.dir),
            ],
        ]
        .iter()
        .map(|c| c.iter().map(|a| a.to_string()).collect())
        .collect();
        prop_assert_eq!(calls(&s.log), expected);
        prop_assert!(Path::new(&d.dir).join("logs").is_dir());
        prop_assert!(!find(&s.root, "PWNED"), "a hostile name ran a command");
        let _ = std::fs::remove_dir_all(&s.root);
    }
}

/// `#SBATCH --option=value` with a value of letters, digits and `_ - . , : %` only.
fn regex_like_sbatch() -> impl Fn(&str) -> bool {
    |line: &str| {
        line.strip_prefix("#SBATCH --").and_then(|rest| rest.split_once('=')).is_some_and(|(flag, value)| {
            flag.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && !value.is_empty()
                && value.chars().all(|c| c.is_ascii_alphanumeric() || "_-.,:%".contains(c))
        })
    }
}

/// While a job of the design started from this directory is queued (by any user), submit.sh
/// refuses before it releases a claim or submits anything; another directory's job of the same
/// name does not stop it.
#[test]
fn submit_refuses_while_a_job_of_this_design_is_queued() {
    let names = ["p r'oj".to_string(), "m".to_string(), "d".to_string(), "b".to_string()];
    let s = Sandbox::new(1, names);
    // The same design name queued from another directory (another user's checkout).
    s.queue(&format!("{}/elsewhere", s.design.project));
    assert!(s.run("submit.sh", &[]).status.success());
    std::fs::remove_file(&s.log).unwrap();
    s.queue(&format!("/elsewhere\n{}", s.design.project));
    let out = s.run("submit.sh", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("still queued or running"));
    let called: Vec<String> = calls(&s.log).into_iter().map(|c| c[0].clone()).collect();
    assert_eq!(called, ["squeue"], "nothing but squeue may run");
    let _ = std::fs::remove_dir_all(&s.root);
}

#[test]
fn shell_words_are_read_back_exactly() {
    for value in HOSTILE.iter().map(|s| s.to_string()).chain(["".to_string(), "''".into(), "a'b'c".into()]) {
        let script = format!("printf '%s' {}", shell_word(&value));
        let out = Command::new("bash").arg("-c").arg(script).current_dir(std::env::temp_dir()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), value);
    }
}

#[test]
fn names_slurm_would_misread_are_refused() {
    for bad in ["gpu\nsrun rm -rf ~", "a b", "x#y", "p'q", "", "q\"", "$(id)"] {
        let e = slurm_name("--partition", &Some(bad.into())).unwrap_err();
        assert_eq!(e.code, 2);
        assert!(e.message.contains("--partition") && e.message.contains("a Slurm name is"), "{}", e.message);
    }
    assert_eq!(slurm_name("--account", &Some("lab_1.x-y,z".into())).unwrap().as_deref(), Some("lab_1.x-y,z"));
    for bad in ["dir\nwith a newline", "tab\there", "bell\u{7}"] {
        let e = script_path(Path::new(bad), "--dir").unwrap_err();
        assert!(e.code == 2 && e.message.contains("control character"), "{}", e.message);
    }
}

#[test]
fn absurd_time_and_memory_are_refused() {
    let cost = pipeline::Cost {
        bytes: 4e8,
        threads: 2,
        units: 10.0,
        entry_component_sweeps: 1e12,
        core_seconds: 3600.0,
        work: "entry-component sweeps",
        caveat: None,
    };
    let args = |cpus: usize, time_factor: f64, memory_factor: f64| SlurmArgs {
        manifest: "m.toml".into(),
        tasks: 2,
        cpus_per_task: cpus,
        partition: None,
        account: None,
        time_factor,
        memory_factor,
        dir: None,
    };
    assert_eq!(task_limits(&args(2, 5.0, 2.0), &cost, 2).ok(), Some((75, 1024)));
    let e = task_limits(&args(4096, 5.0, 1e9), &cost, 2).unwrap_err();
    assert!(
        e.code == 2 && e.message.contains("MB of memory") && e.message.contains("--memory-factor"),
        "{}",
        e.message
    );
    let e = task_limits(&args(1, 1e300, 2.0), &cost, 2).unwrap_err();
    assert!(e.code == 2 && e.message.contains("more than a year"), "{}", e.message);
    let huge = pipeline::Cost { core_seconds: f64::INFINITY, ..cost };
    assert!(task_limits(&args(1, 5.0, 2.0), &huge, 2).is_err());
}
