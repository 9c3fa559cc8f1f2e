//! The local randomizer of limited-precision local privacy (§2 of Schein et al. 2019).
//!
//! Each person adds two-sided geometric noise `τ ~ 2Geo(α)` to their own counts before anything
//! leaves their hands ([`privatize`]); what leaves is a [`Privatized`] matrix. Locally private
//! inference accepts only this type, so raw counts cannot reach it by mistake: a `Privatized` is
//! made by the mechanism here or, for data privatized elsewhere, by the explicit
//! [`Privatized::from_released`].
//!
//! This crate depends on `distributions` only, so it can ship alone to the devices that privatize.

mod noise;
mod privatized;

pub use noise::{Noise, NoiseError};
pub use privatized::{Privatized, privatize};
