//! The cleaned table: the parser on crafted rows (quoting, CRLF, malformed rows), and the real
//! `Enron.csv` against the figures of its SOURCE.md.

use enron::{CountNetwork, DocumentTerms, InclusionRule, TokenizerOptions, parse_table, read_table, tokenize};

#[test]
fn quoting_line_ends_and_malformed_rows() {
    let text = "910930020,138,59,Cd$ CME letter\r\n\
                911874180,138,\"109, 49, 120, 59\",\"Re: Coral Energy, L.P.\"\r\n\
                911874181,5,7,\"He said \"\"hi\"\"\"\r\n\
                oops,1,2,bad time\r\n\
                911874182,1\r\n\
                911874183,4,\"4\",only to self\r\n\
                1024666654,92,\"39, 120, 4\",Master Termination Log";
    let (messages, report) = parse_table(text);
    assert_eq!(report.items, 6 + 1);
    assert_eq!(messages.len(), 4);
    assert_eq!(report.without_recipients, 1);
    assert_eq!(report.malformed.len(), 2);
    assert_eq!(report.malformed[0].0, "line 4");
    assert!(report.malformed[1].1.contains("2 fields"), "{:?}", report.malformed);
    assert_eq!(messages[1].recipients, vec!["109", "49", "120", "59"]);
    assert_eq!(messages[1].text, "Re: Coral Energy, L.P.");
    assert_eq!(messages[2].text, "He said \"hi\"");
    assert_eq!(messages[3].sender, "92");
}

/// An unclosed quote makes its own line malformed and swallows nothing after it; identical rows
/// are counted (and kept); a line that is not UTF-8 is malformed, never a new actor with a
/// replacement character (issue 20).
#[test]
fn broken_quotes_repeated_rows_and_invalid_utf8_are_reported() {
    let text = "1,1,2,fine\n\
                2,1,\"3, 4,broken quote\n\
                3,2,3,next\n\
                3,2,3,next\n\
                4,3,1,last";
    let (messages, report) = parse_table(text);
    assert_eq!((report.items, messages.len(), report.repeated_rows), (5, 4, 1), "{report}");
    assert_eq!(
        report.malformed,
        vec![("line 2".to_string(), "unclosed quote (a quoted field must end on its line)".to_string())]
    );
    assert_eq!(messages.last().unwrap().text, "last");
    let dir = std::env::temp_dir().join(format!("enron-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Enron.csv");
    std::fs::write(&path, b"1,1,2,fine\n2,1\xff,3,bad byte\n3,2,3,next\n").unwrap();
    let (messages, report) = read_table(&path).unwrap();
    assert_eq!((report.items, messages.len()), (3, 2), "{report}");
    assert_eq!(report.malformed[0].0, "line 2");
    assert!(report.malformed[0].1.contains("not UTF-8"), "{report}");
    assert!(messages.iter().all(|m| !m.sender.contains('\u{fffd}')));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tokenizer_drops_stop_words_digits_and_short_tokens() {
    assert_eq!(tokenize("RE: Don't forget the 2001 Gas-Forecast, é x", 2), vec!["forget", "gas", "forecast"]);
}

/// The figures SOURCE.md gives for the real table.
#[test]
#[ignore = "needs ../shared/data/enron/Enron.csv; run with --include-ignored (CI does)"]
fn real_table_matches_its_source_notes() {
    let path = enron::table_for_tests();
    let (messages, report) = read_table(&path).unwrap();
    assert_eq!((report.items, report.messages, report.malformed.len()), (21_635, 21_635, 0), "{report}");
    // 13 rows are exact repeats of earlier rows (counted by an independent Python check).
    assert_eq!(report.repeated_rows, 13, "{report}");
    let network = CountNetwork::from_messages(&messages);
    assert_eq!(network.actors(), 154);
    assert_eq!(network.total(), 38_388);
    assert_eq!(network.counts.iter().filter(|&&c| c > 0).count(), 2_715);
    let kept = network.included(InclusionRule::PAPER);
    assert_eq!(kept.actors(), 117);
    assert_eq!(kept.total(), 36_312);
    assert_eq!(kept.counts.iter().filter(|&&c| c > 0).count(), 2_143);
    assert_eq!(CountNetwork::from_messages(&read_table(&path).unwrap().0), network, "deterministic");
    let docs = DocumentTerms::from_messages(&messages, TokenizerOptions::default());
    assert_eq!(docs.documents, 21_635);
    assert!(
        docs.vocabulary.len() > 500 && docs.total() > 50_000,
        "{} words, {} tokens",
        docs.vocabulary.len(),
        docs.total()
    );
}
