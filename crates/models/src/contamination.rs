//! The contaminated likelihood's cells in one Gibbs update: each modelled cell's log-ratio
//! `ρ_n(r) = ln NB(y_n; r, μ_n) − ln Pois(y_n; μ_n)` and the mixture
//! `Σ_n ln((1 − π) + π e^{ρ_n})` that the updates of `π` and `r` target
//! (`crate::overdispersion`, "The contaminated form").
//!
//! The cells are gathered once per update, zero counts first (their `ρ_n` needs no `ln Γ`), so
//! that an evaluation at a new `r` costs one `ln` and one `exp` per cell, and one at a new `π` (the
//! ratios kept) a multiplication: the sum of logarithms is taken as the logarithm of a product
//! ([`LnProduct`]).

use distributions::ln_gamma_ratio;
use rayon::prelude::*;

/// Cells per chunk of a sum; chunks are summed in order, so a sum is the same at any thread count.
const CHUNK: usize = 4096;

/// Above this `ρ_n`, `e^{ρ_n}` is not kept (it could overflow a product); the term is then
/// `ln(e^{ln(1−π)} + e^{ln π + ρ_n})`. Below it a factor `1 − π + π e^{ρ_n}` is below `1.1e13`.
const LARGE_RATIO: f64 = 30.0;

/// Counts below this take `ln Γ(r + β y) − ln Γ(r)` from a table made once per `r`.
const TABLE: usize = 256;

/// The modelled cells of one update: counts and rates at the inverse temperature `β`.
pub(crate) struct MixtureCells {
    /// Cell indices (row-major `n`), zero counts first.
    index: Vec<usize>,
    /// `y_n`, in the order of `index`.
    counts: Vec<u32>,
    /// `β μ_n`, in the order of `index`.
    rates: Vec<f64>,
    beta: f64,
}

/// `ρ_n` and `e^{ρ_n}` (`+∞` above [`LARGE_RATIO`]) of every gathered cell at one `r`.
pub(crate) struct Ratios {
    pub(crate) r: f64,
    ln_ratio: Vec<f64>,
    ratio: Vec<f64>,
}

impl MixtureCells {
    /// Gathers the cells for which `modelled(n)` holds, with counts `y` and rates `μ`.
    pub(crate) fn new(y: &[u32], mean_rates: &[f64], beta: f64, modelled: impl Fn(usize) -> bool) -> Self {
        let zeros = (0..y.len()).filter(|&n| y[n] == 0 && modelled(n));
        let index: Vec<usize> = zeros.chain((0..y.len()).filter(|&n| y[n] > 0 && modelled(n))).collect();
        let counts = index.iter().map(|&n| y[n]).collect();
        let rates = index.iter().map(|&n| beta * mean_rates[n]).collect();
        Self { index, counts, rates, beta }
    }

    /// Empty ratios to be filled by [`Self::ln_mixture_at`].
    pub(crate) fn scratch(&self) -> Ratios {
        Ratios { r: f64::NAN, ln_ratio: vec![0.0; self.index.len()], ratio: vec![0.0; self.index.len()] }
    }

    /// `Σ_n ln((1 − π) + π e^{ρ_n(r)})`, filling `out` with `ρ_n(r)` and `e^{ρ_n(r)}`, where
    /// `ρ_n(r) = ln Γ(r + β y_n) − ln Γ(r) + r ln r − (r + β y_n) ln(r + β μ_n) + β μ_n`
    /// (`ln NB(β y; r, β μ) − ln Pois(β y; β μ)`, the common `(βμ)^{βy}/Γ(βy + 1)` cancelled;
    /// the first two terms vanish at `y_n = 0`).
    pub(crate) fn ln_mixture_at(&self, r: f64, pi: f64, out: &mut Ratios) -> f64 {
        let beta = self.beta;
        let table: Vec<f64> = (0..TABLE).map(|y| ln_gamma_ratio(beta * y as f64, r)).collect();
        let r_ln_r = r * r.ln();
        let (ln_pi, ln_rest) = (pi.ln(), (-pi).ln_1p());
        out.r = r;
        let parts: Vec<f64> = out
            .ln_ratio
            .par_chunks_mut(CHUNK)
            .zip(out.ratio.par_chunks_mut(CHUNK))
            .zip(self.counts.par_chunks(CHUNK).zip(self.rates.par_chunks(CHUNK)))
            .map(|((ln_ratio, ratio), (counts, rates))| {
                let mut product = LnProduct::new();
                for (((x, w), &y), &bmu) in ln_ratio.iter_mut().zip(ratio.iter_mut()).zip(counts).zip(rates) {
                    *x = if y == 0 {
                        r_ln_r - r * (r + bmu).ln() + bmu
                    } else {
                        let by = beta * f64::from(y);
                        let gamma = table.get(y as usize).copied().unwrap_or_else(|| ln_gamma_ratio(by, r));
                        gamma + r_ln_r - (r + by) * (r + bmu).ln() + bmu
                    };
                    if *x <= LARGE_RATIO {
                        *w = x.exp();
                        product.times(1.0 - pi + pi * *w);
                    } else {
                        *w = f64::INFINITY;
                        product.plus_ln(large_term(*x, ln_pi, ln_rest));
                    }
                }
                product.ln()
            })
            .collect();
        parts.iter().sum()
    }

    /// `Σ_n ln((1 − π) + π e^{ρ_n})` at the ratios already in `ratios`.
    pub(crate) fn ln_mixture(&self, ratios: &Ratios, pi: f64) -> f64 {
        let (rest, ln_pi, ln_rest) = (1.0 - pi, pi.ln(), (-pi).ln_1p());
        let parts: Vec<f64> = ratios
            .ratio
            .par_chunks(CHUNK)
            .zip(ratios.ln_ratio.par_chunks(CHUNK))
            .map(|(ratio, ln_ratio)| {
                let mut product = LnProduct::new();
                for (&w, &x) in ratio.iter().zip(ln_ratio) {
                    if w.is_finite() {
                        product.times(rest + pi * w);
                    } else {
                        product.plus_ln(large_term(x, ln_pi, ln_rest));
                    }
                }
                product.ln()
            })
            .collect();
        parts.iter().sum()
    }

    /// `P(z_n = 1 | r, π, y_n, μ_n) = π e^{ρ_n} / ((1 − π) + π e^{ρ_n})` of every cell, written
    /// into `out` at its index `n` (other entries untouched).
    pub(crate) fn chances_into(&self, ratios: &Ratios, pi: f64, out: &mut [f64]) {
        for ((&n, &w), &x) in self.index.iter().zip(&ratios.ratio).zip(&ratios.ln_ratio) {
            out[n] = if w.is_finite() {
                pi * w / ((1.0 - pi) + pi * w)
            } else {
                1.0 / (1.0 + ((-pi).ln_1p() - pi.ln() - x).exp())
            };
        }
    }
}

/// `ln Π_i t_i` of positive factors, as a running product whose logarithm is moved into a sum
/// whenever it leaves `[1e-200, 1e200]` (factors here are below `1.1e13` and, unless `π` rounds to
/// 1, above `1e-17`, so it never overflows or loses digits to subnormals). One multiplication per
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

    /// The gathered sum equals `Σ_n ln((1 − π) Pois(y_n; μ_n) + π NB(y_n; r, μ_n)) − ln Pois(y_n; μ_n)`
    /// written from the pmfs, cell by cell, at zero, small, tabulated and untabulated counts and at
    /// a ratio too large for `exp`; excluded cells do not enter; the ratios kept give the same sum
    /// at another `π`; the chances are the posterior odds.
    #[test]
    fn the_mixture_is_the_pmfs_mixture() {
        let y = [0u32, 3, 0, 1000, 7, 2000];
        let mu = [0.4, 2.5, 1e-3, 1.0, 30.0, 1e-3];
        let cells = MixtureCells::new(&y, &mu, 1.0, |n| n != 2);
        let direct = |r: f64, pi: f64, n: usize| {
            let (y, mu) = (f64::from(y[n]), mu[n]);
            let ln_nb =
                ln_gamma(r + y) - ln_gamma(r) - ln_gamma(y + 1.0) + r * (r / (r + mu)).ln() + y * (mu / (r + mu)).ln();
            let ln_pois = y * mu.ln() - mu - ln_gamma(y + 1.0);
            let m = ln_nb.max(ln_pois);
            m + ((1.0 - pi) * (ln_pois - m).exp() + pi * (ln_nb - m).exp()).ln() - ln_pois
        };
        let mut ratios = cells.scratch();
        for (r, pi) in [(0.3, 0.2), (5.0, 0.9), (0.05, 0.5)] {
            let got = cells.ln_mixture_at(r, pi, &mut ratios);
            let want: f64 = [0, 1, 3, 4, 5].iter().map(|&n| direct(r, pi, n)).sum();
            assert!((got - want).abs() < 1e-8 * want.abs().max(1.0), "r {r} π {pi}: {got} vs {want}");
            let other: f64 = [0, 1, 3, 4, 5].iter().map(|&n| direct(r, 0.7, n)).sum();
            let kept = cells.ln_mixture(&ratios, 0.7);
            assert!((kept - other).abs() < 1e-8 * other.abs().max(1.0), "{kept} vs {other}");
            let mut chances = [f64::NAN; 6];
            cells.chances_into(&ratios, pi, &mut chances);
            assert!(chances[2].is_nan());
            for n in [0, 1, 3, 4, 5] {
                let want = 1.0 / (1.0 + (-(direct(r, 1.0, n) + pi.ln() - (-pi).ln_1p())).exp());
                assert!((chances[n] - want).abs() < 1e-9, "cell {n}: {} vs {want}", chances[n]);
            }
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
