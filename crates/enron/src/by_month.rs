//! The network by calendar month: `y_ijt` = e-mails from actor `i` to actor `j` sent in month `t`
//! (one per recipient, as [`crate::CountNetwork`] counts them), for the counts-over-time
//! (tensor) model.

use crate::Message;
use chrono::{DateTime, Datelike};
use std::collections::HashMap;

/// The counts of a fixed set of actors in every month from the first to the last with a message
/// between them (months without one included: the calendar is public). Row-major `(i, j, t)`:
/// `counts[(i·V + j)·T + t]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonthlyNetwork {
    pub labels: Vec<String>,
    /// `YYYY-MM`, in calendar order.
    pub months: Vec<String>,
    pub counts: Vec<u32>,
    /// Messages between the actors left out: without a date, or outside `[from, to]`.
    pub undated: usize,
    pub outside: usize,
}

/// The calendar month (UTC) of a Unix time, `YYYY-MM`; `None` outside chrono's range.
pub fn month_of(unix_seconds: i64) -> Option<String> {
    let t = DateTime::from_timestamp(unix_seconds, 0)?;
    Some(format!("{:04}-{:02}", t.year(), t.month()))
}

/// Months as `12·year + month − 1`, so that the next month is `+ 1`.
fn month_number(month: &str) -> Option<i64> {
    let (y, m) = month.split_once('-')?;
    let (y, m) = (y.parse::<i64>().ok()?, m.parse::<i64>().ok()?);
    (1..=12).contains(&m).then_some(12 * y + m - 1)
}

fn month_name(n: i64) -> String {
    format!("{:04}-{:02}", n.div_euclid(12), n.rem_euclid(12) + 1)
}

impl MonthlyNetwork {
    /// Counts the messages among `actors` (labels as [`Message`]s name them; others ignored), in
    /// the months from `from` to `to` (`YYYY-MM`, either end open when `None`). An error names a
    /// bound that is not a month.
    pub fn from_messages(
        messages: &[Message],
        actors: &[String],
        (from, to): (Option<&str>, Option<&str>),
    ) -> Result<Self, String> {
        let bound = |b: Option<&str>| -> Result<Option<i64>, String> {
            b.map(|b| month_number(b).ok_or_else(|| format!("{b:?} is not a month: write YYYY-MM, e.g. 2001-05")))
                .transpose()
        };
        let (from, to) = (bound(from)?, bound(to)?);
        let index: HashMap<&str, usize> = actors.iter().enumerate().map(|(i, a)| (a.as_str(), i)).collect();
        let (mut dated, mut undated, mut outside) = (Vec::new(), 0, 0);
        for m in messages {
            let Some(&i) = index.get(m.sender.as_str()) else { continue };
            let recipients: Vec<usize> =
                m.recipients.iter().filter_map(|r| index.get(r.as_str()).copied()).filter(|&j| j != i).collect();
            if recipients.is_empty() {
                continue;
            }
            let Some(month) = m.time.and_then(month_of).and_then(|s| month_number(&s)) else {
                undated += 1;
                continue;
            };
            if from.is_some_and(|f| month < f) || to.is_some_and(|t| month > t) {
                outside += 1;
                continue;
            }
            dated.push((i, recipients, month));
        }
        let first = from.or_else(|| dated.iter().map(|d| d.2).min()).unwrap_or(0);
        let last = to.or_else(|| dated.iter().map(|d| d.2).max()).unwrap_or(first);
        let months: Vec<String> = (first..=last.max(first)).map(month_name).collect();
        let (v, t_count) = (actors.len(), months.len());
        let mut counts = vec![0u32; v * v * t_count];
        for (i, recipients, month) in dated {
            let t = (month - first) as usize;
            for j in recipients {
                counts[(i * v + j) * t_count + t] += 1;
            }
        }
        Ok(Self { labels: actors.to_vec(), months, counts, undated, outside })
    }

    /// The non-zero cells as `(sender, recipient, month, count)`, in grid order.
    pub fn cells(&self) -> impl Iterator<Item = (&str, &str, &str, u32)> {
        let (v, t) = (self.labels.len(), self.months.len().max(1));
        self.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(move |(n, &c)| {
            let (ij, m) = (n / t, n % t);
            (self.labels[ij / v].as_str(), self.labels[ij % v].as_str(), self.months[m].as_str(), c)
        })
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(time: Option<i64>, sender: &str, recipients: &[&str]) -> Message {
        let recipients = recipients.iter().map(|r| r.to_string()).collect();
        Message { time, sender: sender.into(), recipients, text: String::new() }
    }

    /// Months are UTC calendar months; the grid spans every month between the first and last
    /// message (an empty one included); others' messages, self-sends, undated messages and months
    /// outside the bounds are left out and counted.
    #[test]
    fn messages_are_counted_by_calendar_month() {
        assert_eq!(month_of(910_930_020).as_deref(), Some("1998-11"));
        assert_eq!(month_of(946_684_799).as_deref(), Some("1999-12"));
        assert_eq!(month_of(946_684_800).as_deref(), Some("2000-01"));
        let actors: Vec<String> = ["1", "2"].iter().map(|s| s.to_string()).collect();
        let messages = [
            message(Some(946_684_799), "1", &["2", "3"]),
            message(Some(951_782_400), "2", &["1"]), // 2000-02-29
            message(Some(951_782_400), "1", &["2"]),
            message(Some(951_782_400), "1", &["1"]),
            message(None, "1", &["2"]),
            message(Some(0), "3", &["1"]),
        ];
        let net = MonthlyNetwork::from_messages(&messages, &actors, (None, None)).unwrap();
        assert_eq!(net.months, ["1999-12", "2000-01", "2000-02"]);
        assert_eq!(
            net.cells().collect::<Vec<_>>(),
            [("1", "2", "1999-12", 1), ("1", "2", "2000-02", 1), ("2", "1", "2000-02", 1)]
        );
        assert_eq!((net.undated, net.outside, net.total()), (1, 0, 3));
        let bounded = MonthlyNetwork::from_messages(&messages, &actors, (Some("2000-01"), Some("2000-03"))).unwrap();
        assert_eq!(bounded.months, ["2000-01", "2000-02", "2000-03"]);
        assert_eq!((bounded.outside, bounded.total()), (1, 2));
        let e = MonthlyNetwork::from_messages(&messages, &actors, (Some("2000-13"), None)).unwrap_err();
        assert!(e.contains("\"2000-13\" is not a month"), "{e}");
    }
}
