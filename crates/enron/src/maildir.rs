//! The CMU Enron corpus as downloaded: `maildir/<user>/<folder>/…/<n>.` files, each one RFC 822
//! message (headers, a blank line, the body).
//!
//! - Headers are unfolded (a line starting with a space or tab continues the previous one) and
//!   matched case-insensitively; bytes that are not UTF-8 are replaced (odd encodings never stop
//!   the reader).
//! - The sender is the first address of `From`; recipients are the distinct addresses of `To`,
//!   `Cc` and `Bcc` together, without the sender (in this corpus `Bcc` usually repeats `Cc`, so
//!   counting the union once per recipient avoids double counts). `X-From`/`X-To` hold display
//!   names only and are not used. Addresses are lower-cased.
//! - A message stored in several mailboxes (same `Message-ID`) is read once.
//! - A file without a header block or without a sender address is malformed: counted, reported
//!   with its path, skipped.

use crate::{EnronError, Message, ReadReport};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A parsed e-mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email {
    pub message_id: Option<String>,
    pub message: Message,
}

/// Reads every file under `root` (in sorted path order, so the result is deterministic).
pub fn read_maildir(root: &Path) -> Result<(Vec<Message>, ReadReport), EnronError> {
    let (files, skipped) = sorted_files(root)?;
    let mut report = ReadReport::default();
    report_skipped(root, skipped, &mut report);
    let mut seen = HashSet::new();
    let mut messages = Vec::new();
    for path in files {
        report.items += 1;
        let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                report.malformed.push((shown, format!("cannot read: {e}")));
                continue;
            }
        };
        match parse_email(&bytes) {
            Err(why) => report.malformed.push((shown, why.to_string())),
            Ok(email) => {
                if let Some(id) = &email.message_id
                    && !seen.insert(id.clone())
                {
                    report.duplicates += 1;
                } else if email.message.recipients.is_empty() {
                    report.without_recipients += 1;
                } else {
                    messages.push(email.message);
                }
            }
        }
    }
    report.messages = messages.len();
    Ok((messages, report))
}

/// An entry that is not read: its path and what it is.
pub(crate) type Skipped = (PathBuf, &'static str);

/// The regular files under `root`, sorted, and the entries that are neither files nor
/// directories (symbolic links, FIFOs, sockets, devices) with what they are: those are never
/// opened (a FIFO would block, a link may loop or leave the corpus) but reported, so nothing is
/// skipped uncounted.
pub(crate) fn sorted_files(root: &Path) -> Result<(Vec<PathBuf>, Vec<Skipped>), EnronError> {
    let (mut files, mut skipped) = (Vec::new(), Vec::new());
    collect_files(root, &mut files, &mut skipped)
        .map_err(|e| EnronError { path: root.to_path_buf(), message: e.to_string() })?;
    files.sort();
    skipped.sort();
    Ok((files, skipped))
}

/// Every entry under `dir`, recursively (unsorted): regular files into `out`, the rest into
/// `skipped`.
fn collect_files(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<(PathBuf, &'static str)>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect_files(&entry.path(), out, skipped)?;
        } else if kind.is_file() {
            out.push(entry.path());
        } else if kind.is_symlink() {
            skipped.push((entry.path(), "a symbolic link, not read (the corpus is read as regular files only)"));
        } else {
            skipped.push((entry.path(), "not a regular file (a FIFO, socket or device), not read"));
        }
    }
    Ok(())
}

/// Counts the entries `sorted_files` did not read as malformed items of `report`.
pub(crate) fn report_skipped(root: &Path, skipped: Vec<Skipped>, report: &mut ReadReport) {
    for (path, why) in skipped {
        report.items += 1;
        report.malformed.push((path.strip_prefix(root).unwrap_or(&path).display().to_string(), why.to_string()));
    }
}

/// Parses one message file.
pub fn parse_email(bytes: &[u8]) -> Result<Email, &'static str> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.replace("\r\n", "\n");
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            match headers.last_mut() {
                Some((_, value)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                None => return Err("a continuation line before any header"),
            }
        } else if let Some((name, value)) = line.split_once(':')
            && !name.is_empty()
            && !name.contains(char::is_whitespace)
        {
            headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        } else {
            return Err("a header line without a name");
        }
    }
    if headers.is_empty() {
        return Err("no headers");
    }
    let field = |name: &'static str| headers.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str());
    let sender = field("from").flat_map(addresses).next().ok_or("no sender address in From")?;
    let mut recipients: Vec<String> = Vec::new();
    for address in field("to").chain(field("cc")).chain(field("bcc")).flat_map(addresses) {
        if address != sender && !recipients.contains(&address) {
            recipients.push(address);
        }
    }
    let subject = field("subject").next().unwrap_or("");
    let message_id = field("message-id").next().map(str::to_string).filter(|s| !s.is_empty());
    Ok(Email { message_id, message: Message { time: None, sender, recipients, text: format!("{subject}\n{body}") } })
}

/// The e-mail addresses in a header value: tokens between separators that hold one `@` with
/// something on both sides, lower-cased, stray dots and quotes trimmed.
fn addresses(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '<' | '>' | '"' | '(' | ')' | '[' | ']'))
        .map(|t| t.trim_matches(|c: char| c == '.' || c == '\''))
        .filter(|t| {
            let mut parts = t.split('@');
            matches!((parts.next(), parts.next(), parts.next()), (Some(l), Some(d), None) if !l.is_empty() && !d.is_empty())
        })
        .map(str::to_ascii_lowercase)
}
