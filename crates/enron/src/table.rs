//! The cleaned message table `Enron.csv` (see `../shared/data/enron/SOURCE.md`): no header, one
//! message per row, four fields `unix_time, sender_id, recipients, subject`; a field is quoted
//! only when it holds a comma or a quote (`""` inside quotes is a quote); recipients are ids
//! separated by `", "`; CRLF or LF line ends, the last row may lack one.

use crate::{EnronError, Message, ReadReport};
use std::path::Path;

/// Reads `Enron.csv`. Actors are named by employee id (`"12"`).
pub fn read_table(path: &Path) -> Result<(Vec<Message>, ReadReport), EnronError> {
    let bytes = std::fs::read(path).map_err(|e| EnronError { path: path.to_path_buf(), message: e.to_string() })?;
    Ok(parse_table(&String::from_utf8_lossy(&bytes)))
}

/// Parses the table's text; a malformed row is reported (with its line number) and skipped.
pub fn parse_table(text: &str) -> (Vec<Message>, ReadReport) {
    let mut report = ReadReport::default();
    let mut messages = Vec::new();
    let mut rest = text;
    let mut line = 1;
    while !rest.is_empty() {
        let (fields, consumed, newlines) = split_record(rest);
        rest = &rest[consumed..];
        let at = line;
        line += newlines;
        if fields.len() == 1 && fields[0].trim().is_empty() {
            continue; // a blank line
        }
        report.items += 1;
        match message(&fields) {
            Ok(m) if m.recipients.is_empty() => report.without_recipients += 1,
            Ok(m) => messages.push(m),
            Err(why) => report.malformed.push((format!("line {at}"), why)),
        }
    }
    report.messages = messages.len();
    (messages, report)
}

/// One record: its fields, the bytes it used (with its line end) and the line ends it spans.
fn split_record(text: &str) -> (Vec<String>, usize, usize) {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut newlines = 0;
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
            ('\n', false) => return (fields, i + 1, newlines + 1),
            ('\r', false) if chars.peek().is_some_and(|&(_, n)| n == '\n') => {}
            (c, _) => {
                if c == '\n' {
                    newlines += 1;
                }
                push(&mut fields, c);
            }
        }
    }
    (fields, text.len(), newlines)
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
    fields[0].trim().parse::<i64>().map_err(|_| format!("time {:?} is not an integer", fields[0]))?;
    let id = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("actor id {s:?} is not a positive integer"));
    let sender = id(&fields[1])?.to_string();
    let mut recipients: Vec<String> = Vec::new();
    for r in fields[2].split(',').filter(|r| !r.trim().is_empty()) {
        let r = id(r)?.to_string();
        if r != sender && !recipients.contains(&r) {
            recipients.push(r);
        }
    }
    Ok(Message { sender, recipients, text: fields[3].clone() })
}
