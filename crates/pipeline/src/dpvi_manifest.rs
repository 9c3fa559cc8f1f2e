//! Manifests of the DPVI experiments (`[experiment] kind = "dpvi"`): Figs. 1–4 of Jälkö et al.
//! 2017 as sweeps over methods × sampling rates × clipping thresholds × ε × replications.
//! Strict parsing (`deny_unknown_fields`, kebab-case enums whose unknown values the TOML parser
//! names with the allowed ones), then validation naming field, value and allowed values.

use crate::manifest::{Experiment, ManifestError, invalid};
use accountant::{Accounting, Neighbouring};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A DPVI manifest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpviManifest {
    pub experiment: Experiment,
    pub dpvi: DpviSpec,
    /// The TOML text (stored next to the results).
    #[serde(skip)]
    pub text: String,
}

/// The data of a DPVI experiment.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DpviDataset {
    /// UCI Abalone, logistic regression on rings ≥ 10.
    Abalone,
    /// UCI Adult, logistic regression on income > 50K.
    Adult,
    /// Synthetic five-component spherical Gaussian mixture (§4.2).
    Gmm,
}

impl DpviDataset {
    pub fn name(self) -> &'static str {
        match self {
            DpviDataset::Abalone => "abalone",
            DpviDataset::Adult => "adult",
            DpviDataset::Gmm => "gmm",
        }
    }
}

/// A method: plain doubly stochastic VI, or DPVI calibrated by one accounting.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DpviMethod {
    NonPrivate,
    /// DPVI with σ from the moments accountant (RDP of the subsampled Gaussian).
    MomentsAccountant,
    /// DPVI with σ from eqs. 1–5 (Gaussian mechanism, amplification, advanced composition).
    AdvancedComposition,
}

impl DpviMethod {
    pub fn name(self) -> &'static str {
        match self {
            DpviMethod::NonPrivate => "non-private",
            DpviMethod::MomentsAccountant => "dpvi-moments-accountant",
            DpviMethod::AdvancedComposition => "dpvi-advanced-composition",
        }
    }

    pub fn accounting(self) -> Option<Accounting> {
        match self {
            DpviMethod::NonPrivate => None,
            DpviMethod::MomentsAccountant => Some(Accounting::MomentsAccountant),
            DpviMethod::AdvancedComposition => Some(Accounting::AdvancedComposition),
        }
    }
}

/// The neighbouring relation (see the `accountant` crate).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NeighbouringSpec {
    #[default]
    AddRemove,
    ReplaceOne,
}

impl NeighbouringSpec {
    pub fn relation(self) -> Neighbouring {
        match self {
            NeighbouringSpec::AddRemove => Neighbouring::AddRemove,
            NeighbouringSpec::ReplaceOne => Neighbouring::ReplaceOne,
        }
    }
}

/// `[dpvi]`: the sweep.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpviSpec {
    pub dataset: DpviDataset,
    /// Directory of the UCI files (default `../shared/data/uci`).
    pub data_dir: Option<PathBuf>,
    pub methods: Vec<DpviMethod>,
    /// Target ε values (required with a private method).
    #[serde(default)]
    pub epsilon: Vec<f64>,
    /// δ of every private run (default 1e-5).
    pub delta: Option<f64>,
    pub neighbouring: Option<NeighbouringSpec>,
    /// Poisson sampling rates q.
    pub sampling_rate: Vec<f64>,
    /// Clipping thresholds c (required with a private method).
    #[serde(default)]
    pub clip: Vec<f64>,
    pub iterations: u64,
    /// Iterations of the non-private runs (default `iterations`).
    pub non_private_iterations: Option<u64>,
    /// AdaGrad base step size (default 0.1).
    pub learning_rate: Option<f64>,
    pub replications: usize,
    /// Fraction of the rows used for training (UCI data; default 0.8).
    pub train_fraction: Option<f64>,
    /// Prior standard deviation of the logistic-regression weights (default 1).
    pub prior_std: Option<f64>,
    /// Mixture settings (dataset "gmm" only).
    pub gmm: Option<GmmSpec>,
}

/// `[dpvi.gmm]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GmmSpec {
    /// Components of the fitted mixture (default 5).
    pub components: Option<usize>,
    /// Training and test points per replication (default 1000 and 100).
    pub train_points: Option<usize>,
    pub test_points: Option<usize>,
    /// Draws from q for the predictive likelihood (default 100).
    pub predictive_draws: Option<usize>,
}

pub const DEFAULT_UCI_DIR: &str = "../shared/data/uci";

impl DpviSpec {
    pub fn delta(&self) -> f64 {
        self.delta.unwrap_or(1e-5)
    }
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate.unwrap_or(0.1)
    }
    pub fn train_fraction(&self) -> f64 {
        self.train_fraction.unwrap_or(0.8)
    }
    pub fn prior_std(&self) -> f64 {
        self.prior_std.unwrap_or(1.0)
    }
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_UCI_DIR))
    }
    pub fn neighbouring(&self) -> Neighbouring {
        self.neighbouring.unwrap_or_default().relation()
    }
    /// (components, train points, test points, predictive draws) of the mixture experiment.
    pub fn gmm(&self) -> (usize, usize, usize, usize) {
        let g = self.gmm.clone().unwrap_or(GmmSpec {
            components: None,
            train_points: None,
            test_points: None,
            predictive_draws: None,
        });
        (
            g.components.unwrap_or(5),
            g.train_points.unwrap_or(1000),
            g.test_points.unwrap_or(100),
            g.predictive_draws.unwrap_or(100),
        )
    }
}

/// One run: a replication, a method, a sampling rate, and for private methods a clipping
/// threshold and a target ε.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DpviCell {
    /// Position in the expansion (replication-major).
    pub index: usize,
    pub replication: usize,
    pub method: DpviMethod,
    pub sampling_rate: f64,
    pub clip: Option<f64>,
    pub epsilon: Option<f64>,
}

impl DpviManifest {
    /// Parses and validates DPVI manifest text; `file` labels errors.
    pub fn parse(text: &str, file: &Path) -> Result<Self, ManifestError> {
        let mut m: DpviManifest = toml::from_str(text).map_err(|e| crate::manifest::parse_error(file, text, &e))?;
        m.text = text.to_string();
        m.validate(file)?;
        Ok(m)
    }

    pub fn output_dir(&self) -> PathBuf {
        self.experiment.output_dir()
    }

    fn validate(&self, file: &Path) -> Result<(), ManifestError> {
        self.experiment.validate(file, "dpvi")?;
        let d = &self.dpvi;
        let bad = |field, value: String, allowed: &str| Err(invalid(file, field, value, allowed));
        let list = |xs: &[f64]| format!("{xs:?}");
        if d.methods.is_empty() {
            return bad(
                "dpvi.methods",
                "[]".into(),
                "a non-empty list of \"non-private\", \"moments-accountant\", \"advanced-composition\"",
            );
        }
        crate::manifest::distinct_values(file, "dpvi.methods", &d.methods)?;
        crate::manifest::distinct_values(file, "dpvi.epsilon", &d.epsilon)?;
        crate::manifest::distinct_values(file, "dpvi.clip", &d.clip)?;
        crate::manifest::distinct_values(file, "dpvi.sampling_rate", &d.sampling_rate)?;
        let private = d.methods.iter().any(|m| m.accounting().is_some());
        if private && (d.epsilon.is_empty() || d.epsilon.iter().any(|e| !(e.is_finite() && *e > 0.0))) {
            return bad(
                "dpvi.epsilon",
                list(&d.epsilon),
                "a non-empty list of finite numbers > 0 (a private method is listed)",
            );
        }
        if private && (d.clip.is_empty() || d.clip.iter().any(|c| !(c.is_finite() && *c > 0.0))) {
            return bad(
                "dpvi.clip",
                list(&d.clip),
                "a non-empty list of finite numbers > 0 (a private method is listed)",
            );
        }
        if d.sampling_rate.is_empty() || d.sampling_rate.iter().any(|q| !(*q > 0.0 && *q <= 1.0)) {
            return bad("dpvi.sampling_rate", list(&d.sampling_rate), "a non-empty list of numbers in (0, 1]");
        }
        if !(d.delta() > 0.0 && d.delta() < 1.0) {
            return bad("dpvi.delta", d.delta().to_string(), "a number in (0, 1)");
        }
        if d.iterations == 0 || d.non_private_iterations == Some(0) {
            return bad("dpvi.iterations", "0".into(), "an integer >= 1 (also non_private_iterations)");
        }
        if d.replications == 0 {
            return bad("dpvi.replications", "0".into(), "an integer >= 1");
        }
        // Counts that size allocations or loops: bounded so no value a user can type exhausts
        // memory or runs for centuries.
        for (field, value, most) in [
            ("dpvi.replications", d.replications as u64, 100_000),
            ("dpvi.iterations", d.iterations, 100_000_000),
            ("dpvi.non_private_iterations", d.non_private_iterations.unwrap_or(1), 100_000_000),
        ] {
            if value > most {
                return bad(field, value.to_string(), &format!("an integer from 1 to {most}"));
            }
        }
        if !(d.learning_rate().is_finite() && d.learning_rate() > 0.0) {
            return bad("dpvi.learning_rate", d.learning_rate().to_string(), "a finite number > 0");
        }
        if !(d.train_fraction() > 0.0 && d.train_fraction() < 1.0) {
            return bad("dpvi.train_fraction", d.train_fraction().to_string(), "a number in (0, 1)");
        }
        if !(d.prior_std().is_finite() && d.prior_std() > 0.0) {
            return bad("dpvi.prior_std", d.prior_std().to_string(), "a finite number > 0");
        }
        match (d.dataset, &d.gmm) {
            (DpviDataset::Gmm, _) => {
                let (k, train, test, draws) = d.gmm();
                if k == 0 || train < 2 || test == 0 || draws == 0 {
                    return bad(
                        "dpvi.gmm",
                        format!("{k}, {train}, {test}, {draws}"),
                        "components >= 1, train_points >= 2, test_points >= 1, predictive_draws >= 1",
                    );
                }
                if k > 1_000 || train > 10_000_000 || test > 10_000_000 || draws > 100_000 {
                    return bad(
                        "dpvi.gmm",
                        format!("{k}, {train}, {test}, {draws}"),
                        "components <= 1000, train_points and test_points <= 1e7, predictive_draws <= 1e5 (memory)",
                    );
                }
            }
            (_, Some(_)) => return bad("dpvi.gmm", "a table".into(), "only with dataset = \"gmm\""),
            (dataset, None) => {
                let name = if dataset == DpviDataset::Abalone { "abalone.data" } else { "adult.data" };
                let path = d.data_dir().join(name);
                if !path.exists() {
                    return Err(ManifestError::MissingData {
                        file: file.to_path_buf(),
                        field: "dpvi.data_dir",
                        path,
                        help: format!(
                            "The UCI data sets are not part of the repository: {name} is the unchanged UCI Machine \
                             Learning Repository file (Dua & Graff 2019; ../shared/data/uci/SOURCE.md in the \
                             project's layout gives its checksum). Put it in {} or set `data_dir` in [dpvi] to \
                             the directory that holds it (a relative path is read from the working directory).",
                            d.data_dir().display()
                        ),
                    });
                }
            }
        }
        self.validate_calibration(file)
    }

    /// Every private run's noise multiplier can be calibrated (issue 31: a δ such as 1e-300 used
    /// to pass `lppf validate` and fail in the first private run): the same
    /// [`accountant::calibrate_noise`] the runs call, once per (method, q, ε).
    fn validate_calibration(&self, file: &Path) -> Result<(), ManifestError> {
        let d = &self.dpvi;
        for accounting in d.methods.iter().filter_map(|m| m.accounting()) {
            for &q in &d.sampling_rate {
                for &epsilon in &d.epsilon {
                    let calibrated =
                        accountant::calibrate_noise(accounting, d.neighbouring(), q, d.iterations, epsilon, d.delta());
                    if let Err(e) = calibrated {
                        return Err(invalid(
                            file,
                            "dpvi.epsilon and dpvi.delta",
                            format!("ε = {epsilon}, δ = {:e} (q = {q}, {} steps)", d.delta(), d.iterations),
                            &format!("values for which a noise multiplier can be calibrated ({e})"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The runs, replication-major: per replication and sampling rate, the non-private run, then
    /// each private method × clip × ε.
    pub fn cells(&self) -> Vec<DpviCell> {
        let d = &self.dpvi;
        let mut cells = Vec::new();
        for replication in 0..d.replications {
            for &sampling_rate in &d.sampling_rate {
                for &method in &d.methods {
                    let cell = |clip, epsilon| DpviCell { index: 0, replication, method, sampling_rate, clip, epsilon };
                    if method.accounting().is_none() {
                        cells.push(cell(None, None));
                        continue;
                    }
                    for &clip in &d.clip {
                        cells.extend(d.epsilon.iter().map(|&e| cell(Some(clip), Some(e))));
                    }
                }
            }
        }
        cells.iter_mut().enumerate().for_each(|(i, c)| c.index = i);
        cells
    }
}
