//! The cleaned message table `Enron.csv` (see `../shared/data/enron/SOURCE.md`): no header, one
//! message per row, four fields `unix_time, sender_id, recipients, subject`; a field is quoted
//! only when it holds a comma or a quote (`""` inside quotes is a quote); recipients are ids
//! separated by `", "`; CRLF or LF line ends, the last row may lack one. A quoted field never
//! spans lines (the cleaned table has none): a line end inside quotes makes that line malformed
//! ("unclosed quote") and reading resumes on the next line, so one broken quote cannot swallow
//! the rows after it. A line that is not UTF-8 is malformed (never read with replacement
//! characters, which would invent a new actor).

use crate::{EnronError, Message, ReadReport};
use std::path::Path;

/// Reads `Enron.csv`. Actors are named by employee id (`"12"`).
pub fn read_table(path: &Path) -> Result<(Vec<Message>, ReadReport), EnronError> {
    let bytes = std::fs::read(path).map_err(|e| EnronError { path: path.to_path_buf(), message: e.to_string() })?;
    Ok(parse_table_bytes(&bytes))
}

/// Parses the table's bytes ([`parse_table`] of its text, a line that is not UTF-8 malformed).
pub fn parse_table_bytes(bytes: &[u8]) -> (Vec<Message>, ReadReport) {
    // Lines that are not UTF-8 become blank lines (keeping the line numbers) and are reported.
    let mut text = String::with_capacity(bytes.len());
    let mut not_utf8 = Vec::new();
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        match std::str::from_utf8(line) {
            Ok(line) => text.push_str(line),
            Err(e) => {
                not_utf8.push((
                    format!("line {}", i + 1),
                    format!("not UTF-8 (invalid byte at column {})", e.valid_up_to() + 1),
                ));
                text.push('\n');
            }
        }
    }
    let (messages, mut report) = parse_table(&text);
    report.items += not_utf8.len();
    report.malformed.extend(not_utf8);
    report.malformed.sort_by_key(|(at, _)| at.trim_start_matches("line ").parse::<usize>().unwrap_or(0));
    (messages, report)
}

/// Parses the table's text; a malformed row is reported (with its line number) and skipped.
pub fn parse_table(text: &str) -> (Vec<Message>, ReadReport) {
    let mut report = ReadReport::default();
    let mut messages = Vec::new();
    let mut rest = text;
    let mut line = 1;
    let mut seen = std::collections::HashSet::new();
    while !rest.is_empty() {
        let (fields, consumed, unclosed) = split_record(rest);
        let record = rest[..consumed].trim_end();
        rest = &rest[consumed..];
        let at = line;
        line += 1;
        if fields.len() == 1 && fields[0].trim().is_empty() && !unclosed {
            continue; // a blank line
        }
        report.items += 1;
        if unclosed {
            report
                .malformed
                .push((format!("line {at}"), "unclosed quote (a quoted field must end on its line)".into()));
            continue;
        }
        if !seen.insert(record) {
            report.repeated_rows += 1;
        }
        match message(&fields) {
            Ok(m) if m.recipients.is_empty() => report.without_recipients += 1,
            Ok(m) => messages.push(m),
            Err(why) => report.malformed.push((format!("line {at}"), why)),
        }
    }
    report.messages = messages.len();
    (messages, report)
}

/// One record (one line): its fields, the bytes it used (with its line end), and whether a quote
/// was still open at the line end.
fn split_record(text: &str) -> (Vec<String>, usize, bool) {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek().is_some_and(|&(_, n)| n == '"') => {
                chars.next();
                push(&mut fields, '"');
            }
            ('"', true) => quoted = false,
            ('"', false) if fields.last().is_some_and(String::is_empty) => quoted = true,
            (',', false) => fields.push(String::new()),
            ('\n', _) => return (fields, i + 1, quoted),
            ('\r', _) if chars.peek().is_some_and(|&(_, n)| n == '\n') => {}
            (c, _) => push(&mut fields, c),
        }
    }
    (fields, text.len(), quoted)
}

fn push(fields: &mut [String], c: char) {
    if let Some(field) = fields.last_mut() {
        field.push(c);
    }
}

fn message(fields: &[String]) -> Result<Message, String> {
    if fields.len() != 4 {
        return Err(format!("{} fields, expected 4 (time, sender, recipients, subject)", fields.len()));
    }
    let time = fields[0].trim().parse::<i64>().map_err(|_| format!("time {:?} is not an integer", fields[0]))?;
    let id = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("actor id {s:?} is not a positive integer"));
    let sender = id(&fields[1])?.to_string();
    let mut recipients: Vec<String> = Vec::new();
    for r in fields[2].split(',').filter(|r| !r.trim().is_empty()) {
        let r = id(r)?.to_string();
        if r != sender && !recipients.contains(&r) {
            recipients.push(r);
        }
    }
    Ok(Message { time: Some(time), sender, recipients, text: fields[3].clone() })
}
