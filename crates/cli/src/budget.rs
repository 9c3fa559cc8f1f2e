//! `lppf epsilon`: the privacy budget of the central subsampled Gaussian mechanism (DPVI, DP-SEP,
//! DP-SGD) and of the local geometric mechanism, computed by the `accountant` crate. The last
//! line printed is the number alone, so scripts can read it with `tail -n 1`.

use crate::{Failure, bad_input};
use accountant::{Accounting, LocalGuarantee, Neighbouring};
use clap::Args;

/// The flags of `lppf epsilon` (two forms; see its `--help`).
#[derive(Args, Debug)]
pub struct BudgetArgs {
    /// Central form: Poisson sampling rate q ∈ (0, 1] of each step.
    #[arg(long, value_name = "Q", allow_negative_numbers = true)]
    sampling_rate: Option<f64>,
    /// Central form: noise multiplier σ > 0 (noise standard deviation over the clipping norm).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    noise_multiplier: Option<f64>,
    /// Central form: number of steps T >= 1.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    steps: Option<u64>,
    /// Central form: δ ∈ (0, 1); prints ε.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    delta: Option<f64>,
    /// Central form: ε > 0, instead of --delta; prints δ. Local form: with --precision, prints α.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: Option<f64>,
    /// Central form: which data sets are neighbours (replace-one is accounted at σ/2).
    #[arg(long, value_name = "RELATION", default_value = "add-remove", value_parser = ["add-remove", "replace-one"])]
    neighbouring: String,
    /// Local form: the two-sided geometric noise level α ∈ (0, 1); prints ε = N ln(1/α).
    #[arg(long, value_name = "A", allow_negative_numbers = true)]
    alpha: Option<f64>,
    /// Local form: the precision N > 0 (the largest change of one count that is protected).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    precision: Option<f64>,
    /// Local form, per row: the number of counts in a person's row; prints the ε protecting the
    /// whole row (each count changing by up to N), by basic composition.
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    row_counts: Option<usize>,
}

/// Runs `lppf epsilon` and returns the lines to print (the last is the number alone).
pub fn budget(args: &BudgetArgs) -> Result<Vec<String>, Failure> {
    if args.alpha.is_some() || args.precision.is_some() || args.row_counts.is_some() {
        return local(args);
    }
    central(args)
}

fn require<T: Copy>(value: Option<T>, flag: &str, form: &str) -> Result<T, Failure> {
    value.ok_or_else(|| bad_input(format!("{flag} is required for {form}")))
}

fn central(args: &BudgetArgs) -> Result<Vec<String>, Failure> {
    const FORM: &str = "the central form (--sampling-rate, --noise-multiplier, --steps, and --delta or --epsilon)";
    let q = require(args.sampling_rate, "--sampling-rate", FORM)?;
    let sigma = require(args.noise_multiplier, "--noise-multiplier", FORM)?;
    let steps = require(args.steps, "--steps", FORM)?;
    if !(q > 0.0 && q <= 1.0) {
        return Err(bad_input(format!("--sampling-rate {q}: must be in (0, 1]")));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(bad_input(format!("--noise-multiplier {sigma}: must be a finite number > 0")));
    }
    if steps < 1 {
        return Err(bad_input("--steps 0: must be an integer >= 1"));
    }
    let neighbouring =
        if args.neighbouring == "replace-one" { Neighbouring::ReplaceOne } else { Neighbouring::AddRemove };
    let head = format!(
        "Poisson-subsampled Gaussian, {} neighbouring: q = {q}, σ = {sigma}, T = {steps} \
         (Rényi-DP accountant, conversion of Balle et al. 2020)",
        neighbouring.name()
    );
    match (args.delta, args.epsilon) {
        (Some(delta), None) => {
            if !(delta > 0.0 && delta < 1.0) {
                return Err(bad_input(format!("--delta {delta}: must be in (0, 1)")));
            }
            let eps = accountant::epsilon(Accounting::MomentsAccountant, neighbouring, q, sigma, steps, delta)
                .map_err(bad_input)?;
            Ok(vec![head, format!("(ε, δ) = ({eps:.6}, {delta:e})"), format!("{eps}")])
        }
        (None, Some(eps)) => {
            if !(eps > 0.0 && eps.is_finite()) {
                return Err(bad_input(format!("--epsilon {eps}: must be a finite number > 0")));
            }
            let delta = accountant::delta(neighbouring, q, sigma, steps, eps).map_err(bad_input)?;
            Ok(vec![head, format!("(ε, δ) = ({eps}, {delta:.6e})"), format!("{delta:e}")])
        }
        _ => Err(bad_input("give exactly one of --delta (to print ε) or --epsilon (to print δ)")),
    }
}

fn local(args: &BudgetArgs) -> Result<Vec<String>, Failure> {
    const FORM: &str = "the local form (--alpha or --epsilon, with --precision)";
    if args.sampling_rate.is_some() || args.noise_multiplier.is_some() || args.steps.is_some() || args.delta.is_some() {
        return Err(bad_input(
            "the local form (--alpha, --precision, --row-counts) does not take the central flags \
             (--sampling-rate, --noise-multiplier, --steps, --delta)",
        ));
    }
    let precision = require(args.precision, "--precision", FORM)?;
    if !(precision > 0.0 && precision.is_finite()) {
        return Err(bad_input(format!("--precision {precision}: must be a finite number > 0")));
    }
    let guarantee = match (args.alpha, args.epsilon) {
        (Some(alpha), None) => {
            if !(alpha > 0.0 && alpha < 1.0) {
                return Err(bad_input(format!("--alpha {alpha}: must be in (0, 1)")));
            }
            LocalGuarantee::from_alpha(alpha, precision).map_err(bad_input)?
        }
        (None, Some(eps)) => {
            if !(eps > 0.0 && eps.is_finite()) {
                return Err(bad_input(format!("--epsilon {eps}: must be a finite number > 0")));
            }
            LocalGuarantee::new(eps, precision).map_err(bad_input)?
        }
        _ => return Err(bad_input("give exactly one of --alpha (to print ε) or --epsilon (to print α)")),
    };
    // Only levels a release can have: the exact sampler's range (α a normal double in (0, 1),
    // ε/N in [2⁻²⁴, 708]), as `lppf privatize` checks them.
    let mechanism = match (args.alpha, args.epsilon) {
        (Some(alpha), _) => distributions::ExactTwoSidedGeometric::from_alpha(alpha),
        (_, eps) => distributions::ExactTwoSidedGeometric::from_decay(eps.unwrap_or(f64::NAN) / precision),
    };
    mechanism.map_err(|e| bad_input(format!("{e}; lppf privatize refuses this level, so no release can have it")))?;
    let mut lines = vec![format!(
        "two-sided geometric mechanism: α = {}, precision N = {precision}: pure ε = N ln(1/α) = {} for any one \
         count changing by up to N (δ = 0)",
        guarantee.alpha(),
        guarantee.epsilon()
    )];
    match (args.row_counts, args.alpha) {
        (Some(cols), _) => {
            let row = guarantee.epsilon_for_row(cols);
            lines.push(format!(
                "a row of {cols} counts, each changing by up to N: ε = {cols} × {} = {row}",
                guarantee.epsilon()
            ));
            lines.push(format!("{row}"));
        }
        (None, Some(_)) => lines.push(format!("{}", guarantee.epsilon())),
        (None, None) => lines.push(format!("{}", guarantee.alpha())),
    }
    Ok(lines)
}
