//! Distributions for locally private Bayesian inference on count data.
//!
//! The noise of the geometric mechanism ([`TwoSidedGeometric`]) and the exact law of its total over
//! a table ([`NoiseTotal`]), the [`Skellam`] and [`Bessel`]
//! distributions that make the locally private Gibbs sampler of Schein et al. (2019) closed-form,
//! the special function [`ln_bessel_i`] they need, thin validated wrappers over `rand_distr` for
//! the conjugate families ([`Gamma`], [`Erlang`], [`Exponential`], [`Poisson`], [`Binomial`], [`Multinomial`],
//! [`Beta`]), reproducible RNG streams ([`stream`]) and the goodness-of-fit tests ([`gof`]) that
//! check every sampler here against its exact pmf.
//!
//! Conventions, stated once and repeated on every type:
//! * every constructor validates its parameters and returns `Result<_, ParamError>`; nothing here
//!   panics on a bad parameter;
//! * each type names its parameterisation: [`Gamma`] and [`Exponential`] take a **rate**
//!   (mean = shape/rate, 1/rate), [`Poisson`] a rate that is its mean, [`TwoSidedGeometric`] the
//!   mechanism's `α` (not a rate, not a scale);
//! * samplers implement [`rand::distr::Distribution`] and work with any [`rand::Rng`].

mod bessel;
mod bessel_i;
mod beta;
mod binomial;
mod cell_dispersion;
mod erlang;
mod error;
mod exact_geometric;
mod exponential;
mod gamma;
pub mod gof;
mod ln_gamma;
mod multinomial;
mod noise_total;
mod poisson;
mod rng;
mod skellam;
mod two_sided_geometric;

pub use bessel::{Bessel, below_exp_minus};
pub use bessel_i::{bessel_ratio, ln_bessel_i, ln_bessel_i_scaled};
pub use beta::Beta;
pub use binomial::Binomial;
pub use cell_dispersion::CellDispersion;
pub use erlang::Erlang;
pub use error::ParamError;
pub use exact_geometric::{ExactTwoSidedGeometric, MAX_DECAY, MIN_DECAY};
pub use exponential::Exponential;
pub use gamma::Gamma;
pub use ln_gamma::{bd0, digamma, ln_factorial, ln_gamma, ln_gamma_ratio, trigamma};
pub use multinomial::Multinomial;
pub use noise_total::NoiseTotal;
pub use poisson::Poisson;
pub use rng::{StreamRng, Streams, stream, stream_id};
pub use skellam::Skellam;
pub use two_sided_geometric::{TwoSidedGeometric, alpha_from_epsilon, epsilon_from_alpha};
