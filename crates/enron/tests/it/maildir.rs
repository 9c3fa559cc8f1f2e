//! The maildir reader on small trees the test writes itself: multi-recipient messages, Cc/Bcc,
//! folded headers, odd bytes, copies of one message in two mailboxes, malformed files.

use enron::{CountNetwork, InclusionRule, parse_email, read_maildir};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-maildir-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

const MULTI: &str = "Message-ID: <1.JavaMail@thyme>\r\nDate: Mon, 14 May 2001 16:39:00 -0700 (PDT)\r\n\
From: phillip.allen@enron.com\r\nTo: tim.belden@enron.com, John Doe <John.Doe@Enron.com>,\r\n\
\tmike.grigsby@enron.com\r\nSubject: Forecast\r\nCc: \"Lay, Kenneth\" <kenneth.lay@enron.com>\r\n\
Bcc: kenneth.lay@enron.com\r\nX-From: Phillip K Allen\r\nX-To: Tim Belden <Tim Belden/Enron@EnronXGate>\r\n\
\r\nHere is our forecast.\r\n";

#[test]
fn one_count_per_distinct_recipient_across_to_cc_bcc_and_folded_lines() {
    let email = parse_email(MULTI.as_bytes()).unwrap();
    assert_eq!(email.message_id.as_deref(), Some("<1.JavaMail@thyme>"));
    assert_eq!(email.message.sender, "phillip.allen@enron.com");
    assert_eq!(
        email.message.recipients,
        vec!["tim.belden@enron.com", "john.doe@enron.com", "mike.grigsby@enron.com", "kenneth.lay@enron.com"]
    );
    assert!(email.message.text.starts_with("Forecast\n") && email.message.text.contains("our forecast"));
}

#[test]
fn tree_with_duplicates_and_malformed_files() {
    let root = scratch("tree");
    write(&root, "allen-p/sent/1.", MULTI.as_bytes());
    write(&root, "belden-t/inbox/7.", MULTI.as_bytes()); // the same message in the recipient's inbox
    let reply = b"Message-ID: <2.JavaMail@thyme>\nFrom: tim.belden@enron.com\nTo: phillip.allen@enron.com\n\
                 Subject: Re: Forecast \xe9t\xe9\n\nThanks \xff\xfe odd bytes\n";
    write(&root, "belden-t/sent/1.", reply);
    write(&root, "belden-t/sent/2.", b"");
    write(&root, "belden-t/sent/3.", b"no header here\n\njust text");
    write(&root, "belden-t/sent/4.", b"Message-ID: <4@x>\nTo: a@b.com\nSubject: no sender\n\nbody");
    write(&root, "belden-t/drafts/1.", b"Message-ID: <5@x>\nFrom: tim.belden@enron.com\nSubject: draft\n\nbody");
    write(&root, "lay-k/inbox/1.", b" folded first line\nFrom: x@y.com\n\n");
    let (messages, report) = read_maildir(&root).unwrap();
    assert_eq!(report.items, 8);
    assert_eq!(report.messages, 2);
    assert_eq!(report.duplicates, 1);
    assert_eq!(report.without_recipients, 1);
    assert_eq!(report.malformed.len(), 4, "{report}");
    let malformed: Vec<&str> = report.malformed.iter().map(|(p, _)| p.as_str()).collect();
    assert!(malformed.contains(&"belden-t/sent/2.") && malformed.contains(&"lay-k/inbox/1."), "{malformed:?}");
    assert!(report.to_string().contains("4 malformed"));

    let network = CountNetwork::from_messages(&messages);
    assert_eq!(network.actors(), 5);
    assert_eq!(network.total(), 4 + 1);
    let v = network.actors();
    let at = |from: &str, to: &str| {
        let (i, j) = (
            network.labels.iter().position(|l| l == from).unwrap(),
            network.labels.iter().position(|l| l == to).unwrap(),
        );
        network.counts[i * v + j]
    };
    assert_eq!(at("phillip.allen@enron.com", "tim.belden@enron.com"), 1, "counted once despite two copies");
    assert_eq!(at("phillip.allen@enron.com", "kenneth.lay@enron.com"), 1, "Cc and Bcc together count once");
    assert_eq!(at("tim.belden@enron.com", "phillip.allen@enron.com"), 1);
    // Nobody reaches 100: the paper's rule keeps no one; a low threshold keeps the two senders.
    assert_eq!(network.included(InclusionRule::PAPER).actors(), 0);
    let kept = network.included(InclusionRule { min_sent: 1, min_total: 2 });
    assert_eq!(kept.labels, vec!["phillip.allen@enron.com", "tim.belden@enron.com"]);
    assert_eq!(kept.counts, vec![0, 1, 1, 0]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_root_is_an_error_naming_it() {
    let err = read_maildir(Path::new("/nonexistent/maildir")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/maildir"));
}

/// Symbolic links and FIFOs are never opened (a FIFO would block, a link may loop) but counted
/// and reported as malformed, not skipped silently (issue 20).
#[test]
fn links_and_fifos_are_reported_not_read() {
    let root = scratch("special");
    write(&root, "allen-p/sent/1.", MULTI.as_bytes());
    std::os::unix::fs::symlink(root.join("allen-p/sent/1."), root.join("allen-p/sent/2.")).unwrap();
    let fifo = root.join("allen-p/sent/3.");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let (messages, report) = read_maildir(&root).unwrap();
    assert_eq!((messages.len(), report.items, report.malformed.len()), (1, 3, 2), "{report}");
    assert!(report.malformed.iter().any(|(at, why)| at.ends_with("2.") && why.contains("symbolic link")), "{report}");
    assert!(report.malformed.iter().any(|(at, why)| at.ends_with("3.") && why.contains("FIFO")), "{report}");
    let _ = std::fs::remove_dir_all(&root);
}
