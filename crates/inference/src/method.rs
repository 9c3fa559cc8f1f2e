//! The six methods of the paper's experiments by name: (Gibbs | CAVI) × (exact | naïve |
//! private), as manifests, result files and `lppf fit --method` spell them.

use crate::Observation;
use mechanism::Privatized;
use serde::{Deserialize, Serialize};

/// An inference method: Gibbs sampling (`non-private`, `naive`, `private`) or CAVI (`cavi`,
/// `naive-cavi`, `private-cavi`), each on the true counts, the truncated privatized counts, or the
/// privatized counts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    NonPrivate,
    Naive,
    Private,
    Cavi,
    NaiveCavi,
    PrivateCavi,
}

impl Method {
    /// Every method, in manifest order.
    pub const ALL: [Method; 6] =
        [Method::NonPrivate, Method::Naive, Method::Private, Method::Cavi, Method::NaiveCavi, Method::PrivateCavi];

    /// The name used in manifests and result files (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            Method::NonPrivate => "non-private",
            Method::Naive => "naive",
            Method::Private => "private",
            Method::Cavi => "cavi",
            Method::NaiveCavi => "naive-cavi",
            Method::PrivateCavi => "private-cavi",
        }
    }

    /// The method called `name`, if any.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// `true` for the methods that see the true counts (fitted once per data set).
    pub fn is_reference(self) -> bool {
        matches!(self, Method::NonPrivate | Method::Cavi)
    }

    /// `true` for the methods that read released (privatized) data: naïve and private.
    pub fn reads_released(self) -> bool {
        !self.is_reference()
    }

    /// `true` for the CAVI methods.
    pub fn is_cavi(self) -> bool {
        matches!(self, Method::Cavi | Method::NaiveCavi | Method::PrivateCavi)
    }

    /// The view of the data this method fits: the true `counts` for the reference methods, the
    /// `released` values taken as counts after truncation at 0 (naïve) or with their noise model
    /// (private) for the others; `None` when the input the method needs is absent.
    pub fn observation<'a>(
        self,
        counts: Option<&'a [u32]>,
        released: Option<&'a Privatized>,
    ) -> Option<Observation<'a>> {
        match self {
            Method::NonPrivate | Method::Cavi => counts.map(Observation::Exact),
            Method::Naive | Method::NaiveCavi => released.map(Observation::Naive),
            Method::Private | Method::PrivateCavi => released.map(Observation::Private),
        }
    }
}
