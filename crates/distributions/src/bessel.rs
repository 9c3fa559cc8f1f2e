//! The Bessel distribution `Bes(ν, a)` (Yuan & Kalbfleisch 2000) over `n ∈ {0, 1, 2, …}`.

use crate::bessel_i::{bessel_mode, bessel_ratio, series_rest};
use crate::error::{ParamError, check};
use crate::ln_gamma::{ln_gamma, phi_and_ln1p, stirling_correction};
use rand::distr::{Distribution, OpenClosed01, StandardUniform};
use rand::{Rng, RngExt};
use rand_distr::Exp1;
use std::sync::OnceLock;

/// `Bes(ν, a)`: `P(n) = (a/2)^{2n+ν} / (n! Γ(n+ν+1) I_ν(a))`, `n = 0, 1, 2, …`
/// (eq. 43 of Schein et al. 2019), with real **order** `ν >= 0` and **argument** `a >= 0`
/// (neither a rate nor a scale; `a = 0` is the point mass at 0).
///
/// In the locally private Gibbs sampler (eq. 12) `ν = |ỹ|` and `a = 2√((λ₁+μ)λ₂)`; Theorem 4.1:
/// the minimum of two independent Poissons with rates `λ₁, λ₂`, given their difference `δ`, is
/// `Bes(|δ|, 2√(λ₁λ₂))`.
///
/// Sampling is exact rejection from a table-free hat (see [`Bessel::sample`]) whose expected number
/// of trials is bounded uniformly over all `(ν, a)`; it needs neither `I_ν(a)` nor any table.
///
/// ```
/// use distributions::{Bessel, stream};
/// use rand::distr::Distribution;
/// let bes = Bessel::new(3.0, 10.0).unwrap();
/// assert_eq!(bes.mode(), 3);
/// let draw: u64 = bes.sample(&mut stream(7, 0));
/// assert!(bes.ln_pmf(draw).is_finite());
/// ```
#[derive(Clone, Debug)]
pub struct Bessel {
    nu: f64,
    a: f64,
    mode: u64,
    /// `ln Σ_n P(n)/P(mode)`, the normalizer relative to the mode: summed on the first pmf
    /// evaluation (O(σ) terms) and kept, so constructing a `Bessel` to draw from it costs nothing.
    ln_mass: OnceLock<f64>,
}

impl Bessel {
    /// `Bes(nu, a)`; errors unless `0 <= nu <= 1e15` and `0 <= a <= 1e15`. (The bound keeps the
    /// mode, about `a/2`, far inside the range where consecutive integers are exact doubles; counts
    /// never come near it.)
    pub fn new(nu: f64, a: f64) -> Result<Self, ParamError> {
        let nu = check("Bessel", "nu", nu, "a number in [0, 1e15]", (0.0..=MAX_PARAMETER).contains(&nu))?;
        let a = check("Bessel", "a", a, "a number in [0, 1e15]", (0.0..=MAX_PARAMETER).contains(&a))?;
        let mode = if a == 0.0 { 0 } else { bessel_mode(nu, a) };
        Ok(Self { nu, a, mode, ln_mass: OnceLock::new() })
    }

    /// The order `ν`.
    pub fn nu(&self) -> f64 {
        self.nu
    }

    /// The argument `a`.
    pub fn a(&self) -> f64 {
        self.a
    }

    /// The mode `⌊(√(a²+ν²) − ν)/2⌋` (appendix C of Schofield et al.), the largest `n` with
    /// `n(n+ν) <= (a/2)²`. Where `n(n+ν) = (a/2)²` exactly, `n−1` is a mode too; this is the larger.
    pub fn mode(&self) -> u64 {
        self.mode
    }

    /// `E[n] = (a/2) I_{ν+1}(a)/I_ν(a)`, through [`bessel_ratio`] (never a quotient of two huge
    /// numbers). Proposition 3 of Schofield et al.: `|mean − mode| <= 1`.
    pub fn mean(&self) -> f64 {
        if self.a == 0.0 { 0.0 } else { 0.5 * self.a * bessel_ratio(self.nu, self.a) }
    }

    /// `Var[n] = μ_ν (1 + μ_{ν+1} − μ_ν)` with `μ_ν = E[n] = (a/2) R_ν(a)`.
    ///
    /// From `E[n(n+ν)] = a²/4` (so `Var = a²/4 − μ_ν(μ_ν+ν)`) and the recurrence
    /// `R_{ν+1} = 1/R_ν − 2(ν+1)/a`. This form multiplies the relative error of the means by
    /// `μ²/Var`, never more than the `a²/(4 Var)` of the textbook form (which is `ν+1` for tiny `a`).
    /// Measured against the 50-digit reference table (`tests/it/bessel_i.rs`): relative error at most
    /// `5.6e-15 · μ²/Var` — up to `5e-9` at `a = 1e6`, where `μ²/Var ≈ 1e6` (tested at `1e-14 · μ²/Var`).
    pub fn variance(&self) -> f64 {
        if self.a == 0.0 {
            return 0.0;
        }
        let mean = self.mean();
        let next_mean = 0.5 * self.a * bessel_ratio(self.nu + 1.0, self.a);
        (mean * (1.0 + next_mean - mean)).max(0.0)
    }

    /// `ln P(n) = ln(P(n)/P(m)) − ln Σ_j P(j)/P(m)` for the mode `m`.
    ///
    /// Both parts are computed without large cancelling terms (see `ln_ratio_to_mode`; the sum
    /// runs over the positive ratios of the series of `I_ν(a)`), so the pmf is accurate to about
    /// `1e-13` relative in its bulk even at `a = 1e6` — where `ln I_ν(a)` and `ln Γ` are of size
    /// `1e6` and the textbook `ln t_n − ln I_ν(a)` loses five digits. The first call sums `O(σ)`
    /// terms; later calls on the same value reuse it.
    pub fn ln_pmf(&self, n: u64) -> f64 {
        if self.a == 0.0 {
            return if n == 0 { 0.0 } else { f64::NEG_INFINITY };
        }
        let ln_mass = *self.ln_mass.get_or_init(|| series_rest(self.nu, self.a, self.mode as f64).ln_1p());
        self.ln_ratio_to_mode(n as f64, &mut AtMode::default()) - ln_mass
    }

    /// `P(n)`.
    pub fn pmf(&self, n: u64) -> f64 {
        self.ln_pmf(n).exp()
    }

    /// `P(n)/P(m)` for the mode `m` when `|n − m| <= NEAR`: the product of the pmf's step ratios
    /// `(a/2)²/(j(j+ν))` between `m` and `n` — each factor is at most 1 (the steps lead away from the
    /// mode), so nothing overflows, and no logarithm is taken. `None` farther out.
    fn near_ratio_to_mode(&self, n: f64) -> Option<f64> {
        let m = self.mode as f64;
        if (n - m).abs() > NEAR {
            return None;
        }
        let h2 = 0.25 * self.a * self.a;
        let mut ratio = 1.0;
        let mut j = m + 1.0;
        while j <= n {
            ratio *= h2 / (j * (j + self.nu)); // P(j)/P(j−1), moving up from the mode
            j += 1.0;
        }
        let mut j = m;
        while j > n {
            ratio *= j * (j + self.nu) / h2; // P(j−1)/P(j), moving down from the mode
            j -= 1.0;
        }
        Some(ratio)
    }

    /// `ln(P(n)/P(m))`: the log of [`Self::near_ratio_to_mode`] near the mode. Farther out, with
    /// `k = n − m`, `t₁ = k/(m+1)`, `t₂ = k/(m+ν+1)`, `φ(t) = t − ln(1+t)` and Stirling's remainder `c`
    /// (all arguments `>= 10`):
    /// `k ln((a/2)²/((n+1)(n+ν+1))) + (m+1)φ(t₁) + ½ln(1+t₁) + (m+ν+1)φ(t₂) + ½ln(1+t₂)
    ///  − [c(n+1) − c(m+1)] − [c(n+ν+1) − c(m+ν+1)]`,
    /// which is `2k ln(a/2) − [ln Γ(n+1) − ln Γ(m+1)] − [ln Γ(n+ν+1) − ln Γ(m+ν+1)]` rearranged so that
    /// every term is of the size of the result (the saddle-point idea of Loader 2000). With a small
    /// argument the plain `ln Γ` difference is used. The mode's terms are kept in `at_mode`.
    fn ln_ratio_to_mode(&self, n: f64, at_mode: &mut AtMode) -> f64 {
        if let Some(ratio) = self.near_ratio_to_mode(n) {
            return ratio.ln();
        }
        let m = self.mode as f64;
        let h2 = 0.25 * self.a * self.a;
        let (x1, x2) = (m + 1.0, m + self.nu + 1.0);
        let (y1, y2) = (n + 1.0, n + self.nu + 1.0);
        if x1.min(y1) >= 10.0 {
            let k = n - m;
            let (phi1, ln1) = phi_and_ln1p(k / x1);
            let (phi2, ln2) = phi_and_ln1p(k / x2);
            let (c1, c2) = *at_mode.stirling.get_or_insert_with(|| (stirling_correction(x1), stirling_correction(x2)));
            return k * (h2 / (y1 * y2)).ln() + x1 * phi1 + 0.5 * ln1 + x2 * phi2 + 0.5 * ln2
                - (stirling_correction(y1) - c1)
                - (stirling_correction(y2) - c2);
        }
        let at_mode = *at_mode.ln_gamma.get_or_insert_with(|| ln_gamma(x1) + ln_gamma(x2));
        (n - m) * h2.ln() - ln_gamma(y1) - ln_gamma(y2) + at_mode
    }
}

/// The mode's terms of [`Bessel::ln_ratio_to_mode`], computed on first use and reused for every
/// other `n` of the same draw or pmf call.
#[derive(Default)]
struct AtMode {
    /// `ln Γ(m+1) + ln Γ(m+ν+1)`.
    ln_gamma: Option<f64>,
    /// `(c(m+1), c(m+ν+1))`, Stirling's remainders.
    stirling: Option<(f64, f64)>,
}

/// Distances from the mode at which `P(n)/P(m)` is a short product rather than a difference of `ln Γ`.
const NEAR: f64 = 8.0;

/// One geometric tail of the hat: for `n = start ± g` (`g >= 0`, away from the mode),
/// `P(n)/P(m) <= ratio · q^g`. The logarithms are needed only when a proposal lands in the tail, so
/// they are computed on first use (or come for free when `ratio` itself came from a logarithm).
struct Tail {
    start: f64,
    /// `P(start)/P(m)`.
    ratio: f64,
    /// The per-step factor, in `[0, 1)`.
    q: f64,
    /// `Σ_g ratio·q^g = ratio / (1 − q)`, in units of `P(m)`.
    mass: f64,
    ln_ratio: Option<f64>,
    ln_q: Option<f64>,
}

impl Tail {
    /// The tail from `start` with factor `q`; `P(start)/P(m)` as a product near the mode, else from
    /// its logarithm.
    fn new(bessel: &Bessel, start: f64, q: f64, at_mode: &mut AtMode) -> Self {
        let (ratio, ln_ratio) = match bessel.near_ratio_to_mode(start) {
            Some(ratio) => (ratio, None),
            None => {
                let ln_ratio = bessel.ln_ratio_to_mode(start, at_mode);
                (ln_ratio.exp(), Some(ln_ratio))
            }
        };
        Self { start, ratio, q, mass: ratio / (1.0 - q), ln_ratio, ln_q: None }
    }

    fn ln_ratio(&mut self) -> f64 {
        *self.ln_ratio.get_or_insert_with(|| self.ratio.ln())
    }

    fn ln_q(&mut self) -> f64 {
        *self.ln_q.get_or_insert_with(|| self.q.ln())
    }
}

/// A lower bound on `e^{−r}` for `r ∈ [0, 1]` that the computed `exp(−r)` never falls below:
/// `1 − r + r²/2 − r³/6` (a partial sum of the alternating series ending on a negative term, so
/// below `e^{−r}` by at least `r⁴/30`), less `1e-14` for rounding. The polynomial's rounding is a
/// few units in the last place of a value `>= 1/3` (below `1e-15`), libm's `exp` is within one
/// (glibc: under 1 ulp), so a uniform below this bound is below `exp(−r)` too: the inversion's
/// `u < P(0)` decided without `exp`, with the same outcome bit for bit (tested in
/// `squeeze_never_exceeds_exp`). At the private Gibbs step's typical `r ≈ 0.26` the bound is
/// within `2e-4` of `e^{−r}`.
#[inline(always)]
pub fn below_exp_minus(r: f64) -> f64 {
    1.0 - r * (1.0 - 0.5 * r * (1.0 - r * (1.0 / 3.0))) - 1e-14
}

/// The largest order and argument [`Bessel::new`] accepts.
const MAX_PARAMETER: f64 = 1e15;

/// Half-width of the flat part of the hat in units of the spread `σ`: 1.1 minimises the hat's mass
/// for a Gaussian-shaped pmf (`2c + 2e^{−c²/2}/c`), about 1.27 times the pmf's mass.
const HAT_HALF_WIDTH: f64 = 1.1;

/// The Poisson-proposal sampler of `Bes(ν, a)` for `(a/2)² = h2 <= ν + 1` (see
/// [`Bessel::sample`]); needs no mode.
fn sample_small_argument<R: Rng + ?Sized>(nu: f64, h2: f64, rng: &mut R) -> u64 {
    let first = rng.sample(StandardUniform);
    sample_small_argument_from(nu, h2, first, rng)
}

/// [`sample_small_argument`] with its first uniform `u` already drawn.
fn sample_small_argument_from<R: Rng + ?Sized>(nu: f64, h2: f64, mut u: f64, rng: &mut R) -> u64 {
    let rate = h2 / (nu + 1.0);
    if u < below_exp_minus(rate) {
        return 0; // u < e^{−rate} = P(0) without evaluating it: about 3 draws in 4
    }
    let p0 = (-rate).exp();
    loop {
        // Poisson(rate <= 1) by sequential inversion; the cap only matters if rounding left
        // the cumulative sum below u (probability ~1e-16), and then the proposal is redrawn.
        let (mut n, mut p, mut cumulative) = (0u64, p0, p0);
        while u >= cumulative && n < 64 {
            n += 1;
            p *= rate / n as f64;
            cumulative += p;
        }
        if n < 64 {
            if n <= 1 {
                return n;
            }
            let accept: f64 = (2..=n).map(|j| (nu + 1.0) / (nu + j as f64)).product();
            if rng.sample::<f64, _>(StandardUniform) < accept {
                return n;
            }
        }
        u = rng.sample(StandardUniform);
    }
}

impl Bessel {
    /// One draw from `Bes(nu, a)`, the same as `Bessel::new(nu, a)?.sample(rng)` bit for bit and
    /// with the same errors, without keeping the distribution: on the small-argument route
    /// (`(a/2)² <= ν + 1`, nine entries in ten of a private Gibbs sweep) the mode is never
    /// computed. Computing it (a square root, then a division waiting on it, then integer
    /// corrections) was a quarter of the private step's time (issue 21, BENCHMARKS.md).
    #[inline]
    pub fn sample_once<R: Rng + ?Sized>(nu: f64, a: f64, rng: &mut R) -> Result<u64, ParamError> {
        let h2 = 0.25 * a * a;
        if (0.0..=MAX_PARAMETER).contains(&nu) && a >= 0.0 && h2 <= nu + 1.0 {
            // Here a <= 2√(ν+1) <= 1e15 too.
            return Ok(if a == 0.0 { 0 } else { sample_small_argument(nu, h2, rng) });
        }
        Ok(Self::new(nu, a)?.sample(rng))
    }

    /// One draw from `Bes(nu, 2√x)`: the same as `Bessel::sample_once(nu, 2.0 * x.sqrt(), rng)`
    /// bit for bit and with the same errors, for the caller who has `x = (a/2)²` — the private
    /// Gibbs step's `(λ₁ + μ)λ₂` (eq. 12).
    ///
    /// Most draws there are 0 on the small-argument route: the exact route computes `a = 2√x`,
    /// `(a/2)²` (`x` up to three roundings) and the proposal's rate `r = (a/2)²/(ν+1)` (one more),
    /// and returns 0 exactly when its first uniform `u` is below the computed `exp(−r) >= 1 − r −
    /// 2⁻⁵³`. Here that outcome is decided from `x` directly: with `x̄ = x (1 + 1e-14)`, which is
    /// at least `(a/2)²`, `x̄ <= ν + 1` puts the draw on the small route, and
    /// `u (ν+1) + x̄ < (ν+1)(1 − 1e-14)` means `u < 1 − r − 1e-14` up to a few roundings of
    /// `ν + 1`, so the exact route would return 0 too. The square root and the division, whose
    /// latency was most of the step's time, are then never waited for. Every other draw continues
    /// on the exact route with the same uniform (tested bit for bit against `sample_once`).
    #[inline(always)]
    pub fn sample_once_squared<R: Rng + ?Sized>(nu: f64, x: f64, rng: &mut R) -> Result<u64, ParamError> {
        let (x_bound, nu1) = (x * (1.0 + 1e-14), nu + 1.0);
        if x > 0.0 && x_bound <= nu1 && (0.0..=MAX_PARAMETER).contains(&nu) {
            let u: f64 = rng.sample(StandardUniform);
            if u * nu1 + x_bound < nu1 * (1.0 - 1e-14) {
                return Ok(0);
            }
            let a = 2.0 * x.sqrt();
            return Ok(sample_small_argument_from(nu, 0.25 * a * a, u, rng));
        }
        Self::sample_once(nu, 2.0 * x.sqrt(), rng)
    }
}

impl Distribution<u64> for Bessel {
    /// Exact rejection sampling for the log-concave Bessel pmf (the step ratio `P(n)/P(n−1) =
    /// (a/2)²/(n(n+ν))` decreases in `n`), in the spirit of Devroye (2002, "Simulating Bessel
    /// random variables") and Devroye (1987, discrete log-concave distributions).
    ///
    /// With mode `m`, spread `σ = (1/(m+1) + 1/(m+ν+1))^{−1/2}` and `s = max(1, round(1.1σ))`,
    /// the hat (in units of `P(m)`) is
    /// * flat at 1 on the centre `[l+1, r−1]`, `r = m+s`, `l = m−s` (from 0 if `l < 0`);
    /// * geometric on the right: `P(r+g)/P(m) <= P(r)/P(m) · q_r^g`, `q_r = (a/2)²/((r+1)(r+1+ν))`,
    ///   the largest step ratio beyond `r` (step ratios decrease; `q_r < 1` because `r > m`);
    /// * geometric on the left when `l >= 0`: `P(l−g)/P(m) <= P(l)/P(m) · q_l^g`,
    ///   `q_l = l(l+ν)/(a/2)²`, the largest inverse step ratio below `l` (`q_l < 1` because `l < m`).
    ///
    /// The widths track `σ`, which keeps the expected number of trials bounded over all `(ν, a)`
    /// (about 1.3 for large `σ`, below 2 everywhere; tested by counting random numbers). Near the
    /// mode every quantity is a short product of step ratios (no logarithm, no `ln Γ`); far from it
    /// the log-pmf ratio comes from its cancellation-free form (`ln_ratio_to_mode`), with a chord
    /// squeeze (concavity again) that accepts most centre proposals without evaluating it. Per trial: one uniform to choose the proposal, one
    /// to accept it, and one `Exp(1)` for a tail proposal's distance.
    ///
    /// Small arguments, `(a/2)² <= ν + 1` (mode 0, mean below 1 — the usual case in the private
    /// Gibbs step), take a cheaper exact route: propose `n ~ Pois((a/2)²/(ν+1))` by inversion and
    /// accept with probability `Π_{j=1..n} (ν+1)/(ν+j)`, which is the pmf ratio `P(n)/Pois(n)` up
    /// to a constant and at most 1 (equal to 1 for `n <= 1`). Acceptance is above 0.8 there.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.a == 0.0 {
            return 0;
        }
        let h2 = 0.25 * self.a * self.a;
        if h2 <= self.nu + 1.0 {
            return sample_small_argument(self.nu, h2, rng);
        }
        let m = self.mode as f64;
        let spread = (1.0 / (m + 1.0) + 1.0 / (m + self.nu + 1.0)).sqrt().recip();
        let s = (HAT_HALF_WIDTH * spread).round().max(1.0);
        let mut at_mode = AtMode::default();
        let r = m + s;
        let mut right = Tail::new(self, r, h2 / ((r + 1.0) * (r + 1.0 + self.nu)), &mut at_mode);
        let l = m - s;
        let mut left = (l >= 0.0).then(|| Tail::new(self, l, l * (l + self.nu) / h2, &mut at_mode));
        let lo = if left.is_some() { l + 1.0 } else { 0.0 };
        let mass_centre = r - lo;
        let total = mass_centre + right.mass + left.as_ref().map_or(0.0, |t| t.mass);
        let right_end = mass_centre + right.mass;
        loop {
            // u is uniform on [0, total): below mass_centre its integer part is a uniform index.
            let u = rng.sample::<f64, _>(StandardUniform) * total;
            let v: f64 = rng.sample(OpenClosed01);
            if u < mass_centre {
                let n = lo + u.floor();
                if let Some(ratio) = self.near_ratio_to_mode(n) {
                    if v <= ratio {
                        return n as u64;
                    }
                    continue;
                }
                // Far from the mode: by concavity ln(P(n)/P(m)) lies above the chord from the mode
                // to the breakpoint on n's side, so a uniform below the chord accepts at once.
                let ln_v = v.ln();
                let (edge, width) = if n >= m { (Some(&mut right), n - m) } else { (left.as_mut(), m - n) };
                let chord = edge.map_or(f64::NEG_INFINITY, |t| width / s * t.ln_ratio());
                if ln_v <= chord || ln_v <= self.ln_ratio_to_mode(n, &mut at_mode) {
                    return n as u64;
                }
                continue;
            }
            let (tail, up) = match left.as_mut() {
                Some(left) if u >= right_end => (left, false),
                _ => (&mut right, true),
            };
            // g ~ Geometric with P(g) ∝ q^g; q = 0 (the left tail ending at l = 0) means g = 0.
            let g = if tail.q > 0.0 { (rng.sample::<f64, _>(Exp1) / -tail.ln_q()).floor() } else { 0.0 };
            let n = if up { tail.start + g } else { tail.start - g };
            if !(0.0..=1e18).contains(&n) {
                continue; // below 0 (left tail) or beyond u64 (probability below q^1e18)
            }
            let ln_hat = if g == 0.0 { tail.ln_ratio() } else { tail.ln_ratio() + g * tail.ln_q() };
            if v.ln() <= self.ln_ratio_to_mode(n, &mut at_mode) - ln_hat {
                return n as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::below_exp_minus;

    /// The squeeze of the small-argument route lies below the computed `exp(−r)` over `[0, 1]`
    /// (a million grid points, the ends, tiny and subnormal rates), and it is tight (within
    /// `r⁴/24 + 2e-14`, else it would skip `exp` rarely and be pointless).
    #[test]
    fn squeeze_never_exceeds_exp() {
        let grid = (0..=1_000_000).map(|i| f64::from(i) / 1e6);
        let tiny = [f64::MIN_POSITIVE, 5e-324, 1e-300, 1e-17, 1e-9, 1e-5, 1.0 - f64::EPSILON];
        for r in grid.chain(tiny) {
            let (below, exact) = (below_exp_minus(r), (-r).exp());
            assert!(below < exact, "r = {r:e}: {below} >= {exact}");
            assert!(exact - below <= r.powi(4) / 24.0 + 2e-14, "r = {r:e}: gap {}", exact - below);
        }
    }
}
