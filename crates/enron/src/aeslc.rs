//! E-mail bodies of the Annotated Enron Subject Line Corpus (AESLC; Zhang & Tetreault 2019;
//! CC BY-NC-SA 4.0, `../shared/data/enron-aeslc/SOURCE.md`): files
//! `<split>/<mailbox>_<inbox|sent>_<n>.subject` holding the cleaned body, then a line that is
//! exactly `@subject` and the subject (dev and test files also carry `@ann0`… lines).
//!
//! - Only **sent** mail is read: its sender is the mailbox owner (`bass-e_sent_553.subject` →
//!   `bass-e`); inbox files and files not ending in `.subject` are passed over.
//! - The text is the body: every line before the first `@subject` line.
//! - A file that is not UTF-8, has no `@subject` line, has an empty body or a name without the
//!   `<mailbox>_sent_<n>` shape is malformed: counted, reported with its path, skipped.
//! - The same body from the same sender in two files (the corpus has such copies across its
//!   splits) is read once and counted as a duplicate.
//!
//! No recipients are known: the messages are documents, not network edges.

use crate::maildir::{report_skipped, sorted_files};
use crate::{EnronError, Message, ReadReport};
use std::collections::HashSet;
use std::path::Path;

/// Reads every sent-mail file under `root` in sorted path order (deterministic).
pub fn read_aeslc(root: &Path) -> Result<(Vec<Message>, ReadReport), EnronError> {
    let (files, skipped) = sorted_files(root)?;
    let mut report = ReadReport::default();
    report_skipped(root, skipped, &mut report);
    let mut seen = HashSet::new();
    let mut messages = Vec::new();
    for path in files {
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".subject")) else {
            continue;
        };
        let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        let mut parts = name.rsplitn(3, '_');
        let (number, folder, mailbox) = (parts.next(), parts.next(), parts.next());
        match folder {
            Some("sent") => {}
            Some("inbox") => continue,
            _ => {
                report.items += 1;
                report.malformed.push((shown, "the name is not <mailbox>_sent_<n>.subject".into()));
                continue;
            }
        }
        report.items += 1;
        let (Some(mailbox), Some(_)) = (mailbox.filter(|m| !m.is_empty()), number.filter(|n| n.parse::<u64>().is_ok()))
        else {
            report.malformed.push((shown, "the name is not <mailbox>_sent_<n>.subject".into()));
            continue;
        };
        let body = match std::fs::read(&path).map(String::from_utf8) {
            Err(e) => Err(format!("cannot read: {e}")),
            Ok(Err(_)) => Err("not UTF-8".to_string()),
            Ok(Ok(text)) => parse_body(&text).map(str::to_string).map_err(str::to_string),
        };
        match body {
            Err(why) => report.malformed.push((shown, why)),
            Ok(body) => {
                if seen.insert((mailbox.to_string(), body.clone())) {
                    messages.push(Message {
                        time: None,
                        sender: mailbox.to_string(),
                        recipients: Vec::new(),
                        text: body,
                    });
                } else {
                    report.duplicates += 1;
                }
            }
        }
    }
    report.messages = messages.len();
    Ok((messages, report))
}

/// The body of one file: the text before the first line that is exactly `@subject` (line ends
/// `\n` or `\r\n`), trimmed.
pub fn parse_body(text: &str) -> Result<&str, &'static str> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "@subject" {
            let body = text[..offset].trim();
            return if body.is_empty() { Err("empty body") } else { Ok(body) };
        }
        offset += line.len();
    }
    Err("no @subject line")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_ends_at_the_first_subject_line() {
        assert_eq!(parse_body("Hi Wade,\nplease call.\n\n@subject\nFor Wade\n@ann0\nx"), Ok("Hi Wade,\nplease call."));
        assert_eq!(parse_body("text\r\n@subject\r\nS"), Ok("text"));
        assert_eq!(parse_body("an @subject inside a line\n@subject\n"), Ok("an @subject inside a line"));
        assert_eq!(parse_body("no marker\n@subject line\n"), Err("no @subject line"));
        assert_eq!(parse_body("  \n@subject\nS"), Err("empty body"));
    }
}
