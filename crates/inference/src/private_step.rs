//! The per-entry step of the locally private sampler: resample the true count `y_n` and the
//! noise auxiliaries given the released `ỹ_n`, the rate `μ_n` and `λ_n` (eqs. 12–16 of Schein et
//! al. 2019).

use distributions::{Bessel, Binomial, Erlang, ParamError};
use rand::{Rng, RngExt};

/// One entry's auxiliary state: the exponential rates `λ_n1, λ_n2` of the two geometric noise
/// halves and the Poisson counts `g_n1, g_n2` they generated (`τ_n = g_n1 − g_n2`, Theorem 3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseAux {
    pub lambda: [f64; 2],
    pub g: [u64; 2],
}

/// The rate of the conditional `λ_nl | g_nl ~ Gamma(1 + g_nl, rate)`.
///
/// Prior: `λ ~ Exp` with **mean** `α/(1−α)`, i.e. `Gamma(shape 1, rate (1−α)/α)` (Theorem 3.1).
/// Likelihood: `g ~ Pois(λ)`, a factor `λ^g e^{−λ}`. Posterior:
/// `λ^{g} e^{−λ((1−α)/α + 1)}`, i.e. `Gamma(1 + g, rate (1−α)/α + 1 = 1/α)`.
/// (The typeset eq. 16 prints `α/(1−α) + 1`, which agrees only at `α = 1/2`; the Geweke test of
/// the private samplers rejects it — see `wrong_lambda_rate_is_rejected` in `src/geweke/tests.rs` of this crate.)
pub fn lambda_posterior_rate(alpha: f64) -> f64 {
    1.0 / alpha
}

/// Resamples one entry with noise level `α > 0`, in the paper's order:
/// 1. `m ~ Bes(|ỹ|, 2√((λ₁ + μ) λ₂))` (eq. 12), the minimum of `ỹ⁺ = y + g₁` and `g₂`;
/// 2. the deterministic split (eqs. 13–14): if `ỹ ≤ 0`, `ỹ⁺ = m`, `g₂ = m − ỹ`; else `g₂ = m`,
///    `ỹ⁺ = m + ỹ`;
/// 3. `y ~ Binom(ỹ⁺, μ/(μ + λ₁))` (eq. 15), `g₁ = ỹ⁺ − y`;
/// 4. `λ_l ~ Gamma(1 + g_l, rate)` with `rate = lambda_rate(α)` ([`lambda_posterior_rate`]).
///
/// Returns the new `y`; `aux` is updated in place. Errors only if a parameter leaves the range
/// the samplers accept (a Bessel argument beyond 1e15: counts and rates around 1e29).
///
/// Always inlined, as are the one-off draws it makes: in binaries with many callers of these
/// generic functions (the benchmarks, `lppf`) the compiler kept them out of line, and the calls'
/// register spills cost about 6 % of a private topic sweep (issue 21, BENCHMARKS.md).
#[inline(always)]
pub fn resample_entry<R: Rng + ?Sized>(
    released: i64,
    mu: f64,
    lambda_rate: f64,
    aux: &mut NoiseAux,
    rng: &mut R,
) -> Result<u64, ParamError> {
    let [lambda1, lambda2] = aux.lambda;
    // (a/2)² = (λ₁ + μ)λ₂; a = 0 gives m = 0 (as does a NaN, which rates of finite factors never are).
    let half_a_squared = (lambda1 + mu) * lambda2;
    let m = if half_a_squared > 0.0 {
        Bessel::sample_once_squared(released.unsigned_abs() as f64, half_a_squared, rng)?
    } else {
        0
    };
    let (plus, g2) = if released <= 0 { (m, m + released.unsigned_abs()) } else { (m + released as u64, m) };
    let denominator = mu + lambda1;
    let p = if denominator > 0.0 { (mu / denominator).min(1.0) } else { 0.0 };
    let y = if plus == 0 { 0 } else { Binomial::sample_once(plus, p, rng)? };
    let g = [plus - y, g2];
    for (lambda, &g_l) in aux.lambda.iter_mut().zip(&g) {
        *lambda = Erlang::sample_once(1 + g_l, lambda_rate, rng)?;
    }
    aux.g = g;
    Ok(y)
}

/// Terms of the collapsed conditional below this fraction of its largest term are dropped
/// (`2⁻⁶⁰`): the dropped mass is then below `2⁻⁶⁰` of the total, under the resolution of the
/// 53-bit uniform that picks the draw.
pub const COLLAPSED_TAIL: f64 = 1.0 / (1u64 << 60) as f64;

/// Rates above this are refused by the collapsed step (its work grows with `√μ`; counts of
/// `10¹⁵` are far outside any release).
pub const COLLAPSED_MAX_RATE: f64 = 1e15;

/// The collapsed private step (docs/inference.md, "The collapsed private step"): one exact draw
/// of the true count from `p(y | ỹ, μ, α)`, with the noise auxiliaries of eqs. 12–16 integrated
/// out. `τ = ỹ − y ~ 2Geo(α)` has pmf `∝ α^{|τ|}` (eq. 5), so
///
/// `p(y | ỹ, μ, α) ∝ Pois(y; μ) α^{|ỹ − y|}`, `y = 0, 1, …`:
///
/// `Pois(αμ)` when `ỹ ≤ 0`; otherwise `Pois(μ/α)` on `{0, …, ỹ}` and `Pois(αμ)` on
/// `{ỹ + 1, …}`, joined at `ỹ`. The pmf is log-concave (a Poisson times `α^{|·|}`, whose log is
/// concave), so its terms relative to the mode `m` follow from the neighbour ratios
///
/// `t_{y+1}/t_y = μ/(y+1) · α^{∓1}` (`y + 1 ≤ ỹ`: `1/α`; else `α`),
///
/// which decrease away from the mode. A narrow conditional is drawn by inverting, with one
/// uniform, the cumulative sum over the window where the terms exceed [`COLLAPSED_TAIL`] of the
/// mode's (the tails beyond, bounded by geometric series, are dropped), visiting the window
/// outward from the mode: neighbour ratios only, `O(√μ + 1/(1 − α))` terms whatever `ỹ`. A wide
/// one (mode of 8 or more, slowly falling terms) is drawn by rejection from a flat-topped envelope
/// with geometric tails, about 1.3 proposals each with one `ln Γ`. `μ = 0` gives `y = 0`.
///
/// Errors if `μ` is negative, not finite or above [`COLLAPSED_MAX_RATE`], or `α` is outside
/// `(0, 1)`.
#[inline(always)]
pub fn collapsed_count<R: Rng + ?Sized>(released: i64, mu: f64, alpha: f64, rng: &mut R) -> Result<u64, ParamError> {
    if !(mu.is_finite() && (0.0..=COLLAPSED_MAX_RATE).contains(&mu)) {
        let allowed = "a finite number in [0, 1e15]";
        return Err(ParamError { distribution: "collapsed private step", parameter: "mu", value: mu, allowed });
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        let allowed = "a number in (0, 1)";
        return Err(ParamError { distribution: "collapsed private step", parameter: "alpha", value: alpha, allowed });
    }
    Ok(two_pieces(released, mu, alpha, alpha, rng))
}

/// A draw from `∝ Pois(y; μ) a^{ỹ − y}` on `{0, …, ỹ}` and `∝ Pois(y; μ) b^{y − ỹ}` above (`a, b`
/// in `(0, 1)`): [`collapsed_count`] is `a = b = α`. Separate only so that a test can plant a
/// wrong upper piece.
#[inline(always)]
pub(crate) fn two_pieces<R: Rng + ?Sized>(released: i64, mu: f64, a: f64, b: f64, rng: &mut R) -> u64 {
    if mu == 0.0 {
        return 0;
    }
    // ỹ ≤ 0: the conditional is `∝ (bμ)^y / y!` on every y (at ỹ = 0 the lower piece is y = 0
    // alone, with weight 1), i.e. `Pois(bμ)`, whose mode ⌊bμ⌋ is below WIDE_MODE exactly when
    // bμ < WIDE_MODE. Decided before the window's constants, which this route does not need.
    if released <= 0 && b * mu < WIDE_MODE as f64 {
        return small_poisson(b * mu, rng);
    }
    // The largest y still on the lower piece (none when ỹ < 0).
    let kink = u64::try_from(released).ok();
    let mode = match kink {
        // (`as` truncates: the floor of a non-negative value, without a libm call.)
        Some(k) if mu / a < k as f64 => (mu / a) as u64,
        Some(k) if b * mu <= (k + 1) as f64 => k,
        _ => (b * mu) as u64,
    };
    let on_lower = |y: u64| kink.is_some_and(|k| y <= k);
    // t_{y+1}/t_y and t_{y−1}/t_y (y ≥ 1): products with four constants of the entry and a table
    // of 1/(y+1), not a division per term.
    let (mu_a, b_mu, a_mu, inv_b_mu) = (mu / a, b * mu, a / mu, 1.0 / (b * mu));
    let up = |y: u64| if on_lower(y + 1) { mu_a * reciprocal(y + 1) } else { b_mu * reciprocal(y + 1) };
    let down = |y: u64| if on_lower(y) { a_mu * y as f64 } else { y as f64 * inv_b_mu };
    // A wide conditional (the terms fall slowly on both sides of a mode beyond a few counts):
    // rejection, whose work does not grow with the window's 9 sd of tails.
    if mode >= WIDE_MODE && (up(mode) >= 0.5 || down(mode) >= 0.5) {
        let ln_term = |y: u64| {
            let y_f = y as f64;
            let noise = if on_lower(y) { (released as f64 - y_f) * a.ln() } else { (y_f - released as f64) * b.ln() };
            y_f * mu.ln() - distributions::ln_gamma(y_f + 1.0) + noise
        };
        return by_rejection(mode, &up, &down, &ln_term, rng);
    }
    // Pass 1: a short window [lo, hi] around the mode, the total of its terms (t_mode = 1), and
    // bounds on the mass beyond each end. The neighbour ratios fall away from the mode, so beyond
    // an end with term t and ratio q < 1 the terms sum to at most t q/(1 − q); a side stops once
    // that bound is below WINDOW_SLACK of the total so far.
    let mut total = 1.0;
    let (mut hi, mut t_hi) = (mode, 1.0);
    let beyond_hi = loop {
        let q = up(hi);
        let next = t_hi * q;
        if q < 1.0 && next < WINDOW_SLACK * total * (1.0 - q) {
            break next / (1.0 - q);
        }
        total += next;
        (hi, t_hi) = (hi + 1, next);
    };
    let (mut lo, mut t_lo) = (mode, 1.0);
    let mut beyond_lo = 0.0;
    while lo > 0 {
        let q = down(lo);
        let next = t_lo * q;
        if q < 1.0 && next < WINDOW_SLACK * total * (1.0 - q) {
            beyond_lo = next / (1.0 - q);
            break;
        }
        total += next;
        (lo, t_lo) = (lo - 1, next);
    }
    // Pass 2: invert `u ~ U(0, total + bounds)` — a total at least that of all terms — on the
    // cumulative sum, visiting the support outward from the mode (alternately above and below),
    // where the mass is: about 2 sd of terms on average. The window's terms are recomputed, and
    // the walk goes on past it on demand until a side's remaining terms are below
    // COLLAPSED_TAIL. A `u` beyond every term (probability at most the bounds' share, about
    // 2·WINDOW_SLACK) is drawn again, so the draw is exactly `∝ t_y`.
    let bound = total + beyond_hi + beyond_lo;
    loop {
        let u = rng.random::<f64>() * bound;
        let mut sum = 1.0;
        let (mut above, mut t_above, mut below, mut t_below) = (mode, 1.0, mode, 1.0);
        let (mut up_left, mut down_left) = (true, mode > 0);
        while sum <= u && (up_left || down_left) {
            if up_left {
                let q = up(above);
                t_above *= q;
                above += 1;
                sum += t_above;
                if sum > u {
                    return above;
                }
                up_left = !(q < 1.0 && t_above * q < COLLAPSED_TAIL * (1.0 - q));
            }
            if down_left {
                let q = down(below);
                t_below *= q;
                below -= 1;
                sum += t_below;
                if sum > u {
                    return below;
                }
                down_left = below > 0 && !(q < 1.0 && t_below * q < COLLAPSED_TAIL * (1.0 - q));
            }
        }
        if sum > u {
            return mode;
        }
    }
}

/// Pass 1 of the collapsed step's window stops a side once the mass beyond it is bounded by this
/// share of the window's total (`2⁻⁸`); pass 2 draws again in the rare case its uniform lands in
/// that slack.
const WINDOW_SLACK: f64 = 1.0 / 256.0;

/// `1/i` for `i < 256`, so that the collapsed step's neighbour ratios are products.
const RECIPROCALS: [f64; 256] = {
    let mut table = [0.0; 256];
    let mut i = 1;
    while i < 256 {
        table[i] = 1.0 / i as f64;
        i += 1;
    }
    table
};

/// `1/i` (`i ≥ 1`), from [`RECIPROCALS`] where it holds it.
#[inline(always)]
fn reciprocal(i: u64) -> f64 {
    match RECIPROCALS.get(i as usize) {
        Some(&r) => r,
        None => 1.0 / i as f64,
    }
}

/// `Pois(λ)` for `λ < 8` (the collapsed step when `ỹ ≤ 0`, whose conditional is `Pois(αμ)`, with
/// its mode below [`WIDE_MODE`]): sequential inversion of one uniform from 0 upward,
/// `p₀ = e^{−λ}`, `p_{y+1} = p_y λ/(y + 1)` — about `1 + λ` terms, no window (`e^{−8}` is far
/// from underflow). Rounding can leave `u` above every partial sum only within a few ulps of 1;
/// the walk then gives the mode `⌊λ⌋` once the terms fall below [`COLLAPSED_TAIL`] (on the
/// rising side they stay above `e^{−8}`).
#[inline(always)]
fn small_poisson<R: Rng + ?Sized>(lambda: f64, rng: &mut R) -> u64 {
    let u = rng.random::<f64>();
    // `y = 0` iff `u < e^{−λ}`; below a lower bound on `e^{−λ}` that is decided without `exp`
    // (`distributions::below_exp_minus`, for `λ ≤ 1`), with the same outcome: about 2 draws in 3
    // at `λ = 0.4`.
    if lambda <= 1.0 && u < distributions::below_exp_minus(lambda) {
        return 0;
    }
    let mut t = (-lambda).exp();
    let (mut y, mut sum) = (0u64, t);
    while sum <= u {
        y += 1;
        t *= lambda * reciprocal(y);
        if t < COLLAPSED_TAIL {
            return lambda as u64;
        }
        sum += t;
    }
    y
}

/// Modes below this are drawn by the window (few terms); at or above it, and when the terms fall
/// slowly (a neighbour ratio at the mode of 0.5 or more), by rejection ([`by_rejection`]).
const WIDE_MODE: u64 = 8;

/// A draw from the log-concave pmf with mode `mode`, neighbour ratios `up(y) = t_{y+1}/t_y`
/// and `down(y) = t_{y−1}/t_y` (falling away from the mode) and log terms `ln_term(y)` (up to a
/// constant), by rejection from a flat-topped envelope with geometric tails (the construction
/// for log-concave densities in Devroye 1986, "Non-Uniform Random Variate Generation", ch. VII):
///
/// - the breakpoints `lo ≤ mode ≤ hi` are the nearest points where the term has fallen to `e⁻¹`
///   of the mode's (or 0);
/// - on `[lo, hi]` the envelope is the mode's term, which bounds every term;
/// - above `hi` it is `t_hi q^j` with `q = up(hi)`, below `lo` it is `t_lo r^j` with
///   `r = down(lo)`: the ratios fall away from the mode, so `t_{hi+j} ≤ t_hi q^j`.
///
/// A proposal `y` is accepted with probability `t_y / envelope(y)`, computed from `ln_term`. For
/// a bell of width s the envelope's mass is about 1.3 times the pmf's, so a draw takes about 1.3
/// proposals, plus a walk of about 1.4 s neighbour ratios each side to place the breakpoints.
fn by_rejection<R: Rng + ?Sized>(
    mode: u64,
    up: &impl Fn(u64) -> f64,
    down: &impl Fn(u64) -> f64,
    ln_term: &impl Fn(u64) -> f64,
    rng: &mut R,
) -> u64 {
    let drop = (-1.0f64).exp();
    let (mut hi, mut t_hi) = (mode, 1.0);
    while t_hi > drop {
        t_hi *= up(hi);
        hi += 1;
    }
    let (mut lo, mut t_lo) = (mode, 1.0);
    while lo > 0 && t_lo > drop {
        t_lo *= down(lo);
        lo -= 1;
    }
    let (q, r) = (up(hi), if lo > 0 { down(lo) } else { 0.0 });
    let flat = (hi - lo + 1) as f64;
    let above = t_hi * q / (1.0 - q);
    let below = if lo > 0 { t_lo * r / (1.0 - r) } else { 0.0 };
    let ln_mode = ln_term(mode);
    loop {
        let x = rng.random::<f64>() * (flat + above + below);
        let (y, envelope) = if x < flat {
            (lo + (x as u64).min(hi - lo), 1.0)
        } else {
            // j ≥ 1 steps beyond the breakpoint, P(j) ∝ ratio^j, from a uniform in (0, 1].
            let (ratio, from_top) = if x < flat + above { (q, true) } else { (r, false) };
            let j = 1.0 + ((1.0 - rng.random::<f64>()).ln() / ratio.ln()).floor();
            let envelope = if from_top { t_hi } else { t_lo } * ratio.powf(j);
            match from_top {
                true if j < (u64::MAX - hi) as f64 => (hi + j as u64, envelope),
                false if j <= lo as f64 => (lo - j as u64, envelope),
                _ => continue,
            }
        };
        if rng.random::<f64>() * envelope < (ln_term(y) - ln_mode).exp() {
            return y;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::stream;

    fn run(released: i64, mu: f64, alpha: f64, lambda: [f64; 2], draws: usize) -> Vec<(u64, NoiseAux)> {
        let mut rng = stream(77, released.unsigned_abs());
        (0..draws)
            .map(|_| {
                let mut aux = NoiseAux { lambda, g: [0, 0] };
                let y = resample_entry(released, mu, lambda_posterior_rate(alpha), &mut aux, &mut rng).unwrap();
                (y, aux)
            })
            .collect()
    }

    /// Every draw satisfies the deterministic identity `ỹ = y + g₁ − g₂` and all values are valid.
    #[test]
    fn identity_holds_in_edge_cases() {
        let cases = [
            (-1_000_000, 1.0, 0.5, [0.5, 0.5]), // ỹ very negative
            (1_000_000, 1e6, 0.5, [0.5, 0.5]),  // ỹ very large
            (5, 1e-300, 0.5, [0.5, 0.5]),       // μ → 0
            (5, 0.0, 0.5, [0.5, 0.5]),          // μ = 0
            (-3, 2.0, 0.5, [1e-300, 1e-300]),   // λ → 0
            (3, 2.0, 0.5, [0.0, 0.0]),          // λ = 0 exactly
            (0, 0.0, 0.9, [0.0, 0.0]),          // nothing at all
        ];
        for (released, mu, alpha, lambda) in cases {
            for (y, aux) in run(released, mu, alpha, lambda, 200) {
                assert_eq!(y as i64 + aux.g[0] as i64 - aux.g[1] as i64, released, "case {released} {mu}");
                assert!(aux.lambda.iter().all(|l| l.is_finite() && *l >= 0.0));
            }
        }
    }

    /// With `μ → 0` no count can be attributed to the data: `y = 0`.
    #[test]
    fn zero_rate_means_zero_count() {
        assert!(run(7, 0.0, 0.5, [0.5, 0.5], 500).iter().all(|(y, _)| *y == 0));
    }

    /// With `λ₁ = λ₂ = 0` there is no noise: `m = 0` and `y = ỹ` for `ỹ ≥ 0`.
    #[test]
    fn no_noise_rates_mean_exact_counts() {
        assert!(run(9, 2.0, 0.5, [0.0, 0.0], 100).iter().all(|(y, aux)| *y == 9 && aux.g == [0, 0]));
    }

    /// Very negative ỹ: the minimum is `ỹ⁺`, which stays small (`≈ Pois(μ + λ₁)`), and `g₂`
    /// absorbs the rest.
    #[test]
    fn very_negative_release_gives_small_counts() {
        let draws = run(-1_000_000, 1.0, 0.5, [0.5, 0.5], 2000);
        let mean_y = draws.iter().map(|(y, _)| *y as f64).sum::<f64>() / 2000.0;
        // With λ₂ = 0.5 fixed, m | ỹ is near a²/(4|ỹ|) = (λ₁+μ)λ₂/|ỹ| ≈ 0: y is nearly always 0.
        assert!(mean_y < 0.01, "{mean_y}");
        assert!(draws.iter().all(|(_, aux)| aux.g[1] >= 1_000_000));
    }

    /// Very large ỹ with a matching rate: the count is ỹ up to the noise, and `λ₂`'s posterior is
    /// driven by `g₂ = m`.
    #[test]
    fn very_large_release_gives_large_counts() {
        let draws = run(1_000_000, 1e6, 0.5, [0.5, 0.5], 500);
        let mean_y = draws.iter().map(|(y, _)| *y as f64).sum::<f64>() / 500.0;
        assert!((mean_y - 1e6).abs() < 10.0, "{mean_y}");
    }

    /// `ln p(y | ỹ, μ, α)` normalized by brute force: `ln Pois(y; μ) + |ỹ − y| ln α` over
    /// `y` from 0 to 60 sd past `ỹ + αμ` (the lower piece ends at `ỹ`, the upper one is
    /// `Pois(αμ)` beyond it: past every case's mass), then log-sum-exp.
    fn collapsed_ln_pmf(released: i64, mu: f64, alpha: f64) -> impl Fn(i64) -> f64 {
        let ln_f = move |y: i64| {
            let ln_poisson = if mu == 0.0 {
                if y == 0 { 0.0 } else { f64::NEG_INFINITY }
            } else {
                y as f64 * mu.ln() - mu - distributions::ln_gamma(y as f64 + 1.0)
            };
            // Relative to |ỹ| so that ỹ = −10⁶ does not leave only −∞ terms.
            ln_poisson + ((released - y).abs() - released.abs()) as f64 * alpha.ln()
        };
        // The lower piece ends at ỹ; the upper one is Pois(αμ) beyond it.
        let widest = released.max(0) as f64 + alpha * mu;
        let upper = (widest + 60.0 * widest.sqrt() + 2_000.0) as i64;
        let terms: Vec<f64> = (0..upper).map(ln_f).collect();
        let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ln_total = top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln();
        move |y| if y < 0 { f64::NEG_INFINITY } else { ln_f(y) - ln_total }
    }

    /// The collapsed step against its exact conditional pmf, including the limits the issue
    /// names (ỹ ≪ 0, ỹ ≫ μ, μ → 0, α → 0, α → 1) and the three shapes (mode on the lower piece,
    /// at ỹ, on the upper piece), the typical entries of a dense release (ỹ ≤ 0 drawn as a
    /// Poisson by inversion, with and without the squeeze on `e^{−λ}`; small ỹ > 0 by the short
    /// window, whose slack is drawn again in about 1 draw in 200), and wide conditionals drawn by
    /// rejection. 20,000 draws per case, Pearson χ² at 1e-3 each: the twenty-two together have a
    /// false-alarm rate below 2.2 % (deterministic with fixed seeds).
    #[test]
    fn collapsed_step_matches_the_exact_conditional() {
        let cases = [
            (-1_000_000, 3.0, 0.5), // ỹ ≪ 0: Pois(αμ)
            (1_000_000, 2.0, 0.5),  // ỹ ≫ μ: Pois(μ/α) (truncation far away)
            (5, 1e-9, 0.5),         // μ → 0
            (3, 2.0, 1e-9),         // α → 0: y = ỹ
            (3, 2.0, 1.0 - 1e-9),   // α → 1: Pois(μ)
            (40, 30.0, 0.7),        // mode at ỹ
            (0, 5.0, 0.3),          // ỹ = 0
            (7, 7.0, 0.5),          // mode at ỹ, both pieces weighty
            (2, 50.0, 0.9),         // mode on the upper piece
            (30, 2.0, 0.9),         // mode on the lower piece
            (400, 420.0, 0.2),      // larger counts
            (-3, 0.5, 0.95),        // heavy noise
            (-2, 0.8, 0.5),         // ỹ < 0, αμ ≤ 1: the squeeze decides most zeros
            (0, 1.0, 0.37),         // ỹ = 0, αμ < 1
            (-1, 10.0, 0.75),       // ỹ < 0, αμ = 7.5: inversion over about 8 terms
            (1, 1.0, 0.37),         // small ỹ > 0, mode at ỹ: the short window
            (2, 3.0, 0.6),          // small ỹ > 0, both pieces weighty
            // Wide conditionals, drawn by rejection:
            (-5, 5000.0, 0.5),   // Pois(2500)
            (3000, 2000.0, 0.9), // mode on the lower piece, far from ỹ
            (1000, 1000.0, 0.5), // mode at ỹ, a bell on both pieces
            (100_000, 1e5, 0.8), // counts of 10⁵
            (12, 40.0, 0.6),     // just above the switch
        ];
        for (case, &(released, mu, alpha)) in cases.iter().enumerate() {
            let mut rng = stream(91, case as u64);
            let draws: Vec<i64> =
                (0..20_000).map(|_| collapsed_count(released, mu, alpha, &mut rng).unwrap() as i64).collect();
            let gof = distributions::gof::chi_square_integer(&draws, collapsed_ln_pmf(released, mu, alpha));
            assert!(!gof.rejects(1e-3), "ỹ = {released}, μ = {mu}, α = {alpha}: {gof:?}");
            if gof.dof == 0 {
                // A near point mass (μ → 0, α → 0): every draw is the value it sits on, whose
                // probability is above 1 − 1e-8.
                let pmf = collapsed_ln_pmf(released, mu, alpha);
                let at = (0..10).max_by(|&x, &y| pmf(x).total_cmp(&pmf(y))).unwrap();
                assert!(pmf(at).exp() > 1.0 - 1e-8 && draws.iter().all(|&d| d == at), "case {case}");
            }
        }
    }

    /// A planted bug is caught by the same test: the upper piece drawn with `α²` in place of `α`
    /// (the noise above ỹ taken as twice as informative).
    #[test]
    fn the_collapsed_goodness_of_fit_catches_a_wrong_upper_piece() {
        let (released, mu, alpha) = (2, 50.0, 0.9);
        let mut rng = stream(91, 8);
        let draws: Vec<i64> =
            (0..20_000).map(|_| two_pieces(released, mu, alpha, alpha * alpha, &mut rng) as i64).collect();
        let gof = distributions::gof::chi_square_integer(&draws, collapsed_ln_pmf(released, mu, alpha));
        assert!(gof.rejects(1e-3), "{gof:?}");
    }

    #[test]
    fn collapsed_step_refuses_bad_parameters() {
        let mut rng = stream(1, 1);
        for (mu, alpha) in [(-1.0, 0.5), (f64::NAN, 0.5), (f64::INFINITY, 0.5), (2e15, 0.5), (1.0, 0.0), (1.0, 1.0)] {
            assert!(collapsed_count(3, mu, alpha, &mut rng).is_err(), "μ = {mu}, α = {alpha}");
        }
        assert_eq!(collapsed_count(9, 0.0, 0.5, &mut rng).unwrap(), 0);
    }
}
