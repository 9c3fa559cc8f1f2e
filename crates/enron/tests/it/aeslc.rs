//! The AESLC reader on a small tree the test writes itself (sent and inbox files, copies across
//! splits, each kind of malformed file), and on the real corpus when it is present.

use enron::{DocumentTerms, TokenizerOptions, read_aeslc};
use std::path::{Path, PathBuf};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn sent_bodies_once_each_and_malformed_files_counted() {
    let root = std::env::temp_dir().join(format!("lppf-aeslc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(&root, "train/allen-p_sent_1.subject", b"Gas prices rose.\nCall me.\n\n@subject\nPrices\n");
    write(&root, "train/allen-p_inbox_2.subject", b"An inbox message.\n@subject\nHi\n");
    write(&root, "dev/allen-p_sent_9.subject", b"Gas prices rose.\nCall me.\n@subject\nPrices\n@ann0\nx\n");
    write(&root, "dev/bass-e_sent_3.subject", b"Gas prices rose.\nCall me.\n@subject\nPrices\n");
    write(&root, "test/bass-e_sent_4.subject", b"no marker at all\n");
    write(&root, "test/bass-e_sent_5.subject", b"\n@subject\nEmpty\n");
    write(&root, "test/bass-e_sent_6.subject", b"\xff\xfe bytes\n@subject\nS\n");
    write(&root, "test/oddname.subject", b"text\n@subject\nS\n");
    write(&root, "README.md", b"not a message");
    let (messages, report) = read_aeslc(&root).unwrap();
    // Sorted paths: dev/allen-p_sent_9, dev/bass-e_sent_3, test/…, train/allen-p_sent_1 (a copy).
    let got: Vec<(&str, &str)> = messages.iter().map(|m| (m.sender.as_str(), m.text.as_str())).collect();
    assert_eq!(got, [("allen-p", "Gas prices rose.\nCall me."), ("bass-e", "Gas prices rose.\nCall me.")]);
    assert!(messages.iter().all(|m| m.recipients.is_empty()));
    assert_eq!((report.items, report.messages, report.duplicates), (7, 2, 1));
    let why: Vec<&str> = report.malformed.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(why, ["no @subject line", "empty body", "not UTF-8", "the name is not <mailbox>_sent_<n>.subject"]);
    assert!(report.malformed[0].0.contains("bass-e_sent_4"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_directory_is_an_error_naming_it() {
    let e = read_aeslc(Path::new("/nonexistent/enron_subject_line")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/enron_subject_line"), "{e}");
}

fn corpus() -> PathBuf {
    let path = enron::aeslc_location();
    assert!(path.exists(), "{} is missing: this test needs the AESLC corpus", path.display());
    path
}

/// SOURCE.md: 7,894 sent files from 77 employees, 7,872 distinct bodies; read once per
/// (sender, body): 7,875 documents (three bodies were sent by two people each), 19 copies.
#[test]
#[ignore = "needs ../shared/data/enron-aeslc/; run with --include-ignored (CI does)"]
fn the_real_corpus_gives_the_sent_mail_of_77_employees() {
    let (messages, report) = read_aeslc(&corpus()).unwrap();
    assert_eq!((report.items, report.messages, report.duplicates), (7894, 7875, 19), "{report}");
    assert!(report.malformed.is_empty(), "{report}");
    let mut senders: Vec<&str> = messages.iter().map(|m| m.sender.as_str()).collect();
    senders.sort_unstable();
    senders.dedup();
    assert_eq!(senders.len(), 77);
    println!("{report}; {} messages", messages.len());
    let terms = DocumentTerms::from_messages(&messages, TokenizerOptions::default());
    println!("{} documents × {} words, {} tokens", terms.documents, terms.vocabulary.len(), terms.total());
    assert_eq!(terms.documents, messages.len());
    assert!(terms.vocabulary.len() > 1_400);
}
