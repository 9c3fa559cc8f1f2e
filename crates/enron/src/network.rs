//! The directed count network: `y_ij` = number of e-mails from actor i to actor j, one per
//! recipient (§5.1 of Schein et al. 2019: "when an email included multiple recipients, we
//! incremented the corresponding counts by one"), and the paper's inclusion rule.

use crate::Message;
use std::collections::BTreeMap;

/// A `V × V` count matrix (row-major, row = sender) with a label per actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountNetwork {
    pub labels: Vec<String>,
    pub counts: Vec<u32>,
}

/// Who is kept: actors with at least `min_sent` sent e-mails whose sent + received total is at
/// least `min_total`. "Sent" and "received" are the row and column sums of `y` (e-mails counted
/// once per recipient), computed once on the whole network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InclusionRule {
    pub min_sent: u64,
    pub min_total: u64,
}

impl InclusionRule {
    /// The paper's rule: sent at least one e-mail, sent or received at least one hundred.
    pub const PAPER: InclusionRule = InclusionRule { min_sent: 1, min_total: 100 };
}

impl CountNetwork {
    /// Counts `messages`. Actors are every sender and recipient, ordered by label (numerically
    /// when every label is a number, as employee ids are).
    pub fn from_messages(messages: &[Message]) -> Self {
        let mut names: Vec<&str> = messages
            .iter()
            .flat_map(|m| std::iter::once(m.sender.as_str()).chain(m.recipients.iter().map(String::as_str)))
            .collect();
        let numeric = names.iter().all(|n| n.parse::<u64>().is_ok());
        names.sort_by(|a, b| if numeric { a.parse::<u64>().ok().cmp(&b.parse::<u64>().ok()) } else { a.cmp(b) });
        names.dedup();
        let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let v = names.len();
        let mut counts = vec![0u32; v * v];
        for m in messages {
            let i = index[m.sender.as_str()];
            for r in &m.recipients {
                let j = index[r.as_str()];
                if i != j {
                    counts[i * v + j] += 1;
                }
            }
        }
        Self { labels: names.into_iter().map(str::to_string).collect(), counts }
    }

    /// Number of actors `V`.
    pub fn actors(&self) -> usize {
        self.labels.len()
    }

    /// Row sums: e-mails sent (one per recipient).
    pub fn sent(&self) -> Vec<u64> {
        let v = self.actors();
        (0..v).map(|i| self.counts[i * v..(i + 1) * v].iter().map(|&c| u64::from(c)).sum()).collect()
    }

    /// Column sums: e-mails received.
    pub fn received(&self) -> Vec<u64> {
        let v = self.actors();
        (0..v).map(|j| (0..v).map(|i| u64::from(self.counts[i * v + j])).sum()).collect()
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }

    /// The sub-network of the actors `rule` keeps (order preserved).
    pub fn included(&self, rule: InclusionRule) -> CountNetwork {
        let (sent, received) = (self.sent(), self.received());
        let keep: Vec<usize> = (0..self.actors())
            .filter(|&i| sent[i] >= rule.min_sent && sent[i] + received[i] >= rule.min_total)
            .collect();
        let v = self.actors();
        CountNetwork {
            labels: keep.iter().map(|&i| self.labels[i].clone()).collect(),
            counts: keep.iter().flat_map(|&i| keep.iter().map(move |&j| self.counts[i * v + j])).collect(),
        }
    }
}
