//! The likelihood of a cell under the negative-binomial count model with the multipliers
//! integrated out: the marginal that PSIS-LOO, stacking, held-out scores and the convergence
//! diagnostics of a negative-binomial fit read (a cell's own multiplier `δ_n` has seen the cell,
//! so a likelihood conditioned on it leaves nothing for leave-one-out to leave out).
//!
//! A count is `y ~ NB(r, μ)`, mean `μ`, variance `μ + μ²/r` (shape `r`, success probability
//! `p = μ/(r + μ)`):
//!
//! `NB(y; r, μ) = Γ(y + r) / (Γ(r) y!) · (1 − p)^r p^y`,
//!
//! the gamma–Poisson mixture `Pois(μδ)`, `δ ~ Gamma(r, r)` (Zhou & Carin 2015, §2). A released
//! value is `ỹ = y + τ`, `τ ~ 2Geo(α)` (eq. 5 of Schein et al. 2019), so
//!
//! `p(ỹ | μ, r, α) = Σ_{y ≥ 0} NB(y; r, μ) · (1−α)/(1+α) · α^{|ỹ − y|}`.
//!
//! The sum is computed like the Poisson one ([`crate::ln_released_likelihood`]): split at
//! `y = ỹ`, each half is a tilted negative binomial `Σ_y NB(y) e^{s y}` over a range, in closed
//! form (the generating function `((1 − p)/(1 − p e^s))^r`) when what lies outside the range is
//! provably below `e^{−40}` of it, else summed term by term until a bound on what remains is
//! below `e^{−40}` of the total. The terms are log-concave in `y` when `r ≥ 1` (the ratio of
//! neighbours falls) and log-convex when `r < 1` (it rises toward `p e^s`), and the bounds
//! follow: a geometric series at the current ratio, or at its limit, or the count of remaining
//! terms times the current one where the terms fall monotonically toward a minimum. The work is
//! bounded by the parameters `(μ, r, α)` — `O(1/|ln(p/α)|)` terms at worst, when `p` is close to
//! `α` — never by the released value (tested by counting terms).

use crate::heldout::{TAIL, TAIL_RATIO};
use distributions::CellDispersion;

/// `ln NB(y; r, μ)` for a count `y ≥ 0`, mean `μ ≥ 0` and shape `r > 0` (`μ = 0`: all mass at 0).
pub fn ln_negative_binomial_pmf(y: u64, mean: f64, shape: f64) -> f64 {
    if mean == 0.0 {
        return if y == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    let tilted = Tilted::new(mean, shape, 0.0);
    tilted.term(y as f64)
}

/// `ln p(ỹ | μ, r, α)`, the log-likelihood of one released value under `NB(r, μ) ⊛ 2Geo(α)`, for
/// `μ ≥ 0`, `r > 0` and `α ∈ [0, 1)` (`α = 0`: the negative-binomial pmf itself). Accurate to
/// about `10⁻¹²` relative (tested against a term-by-term sum); the work is bounded by `(μ, r, α)`
/// (module docs).
pub fn ln_released_nb_likelihood(released: i64, mean: f64, shape: f64, alpha: f64) -> f64 {
    ln_released_nb_likelihood_counted(released, mean, shape, alpha).0
}

/// The log-likelihood of a released value (or a count: `α = 0`) given its cell's mean `μ`, under
/// the Poisson model (`dispersion` `None`), the negative binomial with shape `r` (`π = 1`), or
/// the contaminated mixture `(1 − π) Pois(μ) + π NB(r, μ)`, each convolved with `2Geo(α)`:
/// `ln((1 − π) p_Pois(ỹ) + π p_NB(ỹ))`, both terms exact as above.
pub fn ln_cell_likelihood(released: i64, mean: f64, dispersion: Option<CellDispersion>, alpha: f64) -> f64 {
    let poisson = || crate::ln_released_likelihood(released, mean, alpha);
    match dispersion {
        None => poisson(),
        Some(d) if d.share >= 1.0 => ln_released_nb_likelihood(released, mean, d.shape, alpha),
        Some(d) if d.share <= 0.0 => poisson(),
        Some(d) => {
            let a = (-d.share).ln_1p() + poisson();
            let b = d.share.ln() + ln_released_nb_likelihood(released, mean, d.shape, alpha);
            ln_add(a, b)
        }
    }
}

/// `ln(e^a + e^b)`, `−∞` when both are.
fn ln_add(a: f64, b: f64) -> f64 {
    let (max, min) = if a >= b { (a, b) } else { (b, a) };
    if max == f64::NEG_INFINITY { max } else { max + (min - max).exp().ln_1p() }
}

/// [`ln_released_nb_likelihood`] and the number of terms it summed.
pub(crate) fn ln_released_nb_likelihood_counted(released: i64, mean: f64, shape: f64, alpha: f64) -> (f64, u64) {
    if alpha == 0.0 {
        return match u64::try_from(released) {
            Ok(y) => (ln_negative_binomial_pmf(y, mean, shape), 1),
            Err(_) => (f64::NEG_INFINITY, 1),
        };
    }
    let ln_alpha = alpha.ln();
    let ln_norm = (1.0 - alpha).ln() - (1.0 + alpha).ln();
    if mean == 0.0 {
        // Only y = 0 has mass.
        return (ln_norm + released.unsigned_abs() as f64 * ln_alpha, 1);
    }
    if released <= 0 {
        // Every y ≥ 0 ≥ ỹ: Σ_y NB(y) α^{y − ỹ} = α^{−ỹ} ((1 − p)/(1 − pα))^r.
        let all = Tilted::new(mean, shape, ln_alpha).whole();
        return (ln_norm - released as f64 * ln_alpha + all, 1);
    }
    // y ≤ ỹ: ln NB(y) + (ỹ − y) ln α; y > ỹ: ln NB(y) + (y − ỹ) ln α.
    let (low, low_terms) = Tilted::new(mean, shape, -ln_alpha).ln_sum(0, Some(released));
    let (high, high_terms) = match released.checked_add(1) {
        Some(above) => Tilted::new(mean, shape, ln_alpha).ln_sum(above, None),
        None => (f64::NEG_INFINITY, 0),
    };
    let (low, high) = (low + released as f64 * ln_alpha, high - released as f64 * ln_alpha);
    let (max, min) = if low >= high { (low, high) } else { (high, low) };
    let ln = if max == f64::NEG_INFINITY { max } else { ln_norm + max + (min - max).exp().ln_1p() };
    (ln, low_terms + high_terms)
}

/// The terms `NB(y; r, μ) e^{s y}` of a tilted negative binomial.
struct Tilted {
    shape: f64,
    /// `r ln(1 − p)`, the part of every term's log that does not depend on `y`.
    constant: f64,
    /// `ln(1 − p)`.
    ln_q: f64,
    /// `g = ln p + s`: the limit of the log-ratio of neighbours.
    g: f64,
}

impl Tilted {
    fn new(mean: f64, shape: f64, s: f64) -> Self {
        // ln(1 − p) = −ln(1 + μ/r), or ln r − ln(μ + r) where μ/r overflows (r near 0).
        let odds = mean / shape;
        let ln_q = if odds.is_finite() { -odds.ln_1p() } else { shape.ln() - (mean + shape).ln() };
        let ln_p = mean.ln() - (mean + shape).ln();
        Self { shape, constant: shape * ln_q, ln_q, g: ln_p + s }
    }

    /// `ln NB(y) + s y`.
    fn term(&self, y: f64) -> f64 {
        distributions::ln_gamma_ratio(y, self.shape) - distributions::ln_gamma(y + 1.0) + self.constant + y * self.g
    }

    /// `ln` of the ratio of the term at `y + 1` to the term at `y`: `g + ln((y + r)/(y + 1))`.
    fn step(&self, y: i64) -> f64 {
        self.g + ((self.shape - 1.0) / (y as f64 + 1.0)).ln_1p()
    }

    /// `ln Σ_{y ≥ 0}` of the terms, `r (ln(1 − p) − ln(1 − p e^s))`; `+∞` when `p e^s ≥ 1`.
    fn whole(&self) -> f64 {
        if self.g >= 0.0 { f64::INFINITY } else { self.shape * (self.ln_q - (-self.g.exp_m1()).ln()) }
    }

    /// `ln Σ_{y=lo}^{hi}` of the terms (`0 ≤ lo ≤ hi`; `hi` `None`: unbounded) and the number of
    /// terms summed.
    fn ln_sum(&self, lo: i64, hi: Option<i64>) -> (f64, u64) {
        if hi.is_none() && self.g >= 0.0 {
            // The terms do not fall: the sum diverges (not reached from a likelihood, where the
            // upper half is tilted by ln α < 0).
            return (f64::INFINITY, 0);
        }
        let hi = hi.unwrap_or(i64::MAX);
        if lo == 0 && self.g < 0.0 {
            let whole = self.whole();
            // What lies above `hi`, from its first term on: a geometric series at the ratio after
            // it (r ≥ 1: the ratios fall) or at their limit e^g (r < 1: they rise toward it).
            let beyond = match hi.checked_add(1) {
                None => f64::NEG_INFINITY,
                Some(next) => {
                    let ratio = if self.shape >= 1.0 { self.step(next) } else { self.g };
                    if ratio < 0.0 { self.term(next as f64) - (-ratio.exp_m1()).ln() } else { f64::INFINITY }
                }
            };
            if beyond < whole - TAIL {
                return (whole, 1);
            }
        }
        if self.shape >= 1.0 { self.concave_sum(lo, hi) } else { self.convex_sum(lo, hi) }
    }

    /// The ratio of the term at `y + 1` to the term at `y`: `e^g (y + r)/(y + 1)`, with
    /// `limit = e^g` (the limit as `y` grows).
    fn ratio(&self, limit: f64, y: i64) -> f64 {
        limit * (y as f64 + self.shape) / (y as f64 + 1.0)
    }

    /// `r ≥ 1`: the terms are log-concave (the ratio of neighbours falls as `y` grows). Summed
    /// from the largest, at the mode clamped to `[lo, hi]`, outwards; each walk stops when the
    /// rest (at most a geometric series at the current ratio, which only falls further out) is
    /// below `e^{−40}` of the largest. Terms are kept relative to the mode's (whose logarithm can
    /// be of the size of `ỹ`, where a step would be lost in its last digit), as plain numbers in
    /// `(0, 1]`: each step is one product by the ratio.
    fn concave_sum(&self, lo: i64, hi: i64) -> (f64, u64) {
        // The ratio is ≥ 1 while (y + r)/(y + 1) ≥ e^{−g}: up to y* = (r − e^{−g})/(e^{−g} − 1).
        let q = (-self.g).exp();
        let peak = if q <= 1.0 { f64::INFINITY } else { ((self.shape - q) / (q - 1.0)).floor() + 1.0 };
        let mode = peak.max(0.0).clamp(lo as f64, hi as f64) as i64;
        let limit = self.g.exp();
        let mut sum = 1.0;
        let mut terms = 1u64;
        // Each ratio serves the bound on the rest beyond the current term and then the step (the
        // mode's own term is never cut).
        let (mut y, mut term) = (mode, 1.0);
        while y < hi {
            let ratio = self.ratio(limit, y);
            if y > mode && ratio < 1.0 && term * ratio < TAIL_RATIO * (1.0 - ratio) {
                break;
            }
            term *= ratio;
            y += 1;
            sum += term;
            terms += 1;
        }
        // Downwards (here the mode lies above lo, so e^g ≥ 1/r > 0 and no ratio is 0).
        let (mut y, mut term) = (mode, 1.0);
        while y > lo {
            let up = self.ratio(limit, y - 1);
            let ratio = 1.0 / up;
            if y < mode && ratio < 1.0 && term * ratio < TAIL_RATIO * (1.0 - ratio) {
                break;
            }
            term /= up;
            y -= 1;
            sum += term;
            terms += 1;
        }
        (self.term(mode as f64) + sum.ln(), terms)
    }

    /// `r < 1`: the terms are log-convex (the ratio rises toward `e^g`), so they fall from `lo` to
    /// a minimum and rise from it toward `hi`. Summed from `lo` upwards while they fall, then from
    /// `hi` downwards while they fall; each walk stops when the rest of its side — at most the
    /// count of remaining terms times the current one, or (upwards, `g < 0`) a geometric series
    /// at the ratio `e^g` that bounds every later one — is below `e^{−40}` of the total. Each
    /// walk keeps its terms relative to its first, as plain numbers in `(0, 1]`.
    fn convex_sum(&self, lo: i64, hi: i64) -> (f64, u64) {
        let limit = self.g.exp();
        let first = self.term(lo as f64);
        let mut up = 1.0;
        let mut terms = 1u64;
        let (mut y, mut term) = (lo, 1.0);
        // Upwards from lo while the terms fall.
        let geometric = if limit < 1.0 { limit / (1.0 - limit) } else { f64::INFINITY };
        while y < hi {
            let ratio = self.ratio(limit, y);
            let count = (hi - y) as f64;
            if ratio >= 1.0 || term * geometric.min(count) < TAIL_RATIO {
                break;
            }
            term *= ratio;
            y += 1;
            up += term;
            terms += 1;
        }
        let low_side = first + up.ln();
        let reached = y;
        if reached == hi || self.ratio(limit, hi - 1) < 1.0 {
            // The terms fall all the way to hi: the walk upwards covered them (or bounded them).
            // (A ratio of exactly 1 at hi − 1 makes the term at hi equal to the one before it:
            // it is summed below.)
            return (low_side, terms);
        }
        // Downwards from hi while the terms fall (going down); the ratio at hi − 1 exceeds 1, so
        // none below it is 0.
        let last = self.term(hi as f64);
        let mut down = 1.0;
        terms += 1;
        let (mut y, mut term) = (hi, 1.0);
        // What the walk must fall below e^{−40} of: its first term or the low side, relative to
        // that first term (∞ when the low side dwarfs it: the walk stops at once).
        let largest = (low_side - last).exp().max(1.0);
        while y - 1 > reached {
            let ratio = 1.0 / self.ratio(limit, y - 1);
            let count = (y - 1 - reached) as f64;
            if ratio >= 1.0 || term * count < TAIL_RATIO * largest {
                break;
            }
            term *= ratio;
            y -= 1;
            down += term;
            terms += 1;
        }
        let high_side = last + down.ln();
        (ln_add(low_side, high_side), terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Terms of the brute-force sums: y = 0..8000, far past any mass that survives the noise's
    /// factor `α^{|ỹ − y|}` for the values tested (at most 1500).
    const BRUTE_TERMS: u64 = 8000;

    /// The convolution summed term by term, each term in log space from the pmf's formula
    /// (`pmf[y] = ln NB(y)`, computed once per (μ, r)).
    fn brute_force(released: i64, pmf: &[f64], alpha: f64) -> f64 {
        let ln_geo = |t: i64| ((1.0 - alpha) / (1.0 + alpha)).ln() + alpha.ln() * t.unsigned_abs() as f64;
        let terms: Vec<f64> = pmf.iter().zip(0i64..).map(|(ln_nb, y)| ln_nb + ln_geo(released - y)).collect();
        let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln()
    }

    #[test]
    fn the_pmf_is_the_negative_binomial() {
        // NB(2; r = 3, μ = 1.5): p = 1/3, Γ(5)/(Γ(3) 2!) (2/3)³ (1/3)² = 6 · 8/27 · 1/9.
        let expected = (6.0f64 * 8.0 / 27.0 / 9.0).ln();
        assert!((ln_negative_binomial_pmf(2, 1.5, 3.0) - expected).abs() < 1e-13);
        for &(mean, shape) in &[(0.3, 0.05), (4.0, 1.0), (50.0, 2.5), (2.0, 1e4)] {
            let total: f64 = (0..200_000u64).map(|y| ln_negative_binomial_pmf(y, mean, shape).exp()).sum();
            assert!((total - 1.0).abs() < 1e-10, "{mean} {shape}: {total}");
            let m: f64 = (0..200_000u64).map(|y| y as f64 * ln_negative_binomial_pmf(y, mean, shape).exp()).sum();
            assert!((m - mean).abs() < 1e-8 * mean, "{mean} {shape}: mean {m}");
        }
        // A large shape is the Poisson (NB − Pois = O(μ²/r) in the log).
        let poisson = distributions::Poisson::new(2.0).unwrap().ln_pmf(3);
        assert!((ln_negative_binomial_pmf(3, 2.0, 1e12) - poisson).abs() < 1e-10);
        assert_eq!(ln_negative_binomial_pmf(1, 0.0, 2.0), f64::NEG_INFINITY);
    }

    /// A seeded grid of values, means, shapes (both sides of r = 1) and levels against the
    /// term-by-term sum: every branch (closed forms, concave walk, convex walks from both ends)
    /// agrees with it.
    #[test]
    fn agrees_with_the_brute_force_sum_everywhere() {
        let mut worst = (0.0f64, (0, 0.0, 0.0, 0.0));
        for mean in [1e-3, 0.4, 3.0, 17.0, 90.0, 333.0, 1500.0] {
            for shape in [0.02, 0.3, 0.97, 1.0, 1.5, 8.0, 200.0] {
                let pmf: Vec<f64> = (0..BRUTE_TERMS).map(|y| ln_negative_binomial_pmf(y, mean, shape)).collect();
                for value in (-20..1500).step_by(97) {
                    for alpha in [0.01, 0.2, 0.5, 0.8, 0.95] {
                        let fast = ln_released_nb_likelihood(value, mean, shape, alpha);
                        let slow = brute_force(value, &pmf, alpha);
                        let error = (fast - slow).abs() / slow.abs().max(1.0);
                        if error.is_nan() || error > worst.0 {
                            worst = (error, (value, mean, shape, alpha));
                        }
                    }
                }
            }
        }
        assert!(worst.0 < 1e-12, "largest relative difference {:e} at {:?}", worst.0, worst.1);
    }

    #[test]
    fn a_pmf_over_the_released_values() {
        for &(mean, shape, alpha) in &[(3.0, 0.5, 0.5), (0.7, 4.0, 0.9), (20.0, 0.05, 0.3), (0.0, 1.0, 0.4)] {
            let total: f64 = (-3000..=30_000).map(|v| ln_released_nb_likelihood(v, mean, shape, alpha).exp()).sum();
            assert!((total - 1.0).abs() < 1e-11, "{mean} {shape} {alpha}: {total}");
        }
        // α = 0: the pmf; a large shape: the Poisson convolution.
        assert_eq!(ln_released_nb_likelihood(2, 1.5, 3.0, 0.0), ln_negative_binomial_pmf(2, 1.5, 3.0));
        assert_eq!(ln_released_nb_likelihood(-1, 1.5, 3.0, 0.0), f64::NEG_INFINITY);
        let poisson = crate::ln_released_likelihood(7, 4.0, 0.6);
        assert!((ln_released_nb_likelihood(7, 4.0, 1e12, 0.6) - poisson).abs() < 1e-10);
        assert_eq!(ln_cell_likelihood(7, 4.0, None, 0.6), poisson);
    }

    /// The contaminated mixture's likelihood is `(1 − π) p_Pois + π p_NB` (released and raw), it
    /// sums to 1 over the released values, and its ends are the Poisson and the negative binomial.
    #[test]
    fn the_contaminated_likelihood_is_the_mixture() {
        let law = CellDispersion { shape: 0.5, share: 0.2 };
        for &(value, mean, alpha) in &[(7i64, 4.0, 0.6), (-2, 1.5, 0.3), (3, 2.0, 0.0), (40, 2.0, 0.0)] {
            let expected = 0.8 * crate::ln_released_likelihood(value, mean, alpha).exp()
                + 0.2 * ln_released_nb_likelihood(value, mean, 0.5, alpha).exp();
            let got = ln_cell_likelihood(value, mean, Some(law), alpha);
            assert!((got - expected.ln()).abs() < 1e-12, "{value} {mean} {alpha}: {got} vs {}", expected.ln());
        }
        let total: f64 = (-3000..=30_000).map(|v| ln_cell_likelihood(v, 3.0, Some(law), 0.5).exp()).sum();
        assert!((total - 1.0).abs() < 1e-11, "{total}");
        let poisson = crate::ln_released_likelihood(7, 4.0, 0.6);
        assert_eq!(ln_cell_likelihood(7, 4.0, Some(CellDispersion { shape: 0.5, share: 0.0 }), 0.6), poisson);
        let nb = ln_released_nb_likelihood(7, 4.0, 0.5, 0.6);
        assert_eq!(ln_cell_likelihood(7, 4.0, Some(CellDispersion::negative_binomial(0.5)), 0.6), nb);
        // A count far out in the tail: the negative binomial's term carries it, no underflow to −∞.
        assert!(ln_cell_likelihood(10_000, 1.0, Some(law), 0.0).is_finite());
    }

    /// Shapes near 0: `NB(0) ≈ 1` and `NB(1) ≈ r`, so at `ỹ = 1` and `α = 10⁻³⁰⁰` the likelihood is
    /// `α NB(0) + NB(1) ≈ 2·10⁻³⁰⁰` (its two terms are equal: the walk's ratio is 1 to the last
    /// digit), also where `μ/r` overflows (it gave NaN).
    #[test]
    fn shapes_near_zero_keep_both_terms() {
        let expected = 2f64.ln() - 300.0 * 10f64.ln();
        for mean in [1.0, 1e8, 1e12] {
            let got = ln_released_nb_likelihood(1, mean, 1e-300, 1e-300);
            assert!((got - expected).abs() < 1e-9, "μ = {mean}: {got} against {expected}");
        }
    }

    /// The work is bounded by (μ, r, α), not by the released value: values of 2·10⁹ and 9·10¹⁸
    /// far from the mass cost a few hundred terms at most, on both sides of r = 1.
    #[test]
    fn the_work_does_not_grow_with_the_released_value() {
        for value in [2_000_000_000i64, i64::MAX, 1, -2_000_000_000] {
            for &(mean, shape, alpha) in
                &[(5.0, 0.05, 0.5), (5.0, 3.0, 0.5), (1e6, 0.05, 0.9), (1e6, 40.0, 0.9), (0.01, 0.5, 0.99)]
            {
                let (ln, terms) = ln_released_nb_likelihood_counted(value, mean, shape, alpha);
                assert!(terms <= 2_000, "{value} {mean} {shape} {alpha}: {terms} terms");
                assert!(ln.is_finite() && ln < 0.0, "{value} {mean} {shape} {alpha}: {ln}");
            }
        }
    }
}
