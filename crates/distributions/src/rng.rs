//! Reproducible, independent random-number streams.
//!
//! Every independent unit of work (a matrix row, a chain, a sweep cell) gets its own stream,
//! derived from `(master seed, stream id)`; no generator is ever shared between threads, so
//! results do not depend on the thread count or on scheduling.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// The generator of every stream: ChaCha with 8 rounds — statistically sound for simulation,
/// fast, and with 2⁶⁴ independent streams per key.
pub type StreamRng = ChaCha8Rng;

/// The stream `stream_id` of the key derived from `master_seed`: the ChaCha key is
/// `seed_from_u64(master_seed)` (PCG32 expansion, fixed by `rand_core`), the stream (nonce) is
/// `stream_id`. Distinct ids give non-overlapping streams by construction of ChaCha.
///
/// ```
/// use distributions::stream;
/// use rand::Rng;
/// let (mut a, mut b) = (stream(42, 0), stream(42, 0));
/// assert_eq!(a.next_u64(), b.next_u64()); // same (seed, id): same numbers
/// assert_ne!(stream(42, 1).next_u64(), stream(42, 0).next_u64());
/// ```
pub fn stream(master_seed: u64, stream_id: u64) -> StreamRng {
    let mut rng = ChaCha8Rng::seed_from_u64(master_seed);
    rng.set_stream(stream_id);
    rng
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
