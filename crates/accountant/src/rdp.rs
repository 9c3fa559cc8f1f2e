//! Rényi differential privacy of the subsampled Gaussian mechanism (Mironov, Talwar & Zhang 2019,
//! "Rényi Differential Privacy of the Sampled Gaussian Mechanism", §3) and its conversion to
//! (ε, δ) — the moments accountant of Abadi et al. 2016 computed exactly.
//!
//! One step adds N(0, σ²c²) noise to a sum of per-example values clipped to norm `c` over a
//! Poisson subsample (each example kept independently with probability `q`). Under add/remove
//! neighbouring its RDP at order α > 1 is `ln A_α / (α − 1)` with
//!
//! A_α = E_{z ~ μ₀} [ (μ(z) / μ₀(z))^α ],  μ₀ = N(0, σ²),  μ = (1 − q) μ₀ + q N(1, σ²),
//!
//! which for integer α is the finite sum (§3.2)
//! `A_α = Σ_{k=0}^{α} C(α, k) (1 − q)^{α−k} q^k exp((k² − k) / (2σ²))`
//! and for fractional α the two convergent series of §3.3 (with generalized binomial
//! coefficients and z₀ = σ² ln(1/q − 1) + ½):
//! `A_α = Σ_k C(α,k) (1−q)^{α−k} q^k e^{(k²−k)/(2σ²)} ½erfc((k − z₀)/(√2σ))
//!      + Σ_k C(α,k) (1−q)^k q^{α−k} e^{((α−k)²−(α−k))/(2σ²)} ½erfc((z₀ − (α−k))/(√2σ))`.
//! RDP composes additively over steps. The conversion to (ε, δ) is the one of Balle, Barthe,
//! Gaboardi, Hsu & Sato 2020 (Thm 21) / Canonne, Kamath & Steinke 2020 (Prop. 12), which
//! Google's dp-accounting, Opacus and TF Privacy use:
//! `ε = min_α  R(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)`, `R(α) = T·RDP(α)`,
//! which is tighter than Mironov 2017, Prop. 3 (`R(α) + ln(1/δ)/(α − 1)`) at every order by
//! `ln(α/(α − 1)) + ln α/(α − 1) > 0` — see [`RdpAccountant::epsilon`].

use crate::{AccountantError, check};

/// The orders tried by [`RdpAccountant::default`]: 1.1, 1.2, …, 10.9, then 11 … 63, 128, 256,
/// 512, 1024 — the default grid of Google's dp-accounting (`DEFAULT_RDP_ORDERS`), so that for
/// the same mechanism our ε is the field's. A finer grid ([`RdpAccountant::new`]) can only lower
/// ε (by up to a third for small budgets whose best order falls between 63 and 128).
pub const DEFAULT_ORDERS: [f64; 156] = default_orders();

const fn default_orders() -> [f64; 156] {
    let mut out = [0.0; 156];
    let mut i = 0;
    while i < 99 {
        out[i] = 1.0 + (i + 1) as f64 / 10.0;
        i += 1;
    }
    let mut order = 11;
    while order <= 63 {
        out[i] = order as f64;
        i += 1;
        order += 1;
    }
    let tail = [128.0, 256.0, 512.0, 1024.0];
    let mut j = 0;
    while j < tail.len() {
        out[i] = tail[j];
        i += 1;
        j += 1;
    }
    out
}

/// ln(e^a + e^b); +∞ if either is +∞ (never ∞ − ∞ = NaN), NaN if either is NaN.
fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY || hi == f64::INFINITY { hi } else { hi + (lo - hi).exp().ln_1p() }
}

/// ln erfc(x), accurate where erfc underflows (asymptotic series for x > 20).
fn ln_erfc(x: f64) -> f64 {
    if x > 20.0 {
        let x2 = x * x;
        let series = 1.0 - 1.0 / (2.0 * x2) + 3.0 / (4.0 * x2 * x2) - 15.0 / (8.0 * x2 * x2 * x2);
        -x2 - (x * std::f64::consts::PI.sqrt()).ln() + series.ln()
    } else {
        statrs::function::erf::erfc(x).ln()
    }
}

/// ln A_α for an integer order (the finite binomial sum; all terms positive).
fn ln_a_integer(q: f64, sigma: f64, alpha: u64) -> f64 {
    let mut ln_binom = 0.0; // ln C(α, k)
    let mut total = f64::NEG_INFINITY;
    for k in 0..=alpha {
        if k > 0 {
            ln_binom += ((alpha - k + 1) as f64).ln() - (k as f64).ln();
        }
        let kf = k as f64;
        let term = ln_binom + kf * q.ln() + (alpha - k) as f64 * (-q).ln_1p() + (kf * kf - kf) / (2.0 * sigma * sigma);
        total = log_add(total, term);
    }
    total
}

/// Largest number of terms of the fractional-order series before the order is given up.
const MAX_SERIES_TERMS: u32 = 100_000;

/// ln A_α for a fractional order: the two series of §3.3, summed **with their signs** (the
/// generalized binomial coefficients C(α, k) alternate in sign for k > α + 1; dp-accounting adds
/// their absolute values, an upper bound). From k > α + 1 on, the k-th term's sign alternates, so
/// once the terms decrease the truncation error is below the next term: the sum stops when a term
/// is below e⁻²⁵ (1.4e-11) of A_α − 1 (of which ln A_α is a smooth function), or e⁻⁴⁰ of A_α. For large q and α near 1 the terms decay only like a
/// power of k (a few thousand terms); if the series has not met that bound after
/// [`MAX_SERIES_TERMS`] terms, the order is excluded (+∞, which can only raise ε), as
/// dp-accounting does.
fn ln_a_fractional(q: f64, sigma: f64, alpha: f64) -> Result<f64, AccountantError> {
    let s2 = sigma * sigma;
    let z0 = s2 * (1.0 / q - 1.0).ln() + 0.5;
    let (ln_q, ln_1mq) = (q.ln(), (-q).ln_1p());
    let (mut positive, mut negative) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let (mut ln_abs_binom, mut sign) = (0.0f64, 1.0f64); // C(α, 0) = 1
    let mut last_term = f64::INFINITY;
    for k in 0..MAX_SERIES_TERMS {
        if k > 0 {
            let factor = (alpha - f64::from(k) + 1.0) / f64::from(k);
            ln_abs_binom += factor.abs().ln();
            sign *= factor.signum();
        }
        let i = f64::from(k);
        let j = alpha - i;
        let ln_half = 0.5f64.ln();
        let t0 = ln_abs_binom
            + i * ln_q
            + j * ln_1mq
            + (i * i - i) / (2.0 * s2)
            + ln_half
            + ln_erfc((i - z0) / (std::f64::consts::SQRT_2 * sigma));
        let t1 = ln_abs_binom
            + j * ln_q
            + i * ln_1mq
            + (j * j - j) / (2.0 * s2)
            + ln_half
            + ln_erfc((z0 - j) / (std::f64::consts::SQRT_2 * sigma));
        let term = log_add(t0, t1);
        if sign > 0.0 {
            positive = log_add(positive, term);
        } else {
            negative = log_add(negative, term);
        }
        if positive == f64::INFINITY || term.is_nan() {
            // A term overflowed (σ so small that e^{(k² − k)/(2σ²)} is infinite): A_α is
            // unbounded as far as doubles can tell, and the order establishes nothing.
            return Ok(f64::INFINITY);
        }
        if f64::from(k) > alpha + 1.0 && term < last_term && term < positive - 25.0 {
            if positive <= negative {
                return Err(AccountantError::Precision { q, sigma, alpha });
            }
            let total = positive + (-(negative - positive).exp()).ln_1p();
            // The RDP is ln A_α/(α − 1), and ln A_α ≈ A_α − 1 can be tiny: the error is measured
            // against ln(A_α − 1) (but never asked below e⁻⁴⁰ of A_α).
            let ln_excess = total + (-(-total).exp_m1()).ln();
            if term < ln_excess.max(total - 15.0) - 25.0 {
                return Ok(total);
            }
        }
        last_term = term;
    }
    Ok(f64::INFINITY)
}

/// The RDP of **one** step of the subsampled Gaussian mechanism at order `alpha > 1` (add/remove
/// neighbouring; `q` the Poisson sampling rate, `sigma` the noise multiplier). `q = 1` is the
/// plain Gaussian mechanism, α/(2σ²).
pub fn rdp_subsampled_gaussian(q: f64, sigma: f64, alpha: f64) -> Result<f64, AccountantError> {
    check((0.0..=1.0).contains(&q), "sampling rate q", q, "in [0, 1]")?;
    check(sigma >= 0.0 && !sigma.is_nan(), "noise multiplier sigma", sigma, ">= 0")?;
    check(alpha > 1.0 && alpha.is_finite(), "RDP order alpha", alpha, "a finite number > 1")?;
    if q == 0.0 {
        return Ok(0.0);
    }
    if sigma == 0.0 {
        return Ok(f64::INFINITY);
    }
    if q == 1.0 {
        return Ok(alpha / (2.0 * sigma * sigma));
    }
    let ln_a =
        if alpha.fract() == 0.0 { ln_a_integer(q, sigma, alpha as u64) } else { ln_a_fractional(q, sigma, alpha)? };
    // Rounding may only raise a privacy loss: an intermediate value that overflowed to NaN (for
    // σ so small that (k² − k)/(2σ²) is infinite) is +∞, never `NaN.max(0) = 0`.
    Ok(if ln_a.is_nan() { f64::INFINITY } else { ln_a.max(0.0) / (alpha - 1.0) })
}

/// Accumulated RDP at a fixed set of orders; composition adds, conversion minimizes over orders.
#[derive(Clone, Debug, PartialEq)]
pub struct RdpAccountant {
    orders: Vec<f64>,
    rdp: Vec<f64>,
}

impl Default for RdpAccountant {
    fn default() -> Self {
        Self { orders: DEFAULT_ORDERS.to_vec(), rdp: vec![0.0; DEFAULT_ORDERS.len()] }
    }
}

impl RdpAccountant {
    /// An empty account at the given orders (each finite and > 1).
    pub fn new(orders: Vec<f64>) -> Result<Self, AccountantError> {
        check(!orders.is_empty(), "number of RDP orders", 0.0, "at least 1")?;
        if let Some(&bad) = orders.iter().find(|a| !(**a > 1.0 && a.is_finite())) {
            check(false, "RDP order", bad, "a finite number > 1")?;
        }
        let rdp = vec![0.0; orders.len()];
        Ok(Self { orders, rdp })
    }

    /// Adds `steps` steps of the subsampled Gaussian (rate `q`, noise multiplier `sigma`,
    /// add/remove neighbouring — see [`crate::Neighbouring::effective_noise`] for replace-one).
    pub fn compose_subsampled_gaussian(&mut self, q: f64, sigma: f64, steps: u64) -> Result<(), AccountantError> {
        for (total, &alpha) in self.rdp.iter_mut().zip(&self.orders) {
            *total += steps as f64 * rdp_subsampled_gaussian(q, sigma, alpha)?;
        }
        Ok(())
    }

    /// Adds a per-order RDP vector (e.g. one step's, computed once and added per step); it must
    /// have one value per order of this account.
    pub fn add_rdp(&mut self, rdp: &[f64]) {
        assert_eq!(rdp.len(), self.rdp.len(), "one RDP value per order");
        self.rdp.iter_mut().zip(rdp).for_each(|(a, b)| *a += b);
    }

    /// The accumulated RDP at each order.
    pub fn rdp(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.orders.iter().copied().zip(self.rdp.iter().copied())
    }

    /// `(ε, order)`: the smallest ε over the orders for which the account is (ε, `delta`)-DP.
    ///
    /// At each order α the conversion of Balle et al. 2020 (Thm 21) / Canonne, Kamath & Steinke
    /// 2020 (Prop. 12) gives `ε(α) = R(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)` (used for α > 1.01,
    /// where it is numerically stable; as dp-accounting does). Independently of the order, an
    /// account with R(α) ≤ r at some α ≥ 1 has KL ≤ r, so total variation ≤ √(1 − e^{−r})
    /// (Bretagnolle–Huber) and it is (0, δ)-DP once δ² ≥ 1 − e^{−r}. The result is the minimum
    /// over the orders, never below 0. The order is NaN when no order gives a finite ε.
    pub fn epsilon(&self, delta: f64) -> Result<(f64, f64), AccountantError> {
        check(delta > 0.0 && delta < 1.0, "delta", delta, "in (0, 1)")?;
        Ok(self
            .rdp()
            .map(|(alpha, rdp)| (epsilon_at_order(alpha, rdp, delta), alpha))
            .fold((f64::INFINITY, f64::NAN), |best, x| if x.0 < best.0 { x } else { best }))
    }

    /// The smallest δ over the orders for which the account is (`epsilon`, δ)-DP, capped at 1:
    /// at each order α > 1.01, `ln δ(α) = (α − 1)(R(α) − ε + ln(1 − 1/α)) − ln α` (the inverse of
    /// [`RdpAccountant::epsilon`]'s conversion), and at every order the KL bound
    /// `δ ≤ √(1 − e^{−R(α)})`.
    pub fn delta(&self, epsilon: f64) -> f64 {
        self.rdp().map(|(alpha, rdp)| ln_delta_at_order(alpha, rdp, epsilon)).fold(0.0f64, f64::min).exp()
    }
}

/// Below this order the conversion's `ln(1 − 1/α)/(α − 1)` terms lose precision; only the KL
/// bound is used there (as dp-accounting does).
const MIN_CONVERSION_ORDER: f64 = 1.01;

/// ε at one order for a total RDP `rdp` (see [`RdpAccountant::epsilon`]).
fn epsilon_at_order(alpha: f64, rdp: f64, delta: f64) -> f64 {
    if rdp.is_nan() {
        // Never round a privacy loss down: an undefined RDP establishes no guarantee.
        f64::INFINITY
    } else if delta * delta + (-rdp).exp_m1() > 0.0 {
        0.0
    } else if alpha > MIN_CONVERSION_ORDER {
        (rdp + (-1.0 / alpha).ln_1p() - (delta.ln() + alpha.ln()) / (alpha - 1.0)).max(0.0)
    } else {
        f64::INFINITY
    }
}

/// ln δ at one order for a total RDP `rdp` and target ε (see [`RdpAccountant::delta`]).
fn ln_delta_at_order(alpha: f64, rdp: f64, epsilon: f64) -> f64 {
    if rdp.is_nan() {
        return 0.0; // δ = 1: nothing established
    }
    let kl = if rdp == 0.0 { f64::NEG_INFINITY } else { 0.5 * (-(-rdp).exp()).ln_1p() };
    if alpha > MIN_CONVERSION_ORDER {
        kl.min((alpha - 1.0) * (rdp - epsilon + (-1.0 / alpha).ln_1p()) - alpha.ln())
    } else {
        kl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_orders_are_dp_accountings() {
        assert!(DEFAULT_ORDERS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((DEFAULT_ORDERS[0], DEFAULT_ORDERS[98], DEFAULT_ORDERS[99]), (1.1, 10.9, 11.0));
        assert_eq!((DEFAULT_ORDERS[151], DEFAULT_ORDERS[152], DEFAULT_ORDERS[155]), (63.0, 128.0, 1024.0));
    }

    #[test]
    fn ln_erfc_is_continuous_across_the_switch() {
        let below = statrs::function::erf::erfc(19.999_999).ln();
        assert!((ln_erfc(20.000_001) - below).abs() < 1e-4, "{} vs {below}", ln_erfc(20.000_001));
    }

    /// An integer order computed by the fractional series (α = 3 + 1e-9) agrees with the finite
    /// sum: the two code paths implement the same A_α.
    #[test]
    fn fractional_series_meets_the_integer_sum() {
        for (q, sigma) in [(0.01, 1.0), (0.1, 0.8), (0.004, 4.0), (0.5, 2.0)] {
            for alpha in [2u64, 3, 7, 20] {
                let exact = ln_a_integer(q, sigma, alpha);
                let series = ln_a_fractional(q, sigma, alpha as f64 + 1e-9).unwrap();
                assert!(
                    (exact - series).abs() < 1e-6 * exact.abs().max(1e-3),
                    "q {q} σ {sigma} α {alpha}: {exact} vs {series}"
                );
            }
        }
    }
}
