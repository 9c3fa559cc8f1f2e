//! The contaminated likelihood's cells in one Gibbs update: each modelled cell's log-ratio
//! `ρ_n(r) = ln NB(y_n; r, μ_n) − ln Pois(y_n; μ_n)` and the mixture
//! `Σ_n ln((1 − π) + π e^{ρ_n})` that the updates of `π` and `r` target
//! (`crate::overdispersion`, "The contaminated form"), with its first two derivatives in `r`.
//!
//! The cells are read where they lie (row-major, the model's excluded cells skipped row by row),
//! in fixed chunks of rows summed in order, so a sum is the same at any thread count. An
//! evaluation at a new `r` costs one `ln`, one `exp` and two divisions per cell; one at a new `π`
//! (the ratios kept) a multiplication and a division: the sum of logarithms is taken as the
//! logarithm of a product ([`LnProduct`]).

use crate::ModelledCells;
use distributions::{digamma, ln_gamma_ratio, trigamma};
use rayon::prelude::*;

/// Cells per chunk of a sum (whole rows; at least one row).
const CHUNK: usize = 4096;

/// Above this `ρ_n`, `e^{ρ_n}` is not kept (it could overflow a product); the term is then
/// `ln(e^{ln(1−π)} + e^{ln π + ρ_n})`. Below it a factor `1 − π + π e^{ρ_n}` is below `1.1e13`.
const LARGE_RATIO: f64 = 30.0;

/// Counts below this take `ln Γ(r + β y) − ln Γ(r)` and its two derivatives in `r` from tables
/// made once per `r`, with one entry per count up to the largest count of the table's cells.
const TABLE: usize = 256;

/// The modelled cells of one update: counts and rates at the inverse temperature `β`.
pub(crate) struct MixtureCells<'a> {
    /// `y_n`, row-major.
    counts: &'a [u32],
    /// `μ_n` (untempered), row-major.
    rates: &'a [f64],
    beta: f64,
    cols: usize,
    modelled: ModelledCells,
    /// Entries of the per-`r` table: one past the largest count, at most [`TABLE`] (a small
    /// table's update would otherwise spend most of its time on entries no cell reads).
    table_len: usize,
}

/// `ρ_n` and `e^{ρ_n}` (`+∞` above [`LARGE_RATIO`]) of every cell at one `r`, row-major; the
/// entries of excluded cells are never read.
pub(crate) struct Ratios {
    pub(crate) r: f64,
    ln_ratio: Vec<f64>,
    ratio: Vec<f64>,
}

/// Ratios kept from one update for the next ([`MixtureCells::reuse`]), so that an update does not
/// ask the system for two cell-long vectors per set of ratios each time: on a 10⁶-cell table the
/// fresh pages (faulted in and zeroed) cost about a sixth of a sweep. Scratch memory only: a clone
/// starts empty, and nothing is read from it before it is written.
#[derive(Default)]
pub(crate) struct SpareRatios(Vec<Ratios>);

impl SpareRatios {
    /// Keeps `ratios`' memory for the next update.
    pub(crate) fn keep(&mut self, ratios: Ratios) {
        self.0.push(ratios);
    }
}

impl Clone for SpareRatios {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for SpareRatios {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SpareRatios({} kept)", self.0.len())
    }
}

/// `Σ_n ln((1 − π) + π e^{ρ_n(r)})` at one `(r, π)` and its first two derivatives in `r` or in `π`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtShape {
    pub(crate) ln: f64,
    pub(crate) d1: f64,
    pub(crate) d2: f64,
}

/// One chunk's part of an [`AtShape`].
struct Part {
    product: LnProduct,
    d1: f64,
    d2: f64,
}

impl<'a> MixtureCells<'a> {
    /// The cells of a `cols`-wide row-major table with counts `y` and rates `μ`, of which
    /// `modelled` says which belong to the model.
    pub(crate) fn new(y: &'a [u32], mean_rates: &'a [f64], beta: f64, cols: usize, modelled: ModelledCells) -> Self {
        let largest = y.iter().copied().max().map_or(0, |c| usize::try_from(c).unwrap_or(usize::MAX));
        let table_len = largest.saturating_add(1).min(TABLE);
        Self { counts: y, rates: mean_rates, beta, cols: cols.max(1), modelled, table_len }
    }

    /// Ratios to be filled by [`Self::ln_mixture_at`] (zeroed memory, which the system hands out
    /// without writing it).
    pub(crate) fn scratch(&self) -> Ratios {
        Ratios { r: f64::NAN, ln_ratio: vec![0.0; self.counts.len()], ratio: vec![0.0; self.counts.len()] }
    }

    /// Ratios to be filled by [`Self::ln_mixture_at`], in `spare`'s memory if it has some (a
    /// fresh [`Self::scratch`] otherwise); their values are stale until then.
    pub(crate) fn reuse(&self, spare: &mut SpareRatios) -> Ratios {
        match spare.0.pop() {
            Some(mut ratios) => {
                ratios.r = f64::NAN;
                ratios.ln_ratio.resize(self.counts.len(), 0.0);
                ratios.ratio.resize(self.counts.len(), 0.0);
                ratios
            }
            None => self.scratch(),
        }
    }

    /// Cells per chunk: whole rows, about [`CHUNK`].
    fn per_chunk(&self) -> usize {
        (CHUNK / self.cols).max(1) * self.cols
    }

    /// The modelled cells of chunk `chunk` (`len` cells, whole rows), as ranges of positions in it.
    fn chunk_runs(&self, chunk: usize, len: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let first_row = chunk * self.per_chunk() / self.cols;
        (0..len / self.cols).flat_map(move |row| {
            let start = row * self.cols;
            self.modelled
                .row_runs(first_row + row, self.cols)
                .into_iter()
                .map(move |run| start + run.start..start + run.end)
        })
    }

    /// `Σ_n ln((1 − π) + π e^{ρ_n(r)})` and its first two derivatives in `r`, filling `out` with
    /// `ρ_n(r)` and `e^{ρ_n(r)}`, where
    /// `ρ_n(r) = ln Γ(r + β y_n) − ln Γ(r) + r ln r − (r + β y_n) ln(r + β μ_n) + β μ_n`
    /// (`ln NB(β y; r, β μ) − ln Pois(β y; β μ)`, the common `(βμ)^{βy}/Γ(βy + 1)` cancelled;
    /// the first two terms vanish at `y_n = 0`). With `p_n = π e^{ρ_n}/((1 − π) + π e^{ρ_n})`
    /// (the chance that the cell is overdispersed), the derivatives are `Σ_n p_n ρ'_n` and
    /// `Σ_n [p_n ρ''_n + p_n (1 − p_n) ρ'_n²]`, where
    /// `ρ'_n = ψ(r + βy) − ψ(r) + ln r + 1 − ln(r + βμ) − (r + βy)/(r + βμ)` and
    /// `ρ''_n = ψ'(r + βy) − ψ'(r) + 1/r − 2/(r + βμ) + (r + βy)/(r + βμ)²`.
    pub(crate) fn ln_mixture_at(&self, r: f64, pi: f64, out: &mut Ratios) -> AtShape {
        let beta = self.beta;
        let (digamma_r, trigamma_r) = (digamma(r), trigamma(r));
        let terms = |by: f64| (ln_gamma_ratio(by, r), digamma(r + by) - digamma_r, trigamma(r + by) - trigamma_r);
        let table: Vec<(f64, f64, f64)> = (0..self.table_len).map(|y| terms(beta * y as f64)).collect();
        let (r_ln_r, ln_r_1, inv_r) = (r * r.ln(), r.ln() + 1.0, 1.0 / r);
        let (rest, ln_pi, ln_rest) = (1.0 - pi, pi.ln(), (-pi).ln_1p());
        // `[ρ_n, ρ'_n, ρ''_n]` of a cell.
        let ratio_and_slopes = |y: u32, mu: f64| {
            let (by, bmu) = (beta * f64::from(y), beta * mu);
            let (gamma, psi, psi1) = table.get(y as usize).copied().unwrap_or_else(|| terms(by));
            let ln_r_mu = (r + bmu).ln();
            let inv = 1.0 / (r + bmu);
            let x = gamma + r_ln_r - (r + by) * ln_r_mu + bmu;
            [x, psi + ln_r_1 - ln_r_mu - (r + by) * inv, psi1 + inv_r - 2.0 * inv + (r + by) * inv * inv]
        };
        // One cell's factor into the product, `e^{ρ_n}` into `w`; returns `p_n`.
        let one_cell = |x: f64, w: &mut f64, product: &mut LnProduct| {
            if x <= LARGE_RATIO {
                *w = x.exp();
                let factor = rest + pi * *w;
                product.times(factor);
                pi * *w / factor
            } else {
                *w = f64::INFINITY;
                product.plus_ln(large_term(x, ln_pi, ln_rest));
                1.0 / (1.0 + (ln_rest - ln_pi - x).exp())
            }
        };
        out.r = r;
        let per_chunk = self.per_chunk();
        let parts: Vec<Part> = out
            .ln_ratio
            .par_chunks_mut(per_chunk)
            .zip(out.ratio.par_chunks_mut(per_chunk))
            .zip(self.counts.par_chunks(per_chunk).zip(self.rates.par_chunks(per_chunk)))
            .enumerate()
            .map(|(chunk, ((ln_ratio, ratio), (counts, rates)))| {
                let (mut product, mut lanes) = (LnProduct::new(), Lanes::default());
                for cells in self.chunk_runs(chunk, counts.len()) {
                    let (xs, ws) = (&mut ln_ratio[cells.clone()], &mut ratio[cells.clone()]);
                    let (ys, mus) = (&counts[cells.clone()], &rates[cells]);
                    let whole = xs.len() - xs.len() % LANES;
                    for b in (0..whole).step_by(LANES) {
                        let cell: [[f64; 3]; LANES] = std::array::from_fn(|i| ratio_and_slopes(ys[b + i], mus[b + i]));
                        let (x, w) = (&mut xs[b..b + LANES], &mut ws[b..b + LANES]);
                        for i in 0..LANES {
                            x[i] = cell[i][0];
                        }
                        if x.iter().all(|&x| x <= LARGE_RATIO) {
                            let mut factor = [0.0; LANES];
                            for i in 0..LANES {
                                w[i] = x[i].exp();
                                factor[i] = rest + pi * w[i];
                            }
                            product.times((factor[0] * factor[1]) * (factor[2] * factor[3]));
                            for i in 0..LANES {
                                lanes.add_chance(i, pi * w[i] / factor[i], cell[i][1], cell[i][2]);
                            }
                        } else {
                            for i in 0..LANES {
                                let chance = one_cell(x[i], &mut w[i], &mut product);
                                lanes.add_chance(i, chance, cell[i][1], cell[i][2]);
                            }
                        }
                    }
                    for n in whole..xs.len() {
                        let [x, rho1, rho2] = ratio_and_slopes(ys[n], mus[n]);
                        xs[n] = x;
                        lanes.add_chance(0, one_cell(x, &mut ws[n], &mut product), rho1, rho2);
                    }
                }
                lanes.part(product)
            })
            .collect();
        sum_parts(&parts)
    }

    /// `Σ_n ln((1 − π) + π e^{ρ_n})` at the ratios already in `ratios`, and its first two
    /// derivatives in `π`: `Σ_n a_n` and `−Σ_n a_n²`, `a_n = (e^{ρ_n} − 1)/((1 − π) + π e^{ρ_n})`
    /// (`1/π` where `e^{ρ_n}` is not kept).
    pub(crate) fn ln_mixture(&self, ratios: &Ratios, pi: f64) -> AtShape {
        let (rest, ln_pi, ln_rest) = (1.0 - pi, pi.ln(), (-pi).ln_1p());
        let one_cell = |w: f64, x: f64, product: &mut LnProduct| {
            if w.is_finite() {
                let factor = rest + pi * w;
                product.times(factor);
                (w - 1.0) / factor
            } else {
                product.plus_ln(large_term(x, ln_pi, ln_rest));
                1.0 / pi
            }
        };
        let per_chunk = self.per_chunk();
        let parts: Vec<Part> = ratios
            .ratio
            .par_chunks(per_chunk)
            .zip(ratios.ln_ratio.par_chunks(per_chunk))
            .enumerate()
            .map(|(chunk, (ratio, ln_ratio))| {
                let (mut product, mut lanes) = (LnProduct::new(), Lanes::default());
                for cells in self.chunk_runs(chunk, ratio.len()) {
                    let (ws, xs) = (&ratio[cells.clone()], &ln_ratio[cells]);
                    let whole = ws.len() - ws.len() % LANES;
                    for (w, x) in ws[..whole].chunks_exact(LANES).zip(xs[..whole].chunks_exact(LANES)) {
                        if w.iter().all(|w| w.is_finite()) {
                            let factor: [f64; LANES] = std::array::from_fn(|i| rest + pi * w[i]);
                            product.times((factor[0] * factor[1]) * (factor[2] * factor[3]));
                            for i in 0..LANES {
                                lanes.add_slope(i, (w[i] - 1.0) / factor[i]);
                            }
                        } else {
                            for i in 0..LANES {
                                lanes.add_slope(i, one_cell(w[i], x[i], &mut product));
                            }
                        }
                    }
                    for n in whole..ws.len() {
                        lanes.add_slope(0, one_cell(ws[n], xs[n], &mut product));
                    }
                }
                lanes.part(product)
            })
            .collect();
        sum_parts(&parts)
    }

    /// `P(z_n = 1 | r, π, y_n, μ_n) = π e^{ρ_n} / ((1 − π) + π e^{ρ_n})` of cell `n`.
    pub(crate) fn chance(ratios: &Ratios, pi: f64, n: usize) -> f64 {
        let w = ratios.ratio[n];
        if w.is_finite() {
            pi * w / ((1.0 - pi) + pi * w)
        } else {
            1.0 / (1.0 + ((-pi).ln_1p() - pi.ln() - ratios.ln_ratio[n]).exp())
        }
    }
}

/// Cells taken together in the sums of a chunk: their factors are multiplied together before
/// they enter the running product, and each adds to its own running sums of the derivatives, so
/// that the sums are four chains of additions instead of one (each addition waits for the last).
const LANES: usize = 4;
// The blocks' products and the lanes' sums below are written out for four.
const _: () = assert!(LANES == 4);

/// The running sums of a chunk's first and second derivatives, one per lane (a cell's position in
/// its block of [`LANES`]; the cells after a run's last whole block go to lane 0).
#[derive(Default)]
struct Lanes {
    d1: [f64; LANES],
    d2: [f64; LANES],
}

impl Lanes {
    /// A cell's terms of the derivatives in `r`: `p ρ'` and `p ρ'' + p (1 − p) ρ'²`.
    fn add_chance(&mut self, lane: usize, chance: f64, rho1: f64, rho2: f64) {
        self.d1[lane] += chance * rho1;
        self.d2[lane] += chance * rho2 + chance * (1.0 - chance) * rho1 * rho1;
    }

    /// A cell's terms of the derivatives in `π`: `a` and `−a²`.
    fn add_slope(&mut self, lane: usize, a: f64) {
        self.d1[lane] += a;
        self.d2[lane] -= a * a;
    }

    /// The chunk's part: the lanes' sums added in order.
    fn part(&self, product: LnProduct) -> Part {
        let sum = |lanes: &[f64; LANES]| (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
        Part { product, d1: sum(&self.d1), d2: sum(&self.d2) }
    }
}

/// The chunks' parts summed in order.
fn sum_parts(parts: &[Part]) -> AtShape {
    let mut at = AtShape { ln: 0.0, d1: 0.0, d2: 0.0 };
    for part in parts {
        at.ln += part.product.ln();
        at.d1 += part.d1;
        at.d2 += part.d2;
    }
    at
}

/// `ln Π_i t_i` of positive factors, as a running product whose logarithm is moved into a sum
/// whenever it leaves `[1e-200, 1e200]` (a cell's factor is below `1.1e13` and, unless `π` rounds
/// to 1, above `1e-17`; a block of [`LANES`] cells' factors enters as one, below `1.5e52` and above
/// `1e-68`, so the product never overflows or loses digits to subnormals). One multiplication per
/// factor instead of one `ln`; each multiplication rounds by at most `2⁻⁵³` relative, so over `m`
/// factors the logarithm is off by at most about `m · 1.1e-16` (`1e-11` at 10⁵ cells).
struct LnProduct {
    ln: f64,
    product: f64,
}

impl LnProduct {
    fn new() -> Self {
        Self { ln: 0.0, product: 1.0 }
    }

    fn times(&mut self, t: f64) {
        self.product *= t;
        if !(1e-200..=1e200).contains(&self.product) {
            self.ln += self.product.ln();
            self.product = 1.0;
        }
    }

    fn plus_ln(&mut self, ln_t: f64) {
        self.ln += ln_t;
    }

    fn ln(&self) -> f64 {
        self.ln + self.product.ln()
    }
}

/// `ln(e^{ln(1−π)} + e^{ln π + ρ})` for `ρ > LARGE_RATIO`.
fn large_term(x: f64, ln_pi: f64, ln_rest: f64) -> f64 {
    let (max, min) = if ln_pi + x >= ln_rest { (ln_pi + x, ln_rest) } else { (ln_rest, ln_pi + x) };
    max + (min - max).exp().ln_1p()
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::ln_gamma;

    /// The sum equals `Σ_n ln((1 − π) Pois(y_n; μ_n) + π NB(y_n; r, μ_n)) − ln Pois(y_n; μ_n)`
    /// written from the pmfs, cell by cell, at zero, small, tabulated and untabulated counts and at
    /// a ratio too large for `exp`; the excluded cells (here the diagonal of a 3 × 3 table, and
    /// the lower triangle with the diagonal for pairs) do not enter; the ratios kept give the same
    /// sum at another `π`; the chances are the posterior odds.
    #[test]
    fn the_mixture_is_the_pmfs_mixture() {
        let y = [5u32, 0, 3, 0, 9, 1000, 7, 2000, 4];
        let mu = [9.0, 0.4, 2.5, 1e-3, 0.3, 1.0, 30.0, 1e-3, 2.0];
        let direct = |r: f64, pi: f64, n: usize| {
            let (y, mu) = (f64::from(y[n]), mu[n]);
            let ln_nb =
                ln_gamma(r + y) - ln_gamma(r) - ln_gamma(y + 1.0) + r * (r / (r + mu)).ln() + y * (mu / (r + mu)).ln();
            let ln_pois = y * mu.ln() - mu - ln_gamma(y + 1.0);
            let m = ln_nb.max(ln_pois);
            m + ((1.0 - pi) * (ln_pois - m).exp() + pi * (ln_nb - m).exp()).ln() - ln_pois
        };
        for (modelled, cells_in) in [
            (ModelledCells::All, vec![0, 1, 2, 3, 4, 5, 6, 7, 8]),
            (ModelledCells::OffDiagonal, vec![1, 2, 3, 5, 6, 7]),
            (ModelledCells::Pairs, vec![1, 2, 5]),
        ] {
            let cells = MixtureCells::new(&y, &mu, 1.0, 3, modelled);
            let mut ratios = cells.scratch();
            for (r, pi) in [(0.3, 0.2), (5.0, 0.9), (0.05, 0.5)] {
                let got = cells.ln_mixture_at(r, pi, &mut ratios).ln;
                let want: f64 = cells_in.iter().map(|&n| direct(r, pi, n)).sum();
                assert!((got - want).abs() < 1e-8 * want.abs().max(1.0), "{modelled:?} r {r} π {pi}: {got} vs {want}");
                let other: f64 = cells_in.iter().map(|&n| direct(r, 0.7, n)).sum();
                let kept = cells.ln_mixture(&ratios, 0.7).ln;
                assert!((kept - other).abs() < 1e-8 * other.abs().max(1.0), "{kept} vs {other}");
                for &n in &cells_in {
                    let want = 1.0 / (1.0 + (-(direct(r, 1.0, n) + pi.ln() - (-pi).ln_1p())).exp());
                    let chance = MixtureCells::chance(&ratios, pi, n);
                    assert!((chance - want).abs() < 1e-9, "cell {n}: {chance} vs {want}");
                }
            }
        }
    }

    /// Over rows long enough for blocks of [`LANES`] cells (13 columns: three whole blocks and a
    /// remainder, or fewer where cells are excluded), with ratios too large for `exp` inside blocks
    /// and counts past the tables, the sums and both derivatives (in `r` and in `π`) equal the
    /// same sums taken cell by cell from the formulas in the docs, in one order, to `1e-11`
    /// relative, with and without a temperature.
    #[test]
    fn blocks_of_cells_sum_as_single_cells() {
        let (rows, cols) = (13usize, 13usize);
        let y: Vec<u32> =
            (0..rows * cols).map(|n| if n % 17 == 5 { 300 + n as u32 } else { (n * 7 % 11) as u32 }).collect();
        let mu: Vec<f64> =
            (0..rows * cols).map(|n| if n % 17 == 5 { 1e-3 } else { 0.05 + (n % 13) as f64 * 0.7 }).collect();
        for (beta, modelled) in
            [(1.0, ModelledCells::All), (1.0, ModelledCells::OffDiagonal), (0.37, ModelledCells::Pairs)]
        {
            let cells = MixtureCells::new(&y, &mu, beta, cols, modelled);
            let modelled_cells: Vec<usize> = (0..rows * cols).filter(|&n| !modelled.excludes(n, cols)).collect();
            let mut ratios = cells.scratch();
            for (r, pi) in [(0.3, 0.2), (5.0, 0.9), (0.05, 0.01)] {
                let at = cells.ln_mixture_at(r, pi, &mut ratios);
                assert!(ratios.ratio.iter().any(|w| w.is_infinite()), "a ratio too large for exp");
                let (mut ln, mut d1, mut d2) = (0.0, 0.0, 0.0);
                for &n in &modelled_cells {
                    let (by, bmu) = (beta * f64::from(y[n]), beta * mu[n]);
                    let rho = ln_gamma(r + by) - ln_gamma(r) + r * r.ln() - (r + by) * (r + bmu).ln() + bmu;
                    let rho1 = digamma(r + by) - digamma(r) + r.ln() + 1.0 - (r + bmu).ln() - (r + by) / (r + bmu);
                    let rho2 =
                        trigamma(r + by) - trigamma(r) + 1.0 / r - 2.0 / (r + bmu) + (r + by) / (r + bmu).powi(2);
                    let (a, b) = ((1.0 - pi).ln(), pi.ln() + rho);
                    ln += a.max(b) + (-(a - b).abs()).exp().ln_1p();
                    let p = 1.0 / (1.0 + (a - b).exp());
                    d1 += p * rho1;
                    d2 += p * rho2 + p * (1.0 - p) * rho1 * rho1;
                }
                let close = |got: f64, want: f64| (got - want).abs() <= 1e-11 * want.abs().max(1.0);
                assert!(close(at.ln, ln), "{modelled:?} β {beta} r {r} π {pi}: {} vs {ln}", at.ln);
                assert!(close(at.d1, d1), "{modelled:?} β {beta} r {r} π {pi}: {} vs {d1}", at.d1);
                assert!(close(at.d2, d2), "{modelled:?} β {beta} r {r} π {pi}: {} vs {d2}", at.d2);
                let other = 0.6f64;
                let (mut ln, mut d1, mut d2) = (0.0, 0.0, 0.0);
                for &n in &modelled_cells {
                    let (w, x) = (ratios.ratio[n], ratios.ln_ratio[n]);
                    let (a, b) = ((1.0 - other).ln(), other.ln() + x);
                    ln += a.max(b) + (-(a - b).abs()).exp().ln_1p();
                    let slope = if w.is_finite() { (w - 1.0) / ((1.0 - other) + other * w) } else { 1.0 / other };
                    d1 += slope;
                    d2 -= slope * slope;
                }
                let kept = cells.ln_mixture(&ratios, other);
                assert!(close(kept.ln, ln), "{modelled:?} β {beta} r {r}: {} vs {ln}", kept.ln);
                assert!(close(kept.d1, d1), "{modelled:?} β {beta} r {r}: {} vs {d1}", kept.d1);
                assert!(close(kept.d2, d2), "{modelled:?} β {beta} r {r}: {} vs {d2}", kept.d2);
            }
        }
    }

    /// The two derivatives in `r` equal central differences of the sum itself (step `1e-5 r`;
    /// relative agreement 1e-5), with and without a temperature, where the chances are near 0, 1
    /// and in between, and through a count too large for the tables and a ratio too large for `exp`.
    #[test]
    fn the_derivatives_are_those_of_the_sum() {
        let y = [5u32, 0, 3, 0, 9, 400, 7, 60, 4, 1, 0, 12];
        let mu = [9.0, 0.4, 2.5, 1e-3, 0.3, 1.0, 30.0, 1e-3, 2.0, 1.0, 3.0, 0.2];
        for (beta, modelled) in [(1.0, ModelledCells::All), (0.37, ModelledCells::OffDiagonal)] {
            let cells = MixtureCells::new(&y, &mu, beta, 4, modelled);
            let mut scratch = cells.scratch();
            for (r, pi) in [(0.3, 0.2), (5.0, 0.9), (0.05, 0.01), (200.0, 0.5)] {
                let at = cells.ln_mixture_at(r, pi, &mut scratch);
                let h = 1e-5 * r;
                let up = cells.ln_mixture_at(r + h, pi, &mut scratch);
                let down = cells.ln_mixture_at(r - h, pi, &mut scratch);
                let (d1, d2) = ((up.ln - down.ln) / (2.0 * h), (up.d1 - down.d1) / (2.0 * h));
                assert!((at.d1 - d1).abs() <= 1e-5 * d1.abs().max(1e-3), "β {beta} r {r} π {pi}: {} vs {d1}", at.d1);
                assert!((at.d2 - d2).abs() <= 1e-5 * d2.abs().max(1e-3), "β {beta} r {r} π {pi}: {} vs {d2}", at.d2);
            }
        }
    }

    /// The two derivatives in `π` equal central differences of the sum (step `1e-6`; relative
    /// agreement 1e-5), through a ratio too large for `exp` (counted with its limit `1/π`, off by
    /// `e^{−ρ}` < `1e-13` there).
    #[test]
    fn the_derivatives_in_the_share_are_those_of_the_sum() {
        let y = [5u32, 0, 3, 0, 9, 400, 7, 60, 4];
        let mu = [9.0, 0.4, 2.5, 1e-3, 0.3, 1.0, 30.0, 1e-3, 2.0];
        let cells = MixtureCells::new(&y, &mu, 1.0, 3, ModelledCells::OffDiagonal);
        let mut ratios = cells.scratch();
        cells.ln_mixture_at(0.05, 0.5, &mut ratios);
        assert!(ratios.ratio.iter().any(|w| w.is_infinite()), "a ratio too large for exp");
        for pi in [0.01, 0.3, 0.9] {
            let (at, h) = (cells.ln_mixture(&ratios, pi), 1e-6);
            let (up, down) = (cells.ln_mixture(&ratios, pi + h), cells.ln_mixture(&ratios, pi - h));
            let (d1, d2) = ((up.ln - down.ln) / (2.0 * h), (up.d1 - down.d1) / (2.0 * h));
            assert!((at.d1 - d1).abs() <= 1e-5 * d1.abs().max(1.0), "π {pi}: {} vs {d1}", at.d1);
            assert!((at.d2 - d2).abs() <= 1e-5 * d2.abs().max(1.0), "π {pi}: {} vs {d2}", at.d2);
        }
    }

    /// The running product's logarithm equals the sum of logarithms over 10⁵ factors from `1e-12`
    /// to `1e13` (so that it moves into the sum in both directions), to the stated `m · 1.1e-16`.
    #[test]
    fn a_long_product_keeps_its_logarithm() {
        let factors: Vec<f64> = (0..100_000u32).map(|i| 10f64.powf(-12.0 + 25.0 * f64::from(i % 97) / 96.0)).collect();
        let mut product = LnProduct::new();
        factors.iter().for_each(|&t| product.times(t));
        let want: f64 = factors.iter().map(|t| t.ln()).sum();
        // The reference sum rounds too: by at most 10⁵ · 30 · 1.1e-16 (|ln t| ≤ 30).
        assert!((product.ln() - want).abs() < 1e5 * 1.1e-16 * 31.0, "{} vs {want}", product.ln());
    }
}
