//! Non-private Poisson factorization: `y_n ~ Pois(μ_n)` with a rate that is a sum of non-negative
//! components, `μ_n = Σ_k μ_nk`, and independent gamma priors on the factors (§3 of Schein et al.
//! 2019; eq. 1 of Schofield et al.).
//!
//! A model implements [`PoissonFactorization`]: it exposes its rates, and one Gibbs sweep given a
//! complete count matrix — allocate each `y_n` over its components (multinomial) and redraw the
//! factors from their gamma conditionals. Models know nothing about privacy: the locally private
//! layer in `inference` feeds them counts it has resampled.
//!
//! Two models: [`TopicModel`] (Poisson matrix factorization, LDA-like) and [`BlockModel`]
//! (overlapping-community block model). Their mean-field variational counterparts for CAVI
//! implement [`MeanFieldFactorization`]: [`TopicVariational`] and [`BlockVariational`].

mod block;
mod block_hmc;
mod block_variational;
pub mod chunks;
mod contamination;
mod error;
mod family;
mod hierarchy;
pub mod hmc;
mod overdispersion;
mod prior;
mod tempering;
mod tensor;
mod tensor_variational;
mod topic;
mod topic_variational;
mod variational;

pub use block::{BlockModel, block_row_loadings};
pub use block_variational::BlockVariational;
pub use error::ModelError;
pub use family::{
    Axis, BlockFamily, FactorLayout, FamilyShape, FamilyVisitor, ModelFamily, ModelKind, ModelledCells, TensorFamily,
    TopicFamily, with_family,
};
pub use overdispersion::{Dispersion, DispersionError, Likelihood, R_MAX, R_MIN};
pub use prior::{GammaPrior, HYPERPARAMETER_RANGE, PriorError, ScalePrior};
pub use tensor::TensorModel;
pub use tensor_variational::TensorVariational;
pub use topic::TopicModel;
pub use topic_variational::TopicVariational;
pub use variational::{GammaFactors, MeanFieldFactorization, MeanMatrix};

use distributions::{Poisson, Streams};
use rand::distr::Distribution;
use rayon::prelude::*;

/// A named factor matrix of a model, row-major `rows × cols`.
#[derive(Clone, Copy, Debug)]
pub struct FactorBlock<'a> {
    /// Name and layout, e.g. `"theta"` (documents × topics).
    pub name: &'static str,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// The values, row-major.
    pub values: &'a [f64],
}

/// A non-private Poisson factorization model over a `rows × cols` count matrix.
///
/// Contract (checked by the Geweke tests in `inference`): `gibbs_update` leaves the posterior
/// `p(Z | Y) ∝ p(Z) Π_n Pois(y_n; μ_n(Z))` invariant, `sample_prior` draws `Z ~ p(Z)`, and every
/// random choice comes from `streams` (so a sweep is reproducible whatever the thread count).
pub trait PoissonFactorization: Clone + Send + Sync {
    /// `(rows, cols)` of the count matrix.
    fn shape(&self) -> (usize, usize);

    /// `true` for entries that are not part of the model (the block model's diagonal). Their
    /// rate is 0 and their count is ignored.
    fn is_excluded(&self, _n: usize) -> bool {
        false
    }

    /// Writes the Poisson rate of every entry's count, row-major (0 at excluded entries): `μ_n`,
    /// or `μ_n δ_n` with the negative-binomial likelihood (`Likelihood`): the means
    /// ([`Self::mean_rates_into`]) times the cells' multipliers, if any.
    fn rates_into(&self, out: &mut [f64]) {
        self.mean_rates_into(out);
        // At an inverse temperature β the cell's Poisson rate is μ̃_n δ_n^β (`crate::tempering`).
        let beta = self.temperature();
        if let Some(multipliers) = self.cell_multipliers() {
            // Two loops, not a branch inside one: the compiler turns that branch into a select and
            // computes the power for every cell (a sixth of a private sweep's multiplier work).
            out.par_chunks_mut(4096).zip(multipliers.par_chunks(4096)).for_each(|(rates, deltas)| {
                if beta == 1.0 {
                    rates.iter_mut().zip(deltas).for_each(|(mu, delta)| *mu *= delta);
                } else {
                    rates.iter_mut().zip(deltas).for_each(|(mu, delta)| *mu *= delta.powf(beta));
                }
            });
        }
    }

    /// The negative-binomial likelihood's cell multipliers `δ_n` (row-major); `None` for the
    /// Poisson likelihood.
    fn cell_multipliers(&self) -> Option<&[f64]> {
        None
    }

    /// Writes the mean `E[y_n | factors] = μ_n` of every entry's count (row-major; 0 at excluded
    /// entries): the low-rank rate, without the negative binomial's cell multipliers `δ_n`.
    fn mean_rates_into(&self, out: &mut [f64]);

    /// Each row's expected count in each component, `rows × components` row-major:
    /// `L_ik = E[n_ik | Z]`, where `n_ik` is the part of the row's counts that a sweep allocates
    /// to its factor `θ_ik` (topic model `θ_dk Σ_v φ_kv`; block model `θ_ic Σ_d (π_cd + π_dc)
    /// Σ_{j≠i} θ_jd`, sent and received; tensor `θ_ik Σ_j φ_jk Σ_t ψ_tk`), at the model's own
    /// rates whatever its temperature, without the cells' multipliers. No rescaling of a
    /// component that leaves every rate unchanged (`θ_·k s`, `φ_k·/s`) changes it, whereas `θ_ik`
    /// moves with the component's scale, which only the prior pins: a row's largest `L_ik`, not
    /// its largest `θ_ik`, names its component.
    fn row_loadings(&self) -> Vec<f64>;

    /// The law of the cells' multipliers under an overdispersed likelihood (the shape `r`, and the
    /// share `π` of overdispersed cells, 1 for the negative binomial); `None` for the Poisson.
    fn dispersion(&self) -> Option<distributions::CellDispersion> {
        None
    }

    /// Holds a learned negative-binomial dispersion shape at `r` (`Some`: [`Self::gibbs_update`]
    /// then draws the multipliers given this `r` and leaves `r` where it is) or lets it be learned
    /// again (`None`). Only for the start of a burn-in (a warm-up: the factors find the structure
    /// before the multipliers can absorb it); the kernel with `r` held does not leave the posterior
    /// invariant. Nothing for a Poisson model or a given `r`.
    fn hold_dispersion(&mut self, _r: Option<f64>) {}

    /// Starts (a chain's burn-in) or stops the adaptation of a Hamiltonian move's step size and
    /// mass ([`hmc::Hmc::set_adapting`]); the kept draws come from the fixed kernel. Nothing for a
    /// model without such a move.
    fn set_adapting(&mut self, _on: bool) {}

    /// A Hamiltonian move's step size and mean acceptance probability since its adaptation
    /// stopped; `None` for a model without such a move.
    fn move_summary(&self) -> Option<(f64, f64)> {
        None
    }

    /// Replaces the factors by a draw from their prior.
    fn sample_prior(&mut self, streams: Streams);

    /// One Gibbs sweep given the complete counts `y` (row-major; excluded entries ignored):
    /// allocate each `y_n` over its rate components and redraw every factor from its gamma
    /// conditional.
    fn gibbs_update(&mut self, y: &[u32], streams: Streams);

    /// `ln p(Z)`, the prior log-density of the current factors.
    fn ln_prior(&self) -> f64;

    /// The factor matrices.
    fn factors(&self) -> Vec<FactorBlock<'_>>;

    /// Sets the inverse temperature `β ∈ (0, 1]` of the complete-data likelihood (replica
    /// exchange; the tempered family is described in `models::tempering`'s module docs): the
    /// sweep then targets `π_β`, and [`Self::mean_rates_into`] gives `μ̃_n = Σ_k μ_nk^β`. Errors
    /// for `β` outside `(0, 1]` or, when `β ≠ 1`, with the negative-binomial likelihood.
    fn set_temperature(&mut self, beta: f64) -> Result<(), ModelError>;

    /// The inverse temperature `β` (1 unless set).
    fn temperature(&self) -> f64;

    /// The energy `E(Z, A) = Σ_{n,k} y_nk ln μ_nk − Σ_n μ_n` of the current factors and the last
    /// sweep's allocation (`ln π_β = ln p(Z) + β E + const`).
    fn energy(&self) -> f64;
}

/// Checks an inverse temperature for a model: `β ∈ (0, 1]`.
pub(crate) fn check_temperature(beta: f64) -> Result<(), ModelError> {
    if !(beta > 0.0 && beta <= 1.0) {
        return Err(ModelError::Temperature(format!("β = {beta} is not allowed: it must be in (0, 1]")));
    }
    Ok(())
}

/// `ln p(Y | Z) = Σ_n ln Pois(y_n; μ_n)` over non-excluded entries, given the rates, each term as
/// `y ln μ − μ − ln y!` (`−μ` where `y = 0`; `−∞` where `μ` is not a rate `Poisson::new` accepts).
/// One logarithm per non-zero count: this runs over every cell of every kept sweep. Each term is
/// within about `10⁻¹⁶ (y |ln μ| + μ + ln y!)` of the exact value (Loader's form,
/// `Poisson::ln_pmf`, is accurate to a few ulps of the term itself, at more cost).
pub fn ln_likelihood<M: PoissonFactorization>(model: &M, y: &[u32], rates: &[f64]) -> f64 {
    (0..y.len())
        .filter(|&n| !model.is_excluded(n))
        .map(|n| {
            let (count, mu) = (y[n], rates[n]);
            if !Poisson::accepts(mu) {
                f64::NEG_INFINITY
            } else if count == 0 {
                -mu
            } else {
                f64::from(count) * mu.ln() - mu - distributions::ln_factorial(u64::from(count))
            }
        })
        .sum()
}

/// Draws a count matrix `y_n ~ Pois(μ_n)` from the model's current factors (0 at excluded
/// entries): with [`PoissonFactorization::sample_prior`], generation from the prior.
pub fn sample_counts<M: PoissonFactorization>(model: &M, streams: Streams) -> Vec<u32> {
    let (rows, cols) = model.shape();
    let mut rates = vec![0.0; rows * cols];
    model.rates_into(&mut rates);
    let mut rng = streams.rng();
    rates
        .iter()
        .map(|&mu| {
            let draw = Poisson::new(mu).map_or(0, |p| p.sample(&mut rng));
            u32::try_from(draw).unwrap_or(u32::MAX)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log-likelihood of a table against Loader's form cell by cell (`Poisson::ln_pmf`, a
    /// few ulps of each term where the rate is not far below the count): within `10⁻¹⁵` of the
    /// terms' size, from rates of `10⁻⁶` to `10⁶` and counts of 0 to 5,000 (past the table of
    /// `ln y!`), excluded cells skipped; where the rate is far below the count (where Loader's
    /// `bd0` loses digits) against 25-digit values (mpmath); `−∞` for a rate `Poisson::new` refuses.
    #[test]
    #[allow(clippy::excessive_precision)] // 25-digit reference values
    fn ln_likelihood_matches_the_poisson_pmf_cell_by_cell() {
        let model = BlockModel::new(6, 2, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(3));
        let rates: Vec<f64> = (0..36).map(|n| 10_f64.powf(-6.0 + (n % 13) as f64)).collect();
        let y: Vec<u32> = (0..36).map(|n| [0, 1, 2, 7, 40, 1023, 1024, 5000][n % 8]).collect();
        let loader_exact = |n: usize| y[n] == 0 || rates[n] >= f64::from(y[n]) / 4.0;
        let y_near: Vec<u32> = (0..36).map(|n| if loader_exact(n) { y[n] } else { 0 }).collect();
        let exact: f64 = (0..36)
            .filter(|&n| !model.is_excluded(n))
            .map(|n| Poisson::new(rates[n]).unwrap().ln_pmf(u64::from(y_near[n])))
            .sum();
        let size: f64 = (0..36).map(|n| f64::from(y_near[n]) * rates[n].ln().abs() + rates[n]).sum();
        let got = ln_likelihood(&model, &y_near, &rates);
        assert!((got - exact).abs() <= 1e-15 * size, "{got} against {exact} (terms of size {size})");
        // One cell each: `ln Pois(y; μ)` to 25 digits.
        let one = BlockModel::new(2, 1, GammaPrior::new(1.0, 1.0).unwrap(), Streams::new(3));
        for (count, mu, value) in [
            (1, 1e-6, -13.81551155796427414935979),
            (1023, 1e-6, -20204.54771474190311574915),
            (5000, 1e-6, -106668.6962996981373159724),
            (5000, 1e5, -80026.51618402562446872343),
        ] {
            let got = ln_likelihood(&one, &[0, count, 0, 0], &[0.0, mu, 0.0, 0.0]);
            assert!(((got - value) / value).abs() <= 1e-15, "y = {count}, μ = {mu}: {got} against {value}");
        }
        let mut bad = rates.clone();
        bad[1] = f64::NAN;
        assert_eq!(ln_likelihood(&model, &y, &bad), f64::NEG_INFINITY);
        bad[1] = -1.0;
        assert_eq!(ln_likelihood(&model, &y, &bad), f64::NEG_INFINITY);
    }

    /// Each row's expected count: `Σ_j μ_ij`, plus `Σ_j μ_ji` for a network (its received counts;
    /// an undirected network's modelled pairs `i < j` hold each pair's rate once).
    fn row_expected_counts<M: PoissonFactorization>(model: &M, network: bool) -> Vec<f64> {
        let (rows, cols) = model.shape();
        let mut mu = vec![0.0; rows * cols];
        model.mean_rates_into(&mut mu);
        let received = |i: usize| if network { (0..rows).map(|j| mu[j * cols + i]).sum() } else { 0.0 };
        (0..rows).map(|i| mu[i * cols..(i + 1) * cols].iter().sum::<f64>() + received(i)).collect()
    }

    /// Each row's largest value of a `rows × components` matrix.
    fn largest(values: &[f64], components: usize) -> Vec<usize> {
        let position = |row: &[f64]| (0..row.len()).fold(0, |b, k| if row[k] > row[b] { k } else { b });
        values.chunks_exact(components).map(position).collect()
    }

    /// `model`'s loadings sum over the components to each row's expected count; after `rescaled`
    /// (component 0 scaled up by 40 in one factor, down in the others: every rate kept) the
    /// loadings are the same, while the rows' largest `θ_ik` change — the drift that naming a
    /// row's component by its largest `θ_ik` would follow.
    fn check_loadings<M: PoissonFactorization>(model: M, rescaled: impl Fn(&mut M), network: bool) {
        let (rows, _) = model.shape();
        let loadings = model.row_loadings();
        let k = loadings.len() / rows;
        for (i, (row, expected)) in loadings.chunks_exact(k).zip(row_expected_counts(&model, network)).enumerate() {
            let total: f64 = row.iter().sum();
            assert!(
                (total - expected).abs() <= 1e-9 * expected.max(1.0),
                "row {i}: loadings {total}, rates {expected}"
            );
        }
        let theta_before = largest(model.factors()[0].values, k);
        let mut moved = model.clone();
        rescaled(&mut moved);
        for (a, b) in moved.row_loadings().iter().zip(&loadings) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-12), "a rescaled component moved a loading: {a} vs {b}");
        }
        assert_eq!(largest(&moved.row_loadings(), k), largest(&loadings, k));
        assert_ne!(largest(moved.factors()[0].values, k), theta_before, "the rescaling did not move the largest θ");
    }

    fn scaled_column(values: &[f64], k: usize, column: usize, s: f64) -> Vec<f64> {
        values.iter().enumerate().map(|(n, &x)| if n % k == column { x * s } else { x }).collect()
    }

    #[test]
    fn row_loadings_are_expected_counts_that_no_rescaling_of_a_component_moves() {
        let prior = GammaPrior::new(0.5, 1.0).unwrap();
        let topic = TopicModel::new(30, 20, 4, prior, Streams::new(1));
        check_loadings(
            topic,
            |m| {
                let theta = scaled_column(m.theta(), 4, 0, 40.0);
                let mut phi = m.phi_topic_major();
                phi[..20].iter_mut().for_each(|x| *x /= 40.0);
                m.set_factors(&theta, &phi).unwrap();
            },
            false,
        );
        let block_rescaled = |m: &mut BlockModel| {
            let c = m.communities();
            let theta = scaled_column(m.theta(), c, 0, 40.0);
            let pi: Vec<f64> = m
                .pi()
                .iter()
                .enumerate()
                .map(|(n, &x)| x / if n / c == 0 { 40.0 } else { 1.0 } / if n % c == 0 { 40.0 } else { 1.0 })
                .collect();
            m.set_factors(&theta, &pi).unwrap();
        };
        check_loadings(BlockModel::new(25, 4, prior, Streams::new(2)), block_rescaled, true);
        check_loadings(BlockModel::undirected(25, 4, prior, Streams::new(3)), block_rescaled, true);
        let tensor = TensorModel::new(20, 6, 5, 3, prior, Streams::new(4));
        check_loadings(
            tensor,
            |m| {
                let theta = scaled_column(m.theta(), 3, 0, 40.0);
                let phi = scaled_column(m.phi(), 3, 0, 1.0 / 40.0);
                let psi = m.psi().to_vec();
                m.set_factors(&theta, &phi, &psi).unwrap();
            },
            false,
        );
    }
}
