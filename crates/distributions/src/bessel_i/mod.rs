//! The modified Bessel function of the first kind in log scale, `ln I_ν(a)`, and the ratio
//! `I_{ν+1}(a) / I_ν(a)`, for real order `ν >= 0` and argument `a > 0`.
//!
//! `I_ν(a) = Σ_{n>=0} (a/2)^{2n+ν} / (n! Γ(n+ν+1))` (eq. 44 of Schein et al. 2019, appendix E).
//! It overflows `f64` already at `a ≈ 710`; the Bessel and Skellam distributions need it at
//! `a = 1e6` and `ν = 1e5`, so everything here works with logarithms and never forms `I_ν` itself.
//!
//! Three methods, chosen by where the terms of the series above concentrate (they are the
//! unnormalized Bessel pmf, centred on its mode `m` with spread `σ ≈ (1/(m+1) + 1/(m+ν+1))^{-1/2}`):
//! * `σ <= 8`: the series itself, summed outward from its largest term (all terms positive: no
//!   cancellation; a few hundred terms at most);
//! * `ν >= 20`: the Debye uniform asymptotic expansion (DLMF 10.41.3) with 13 terms;
//! * otherwise (`ν < 20`, so `a > 250`): Hankel's large-argument expansion (DLMF 10.40.1).
//!
//! Accuracy, checked against 50-digit values in `tests/data/bessel_reference.csv`
//! (made by `tools/reference/make_bessel_reference.py`): `|error| <= 1e-10 · max(1, |ln I_ν(a)|)`
//! over `ν ∈ [0, 1e5]`, `a ∈ [1e-10, 1e6]` — relative error of `ln I` where `|ln I| >= 1`, and
//! relative error of `I` itself below that.

mod debye_coefficients;

use crate::ln_gamma::ln_gamma;
use debye_coefficients::{DEBYE_ORDER, DEBYE_U};

const LN_2PI: f64 = 1.837_877_066_409_345_5;
/// The series is summed directly when its spread is at most this (cost: about `20σ + 20` terms).
const SERIES_MAX_SPREAD: f64 = 8.0;
/// Orders at or above this use the Debye expansion; its truncation error is about `|U_13| / ν^13`.
const DEBYE_MIN_ORDER: f64 = 20.0;

/// `ln I_ν(a)`. Returns NaN unless `ν >= 0` and `a >= 0` are finite; `ln I_ν(0)` is `0` for
/// `ν = 0` and `-∞` otherwise. On the series route the value is returned as summed (not scaled by
/// `e^{-a}` and back, which would cost tiny values such as `ln I_0(1e-8) ≈ 2.5e-17` their relative
/// accuracy).
pub fn ln_bessel_i(nu: f64, a: f64) -> f64 {
    match series_mode(nu, a) {
        Some(m) => ln_series(nu, a, m),
        None => ln_bessel_i_scaled(nu, a) + a,
    }
}

/// `ln(I_ν(a) e^{-a})`, the exponentially scaled form: it stays of moderate size when `a` is huge,
/// which lets the Skellam log-pmf avoid cancelling `-(μ₁+μ₂)` against `2√(μ₁μ₂)`.
pub fn ln_bessel_i_scaled(nu: f64, a: f64) -> f64 {
    if !(nu.is_finite() && a.is_finite() && nu >= 0.0 && a >= 0.0) {
        return f64::NAN;
    }
    if a == 0.0 {
        return if nu == 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if let Some(m) = series_mode(nu, a) {
        ln_series(nu, a, m) - a
    } else if nu >= DEBYE_MIN_ORDER {
        ln_debye_scaled(nu, a)
    } else {
        ln_hankel_scaled(nu, a)
    }
}

/// The mode `m` of the series when the series route applies (finite `ν >= 0`, `a > 0`, spread at
/// most [`SERIES_MAX_SPREAD`]); `None` otherwise.
fn series_mode(nu: f64, a: f64) -> Option<f64> {
    if !(nu.is_finite() && a.is_finite() && nu >= 0.0 && a > 0.0) {
        return None;
    }
    let m = bessel_mode(nu, a) as f64;
    let spread = (1.0 / (m + 1.0) + 1.0 / (m + nu + 1.0)).sqrt().recip();
    (spread <= SERIES_MAX_SPREAD).then_some(m)
}

/// The mode of the Bessel distribution `Bes(ν, a)`, equivalently the index of the largest term of
/// the series of `I_ν(a)`: the largest integer `n` with `n(n+ν) <= (a/2)²`, i.e.
/// `⌊(√(a²+ν²) − ν)/2⌋` (appendix C of Schofield et al.). Evaluated in the cancellation-free form
/// `a² / (2(√(a²+ν²) + ν))`, then corrected by exact integer comparisons so that ties and rounding
/// can never put it off by one.
pub(crate) fn bessel_mode(nu: f64, a: f64) -> u64 {
    let h2 = 0.25 * a * a;
    // √(a²+ν²) without libm's hypot (a fifth of a private Gibbs step's time) where the squares
    // cannot overflow.
    let root = if a < 1e150 && nu < 1e150 { (a * a + nu * nu).sqrt() } else { a.hypot(nu) };
    let approx = a / (root + nu) * (0.5 * a);
    if approx.is_nan() || approx >= EXACT_INTEGERS {
        // Beyond 2^52 consecutive integers are not all doubles and the ±1 correction means nothing
        // (and (a/2)² may overflow); the cancellation-free formula is as exact as f64 allows.
        return if approx.is_finite() { approx as u64 } else { u64::MAX };
    }
    // `approx` is finite, positive and below 2^52 here, where truncation is the floor (and
    // needs no libm call on the baseline x86-64 target).
    let mut m = approx as u64;
    while m > 0 && (m as f64) * (m as f64 + nu) > h2 {
        m -= 1;
    }
    while ((m + 1) as f64) * ((m + 1) as f64 + nu) <= h2 {
        m += 1;
    }
    m
}

/// 2^52: below it every integer is a double and `n + 1` is the next one.
const EXACT_INTEGERS: f64 = 4_503_599_627_370_496.0;

/// The series summed outward from its largest term `t_m = (a/2)^{2m+ν} / (m! Γ(m+ν+1))`:
/// `ln I = ln t_m + ln(1 + Σ_{n≠m} t_n/t_m)`.
fn ln_series(nu: f64, a: f64, m: f64) -> f64 {
    let ln_top = (2.0 * m + nu) * (0.5 * a).ln() - ln_gamma(m + 1.0) - ln_gamma(m + nu + 1.0);
    ln_top + series_rest(nu, a, m).ln_1p()
}

/// `Σ_{n≠m} t_n/t_m` for the series of `I_ν(a)` around its largest term `m`, with the exact ratios
/// `t_{n+1}/t_n = (a/2)² / ((n+1)(n+ν+1))`, until the terms fall below `1e-17` of the sum: all terms
/// are positive, so nothing cancels. About `20σ` terms.
pub(crate) fn series_rest(nu: f64, a: f64, m: f64) -> f64 {
    let h2 = 0.25 * a * a;
    let mut rest = 0.0;
    let (mut t, mut n) = (1.0f64, m);
    loop {
        t *= h2 / ((n + 1.0) * (n + nu + 1.0));
        n += 1.0;
        rest += t;
        if t < 1e-17 * (1.0 + rest) {
            break;
        }
    }
    let (mut t, mut n) = (1.0f64, m);
    while n > 0.0 {
        t *= n * (n + nu) / h2;
        n -= 1.0;
        rest += t;
        if t < 1e-17 * (1.0 + rest) {
            break;
        }
    }
    rest
}

/// Debye's uniform expansion (DLMF 10.41.3), scaled by `e^{-a}`:
/// `ln I_ν(νz) − a = νη − a − ½ln(2πν) + ½ln p + ln Σ_k U_k(p)/ν^k`, with `p = (1+z²)^{-1/2}` and
/// `νη − a = ν²/(√(ν²+a²) + a) − ν·asinh(ν/a)` written so that nothing cancels.
fn ln_debye_scaled(nu: f64, a: f64) -> f64 {
    let root = nu.hypot(a);
    let p = nu / root;
    let p2 = p * p;
    let mut sum = 0.0;
    let (mut p_k, mut nu_k) = (1.0, 1.0); // p^k and ν^k
    for coeffs in DEBYE_U.iter().take(DEBYE_ORDER + 1) {
        let poly = coeffs.iter().rev().fold(0.0, |acc, c| acc * p2 + c);
        sum += p_k * poly / nu_k;
        p_k *= p;
        nu_k *= nu;
    }
    nu * nu / (root + a) - nu * (nu / a).asinh() - 0.5 * (LN_2PI + nu.ln()) + 0.5 * p.ln() + sum.ln()
}

/// Hankel's expansion for large argument (DLMF 10.40.1), scaled by `e^{-a}`:
/// `ln I_ν(a) − a = −½ln(2πa) + ln Σ_k (−1)^k a_k(ν)/a^k`,
/// `a_k(ν) = Π_{j=1..k} (4ν² − (2j−1)²) / (8j)`. The exponentially small second part of
/// 10.40.1 is below `e^{-2a}` relative, negligible for the `a > 250` where this is used. The
/// terms are summed while they shrink, until they fall below `1e-17` of the sum.
fn ln_hankel_scaled(nu: f64, a: f64) -> f64 {
    let mu = 4.0 * nu * nu;
    let (mut term, mut rest) = (1.0f64, 0.0f64);
    for k in 1..200 {
        let j = f64::from(k);
        let next = -term * (mu - (2.0 * j - 1.0).powi(2)) / (8.0 * j * a);
        if next.abs() >= term.abs() {
            break; // the asymptotic series has started to diverge
        }
        term = next;
        rest += term;
        if term.abs() < 1e-17 {
            break;
        }
    }
    -0.5 * (LN_2PI + a.ln()) + rest.ln_1p()
}

/// `R_ν(a) = I_{ν+1}(a) / I_ν(a)`, computed without forming either function.
///
/// Backward recurrence of Gauss's continued fraction, `R_{k−1} = 1 / (2k/a + R_k)` (from
/// `I_{k−1} − I_{k+1} = (2k/a) I_k`, DLMF 10.29.1), started at an order `N > ν` from the
/// midpoint of the bounds `a/(k+1+√(a²+(k+1)²)) <= R_k <= a/(k+√(a²+k²))` (Amos 1974,
/// quoted in appendix C of Schofield et al.). Each step multiplies the error of the start value by
/// `R²`, so `N` is taken where `Π R_k² < 1e-16`: this is stable (only positive terms are added)
/// and exact to rounding, at a cost of `O(min(a/ν, √a))` steps (about 6,000 at `a = 1e6, ν = 0`).
/// Returns NaN outside `ν >= 0`, `a > 0` finite.
pub fn bessel_ratio(nu: f64, a: f64) -> f64 {
    if !(nu.is_finite() && a.is_finite() && nu >= 0.0 && a > 0.0) {
        return f64::NAN;
    }
    let upper = |k: f64| a / (k + a.hypot(k));
    // Pass 1: how many steps up must we start for the start value's error to damp away?
    let (mut steps, mut damping) = (0u32, 0.0);
    while damping < 37.0 {
        damping -= 2.0 * upper(nu + f64::from(steps)).ln();
        steps += 1;
    }
    // Pass 2: recur back down from R_{ν+steps} to R_ν.
    let top = nu + f64::from(steps);
    let mut r = 0.5 * (upper(top) + a / (top + 1.0 + a.hypot(top + 1.0)));
    for j in (1..=steps).rev() {
        r = 1.0 / (2.0 * (nu + f64::from(j)) / a + r);
    }
    r
}
