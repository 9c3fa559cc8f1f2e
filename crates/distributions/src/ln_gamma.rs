//! `ln Γ(x)` for `x > 0`, fast enough for the inner loop of the Bessel sampler, and the digamma
//! function `ψ(x) = d ln Γ(x)/dx` that the variational gamma factors need (`G[x] = e^{ψ(a)}/b`).
//!
//! For `x >= 10`, Stirling's series with six Bernoulli terms (DLMF 5.11.1):
//! `ln Γ(x) = (x−½) ln x − x + ½ ln 2π + Σ_{k=1..6} B_{2k} / (2k(2k−1) x^{2k−1})`,
//! whose truncation error is below the first omitted term, `3617/(122400 x¹³) < 3e-15` at `x = 10`.
//! For `x < 10`, the recurrence `ln Γ(x) = ln Γ(x+k) − ln(x(x+1)…(x+k−1))` shifts the argument up.
//! Near the zeros of `ln Γ` at 1 and 2 (within 1/4), where that route has an absolute error of a
//! few ulps of `ln Γ(10)` and so no relative accuracy, the Taylor series at 1 (DLMF 5.7.3)
//! `ln Γ(1+z) = −γz + Σ_{k≥2} (−1)^k ζ(k) z^k / k` (27 terms, truncation < 3e-18 at |z| = 1/4)
//! and `ln Γ(2+z) = ln(1+z) + ln Γ(1+z)` are used instead: `ln Γ(1) = ln Γ(2) = 0` exactly, and
//! the result is accurate in relative terms around them.
//!
//! Why not statrs' `ln_gamma` (a Lanczos approximation): this costs one `ln` and a short polynomial,
//! about a third of the time, and the Bessel sampler calls it up to eight times per draw
//! (`BENCHMARKS.md`). Its accuracy is tested against statrs and against exact `ln n!`.

const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;
const STIRLING_MIN: f64 = 10.0;

/// `ln Γ(x)`; NaN for `x <= 0` or NaN, `+∞` for `x = +∞`.
pub fn ln_gamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x >= STIRLING_MIN {
        return stirling(x);
    }
    // x − 1 and x − 2 are exact here (Sterbenz).
    let (z1, z2) = (x - 1.0, x - 2.0);
    if z1.abs() <= NEAR_ZEROS {
        return ln_gamma_1p_series(z1);
    }
    if z2.abs() <= NEAR_ZEROS {
        return z2.ln_1p() + ln_gamma_1p_series(z2);
    }
    let (mut shifted, mut product) = (x, 1.0);
    while shifted < STIRLING_MIN {
        product *= shifted;
        shifted += 1.0;
    }
    stirling(shifted) - product.ln()
}

/// Half-width of the intervals around 1 and 2 where [`ln_gamma`] uses the Taylor series.
const NEAR_ZEROS: f64 = 0.25;

/// Coefficients `c_k = (−1)^k ζ(k)/k` (`c_1 = −γ`) of `ln Γ(1+z) = Σ_{k≥1} c_k z^k` (DLMF 5.7.3),
/// k = 1 … 27, to 21 digits (mpmath; the compiler rounds each to the nearest double).
#[allow(clippy::excessive_precision)]
const LN_GAMMA_1P: [f64; 27] = [
    -5.772_156_649_015_328_606e-1,
    8.224_670_334_241_132_182e-1,
    -4.006_856_343_865_314_285e-1,
    2.705_808_084_277_845_479e-1,
    -2.073_855_510_286_739_853e-1,
    1.695_571_769_974_081_900e-1,
    -1.440_498_967_688_461_181e-1,
    1.255_096_695_247_430_424e-1,
    -1.113_342_658_695_646_905e-1,
    1.000_994_575_127_818_085e-1,
    -9.095_401_714_582_904_223e-2,
    8.335_384_054_610_900_402e-2,
    -7.693_251_641_135_219_147e-2,
    7.143_294_629_536_133_606e-2,
    -6.666_870_588_242_046_803e-2,
    6.250_095_514_121_304_074e-2,
    -5.882_397_865_868_458_234e-2,
    5.555_576_762_740_361_110e-2,
    -5.263_167_937_961_666_073e-2,
    5.000_004_769_810_169_364e-2,
    -4.761_907_033_014_222_799e-2,
    4.545_455_629_320_466_944e-2,
    -4.347_826_605_304_025_936e-2,
    4.166_666_915_034_121_047e-2,
    -4.000_000_119_214_014_059e-2,
    3.846_153_903_467_518_571e-2,
    -3.703_703_731_298_932_555e-2,
];

/// `ln Γ(1+z)` for `|z| <= 1/4` by its Taylor series at 0 (Horner; exactly 0 at `z = 0`).
fn ln_gamma_1p_series(z: f64) -> f64 {
    z * LN_GAMMA_1P.iter().rev().fold(0.0, |acc, &c| c + z * acc)
}

/// Below this `ψ` is shifted up by the recurrence before its asymptotic series is used.
const DIGAMMA_MIN: f64 = 10.0;

/// The digamma function `ψ(x) = d ln Γ(x)/dx` for `x > 0` (NaN for `x <= 0` or NaN).
///
/// For `x >= 10`, the asymptotic series (DLMF 5.11.2)
/// `ψ(x) = ln x − 1/(2x) − Σ_{k=1..6} B_{2k} / (2k x^{2k})`, whose truncation error is below the
/// first omitted term, `B₁₄/(14 x¹⁴) = 1/(12 x¹⁴) < 1e-15` at `x = 10`; below, the recurrence
/// `ψ(x) = ψ(x+1) − 1/x`. Used by every variational gamma factor: `E[ln x] = ψ(a) − ln b` for
/// `x ~ Gamma(a, rate b)`.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let (mut shifted, mut correction) = (x, 0.0);
    while shifted < DIGAMMA_MIN {
        correction -= 1.0 / shifted;
        shifted += 1.0;
    }
    if shifted.is_infinite() {
        return f64::INFINITY;
    }
    let inv = 1.0 / shifted;
    let inv2 = inv * inv;
    // B₂/2 = 1/12, B₄/4 = −1/120, B₆/6 = 1/252, B₈/8 = −1/240, B₁₀/10 = 1/132, B₁₂/12 = −691/32760
    let series = inv2
        * (1.0 / 12.0
            - inv2
                * (1.0 / 120.0
                    - inv2 * (1.0 / 252.0 - inv2 * (1.0 / 240.0 - inv2 * (1.0 / 132.0 - inv2 * (691.0 / 32760.0))))));
    correction + shifted.ln() - 0.5 * inv - series
}

/// The trigamma function `ψ'(x) = d² ln Γ(x)/dx²` for `x > 0` (NaN for `x <= 0` or NaN).
///
/// For `x >= 10`, the asymptotic series (DLMF 5.15.8)
/// `ψ'(x) = 1/x + 1/(2x²) + Σ_{k=1..7} B_{2k} / x^{2k+1}`, whose truncation error is below the
/// first omitted term, `|B₁₆|/x¹⁷ = 7.09/x¹⁷ < 1e-16` at `x = 10`; below, the recurrence
/// `ψ'(x) = ψ'(x+1) + 1/x²`. Used for the curvature of the negative binomial's log-likelihood in
/// its shape (`d²/dr² ln Γ(y + r)/Γ(r) = ψ'(y + r) − ψ'(r)`).
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let (mut shifted, mut correction) = (x, 0.0);
    while shifted < DIGAMMA_MIN {
        correction += 1.0 / (shifted * shifted);
        shifted += 1.0;
    }
    if shifted.is_infinite() {
        return correction;
    }
    let inv = 1.0 / shifted;
    let inv2 = inv * inv;
    // B₂ = 1/6, B₄ = −1/30, B₆ = 1/42, B₈ = −1/30, B₁₀ = 5/66, B₁₂ = −691/2730, B₁₄ = 7/6
    let series = inv2
        * inv
        * (1.0 / 6.0
            - inv2
                * (1.0 / 30.0
                    - inv2
                        * (1.0 / 42.0
                            - inv2 * (1.0 / 30.0 - inv2 * (5.0 / 66.0 - inv2 * (691.0 / 2730.0 - inv2 * 7.0 / 6.0))))));
    correction + inv + 0.5 * inv2 + series
}

/// `ln k! = ln Γ(k + 1)`, from a table made once by [`ln_gamma`] for `k < 1024` (the same value to
/// the bit), by [`ln_gamma`] above: for sums over many counts, most of them small.
pub fn ln_factorial(k: u64) -> f64 {
    match usize::try_from(k).ok().and_then(|i| LN_FACTORIALS.get(i)) {
        Some(&value) => value,
        None => ln_gamma(k as f64 + 1.0),
    }
}

/// `ln k!` for `k < 1024`.
static LN_FACTORIALS: std::sync::LazyLock<Vec<f64>> =
    std::sync::LazyLock::new(|| (0..1024).map(|k| ln_gamma(k as f64 + 1.0)).collect());

/// `ln Γ(x + a) − ln Γ(a)` for `x ≥ 0`, `a > 0`, without the cancellation of two large
/// `ln Γ` when `a` is large: for `a ≥ 10`, by Stirling's formula with its remainder `c`,
/// `(a − ½) ln(1 + x/a) + x ln(x + a) − x + c(x + a) − c(a)`, whose terms are of the size of the
/// result; below, `ln Γ(a)` is small and the difference is taken directly. (The negative
/// binomial's `Γ(y + r)/Γ(r)` with a large shape `r`.)
pub fn ln_gamma_ratio(x: f64, a: f64) -> f64 {
    if a < STIRLING_MIN || x == 0.0 {
        return if x == 0.0 { 0.0 } else { ln_gamma(x + a) - ln_gamma(a) };
    }
    (a - 0.5) * (x / a).ln_1p() + x * (x + a).ln() - x + stirling_correction(x + a) - stirling_correction(a)
}

/// `c(x) = ln Γ(x) − [(x−½) ln x − x + ½ ln 2π]`, the remainder of Stirling's formula — equal to
/// Loader's (2000) `stirlerr(x−1)`. Series for `x >= 10`, directly below (where it is of order 1).
pub(crate) fn stirling_correction(x: f64) -> f64 {
    if x >= STIRLING_MIN { stirling_series(x) } else { ln_gamma(x) - ((x - 0.5) * x.ln() - x + HALF_LN_2PI) }
}

/// `φ(t) = t − ln(1+t) >= 0` for `t > −1`, without cancellation near 0 (see [`phi_and_ln1p`]).
pub(crate) fn t_minus_ln1p(t: f64) -> f64 {
    phi_and_ln1p(t).0
}

/// Loader's (2000) deviance term `bd0(x, μ) = x ln(x/μ) + μ − x` for `x > 0`, as `x·φ((μ−x)/x)`:
/// of the size of the result, with no large terms to cancel. `+∞` when `μ = 0`. It is also
/// `KL(Pois(x) ‖ Pois(μ))`, the loss of §5 of Schein et al. (2019). When `μ/x` overflows (a
/// subnormal `x`, as semi-synthetic rates floored at the smallest double give), the terms no longer
/// cancel and the direct form `μ − x + x (ln x − ln μ)` is exact to rounding. Where `μ ≪ x` it
/// loses digits (`1 + t = μ/x` carries the rounding of `t`: relative error about `2·10⁻⁹` at
/// `x = 1023`, `μ = 10⁻⁶`); the direct form would fix that, but it moves committed results in
/// their last digits (the Fig. 4 base file, the saved single-chain run), so it waits for a change
/// that re-makes them.
pub fn bd0(x: f64, mean: f64) -> f64 {
    let t = (mean - x) / x;
    if t.is_infinite() && mean.is_finite() {
        return mean - x + x * (x.ln() - mean.ln());
    }
    x * t_minus_ln1p(t)
}

/// `(φ(t), ln(1+t))` together. With `v = t/(2+t)`, `ln(1+t) = 2 atanh v = 2(v + S)` and
/// `φ(t) = t·v − 2S`, `S = Σ_{j>=1} v^{2j+1}/(2j+1)`: for `|v| < 0.1` both come from that one series
/// (summed until its terms fall below `1e-17` of it), without a logarithm; farther out one `ln_1p`
/// serves both.
pub(crate) fn phi_and_ln1p(t: f64) -> (f64, f64) {
    let v = t / (2.0 + t);
    if v.abs() >= 0.1 {
        let ln1p = t.ln_1p();
        return (t - ln1p, ln1p);
    }
    let v2 = v * v;
    let (mut power, mut series) = (v * v2, 0.0);
    for inverse_odd in INVERSE_ODD {
        let term = power * inverse_odd;
        series += term;
        if term.abs() <= 1e-17 * series.abs() {
            break;
        }
        power *= v2;
    }
    (t * v - 2.0 * series, 2.0 * (v + series))
}

/// `1/(2j+1)` for `j = 1..=8`: with `|v| < 0.1` eight terms reach `v^17 < 1e-17`.
const INVERSE_ODD: [f64; 8] =
    [1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0, 1.0 / 13.0, 1.0 / 15.0, 1.0 / 17.0];

/// Stirling's formula with its series, for `x >= 10`.
fn stirling(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::INFINITY;
    }
    (x - 0.5) * x.ln() - x + HALF_LN_2PI + stirling_series(x)
}

/// `Σ_{k=1..6} B_{2k} / (2k(2k−1) x^{2k−1})` (coefficients 1/12, −1/360, 1/1260, −1/1680, 1/1188,
/// −691/360360).
fn stirling_series(x: f64) -> f64 {
    let r = x.recip();
    let r2 = r * r;
    r * (1.0 / 12.0
        + r2 * (-1.0 / 360.0
            + r2 * (1.0 / 1260.0 + r2 * (-1.0 / 1680.0 + r2 * (1.0 / 1188.0 + r2 * (-691.0 / 360_360.0))))))
}

#[cfg(test)]
mod tests {
    use super::{ln_factorial, ln_gamma, ln_gamma_ratio};

    /// The table and the function agree to the bit, on both sides of the table's end.
    #[test]
    fn ln_factorial_is_ln_gamma_of_k_plus_one() {
        for k in 0..1100_u64 {
            assert_eq!(ln_factorial(k).to_bits(), ln_gamma(k as f64 + 1.0).to_bits(), "{k}");
        }
        assert_eq!(ln_factorial(0), 0.0);
        assert!((ln_factorial(5) - 120_f64.ln()).abs() < 1e-14);
    }

    /// Against exact `ln n! = Σ ln k` (compensated) for n up to 10⁵: relative error ≤ 4e-16·max(1, …),
    /// absolute ≤ 2e-15 where the value is near 0 (n = 1, 2).
    #[test]
    fn integer_arguments_match_log_factorials() {
        let (mut sum, mut c) = (0.0f64, 0.0f64);
        for n in 1..=100_000u32 {
            // ln Γ(n) = ln (n−1)!
            let err = (ln_gamma(f64::from(n)) - (sum + c)).abs();
            assert!(err <= 2e-15 * (sum + c).abs().max(1.0), "n = {n}: error {err:e}");
            let x = f64::from(n).ln();
            let t = sum + x;
            c += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
            sum = t;
        }
    }

    /// `ln Γ(1) = ln Γ(2) = 0` exactly, and around 1 and 2 the result is accurate in **relative**
    /// terms (40-digit `mpmath.loggamma` at the f64 value of each argument): ≤ 4e-16 relative at 1 ± 1e-8, 2 − 1e-6
    /// and across the series' intervals, where the shift route had only absolute accuracy
    /// (1.8e-15 at 1, i.e. infinite relative error).
    #[test]
    #[allow(clippy::excessive_precision)] // 20-digit reference values
    fn zeros_at_one_and_two_are_exact_and_relatively_accurate_nearby() {
        assert_eq!(ln_gamma(1.0), 0.0);
        assert_eq!(ln_gamma(2.0), 0.0);
        for (x, exact) in [
            (1.000_000_01, -5.772_156_531_688_512_19e-9),
            (1.999_999, -4.227_840_125_965_853_701_9e-7),
            (0.9, 0.066_376_239_734_742_954_426),
            (1.1, -0.049_872_441_259_839_761_785),
            (0.75, 0.203_280_951_431_295_371_48),
            (1.25, -0.098_271_836_421_813_161_464),
            (1.75, -0.084_401_121_020_485_555_958),
            (1.8, -0.071_083_872_914_372_154_332),
            (2.2, 0.096_947_466_790_638_873_178),
            (2.25, 0.124_871_714_892_396_594_3),
        ] {
            let rel = (ln_gamma(x) / exact - 1.0).abs();
            assert!(rel <= 4e-16, "x = {x}: {} vs {exact}, relative error {rel:e}", ln_gamma(x));
        }
        // Continuous across the interval edges: the two routes meet within the shift route's
        // error (the step over 2e-12 is ψ·2e-12, to first order).
        for edge in [0.75f64, 1.25, 1.75, 2.25] {
            let (below, above) = (edge - 1e-12, edge + 1e-12);
            let step = ln_gamma(above) - ln_gamma(below) - super::digamma(edge) * (above - below);
            assert!(step.abs() < 1e-14, "edge {edge}: {step:e}");
        }
    }

    /// Against 30-digit values (`tests/data/ln_gamma_reference.csv`, made by
    /// `tools/reference/make_bessel_reference.py`) over 1e-6 .. 1e12. For `x >= 10`: relative error
    /// ≤ 2e-15 (a few ulps). Below 10 the shift computes `ln Γ(x+k) − ln(x(x+1)…)` with `x+k ∈ [10, 11)`,
    /// both terms up to 15 in size: about five ulps of 15 of rounding (8.9e-15) however small the
    /// result. statrs' Lanczos, for comparison, is off by 3.3e-15 at x = 0.376.
    /// `ψ` against exact values — `ψ(n) = H_{n−1} − γ`, `ψ(½) = −γ − 2 ln 2`, `ψ(n+½) = ψ(½) + Σ 2/(2k−1)` —
    /// and against statrs' implementation elsewhere: absolute error ≤ 4e-15·max(1, |ψ|).
    #[test]
    fn digamma_matches_exact_values() {
        use super::digamma;
        const EULER: f64 = 0.577_215_664_901_532_9;
        let check = |x: f64, exact: f64| {
            let err = (digamma(x) - exact).abs();
            assert!(err <= 4e-15 * exact.abs().max(1.0), "x = {x}: {} vs {exact}, error {err:e}", digamma(x));
        };
        let (mut harmonic, mut half) = (0.0, -EULER - 2.0 * std::f64::consts::LN_2);
        for n in 1..=2000u32 {
            check(f64::from(n), harmonic - EULER);
            check(f64::from(n) - 0.5, half);
            harmonic += 1.0 / f64::from(n);
            half += 2.0 / (2.0 * f64::from(n) - 1.0);
        }
        for x in [1e-8, 1e-3, 0.3, 2.7, 9.99, 10.0, 13.1, 1e3, 1e9] {
            let reference = statrs::function::gamma::digamma(x);
            assert!((digamma(x) - reference).abs() <= 1e-13 * reference.abs().max(1.0), "x = {x}");
        }
        assert!(digamma(0.0).is_nan() && digamma(-1.0).is_nan() && digamma(f64::NAN).is_nan());
        assert_eq!(digamma(f64::INFINITY), f64::INFINITY);
    }

    /// `ψ'` against exact values — `ψ'(1) = π²/6`, `ψ'(½) = π²/2`, `ψ'(x+1) = ψ'(x) − 1/x²`, for
    /// `x` up to 100 — and against a central difference of [`digamma`] (step `1e-4 x`, whose error
    /// is of order `1e-8` relative). Absolute error ≤ 1e-13 on the exact values (the reference
    /// itself rounds at each of its ≤ 100 subtractions of terms below 5: ≤ 5.5e-14), relative
    /// error ≤ 1e-6 on the differences.
    #[test]
    fn trigamma_matches_exact_values_and_the_derivative_of_digamma() {
        use super::{digamma, trigamma};
        let pi2 = std::f64::consts::PI * std::f64::consts::PI;
        let (mut at_n, mut at_half) = (pi2 / 6.0, pi2 / 2.0);
        for n in 1..=100u32 {
            let x = f64::from(n);
            assert!((trigamma(x) - at_n).abs() <= 1e-13, "x = {x}: {} vs {at_n}", trigamma(x));
            assert!((trigamma(x - 0.5) - at_half).abs() <= 1e-13, "x = {}", x - 0.5);
            at_n -= 1.0 / (x * x);
            at_half -= 1.0 / ((x - 0.5) * (x - 0.5));
        }
        for x in [1e-3, 0.3, 2.7, 9.99, 10.0, 13.1, 1e3, 1e6] {
            let h = 1e-4 * x;
            let difference = (digamma(x + h) - digamma(x - h)) / (2.0 * h);
            assert!((trigamma(x) - difference).abs() <= 1e-6 * trigamma(x), "x = {x}: {} vs {difference}", trigamma(x));
        }
        assert!(trigamma(0.0).is_nan() && trigamma(-1.0).is_nan() && trigamma(f64::NAN).is_nan());
        assert_eq!(trigamma(f64::INFINITY), 0.0);
    }

    /// φ(t) = t − ln(1+t) against its definition where that is well conditioned, and against
    /// its Taylor series near 0.
    #[test]
    fn t_minus_ln1p_is_accurate() {
        use super::t_minus_ln1p;
        for t in [-0.9, -0.5, 0.3, 0.5, 2.0, 1e3] {
            let direct: f64 = t - f64::ln_1p(t);
            assert!((t_minus_ln1p(t) / direct - 1.0).abs() < 1e-14, "t = {t}");
        }
        // Σ_{j=2..12} (−1)^j t^j / j; truncation error below 2|t|^11/13 relative (< 1e-15 here).
        for t in [1e-8f64, -1e-5, 3e-3, -0.02, 0.05] {
            let series: f64 = (2..=12).map(|j| (-t).powi(j) / f64::from(j)).sum();
            assert!((t_minus_ln1p(t) / series - 1.0).abs() < 1e-14, "t = {t}");
        }
        assert_eq!(t_minus_ln1p(0.0), 0.0);
        // the ln(1+t) that comes with it, on both sides of the switch to the series (|v| = 0.1)
        for t in [-0.5, -0.18, -0.1, -1e-3, 1e-9, 0.01, 0.2, 0.23, 5.0] {
            let (_, ln1p) = super::phi_and_ln1p(t);
            assert!((ln1p - f64::ln_1p(t)).abs() <= 2.0 * f64::EPSILON * f64::ln_1p(t).abs(), "t = {t}");
        }
    }

    const ULP_OF_15: f64 = 8.0 * f64::EPSILON; // spacing of doubles in [8, 16)

    #[test]
    fn real_arguments_match_reference() {
        let table = include_str!("../tests/data/ln_gamma_reference.csv");
        for line in table.lines().skip(1) {
            let (x, v) = line.split_once(',').expect("two columns");
            let (x, v): (f64, f64) = (x.parse().expect("number"), v.parse().expect("number"));
            let err = (ln_gamma(x) - v).abs();
            let bound = if x >= 10.0 { 2e-15 * v.abs() } else { 5.0 * ULP_OF_15 };
            assert!(err <= bound, "x = {x}: {} vs {v}, error {err:e} > {bound:e}", ln_gamma(x));
        }
        assert!(ln_gamma(0.0).is_nan() && ln_gamma(-1.0).is_nan() && ln_gamma(f64::NAN).is_nan());
        assert_eq!(ln_gamma(f64::INFINITY), f64::INFINITY);
    }

    /// `ln Γ(x + a) − ln Γ(a)` against the exact `Σ_{i<x} ln(a + i)` for integer `x`, where the
    /// direct difference of two `ln Γ` of about 2·10¹⁰ has lost five digits.
    #[test]
    fn ln_gamma_ratio_keeps_its_digits_at_large_arguments() {
        for &a in &[0.05, 3.5, 10.0, 250.0, 1e4, 1e9] {
            for x in [0u32, 1, 2, 7, 40, 300] {
                let exact: f64 = (0..x).map(|i| (a + f64::from(i)).ln()).sum();
                let got = ln_gamma_ratio(f64::from(x), a);
                assert!((got - exact).abs() <= 1e-13 * exact.abs().max(1.0), "a {a} x {x}: {got} vs {exact}");
            }
        }
    }
}
