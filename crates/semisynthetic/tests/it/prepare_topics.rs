//! `prepare-enron-topics`: on a written corpus with three obvious topics it keeps the most used
//! topics, their words and documents, reproducibly; bad options are refused; on the real AESLC
//! corpus it reproduces the committed `data/enron/topics-base.toml` byte for byte.

use semisynthetic::{PrepareError, TopicPrepareOptions, prepare_enron_topics, topic_base_file_text};
use std::path::Path;

/// 60 sent e-mails by three people, each writing about one subject in its own six words (with
/// each word in at least five documents, the tokenizer's minimum); the third writes least.
fn write_corpus(root: &Path) {
    let subjects = [
        ["pipeline", "capacity", "transport", "gas", "flow", "meter"],
        ["contract", "agreement", "legal", "clause", "draft", "signature"],
        ["football", "game", "weekend", "tickets", "party", "dinner"],
    ];
    for n in 0..60usize {
        let who = if n < 25 {
            0
        } else if n < 50 {
            1
        } else {
            2
        };
        let words = subjects[who];
        let body: Vec<&str> = (0..8).map(|i| words[(n + i * 5) % 6]).collect();
        let dir = root.join("train");
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("{}.\n@subject\nS\n", body.join(" "));
        std::fs::write(dir.join(format!("{}_sent_{n}.subject", ["ann-a", "bob-b", "cid-c"][who])), text).unwrap();
    }
}

fn small_options() -> TopicPrepareOptions {
    TopicPrepareOptions {
        vocabulary: 18,
        fit_topics: 3,
        kept_topics: 2,
        docs_per_topic: 5,
        max_iterations: 200,
        ..TopicPrepareOptions::default()
    }
}

#[test]
fn the_most_used_topics_their_words_and_documents() {
    let root = std::env::temp_dir().join(format!("lppf-prepare-topics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write_corpus(&root);
    let prepared = prepare_enron_topics(&root, &small_options()).unwrap();
    let base = &prepared.base;
    base.check().unwrap();
    assert_eq!(base.components(), 2);
    // The two most used topics are the two busiest writers' subjects: their documents and words,
    // never the third's.
    assert_eq!(base.rows(), 10, "5 documents per kept topic, no overlap: {:?}", base.row_labels);
    assert!(
        base.row_labels.iter().all(|l| l.starts_with("ann-a-") || l.starts_with("bob-b-")),
        "{:?}",
        base.row_labels
    );
    let third = ["football", "game", "weekend", "tickets", "party", "dinner"];
    assert!(base.col_labels.iter().all(|w| !third.contains(&w.as_str())), "{:?}", base.col_labels);
    assert!(base.col_labels.len() >= 4 && base.col_labels.len() <= 12, "{:?}", base.col_labels);
    assert!(base.provenance["license"].as_str().unwrap().contains("CC BY-NC-SA"));
    let again = prepare_enron_topics(&root, &small_options()).unwrap();
    assert_eq!(again.base, prepared.base, "reproducible");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn bad_options_are_refused() {
    let root = std::env::temp_dir().join(format!("lppf-prepare-topics-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write_corpus(&root);
    for options in [
        TopicPrepareOptions { kept_topics: 4, ..small_options() },
        TopicPrepareOptions { kept_topics: 0, ..small_options() },
        TopicPrepareOptions { word_mass: 0.0, ..small_options() },
        TopicPrepareOptions { docs_per_topic: 0, ..small_options() },
    ] {
        assert!(matches!(prepare_enron_topics(&root, &options), Err(PrepareError::Options(_))), "{options:?}");
    }
    let missing = prepare_enron_topics(Path::new("/nonexistent/aeslc"), &small_options()).unwrap_err();
    assert!(missing.to_string().contains("/nonexistent/aeslc"), "{missing}");
    let _ = std::fs::remove_dir_all(&root);
}

/// The committed base file is a well-formed topic base of the paper's size (no corpus needed).
#[test]
fn the_committed_topic_base_is_well_formed() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/enron/topics-base.toml"));
    let base = semisynthetic::BaseParameters::load(path).unwrap();
    assert_eq!((base.rows(), base.cols(), base.components()), (1039, 1378, 25));
    assert_eq!(base.col_labels.len(), 1378);
}

#[test]
#[ignore = "needs ../shared/data/enron-aeslc/; run with --include-ignored (CI does)"]
fn the_real_corpus_reproduces_the_committed_topic_base() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let committed = std::fs::read_to_string(root.join("data/enron/topics-base.toml")).unwrap();
    let corpus = enron::aeslc_location();
    assert!(corpus.exists(), "{} is missing: this test needs the AESLC corpus", corpus.display());
    let prepared = prepare_enron_topics(&corpus, &TopicPrepareOptions::default()).unwrap();
    let text = topic_base_file_text(&prepared.base).unwrap();
    assert!(
        text == committed,
        "prepare-enron-topics no longer reproduces data/enron/topics-base.toml: rerun `just prepare-enron-topics`"
    );
}
