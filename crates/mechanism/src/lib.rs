//! The local randomizer of limited-precision local privacy (§2 of Schein et al. 2019).
//!
//! Each person adds two-sided geometric noise `τ ~ 2Geo(α)` to their own counts before anything
//! leaves their hands ([`privatize`]); what leaves is a [`Privatized`] matrix. Locally private
//! inference accepts only this type, so raw counts cannot reach it by mistake: a `Privatized` is
//! made by the mechanism here or, for data privatized elsewhere, by the explicit
//! [`Privatized::from_released`].
//!
//! Two randomizers: [`privatize`] for simulations (any seeded stream; experiments say so), and
//! [`release`] for a person's own data (exact integer noise, operating-system entropy; a seed
//! only for demos, and such a release says it is not private).
//!
//! This crate depends on `distributions` and the rand family only, so it can ship alone to the
//! devices that privatize.

mod noise;
mod privatized;
mod release;

pub use noise::{Noise, NoiseError};

/// The largest noise level a sweep may ask for: at `α = 1 − 10⁻⁶` the noise has sd
/// `√(2α)/(1 − α) ≈ 1.4·10⁶` per cell, far beyond any count it could hide; closer to 1 the noise
/// and the private sampler's Bessel arguments leave the range they are computed in.
pub const MAX_SWEEP_ALPHA: f64 = 1.0 - 1e-6;
pub use privatized::{Privatized, privatize};
pub use release::{Randomness, ReleaseError, release, release_cells};
