//! One document per sent e-mail (its text: the subject for the table; subject and body for
//! maildir) → a sparse document–term matrix.
//!
//! Tokenization: lower-case; a token is a maximal run of ASCII letters, digits and apostrophes
//! (anything else separates, so non-ASCII text never breaks it); apostrophes are then removed
//! (`don't` → `dont`); tokens shorter than `min_length`, made only of digits, or in the stop-word
//! list are dropped. A word is kept in the vocabulary if at least `min_document_frequency`
//! documents use it. Documents left empty stay in the matrix as empty rows, so document `d` is
//! always message `d`.

use crate::Message;
use std::collections::BTreeMap;

/// English function words plus e-mail boilerplate (`re`, `fw`, `fwd`, `cc`, `enron`, …).
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "dont",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "re",
    "fw",
    "fwd",
    "cc",
    "bcc",
    "subject",
    "sent",
    "original",
    "message",
    "pm",
    "am",
    "enron",
    "com",
    "ect",
    "hou",
    "thanks",
    "please",
    "also",
    "get",
    "let",
    "know",
    "may",
    "need",
    "new",
    "one",
    "see",
    "us",
    "want",
    "well",
    "go",
    "like",
    "make",
    "call",
];

/// Tokenizer and vocabulary settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenizerOptions {
    pub min_length: usize,
    pub min_document_frequency: usize,
}

impl Default for TokenizerOptions {
    /// Tokens of at least 2 characters, words used by at least 5 documents.
    fn default() -> Self {
        Self { min_length: 2, min_document_frequency: 5 }
    }
}

/// The tokens of `text` (see the module documentation).
pub fn tokenize(text: &str, min_length: usize) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .map(|t| t.to_ascii_lowercase().replace('\'', ""))
        .filter(|t| {
            t.len() >= min_length && !t.bytes().all(|b| b.is_ascii_digit()) && !STOP_WORDS.contains(&t.as_str())
        })
        .collect()
}

/// A sparse `D × V` document–term matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentTerms {
    /// The vocabulary, alphabetical; column `v` is `vocabulary[v]`.
    pub vocabulary: Vec<String>,
    /// Number of documents `D` (one per message, in message order).
    pub documents: usize,
    /// `(document, word, count)` with `count > 0`, sorted by document then word.
    pub entries: Vec<(u32, u32, u32)>,
}

impl DocumentTerms {
    /// One document per message.
    pub fn from_messages(messages: &[Message], options: TokenizerOptions) -> Self {
        let docs: Vec<Vec<String>> = messages.iter().map(|m| tokenize(&m.text, options.min_length)).collect();
        let mut frequency: BTreeMap<&str, usize> = BTreeMap::new();
        for doc in &docs {
            let mut words: Vec<&str> = doc.iter().map(String::as_str).collect();
            words.sort_unstable();
            words.dedup();
            for w in words {
                *frequency.entry(w).or_insert(0) += 1;
            }
        }
        let vocabulary: Vec<String> = frequency
            .into_iter()
            .filter(|&(_, f)| f >= options.min_document_frequency)
            .map(|(w, _)| w.to_string())
            .collect();
        let mut entries = Vec::new();
        for (d, doc) in docs.iter().enumerate() {
            let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
            for w in doc {
                if let Ok(v) = vocabulary.binary_search(w) {
                    *counts.entry(v as u32).or_insert(0) += 1;
                }
            }
            entries.extend(counts.into_iter().map(|(v, c)| (d as u32, v, c)));
        }
        Self { vocabulary, documents: docs.len(), entries }
    }

    /// Total number of tokens kept.
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|e| u64::from(e.2)).sum()
    }
}
