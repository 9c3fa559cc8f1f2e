//! `prepare-enron`: on the real table it reproduces the committed `data/enron/base.toml` byte for
//! byte; on a generated maildir tree it runs end to end.

use semisynthetic::{PrepareOptions, base_file_text, prepare_enron};
use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The committed base file is well formed and records the checksum SOURCE.md gives (no corpus
/// needed).
#[test]
fn committed_base_file_is_well_formed() {
    let committed = std::fs::read_to_string(workspace().join("data/enron/base.toml")).unwrap();
    let base: semisynthetic::BaseParameters = toml::from_str(&committed).unwrap();
    base.check().unwrap();
    assert_eq!((base.rows(), base.components()), (117, 12));
    assert_eq!(
        base.provenance.get("input_sha256").and_then(|v| v.as_str()),
        Some("1106c63dd4c0917197e8cd3818357e35ef1066c6969d901391d5a6a3ce8193f3"),
        "the sha256 SOURCE.md gives for Enron.csv"
    );
}

#[test]
#[ignore = "needs ../shared/data/enron/Enron.csv; run with --include-ignored (CI does)"]
fn prepare_on_the_real_table_reproduces_the_committed_base_file() {
    let committed = std::fs::read_to_string(workspace().join("data/enron/base.toml")).unwrap();
    let path = enron::table_for_tests();
    let prepared = prepare_enron(&path, &PrepareOptions::default()).unwrap();
    assert_eq!(prepared.report.malformed.len(), 0);
    let text = base_file_text(&prepared.base).unwrap();
    assert!(text == committed, "prepare-enron no longer reproduces data/enron/base.toml: rerun `just prepare-enron`");
}

#[test]
fn prepare_on_a_maildir_tree() {
    let root = std::env::temp_dir().join(format!("lppf-prepare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // Two busy senders writing to each other and to cid; everyone also copies dee. cid and dee
    // receive plenty but never send, so the paper's rule (sent >= 1) drops them.
    let people = ["ann@x.com", "bob@x.com", "cid@x.com"];
    for n in 0..240 {
        let (from, to) = (people[n % 2], people[(n + 1) % 3]);
        let dir = root.join(from.split('@').next().unwrap()).join("sent");
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("Message-ID: <{n}@x>\nFrom: {from}\nTo: {to}, dee@x.com\nSubject: s{n}\n\nbody\n");
        std::fs::write(dir.join(format!("{n}.")), text).unwrap();
    }
    std::fs::write(root.join("ann/sent/broken."), b"garbage without headers").unwrap();
    let options =
        PrepareOptions { components: vec![1, 2], selection: (60, 20, 10), fit: (60, 20, 10), ..Default::default() };
    let prepared = prepare_enron(&root, &options).unwrap();
    assert_eq!(prepared.report.malformed.len(), 1);
    assert_eq!(prepared.base.row_labels, vec!["ann@x.com", "bob@x.com"]);
    assert_eq!(prepared.base.provenance.get("reader").and_then(|v| v.as_str()), Some("maildir"));
    assert_eq!(prepared.scores.len(), 2);
    let again = prepare_enron(&root, &options).unwrap();
    assert_eq!(base_file_text(&again.base).unwrap(), base_file_text(&prepared.base).unwrap(), "reproducible");
    let _ = std::fs::remove_dir_all(&root);
}
