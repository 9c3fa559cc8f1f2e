//! **lppf** — locally private Bayesian inference on count data (Schein, Wu, Schofield, Zhou &
//! Wallach 2019; Schofield et al.): the public API in one crate, so another Rust program depends
//! on `lppf` rather than on the workspace's crates one by one.
//!
//! | module | what |
//! | --- | --- |
//! | [`mechanism`] | the local randomizer (geometric mechanism), [`Privatized`] data — the only input private inference accepts |
//! | [`models`] | Poisson factorization models ([`TopicModel`], [`BlockModel`]) and their mean-field families |
//! | [`inference`] | non-private, naïve and locally private Gibbs samplers, [`run_chain`], CAVI |
//! | [`eval`] | Poisson KL to true rates, Hungarian topic alignment |
//! | [`accountant`] | privacy accounting: the local pure ε, RDP of the subsampled Gaussian |
//! | [`distributions`] | the exact samplers underneath (two-sided geometric, Skellam, Bessel), RNG streams |
//! | [`release`] | a table of one's own counts to a release and its privacy sidecar (`lppf privatize`) |
//! | [`analysis`] | a whole fit of a release or a table to a fit directory (`lppf fit`), scoring a fit |
//! | [`tables`], [`results`] | reading and writing counts, releases, and result tables (CSV, TSV, Parquet) |
//!
//! Distribution parameters are **rates** (Gamma, Exponential) unless a name says otherwise.
//!
//! # Example: privatize counts, fit them privately, score the fit
//!
//! ```
//! use lppf::{
//!     GammaPrior, LocallyPrivate, Noise, PoissonFactorization, Schedule, Streams, TopicModel, mean_poisson_kl,
//!     privatize, run_chain,
//! };
//! use std::ops::ControlFlow;
//!
//! // A small topic model (12 documents × 8 words, 2 topics) and counts drawn from it.
//! let prior = GammaPrior::new(1.0, 1.0)?; // shape 1, rate 1
//! let truth = TopicModel::new(12, 8, 2, prior, Streams::new(1));
//! let counts = lppf::models::sample_counts(&truth, Streams::new(2));
//! let (rows, cols) = truth.shape();
//!
//! // Each person's counts leave their hands noised: two-sided geometric noise, α = 0.3. (A
//! // seeded stream is for simulations only; a real release uses OS entropy.)
//! let released = privatize(&counts, rows, cols, Noise::Scalar(0.3), &mut Streams::new(3).rng())?;
//!
//! // The analyst sees only `released`; the locally private sampler models the noise.
//! let start = TopicModel::new(rows, cols, 2, prior, Streams::new(4));
//! let mut sampler = LocallyPrivate::new(start, &released, Streams::new(5))?;
//! let schedule = Schedule::new(200, 100, 5)?; // iterations, burn-in, thin
//! let summary = run_chain(&mut sampler, &schedule, Streams::new(6), |_| ControlFlow::Continue(()))?;
//!
//! // Posterior-mean rates against the true ones.
//! let mut true_rates = vec![0.0; rows * cols];
//! truth.rates_into(&mut true_rates);
//! let kl = mean_poisson_kl(true_rates.iter().copied().zip(summary.mean_rates.iter().copied()))?;
//! assert!(kl.is_finite() && kl >= 0.0);
//!
//! // The guarantee each person got: pure ε = N ln(1/α) for changes of up to N = 1 in a count.
//! let guarantee = lppf::LocalGuarantee::from_alpha(0.3, 1.0)?;
//! assert!((guarantee.epsilon() - (1.0f64 / 0.3).ln()).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use accountant;
pub use analysis;
pub use distributions;
pub use eval;
pub use inference;
pub use mechanism;
pub use models;
pub use release;
pub use results;
pub use tables;

pub use accountant::{LocalGuarantee, RdpAccountant, calibrate_noise};
pub use distributions::Streams;
pub use eval::{align_topics, mean_poisson_kl};
pub use inference::{Cavi, LocallyPrivate, NonPrivate, Sampler, Schedule, run_chain};
pub use mechanism::{Noise, Privatized, privatize};
pub use models::{BlockModel, GammaPrior, PoissonFactorization, TopicModel};
