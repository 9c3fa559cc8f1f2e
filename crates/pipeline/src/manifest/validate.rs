//! The checks [`super::parse`] makes of every value before any work starts: each names the
//! file, the field, the bad value and what is allowed.

use super::*;

/// An out-of-range value of `field` in `file`.
pub(crate) fn invalid(file: &Path, field: &'static str, value: String, allowed: &str) -> ManifestError {
    ManifestError::Invalid { file: file.to_path_buf(), field, value, allowed: allowed.to_string() }
}

/// The first value of `values` that repeats an earlier one.
pub(crate) fn first_repeat<T: PartialEq>(values: &[T]) -> Option<&T> {
    values.iter().enumerate().find(|(i, v)| values[..*i].contains(v)).map(|(_, v)| v)
}

/// Refuses a list that holds a value twice (`field` in `file`): a repeated noise level, `e₀` or
/// method would be run again and summarized as extra replications of the same data.
pub(crate) fn distinct_values<T: PartialEq + fmt::Debug>(
    file: &Path,
    field: &'static str,
    values: &[T],
) -> Result<(), ManifestError> {
    match first_repeat(values) {
        Some(v) => {
            Err(invalid(file, field, format!("{values:?}"), &format!("each value at most once ({v:?} is repeated)")))
        }
        None => Ok(()),
    }
}

impl Manifest {
    /// Every value of the manifest, before any work starts.
    pub(super) fn validate(&self, file: &Path) -> Result<(), ManifestError> {
        let invalid = |field, value, allowed: &str| invalid(file, field, value, allowed);
        let positive = |field: &'static str, x: f64| {
            if x.is_finite() && x > 0.0 { Ok(()) } else { Err(invalid(field, x.to_string(), "a finite number > 0")) }
        };
        self.experiment.validate(file, "factorization")?;
        if self.model.components == 0 {
            return Err(invalid("model.components", "0".into(), "an integer >= 1"));
        }
        positive("model.a0", self.model.a0)?;
        positive("model.b0", self.model.b0)?;
        models::GammaPrior::new(self.model.a0, self.model.b0).map_err(|e| {
            let field = if e.parameter.starts_with("a0") { "model.a0" } else { "model.b0" };
            let (lo, hi) = models::HYPERPARAMETER_RANGE;
            invalid(field, e.value.to_string(), &format!("a number from {lo:e} to {hi:e}"))
        })?;
        if !self.model.kind.has_cavi()
            && let Some(m) = self.methods.iter().find(|m| m.is_cavi())
        {
            let allowed = format!("Gibbs methods only with model.kind = {:?} (it has no CAVI)", self.model.kind.name());
            return Err(invalid("methods", format!("{:?}", m.name()), &allowed));
        }
        if !self.model.kind.has_overdispersion() {
            let likelihood = self.model.likelihood().resolve(file)?;
            if likelihood != models::Likelihood::Poisson {
                let allowed = format!(
                    "\"poisson\" with model.kind = {:?} (it has the Poisson likelihood only)",
                    self.model.kind.name()
                );
                return Err(invalid("model.likelihood", format!("{likelihood:?}"), &allowed));
            }
            if self.base.is_none() {
                let allowed = "a base-parameter file (`lppf base-from-fit` of a fit): tensor sweeps are semi-synthetic";
                return Err(invalid("data.base", "missing".into(), allowed));
            }
        }
        if self.model.likelihood().resolve(file)? != models::Likelihood::Poisson
            && let Some(m) = self.methods.iter().find(|m| m.is_cavi())
        {
            let allowed = "Gibbs methods only with model.likelihood = \"negative-binomial\" or \"contaminated\" (a \
                           learned dispersion has no closed-form CAVI update)";
            return Err(invalid("methods", format!("{:?}", m.name()), allowed));
        }
        self.validate_data(file)?;
        self.validate_noise(file)?;
        if self.sweep.replications == 0 {
            return Err(invalid("sweep.replications", "0".into(), "an integer >= 1"));
        }
        let names = Method::ALL.map(|m| format!("{:?}", m.name())).join(", ");
        if self.methods.is_empty() {
            return Err(invalid("methods", "[]".into(), &format!("a non-empty list of {names}")));
        }
        if first_repeat(&self.methods).is_some() {
            return Err(invalid("methods", format!("{:?}", self.methods), "each method at most once"));
        }
        let gibbs = self.methods.iter().any(|m| !m.is_cavi());
        match &self.sampler {
            None if gibbs => {
                let allowed = "a [sampler] table (iterations, burn_in, thin) for the Gibbs methods";
                return Err(invalid("sampler", "missing".into(), allowed));
            }
            Some(_) if !gibbs => {
                return Err(invalid("sampler", "set".into(), "absent unless a Gibbs method is listed"));
            }
            _ => {}
        }
        if gibbs {
            self.gibbs_runs().map_err(|e| {
                let field = match e.field {
                    "iterations" => "sampler.iterations",
                    "burn_in" => "sampler.burn_in",
                    "dispersion_warm_up" => "sampler.dispersion_warm_up",
                    "until_mixed" => "sampler.until_mixed",
                    _ => "sampler.thin",
                };
                invalid(field, e.value.to_string(), &e.allowed)
            })?;
        }
        let chains = [
            ("sampler.chains", self.sampler.as_ref().and_then(|s| s.chains)),
            ("cavi.starts", self.cavi.as_ref().and_then(|c| c.starts)),
        ];
        for (field, value) in chains {
            if let Some(n) = value.filter(|n| !(1..=MAX_CHAINS).contains(n)) {
                return Err(invalid(field, n.to_string(), &format!("an integer from 1 to {MAX_CHAINS}")));
            }
        }
        let warm_up = self.sampler.as_ref().and_then(|s| s.dispersion_warm_up);
        self.model.likelihood().check_warm_up(file, "sampler.dispersion_warm_up", warm_up)?;
        if let Some(n) = self.sampler.as_ref().and_then(|s| s.replicas) {
            let most = inference::tempering::MAX_REPLICAS;
            if !(1..=most).contains(&n) {
                return Err(invalid("sampler.replicas", n.to_string(), &format!("an integer from 1 to {most}")));
            }
        }
        if self.hamiltonian_move() && !self.model.kind.has_hamiltonian_move() {
            let allowed = "true only for the directed block model (kind = \"block\"); absent or false otherwise";
            return Err(invalid("sampler.hamiltonian_move", "true".into(), allowed));
        }
        // Replica exchange swaps on the complete-data energy of the factors and the last sweep's
        // allocation, which the move (with the allocation summed out) leaves behind.
        if self.hamiltonian_move() && self.sampler.as_ref().and_then(|s| s.replicas).is_some_and(|r| r > 1) {
            let allowed =
                "absent or false with replicas > 1 (replica exchange swaps on the allocation the move sums out)";
            return Err(invalid("sampler.hamiltonian_move", "true".into(), allowed));
        }
        if self.cavi.is_some() && !self.methods.iter().any(|m| m.is_cavi()) {
            return Err(invalid("cavi", "set".into(), "absent unless a CAVI method is listed"));
        }
        self.checked_cavi_settings(file)?;
        Ok(())
    }

    /// The CAVI settings of `[cavi]` over the defaults, each value checked.
    pub(super) fn checked_cavi_settings(&self, file: &Path) -> Result<CaviSettings, ManifestError> {
        let d = CaviSettings::DEFAULT;
        let Some(spec) = &self.cavi else { return Ok(d) };
        let m_estimate = match spec.m_estimate.as_deref() {
            None => d.m_estimate(),
            Some("mode") => MEstimate::Mode,
            Some("mean") => MEstimate::Mean,
            Some(other) => return Err(invalid(file, "cavi.m_estimate", format!("{other:?}"), "\"mode\" or \"mean\"")),
        };
        let argument = match spec.bessel_argument.as_deref() {
            None => d.bessel_argument(),
            Some("delta-method") => BesselArgument::DeltaMethod,
            Some("exact") => BesselArgument::Exact,
            Some(other) => {
                let allowed = "\"delta-method\" or \"exact\"";
                return Err(invalid(file, "cavi.bessel_argument", format!("{other:?}"), allowed));
            }
        };
        let (max, tolerance) =
            (spec.max_iterations.unwrap_or(d.max_iterations()), spec.tolerance.unwrap_or(d.tolerance()));
        CaviSettings::new(max, tolerance, m_estimate, argument).map_err(|e| {
            let field = if e.field == "max_iterations" { "cavi.max_iterations" } else { "cavi.tolerance" };
            invalid(file, field, e.value, e.allowed)
        })
    }

    fn validate_data(&self, file: &Path) -> Result<(), ManifestError> {
        let invalid = |field, value, allowed: &str| invalid(file, field, value, allowed);
        let d = &self.data;
        let semi = d.source == DataSource::SemiSynthetic;
        let only_semi = |field: &'static str, present: bool| {
            if present && !semi {
                Err(invalid(field, "set".into(), "absent unless data.source = \"semi-synthetic\""))
            } else {
                Ok(())
            }
        };
        only_semi("data.base", d.base.is_some())?;
        only_semi("data.f0", d.f0.is_some())?;
        only_semi("data.rescale", d.rescale.is_some())?;
        if let Some(axes) = &d.rescale {
            let distinct = axes.len() <= 1 || (axes.len() == 2 && axes[0] != axes[1]);
            if !distinct {
                return Err(invalid(
                    "data.rescale",
                    format!("{axes:?}"),
                    "[] (none), [\"rows\"], [\"cols\"] or [\"rows\", \"cols\"]",
                ));
            }
            if axes.is_empty() {
                // The base parameters are the truth as they are: no γ to draw.
                let allowed = "absent with data.rescale = [] (the base parameters are used as they are)";
                if let Some(e0) = &self.sweep.e0 {
                    return Err(invalid("sweep.e0", format!("{e0:?}"), allowed));
                }
                if let Some(f0) = d.f0 {
                    return Err(invalid("data.f0", f0.to_string(), allowed));
                }
            }
            if axes.contains(&RescaleAxis::Cols) && self.model.kind.square() {
                let allowed = "[\"rows\"]: a block model's columns are its rows (the same actors)";
                return Err(invalid("data.rescale", format!("{axes:?}"), allowed));
            }
        }
        only_semi("sweep.e0", self.sweep.e0.is_some())?;
        if semi && d.mean_count_range.is_some() {
            return Err(invalid("data.mean_count_range", "set".into(), "absent for semi-synthetic data"));
        }
        if let Some([lo, hi]) = d.release_mean_count_range {
            let levels =
                self.noise.alpha.as_ref().map_or(0, Vec::len) + self.noise.epsilon.as_ref().map_or(0, Vec::len);
            let allowed = if semi || d.mean_count_range.is_some() || d.mean_rate.is_some() {
                Some("absent for semi-synthetic data or with data.mean_count_range or data.mean_rate")
            } else if levels != 1 {
                Some(
                    "absent unless the manifest has exactly one noise level (a selection on one release leaves the other levels' posteriors conditioned on it)",
                )
            } else if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                Some("[low, high] with low < high (the release's values can be negative)")
            } else {
                None
            };
            if let Some(allowed) = allowed {
                return Err(invalid("data.release_mean_count_range", format!("[{lo}, {hi}]"), allowed));
            }
        }
        if let Some(rate) = d.mean_rate {
            if semi || d.mean_count_range.is_some() {
                let allowed = "absent for semi-synthetic data or with data.mean_count_range";
                return Err(invalid("data.mean_rate", rate.to_string(), allowed));
            }
            // Counts are drawn as Poisson(rate) and stored in 32 bits, and every sampler is tested
            // up to rates of 1e6: a larger mean rate fails only at run time (issue 31).
            if !(rate.is_finite() && rate > 0.0 && rate <= MAX_MEAN_RATE) {
                return Err(invalid("data.mean_rate", format!("{rate:?}"), "a number > 0 and at most 1e6"));
            }
        }
        if let Some(base) = &self.base {
            if base.model != self.model.kind {
                let allowed = format!("a base file of the manifest's model kind ({:?})", self.model.kind);
                return Err(invalid("data.base", format!("parameters of a {:?} model", base.model), &allowed));
            }
            if base.components() != self.model.components {
                let allowed = format!("the base file's number of components, {}", base.components());
                return Err(invalid("model.components", self.model.components.to_string(), &allowed));
            }
            for (field, given, actual) in [("data.rows", d.rows, base.rows()), ("data.cols", d.cols, base.cols())] {
                if let Some(n) = given
                    && n != actual
                {
                    return Err(invalid(field, n.to_string(), &format!("absent, or the base file's {actual}")));
                }
            }
        } else if semi {
            return Err(invalid("data.base", "missing".into(), "the path of a base-parameter file"));
        }
        if let Some(f0) = d.f0
            && !(f0.is_finite() && f0 > 0.0)
        {
            return Err(invalid("data.f0", f0.to_string(), "a finite number > 0"));
        }
        if let Some(e0) = &self.sweep.e0 {
            if e0.is_empty() {
                return Err(invalid("sweep.e0", "[]".into(), "a non-empty list of numbers > 0"));
            }
            if let Some(e) = e0.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
                return Err(invalid("sweep.e0", e.to_string(), "finite numbers > 0"));
            }
            distinct_values(file, "sweep.e0", e0)?;
        }
        if !semi {
            match d.rows {
                Some(r) if r >= 2 => {}
                r => {
                    let value = r.map_or("missing".into(), |r| r.to_string());
                    return Err(invalid("data.rows", value, "an integer >= 2"));
                }
            }
            match (self.model.kind.square(), d.cols) {
                (false, None) => {
                    return Err(invalid(
                        "data.cols",
                        "missing".into(),
                        &format!("an integer >= 1 (required by the {} model)", self.model.kind.name()),
                    ));
                }
                (false, Some(0)) => return Err(invalid("data.cols", "0".into(), "an integer >= 1")),
                _ => {}
            }
        }
        if let (true, Some(c)) = (self.model.kind.square(), d.cols) {
            let allowed = format!("absent: the {} model's matrix is rows × rows", self.model.kind.name());
            return Err(invalid("data.cols", c.to_string(), &allowed));
        }
        if let Some([lo, hi]) = d.mean_count_range
            && !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo < hi)
        {
            return Err(invalid("data.mean_count_range", format!("[{lo}, {hi}]"), "[low, high] with 0 <= low < high"));
        }
        Ok(())
    }

    fn validate_noise(&self, file: &Path) -> Result<(), ManifestError> {
        let invalid = |field, value, allowed: &str| invalid(file, field, value, allowed);
        let n = &self.noise;
        match (&n.alpha, &n.epsilon) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "noise",
                    "both alpha and epsilon".into(),
                    "exactly one of alpha = [...] or epsilon = [...]",
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "noise",
                    "neither alpha nor epsilon".into(),
                    "exactly one of alpha = [...] or epsilon = [...]",
                ));
            }
            (Some(alphas), None) => {
                if alphas.is_empty() {
                    return Err(invalid("noise.alpha", "[]".into(), "a non-empty list of numbers in [0, 1)"));
                }
                if let Some(a) = alphas.iter().find(|a| !(0.0..=mechanism::MAX_SWEEP_ALPHA).contains(*a)) {
                    return Err(invalid("noise.alpha", format!("{a:?}"), "numbers from 0 to 1 − 1e-6 (0.999999)"));
                }
                distinct_values(file, "noise.alpha", alphas)?;
                if n.precision.is_some() {
                    return Err(invalid(
                        "noise.precision",
                        "set".into(),
                        "absent when alpha is given (it goes with epsilon)",
                    ));
                }
            }
            (None, Some(epsilons)) => {
                if epsilons.is_empty() {
                    return Err(invalid("noise.epsilon", "[]".into(), "a non-empty list of numbers > 0"));
                }
                if let Some(e) = epsilons.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
                    return Err(invalid("noise.epsilon", e.to_string(), "numbers > 0"));
                }
                distinct_values(file, "noise.epsilon", epsilons)?;
                match &n.precision {
                    None => {
                        return Err(invalid("noise.precision", "missing".into(), "a number > 0 or \"empirical-mean\""));
                    }
                    Some(Precision::Fixed(p)) if !(p.is_finite() && *p > 0.0) => {
                        return Err(invalid("noise.precision", p.to_string(), "a number > 0 or \"empirical-mean\""));
                    }
                    // α = exp(−ε/N) must stay at most 1 − 1e-6.
                    Some(Precision::Fixed(p)) => {
                        if let Some(e) = epsilons.iter().find(|e| (-**e / p).exp() > mechanism::MAX_SWEEP_ALPHA) {
                            // The ratio ε/N is what is too small: name both fields the user wrote.
                            let allowed = format!(
                                "α = exp(−ε/N) at most 1 − 1e-6: ε/N ≥ 1.000001e-6, i.e. ε ≥ {:e} at this precision \
                                 or precision ≤ {:e} for this ε",
                                p * 1.000_001e-6,
                                e / 1.000_001e-6
                            );
                            return Err(invalid(
                                "noise.epsilon and noise.precision",
                                format!("ε = {e:?}, N = {p:?}"),
                                &allowed,
                            ));
                        }
                    }
                    Some(Precision::Named(name)) if name != "empirical-mean" => {
                        return Err(invalid(
                            "noise.precision",
                            format!("{name:?}"),
                            "a number > 0 or \"empirical-mean\"",
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some(c) = n.row_concentration
            && !(c.is_finite() && c > 0.0)
        {
            return Err(invalid("noise.row_concentration", c.to_string(), "a finite number > 0"));
        }
        Ok(())
    }
}
