//! Goodness-of-fit tests of samples against exact distributions.
//!
//! Every sampler in this workspace is tested with these: a fixed seed, a fixed number of draws, and
//! a stated false-alarm rate, so a test passes or fails the same way on every run.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The outcome of a Pearson chi-square goodness-of-fit test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gof {
    /// `Σ (observed − expected)² / expected` over the pooled bins.
    pub statistic: f64,
    /// Degrees of freedom: bins − 1.
    pub dof: usize,
    /// `P(χ²_dof >= statistic)`.
    pub p_value: f64,
}

impl Gof {
    /// Whether the fit is rejected at level `alpha` (false-alarm rate of this one test).
    pub fn rejects(&self, alpha: f64) -> bool {
        self.p_value < alpha
    }
}

/// Pearson's test of `observed` counts against `expected` counts (same length, same order).
/// Adjacent bins are pooled, in order, until each pooled bin expects at least 5, so sparse tails
/// are neither dropped nor over-weighted.
pub fn chi_square(observed: &[f64], expected: &[f64]) -> Gof {
    let mut pooled: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&ob, &ex) in observed.iter().zip(expected) {
        o += ob;
        e += ex;
        if e >= 5.0 {
            pooled.push((o, e));
            (o, e) = (0.0, 0.0);
        }
    }
    match pooled.last_mut() {
        Some(last) => {
            last.0 += o;
            last.1 += e;
        }
        None => pooled.push((o, e)),
    }
    let statistic: f64 = pooled.iter().map(|&(o, e)| if e > 0.0 { (o - e).powi(2) / e } else { 0.0 }).sum();
    let dof = pooled.len().saturating_sub(1);
    let p_value = if dof == 0 {
        1.0
    } else {
        match ChiSquared::new(dof as f64) {
            Ok(chi) => chi.sf(statistic),
            Err(_) => f64::NAN,
        }
    };
    Gof { statistic, dof, p_value }
}

/// Tests integer samples against the pmf `ln_pmf`: one bin per integer between the smallest and
/// largest sample, plus one bin for everything outside that window (probability `1 − Σ` of the
/// window, observed 0), then [`chi_square`].
pub fn chi_square_integer(samples: &[i64], ln_pmf: impl Fn(i64) -> f64) -> Gof {
    let (Some(&lo), Some(&hi)) = (samples.iter().min(), samples.iter().max()) else {
        return Gof { statistic: 0.0, dof: 0, p_value: 1.0 };
    };
    let width = (hi - lo + 1) as usize;
    let n = samples.len() as f64;
    let mut observed = vec![0.0; width + 1];
    for &s in samples {
        observed[(s - lo) as usize] += 1.0;
    }
    let mut expected: Vec<f64> = (lo..=hi).map(|k| n * ln_pmf(k).exp()).collect();
    let inside: f64 = expected.iter().sum::<f64>() / n;
    expected.push(n * (1.0 - inside).max(0.0));
    chi_square(&observed, &expected)
}

/// Tests continuous samples against their cdf by the probability integral transform: `cdf(x)` is
/// uniform on (0, 1) under the null; it is binned into `bins` equal cells and tested with
/// [`chi_square`].
pub fn chi_square_continuous(samples: &[f64], cdf: impl Fn(f64) -> f64, bins: usize) -> Gof {
    let mut observed = vec![0.0; bins];
    for &x in samples {
        let u = cdf(x);
        let cell = ((u * bins as f64) as usize).min(bins - 1);
        observed[cell] += 1.0;
    }
    let expected = vec![samples.len() as f64 / bins as f64; bins];
    chi_square(&observed, &expected)
}
