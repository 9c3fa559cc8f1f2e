//! The tempered complete-data family that replica exchange runs over (`inference::tempering`).
//!
//! With allocations `A = (y_nk)` (`Σ_k y_nk = y_n`) and an inverse temperature `β ∈ (0, 1]`,
//!
//! `π_β(Z, A) ∝ p(Z) Π_{n,k} μ_nk^{β y_nk} e^{−β μ_nk} / y_nk!`.
//!
//! At `β = 1` this is the model's own complete-data posterior; at `β → 0` its `Z`-marginal is the
//! prior. Every conditional stays in closed form:
//!
//! * `A | Z`: `y_n` is allocated multinomially with weights `μ_nk^β` (the factors raised to `β`);
//! * `Z | A`: each factor's gamma conditional with its counts and exposures multiplied by `β`,
//!   e.g. `θ_dk ~ Gamma(a₀ + β n_dk, b₀ + β Σ_v φ_kv)`;
//! * summing out `A`, `y_n` enters as `e^{−β μ_n} (Σ_k μ_nk^β)^{y_n} / y_n!`, a Poisson in `y_n`
//!   with rate `μ̃_n = Σ_k μ_nk^β`: the private layer's draw of `y_n | ỹ_n` uses `μ̃_n`
//!   (`PoissonFactorization::mean_rates_into` returns it).
//!
//! `ln π_β(Z, A) = ln p(Z) + β E(Z, A) − Σ ln y_nk! + const` with the **energy**
//! `E(Z, A) = Σ_{n,k} y_nk ln μ_nk − Σ_n μ_n`, so exchanging two replicas' temperatures is accepted
//! with probability `min(1, exp((β_i − β_j)(E_j − E_i)))`. `E` needs only the allocation's
//! sufficient statistics (`Σ_nk y_nk ln μ_nk = Σ_dk n_dk ln θ_dk + Σ_vk n_vk ln φ_vk` for the topic
//! model).
//!
//! With the negative-binomial likelihood (`y_nk ~ Pois(μ_nk δ_n)`) the same construction gives
//! `δ_n ~ Gamma(r + β y_n, r + β μ_n)`, the dispersion shape `r` from the negative binomial with
//! `β y_n` and `β μ_n` (`∫ Gamma(δ; r, r) δ^{β y} e^{−β μ δ} dδ`), the private step's rate
//! `μ̃_n δ_n^β`, and the energy `Σ y_nk ln μ_nk + Σ_n y_n ln δ_n − Σ_n μ_n δ_n`.

use crate::overdispersion::Overdispersion;

/// `x^β` of every value (the factors at temperature `1/β`).
pub(crate) fn powered(values: &[f64], beta: f64) -> Vec<f64> {
    values.iter().map(|x| x.powf(beta)).collect()
}

/// `Σ_i n_i ln x_i` over factors with their allocated counts (terms with `n_i = 0` are 0).
pub(crate) fn count_log_sum(counts: &[u32], values: &[f64]) -> f64 {
    counts.iter().zip(values).filter(|(n, _)| **n > 0).map(|(&n, &x)| f64::from(n) * x.ln()).sum()
}

/// The energy from its parts: `counts = Σ_nk y_nk ln μ_nk`, then `− Σ_n μ_n` (`total`, evaluated
/// only for the Poisson) or, with the negative binomial, the multipliers' part kept by their last
/// update (`Σ_n y_n ln δ_n − Σ_n μ_n δ_n`).
pub(crate) fn energy(counts: f64, overdispersion: Option<&Overdispersion>, total: impl FnOnce() -> f64) -> f64 {
    match overdispersion {
        Some(od) => counts + od.energy_terms(),
        None => counts - total(),
    }
}
