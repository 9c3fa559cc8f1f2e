//! Reproducible, independent random-number streams.
//!
//! Every independent unit of work (a matrix row, a chain, a sweep cell) gets its own stream,
//! derived from `(master seed, stream id)`; no generator is ever shared between threads, so
//! results do not depend on the thread count or on scheduling.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator of every simulation stream: xoshiro256++ (Blackman & Vigna 2021) — 256 bits of
/// state, period 2²⁵⁶ − 1, passes BigCrush and PractRand; statistically sound for simulation and
/// about 2.5 times as fast per word as the ChaCha8 it replaced (issue 21, BENCHMARKS.md). Not
/// cryptographic, and never used for a release of anyone's data (that is ChaCha20 keyed from
/// the operating system, `mechanism::release`).
pub type StreamRng = Xoshiro256PlusPlus;

/// The stream `stream_id` of `master_seed`: xoshiro256++ whose 256-bit state is filled by
/// SplitMix64 from `stream_id(&[master_seed, stream_id])` (the seeding its authors recommend;
/// `seed_from_u64` of `rand_xoshiro`). Two pairs share a state only if their 64-bit hashes
/// collide (about `2⁻⁶⁴` per pair). Streams start at independent random points of one cycle of
/// length `2²⁵⁶ − 1`; `n` streams of `L` draws each overlap with probability below `n²L/2²⁵⁶`.
///
/// ```
/// use distributions::stream;
/// use rand::Rng;
/// let (mut a, mut b) = (stream(42, 0), stream(42, 0));
/// assert_eq!(a.next_u64(), b.next_u64()); // same (seed, id): same numbers
/// assert_ne!(stream(42, 1).next_u64(), stream(42, 0).next_u64());
/// ```
pub fn stream(master_seed: u64, stream_id: u64) -> StreamRng {
    Xoshiro256PlusPlus::seed_from_u64(self::stream_id(&[master_seed, stream_id]))
}

/// A stream id for a hierarchical unit of work such as `[cell, replication, purpose]`: the
/// coordinates are folded through the SplitMix64 finalizer (Steele, Lea & Flood 2014), a fixed,
/// platform-independent bijective mix, so ids are stable across runs, releases and machines.
/// Different paths collide with probability about `2⁻⁶⁴` per pair.
pub fn stream_id(path: &[u64]) -> u64 {
    path.iter().fold(0x6a09_e667_f3bc_c909, |h, &x| splitmix64(h ^ splitmix64(x)))
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A node of the tree of streams: a master seed and a path of unit ids (`[iteration, step, chunk]`,
/// say). Pass a `Streams` down to where work is split; each independent unit takes
/// `streams.child(unit).rng()`. Two nodes give the same generator only if their paths are equal
/// (up to the `2⁻⁶⁴` collisions of [`stream_id`]).
///
/// ```
/// use distributions::Streams;
/// use rand::Rng;
/// let root = Streams::new(7);
/// let mut a = root.child(3).child(1).rng();
/// let mut b = root.child(3).child(1).rng();
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert_ne!(root.child(3).rng().next_u64(), root.child(4).rng().next_u64());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streams {
    master_seed: u64,
    node: u64,
}

impl Streams {
    /// The root node of `master_seed`.
    pub fn new(master_seed: u64) -> Self {
        Self { master_seed, node: stream_id(&[]) }
    }

    /// The child node `id` (path extended by one coordinate).
    pub fn child(&self, id: u64) -> Self {
        Self { master_seed: self.master_seed, node: stream_id(&[self.node, id]) }
    }

    /// The generator of this node.
    pub fn rng(&self) -> StreamRng {
        stream(self.master_seed, self.node)
    }
}
