//! The version of the numbers a seed gives, and the units' identity that carries it.
//!
//! The runner keeps finished units on disk and skips them when the same manifest is run again
//! (`runner`'s unit files name the manifest's identity). A unit made by a binary whose samplers
//! drew other numbers from the same seed (another kernel, another stream layout) would then be
//! pooled with units of this binary, and a resumed run would mix two samplers' results without
//! a word. Every kind's identity therefore starts with [`DRAWS_VERSION`]: when a change makes a
//! seed give other numbers, the version goes up, every earlier unit is reported as another run's
//! and recomputed. The test `draws_of_the_default_model_are_those_of_this_version` (pipeline's
//! `tests/it/draws.rs`) fails on any change of the factorization kind's draws (the default and
//! the papers' models, non-private and private) until the version is raised; the DPVI and DP-SEP
//! kinds' draws are checked against saved runs by `tools/refactor-check/check.sh` (not in CI).

/// The version of the numbers a seed gives. Raise it in the change that alters any draw or any
/// number computed from the draws (and add the new fingerprint to `tests/it/draws.rs`).
/// 1: `lppf fit`'s default takes one Newton–Metropolis step of `ln r` per sweep with a Student
/// t(3) proposal (the first version counted).
/// 2: the cells' likelihoods that PSIS-LOO and stacking read are summed in linear space (the same
/// draws; LOO and the stacking weights differ in their last digits).
/// 3: the contaminated likelihood's sums over cells (for the steps of `r` and `π`) are taken in
/// four running sums and blocks of four factors, so they round differently and a seed's draws of
/// `lppf fit`'s default differ from version 2's after the first update of `r`; the block model's
/// Hamiltonian move sums its gradient's products in lanes too.
pub const DRAWS_VERSION: u32 = 3;

/// The first part of every unit identity.
fn version_part() -> Vec<u8> {
    [b"lppf draws version ".as_slice(), &DRAWS_VERSION.to_le_bytes()].concat()
}

/// A [`runner::IdentityHasher`] whose first part is [`DRAWS_VERSION`].
pub(crate) fn identity_hasher() -> runner::IdentityHasher {
    let mut h = runner::IdentityHasher::default();
    h.write(&version_part());
    h.end_part();
    h
}

/// A unit identity: [`runner::identity`] of [`DRAWS_VERSION`], then `parts`.
pub(crate) fn unit_identity(parts: &[&[u8]]) -> String {
    let version = version_part();
    runner::identity(&[&[version.as_slice()], parts].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `unit_identity(&[b"seed", b"settings"])` as versions 1, 2 and 3 wrote it.
    const IDENTITY_OF_VERSION_1: &str = "58f195ea7e3c9746";
    const IDENTITY_OF_VERSION_2: &str = "d64599f5bd09b973";
    const IDENTITY_OF_VERSION_3: &str = "a94cf88614971b4c";

    #[test]
    fn the_version_enters_the_identity() {
        let parts: [&[u8]; 2] = [b"seed", b"settings"];
        assert_ne!(unit_identity(&parts), runner::identity(&parts));
        assert_eq!(unit_identity(&parts), unit_identity(&parts));
        assert_ne!(unit_identity(&parts), unit_identity(&[b"seed", b"other settings"]));
        // Both constructors give the same identity (the held-out kind builds its own part by part),
        // and it is the one the units of this version carry, not those of the version before.
        let mut h = identity_hasher();
        for part in parts {
            h.write(part);
            h.end_part();
        }
        assert_eq!(h.finish(), unit_identity(&parts));
        assert_eq!(unit_identity(&parts), IDENTITY_OF_VERSION_3);
        assert!([IDENTITY_OF_VERSION_1, IDENTITY_OF_VERSION_2].iter().all(|&old| unit_identity(&parts) != old));
    }
}
