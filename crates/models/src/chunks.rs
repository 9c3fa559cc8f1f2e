//! Fixed row partitions for parallel sweeps: the partition depends only on the number of rows,
//! so each chunk's random stream — and every result — is the same whatever the thread count.

use distributions::Multinomial;

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

/// Splits `n` units over components: `out ~ Mult(n, w)` (eq. 1 of Schofield et al.), with the
/// weights given by their running sums `cumulative[k] = Σ_{j<=k} w_j` (see
/// [`distributions::Multinomial::sample_cumulative_into`]). If every weight underflowed to 0 —
/// possible only in a state the counts give zero probability, e.g. a chain started from a sparse
/// prior draw — the units are spread uniformly instead, so the chain can leave that state.
pub(crate) fn allocate<R: rand::Rng + ?Sized>(n: u64, cumulative: &mut [f64], out: &mut [u64], rng: &mut R) {
    if distributions::Multinomial::sample_cumulative_into(n, cumulative, out, rng).is_err() {
        for (k, c) in cumulative.iter_mut().enumerate() {
            *c = (k + 1) as f64;
        }
        distributions::Multinomial::sample_cumulative_into(n, cumulative, out, rng).expect("uniform weights are valid");
    }
}

/// [`allocate`] for the caller that only adds the draw somewhere: calls `place(k, x_k)` for the
/// components that receive units, with the same draw `allocate(n, …)` makes, bit for bit, and the
/// stream left in the same place. Where the multinomial places units one at a time (`n < 2K`,
/// [`distributions::Multinomial::places_units_one_at_a_time`]; almost every count of a sparse
/// matrix), each unit is placed here directly ([`place_units`]) — without the multinomial's
/// validation passes over all `K` sums, its zeroed output and the caller's `K`-long update
/// (`place` is called once per unit, with `x = 1`). Larger totals, and weights `allocate` would
/// refuse (a total that is not finite and positive), take [`allocate`] itself, uniform fallback
/// included.
#[inline]
pub(crate) fn allocate_each<R: rand::Rng + ?Sized>(
    n: u64,
    cumulative: &mut [f64],
    scratch: &mut [u64],
    rng: &mut R,
    mut place: impl FnMut(usize, u64),
) {
    if !place_units(n, cumulative, rng, &mut place) {
        allocate_and_place(n, cumulative, scratch, rng, place);
    }
}

/// [`allocate_each`] from running sums the caller keeps (a precomputed table): the same draw,
/// bit for bit. Only when the units cannot be placed one at a time are the sums copied into
/// `spare` (same length), which [`allocate`] may overwrite with its uniform fallback.
#[inline]
pub(crate) fn allocate_each_from<R: rand::Rng + ?Sized>(
    n: u64,
    cumulative: &[f64],
    spare: &mut [f64],
    scratch: &mut [u64],
    rng: &mut R,
    mut place: impl FnMut(usize, u64),
) {
    if !place_units(n, cumulative, rng, &mut place) {
        spare.copy_from_slice(cumulative);
        allocate_and_place(n, spare, scratch, rng, place);
    }
}

/// Places `n` units one at a time when the multinomial would (`n < 2K`) and the running sums are
/// valid; returns `false`, having drawn nothing, otherwise. Each unit: one uniform `u`, `k` = the
/// number of running sums `≤ u·total` (a branch-free count over the monotone sums), stepped back
/// over zero weights — the arithmetic and tie rule of
/// [`distributions::Multinomial::sample_cumulative_into`].
#[inline]
fn place_units<R: rand::Rng + ?Sized>(
    n: u64,
    cumulative: &[f64],
    rng: &mut R,
    place: &mut impl FnMut(usize, u64),
) -> bool {
    let last = cumulative.len() - 1;
    let (first, total) = (cumulative[0], cumulative[last]);
    // The running sums of non-negative finite products are non-decreasing; a NaN or an infinity
    // anywhere reaches the total.
    if !(total.is_finite() && total > 0.0 && first >= 0.0 && Multinomial::places_units_one_at_a_time(n, last + 1)) {
        return false;
    }
    for _ in 0..n {
        let target = rand::RngExt::sample::<f64, _>(rng, rand::distr::StandardUniform) * total;
        let mut k = cumulative.iter().map(|&c| usize::from(c <= target)).sum::<usize>().min(last);
        while k > 0 && cumulative[k] == cumulative[k - 1] {
            k -= 1;
        }
        place(k, 1);
    }
    true
}

/// [`allocate`], then `place(k, x_k)` for every component that received units.
fn allocate_and_place<R: rand::Rng + ?Sized>(
    n: u64,
    cumulative: &mut [f64],
    scratch: &mut [u64],
    rng: &mut R,
    mut place: impl FnMut(usize, u64),
) {
    allocate(n, cumulative, scratch, rng);
    for (k, &x) in scratch.iter().enumerate().filter(|(_, x)| **x > 0) {
        place(k, x);
    }
}

/// `b` (row-major, rows of length `k`) transposed: `k` rows of length `b.len() / k`.
pub(crate) fn transposed(b: &[f64], k: usize) -> Vec<f64> {
    let n = b.len() / k;
    let mut out = vec![0.0; b.len()];
    for (v, b_v) in b.chunks_exact(k).enumerate() {
        for (kk, &x) in b_v.iter().enumerate() {
            out[kk * n + v] = x;
        }
    }
    out
}

/// A row of rates `μ = θ Φᵀ` from the transposed factor: `out[v] = Σ_k a_k · bt[k·n + v]` (`bt`
/// is `Φᵀ`, `K × n` row-major, `n = out.len()`; [`transposed`]). The components are the outer
/// loop and a block of outputs the inner ([`dot_block`]: sixteen, then eight, then one at a
/// time), so the block's running sums stay in vector registers as independent chains and every
/// load of `bt` is contiguous. Each output is
/// still summed over `k` in order from 0, products rounded, then added (no fused multiply-add, no
/// runtime SIMD dispatch), so every value is bit-identical to the plain dot product
/// `Σ_k a_k · b_vk` on every CPU.
pub(crate) fn dot_rows_transposed(out_row: &mut [f64], a: &[f64], bt: &[f64]) {
    let n = out_row.len();
    let (wide, narrow) = (n - n % 16, n - n % 8);
    for start in (0..wide).step_by(16) {
        dot_block::<16>(&mut out_row[start..start + 16], a, bt, n, start);
    }
    for start in (wide..narrow).step_by(8) {
        dot_block::<8>(&mut out_row[start..start + 8], a, bt, n, start);
    }
    for (v, out) in out_row.iter_mut().enumerate().skip(narrow) {
        *out = a.iter().zip(bt.chunks_exact(n)).map(|(&t, bt_k)| t * bt_k[v]).sum();
    }
}

/// `W` outputs of [`dot_rows_transposed`] (rows of `bt` of length `n`) from column `start` on:
/// `W` running sums over `k`.
#[inline(always)]
fn dot_block<const W: usize>(out: &mut [f64], a: &[f64], bt: &[f64], n: usize, start: usize) {
    let mut acc = [0.0f64; W];
    for (&t, bt_k) in a.iter().zip(bt.chunks_exact(n)) {
        for (s, &b) in acc.iter_mut().zip(&bt_k[start..start + W]) {
            *s += t * b;
        }
    }
    out.copy_from_slice(&acc);
}

/// `Σ_j a_j b_j` over the common length, in four interleaved running sums added pairwise at the
/// end (`(s₀ + s₁) + (s₂ + s₃)`, then the last `len % 4` products in order), so that each addition
/// does not wait for the one before and the compiler can pair them. Not bit-identical to the
/// plain sum.
pub(crate) fn dot_in_lanes(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f64; 4];
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for l in 0..4 {
            lanes[l] += x[l] * y[l];
        }
    }
    let whole = n - n % 4;
    let tail: f64 = a[whole..].iter().zip(&b[whole..]).map(|(x, y)| x * y).sum();
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// Writes the running sums of `a_k · b_k` into `cumulative`.
pub(crate) fn cumulative_products(cumulative: &mut [f64], a: &[f64], b: &[f64]) {
    let mut acc = 0.0;
    for ((c, x), y) in cumulative.iter_mut().zip(a).zip(b) {
        acc += x * y;
        *c = acc;
    }
}

/// [`cumulative_products`] for four rows `b0..b3` at once, into `out` (`4·K`: the running sums of
/// row `i` at `[i·K, (i+1)·K)`). A running sum is a chain of dependent additions (one add's
/// latency per component); four interleaved chains keep the adder busy. Each row's sums are
/// formed in the same order as [`cumulative_products`], so they are bit-identical to it.
pub(crate) fn cumulative_products_4(out: &mut [f64], a: &[f64], b: [&[f64]; 4]) {
    let k = a.len();
    let (c0, rest) = out.split_at_mut(k);
    let (c1, rest) = rest.split_at_mut(k);
    let (c2, c3) = rest.split_at_mut(k);
    let [b0, b1, b2, b3] = b;
    let mut acc = [0.0f64; 4];
    for j in 0..k {
        let x = a[j];
        acc[0] += x * b0[j];
        acc[1] += x * b1[j];
        acc[2] += x * b2[j];
        acc[3] += x * b3[j];
        c0[j] = acc[0];
        c1[j] = acc[1];
        c2[j] = acc[2];
        c3[j] = acc[3];
    }
}

/// The running sums of `a_k · row(j)_k` for each column `j` of `group` (at most four), into
/// consecutive `K`-long slices of `batch`: a full group of four by [`cumulative_products_4`], a
/// shorter one (the end of a row) one at a time. Bit-identical either way.
pub(crate) fn cumulative_products_group<'a>(
    batch: &mut [f64],
    a: &[f64],
    group: &[usize],
    row: impl Fn(usize) -> &'a [f64],
) {
    if let &[j0, j1, j2, j3] = group {
        cumulative_products_4(batch, a, [row(j0), row(j1), row(j2), row(j3)]);
    } else {
        for (cumulative, &j) in batch.chunks_exact_mut(a.len()).zip(group) {
            cumulative_products(cumulative, a, row(j));
        }
    }
}

/// One chunk's buffers, kept across sweeps so that a sweep allocates nothing: its share of a
/// column-indexed count matrix, and the scratch of the allocation step.
#[derive(Clone, Debug)]
pub(crate) struct ChunkBuffers {
    /// The chunk's counts for a matrix that rows of other chunks also write to.
    pub(crate) counts: Vec<u32>,
    /// Running sums of the weights of one entry.
    pub(crate) cumulative: Vec<f64>,
    /// One multinomial draw.
    pub(crate) draw: Vec<u64>,
    /// A second multinomial draw (the block model's `d | c` stage).
    pub(crate) second: Vec<u64>,
    /// Running sums of four entries at once (`4 × components`, [`cumulative_products_4`]).
    pub(crate) batch: Vec<f64>,
    /// Column indices of the non-zero counts of one row.
    pub(crate) nonzero: Vec<usize>,
}

impl ChunkBuffers {
    /// Buffers for `chunks` chunks, each with `counts_len` counts and `components` components.
    pub(crate) fn for_chunks(chunks: usize, counts_len: usize, components: usize) -> Vec<Self> {
        let one = Self {
            counts: vec![0; counts_len],
            cumulative: vec![0.0; components],
            draw: vec![0; components],
            second: vec![0; components],
            batch: vec![0.0; 4 * components],
            nonzero: Vec::new(),
        };
        vec![one; chunks]
    }
}

/// Adds each chunk's counts into `total` (integer sums: exact and order-free).
pub(crate) fn reduce_chunks_into(total: &mut [u32], chunks: &[ChunkBuffers]) {
    total.fill(0);
    for chunk in chunks {
        for (t, &p) in total.iter_mut().zip(&chunk.counts) {
            *t += p;
        }
    }
}

/// Column sums of a row-major `rows × k` matrix, into `sums` (length `k`).
pub(crate) fn column_sums_into(sums: &mut [f64], values: &[f64]) {
    sums.fill(0.0);
    for row in values.chunks_exact(sums.len()) {
        for (s, &x) in sums.iter_mut().zip(row) {
            *s += x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::Streams;
    use rand::RngExt;

    /// `allocate_each` and `allocate_each_from` make the draw `allocate(n, …)` makes and leave the
    /// stream in the same place, for totals on both sides of the one-at-a-time threshold `2K`, on
    /// weights with zeros (ties in the running sums), underflow and invalid totals.
    #[test]
    fn placing_units_gives_the_multinomial_draw() {
        let cases: Vec<Vec<f64>> = vec![
            vec![0.2, 0.5, 0.3],
            vec![0.0, 1.0, 0.0, 0.0, 2.0],
            vec![1e-300, 0.0, 1e-300],
            vec![0.0, 0.0, 0.0],
            vec![f64::NAN, 1.0],
            vec![1.0, f64::INFINITY],
            vec![5.0],
        ];
        for weights in cases {
            for (seed, n) in (0..200).zip([1, 1, 2, 3, 7, 9, 10, 11, 19, 40].into_iter().cycle()) {
                let mut running = 0.0;
                let cumulative: Vec<f64> = weights
                    .iter()
                    .map(|w| {
                        running += w;
                        running
                    })
                    .collect();
                let (mut a, mut b) = (cumulative.clone(), cumulative.clone());
                let (mut rng_a, mut rng_b) = (Streams::new(seed).rng(), Streams::new(seed).rng());
                let mut expected = vec![0u64; weights.len()];
                allocate(n, &mut a, &mut expected, &mut rng_a);
                let (mut placed, mut scratch) = (vec![0u64; weights.len()], vec![0u64; weights.len()]);
                allocate_each(n, &mut b, &mut scratch, &mut rng_b, |k, x| placed[k] += x);
                assert_eq!(placed, expected, "{weights:?} n = {n}, seed {seed}");
                // From kept sums, which must stay as they were (the fallback works on a copy).
                let (mut from_kept, mut spare, mut rng_c) =
                    (vec![0u64; weights.len()], vec![0.0; weights.len()], Streams::new(seed).rng());
                allocate_each_from(n, &cumulative, &mut spare, &mut scratch, &mut rng_c, |k, x| from_kept[k] += x);
                assert_eq!(from_kept, expected, "kept sums: {weights:?} n = {n}, seed {seed}");
                let next = rng_a.random::<u64>();
                assert_eq!(next, rng_b.random::<u64>(), "the streams diverged: {weights:?}");
                assert_eq!(next, rng_c.random::<u64>(), "the streams diverged (kept sums): {weights:?}");
            }
        }
    }
}

#[cfg(test)]
mod rate_kernel_tests {
    use super::{
        cumulative_products, cumulative_products_4, cumulative_products_group, dot_in_lanes, dot_rows_transposed,
        transposed,
    };
    use rand::RngExt;

    /// The dot product in lanes equals the plain sum to rounding (`1e-14` of the sum of the
    /// products' sizes) at lengths below, at and past a multiple of four, and exactly on integers.
    #[test]
    fn dot_in_lanes_is_the_dot_product() {
        for n in [0usize, 1, 3, 4, 5, 8, 117, 1000] {
            let a: Vec<f64> = (0..n).map(|j| (j as f64 * 0.37).sin() * 1e3).collect();
            let b: Vec<f64> = (0..n).map(|j| 1.0 / (1.0 + j as f64)).collect();
            let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let scale: f64 = a.iter().zip(&b).map(|(x, y)| (x * y).abs()).sum::<f64>().max(1e-300);
            let got = dot_in_lanes(&a, &b);
            assert!((got - plain).abs() <= 1e-14 * scale, "n {n}: {got} vs {plain}");
        }
        assert_eq!(dot_in_lanes(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 1.0, 1.0, 1.0, 1.0]), 15.0);
    }

    /// The rates kernel (blocks of sixteen and eight outputs over the transposed factor) gives the
    /// one-at-a-time dot products bit for bit, for row lengths that are and are not multiples of
    /// eight and sixteen; `transposed` puts `b_vk` at `k·n + v`.
    #[test]
    fn tiled_rates_equal_the_plain_dot_products_bit_for_bit() {
        let mut rng = distributions::Streams::new(3).rng();
        for (v, k) in [(1, 1), (3, 7), (4, 50), (9, 13), (16, 3), (25, 4), (1000, 50), (1003, 50)] {
            let theta: Vec<f64> = (0..k).map(|_| rng.random::<f64>() * 3.0).collect();
            let phi: Vec<f64> = (0..v * k).map(|_| rng.random::<f64>().powi(3)).collect();
            let phi_t = transposed(&phi, k);
            assert!((0..v * k).all(|i| phi_t[(i % k) * v + i / k] == phi[i]), "v = {v}, k = {k}");
            let mut tiled = vec![f64::NAN; v];
            dot_rows_transposed(&mut tiled, &theta, &phi_t);
            for (w, mu) in tiled.iter().enumerate() {
                let plain: f64 = theta.iter().zip(&phi[w * k..(w + 1) * k]).map(|(a, b)| a * b).sum();
                assert_eq!(mu.to_bits(), plain.to_bits(), "v = {v}, k = {k}, word {w}");
            }
        }
    }

    /// A group of one to four columns (the end of a row, or a full group) gets, in order, the
    /// running sums of its own columns' rows, bit for bit.
    #[test]
    fn running_sums_of_a_group_follow_its_columns() {
        let mut rng = distributions::Streams::new(5).rng();
        let k = 7;
        let a: Vec<f64> = (0..k).map(|_| rng.random::<f64>() * 3.0).collect();
        let rows: Vec<f64> = (0..6 * k).map(|_| rng.random::<f64>().powi(3)).collect();
        let row = |j: usize| &rows[j * k..(j + 1) * k];
        for group in [&[4][..], &[0, 5], &[3, 1, 2], &[5, 0, 2, 1]] {
            let mut batch = vec![f64::NAN; 4 * k];
            cumulative_products_group(&mut batch, &a, group, row);
            for (i, &j) in group.iter().enumerate() {
                let mut one = vec![0.0; k];
                cumulative_products(&mut one, &a, row(j));
                let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&batch[i * k..(i + 1) * k]), bits(&one), "group {group:?}, column {j}");
            }
        }
    }

    /// Four interleaved running sums equal the one-at-a-time running sums bit for bit.
    #[test]
    fn four_running_sums_at_once_equal_one_at_a_time_bit_for_bit() {
        let mut rng = distributions::Streams::new(4).rng();
        for k in [1, 2, 7, 50] {
            let a: Vec<f64> = (0..k).map(|_| rng.random::<f64>() * 3.0).collect();
            let rows: Vec<Vec<f64>> = (0..4).map(|_| (0..k).map(|_| rng.random::<f64>().powi(3)).collect()).collect();
            let mut four = vec![0.0; 4 * k];
            cumulative_products_4(&mut four, &a, [&rows[0], &rows[1], &rows[2], &rows[3]]);
            for (i, row) in rows.iter().enumerate() {
                let mut one = vec![0.0; k];
                cumulative_products(&mut one, &a, row);
                let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&four[i * k..(i + 1) * k]), bits(&one), "k = {k}, row {i}");
            }
        }
    }
}
