//! Fixed row partitions for parallel sweeps: the partition depends only on the number of rows,
//! so each chunk's random stream — and every result — is the same whatever the thread count.

/// Rows are split into at most this many chunks.
pub const MAX_CHUNKS: usize = 16;

/// Rows per chunk for `rows` rows (at least 1).
pub fn chunk_rows(rows: usize) -> usize {
    rows.div_ceil(MAX_CHUNKS).max(1)
}

/// Number of chunks for `rows` rows.
pub fn chunk_count(rows: usize) -> usize {
    rows.div_ceil(chunk_rows(rows))
}

/// Adds each chunk's counts into `total` (integer sums: exact and order-free).
pub(crate) fn reduce_into(total: &mut [u32], parts: &[Vec<u32>]) {
    total.fill(0);
    for part in parts {
        for (t, &p) in total.iter_mut().zip(part) {
            *t += p;
        }
    }
}

/// Splits `n` units over components with the given weights: `out ~ Mult(n, weights)` (eq. 1 of
/// Schofield et al.). If every weight underflowed to 0 — possible only in a state the counts
/// give zero probability, e.g. a chain started from a sparse prior draw — the units are spread
/// uniformly instead, so the chain can leave that state.
pub(crate) fn allocate<R: rand::Rng + ?Sized>(n: u64, weights: &mut [f64], out: &mut [u64], rng: &mut R) {
    if distributions::Multinomial::sample_into(n, weights, out, rng).is_err() {
        weights.fill(1.0);
        distributions::Multinomial::sample_into(n, weights, out, rng).expect("uniform weights are valid");
    }
}
