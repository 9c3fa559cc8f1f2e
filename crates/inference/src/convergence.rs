//! What is wrong when chains disagree: slow mixing *within* chains (more iterations help) or
//! chains that each settled in a different mode (more iterations do not; issue 33).
//!
//! * **Within a chain**: the split-`R̂` of the chain's own two halves ([`diagnose`] of that chain
//!   alone) and its bulk ESS. A chain whose halves disagree (`R̂ > WITHIN_RHAT_LIMIT`) has not
//!   settled: it is still drifting.
//! * **Between chains**: the split-`R̂` and ESS over all chains ([`diagnose`]).
//! * **Modes**: chains grouped by the mean of their log joint `ln p(Z, Y)`. Sorted by that mean,
//!   two neighbouring chains belong to different modes when their means differ by more than
//!   [`MODE_GAP_SDS`] within-chain standard deviations `√((s_a² + s_b²)/2)`: their draws then
//!   hardly overlap, which samples of one mode would (the mean of a stationary chain moves by far
//!   less than one sd).
//!
//! The verdict ([`Convergence`]) names the problem and what to do.

use crate::diagnostics::{Diagnostics, ESS_PER_CHAIN, RHAT_LIMIT, diagnose};

/// A chain whose two halves have split-`R̂` above this has not settled. Looser than the
/// between-chain limit [`RHAT_LIMIT`]: two halves of one chain hold half the draws of one chain
/// each, so their `R̂` varies more from run to run (its sampling sd is about `1/ESS`; at 50
/// effective draws per half, 0.02).
pub const WITHIN_RHAT_LIMIT: f64 = 1.05;
/// Neighbouring chains whose mean log joints differ by more than this many within-chain sds sit
/// in different modes.
pub const MODE_GAP_SDS: f64 = 3.0;

/// What the chains of a fit say about its convergence.
#[derive(Clone, Debug, PartialEq)]
pub enum Convergence {
    /// The chains agree and each has enough effective draws: nothing to report.
    Mixed,
    /// Some chain has not settled or mixes slowly within itself (its halves disagree, or too few
    /// effective draws): run more iterations.
    Unsettled,
    /// Every chain settled, but in different modes (`modes.len() > 1`): more iterations will not
    /// merge them.
    Modes,
    /// Both: some chains still drift, and the settled ones sit in different modes.
    UnsettledAndModes,
}

impl Convergence {
    /// `"mixed"`, `"unsettled"`, `"modes"` or `"unsettled-and-modes"`.
    pub fn name(&self) -> &'static str {
        match self {
            Convergence::Mixed => "mixed",
            Convergence::Unsettled => "unsettled",
            Convergence::Modes => "modes",
            Convergence::UnsettledAndModes => "unsettled-and-modes",
        }
    }
}

/// The per-chain and between-chain picture of one fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Per chain: the largest split-`R̂` of its own halves over the quantities assessed.
    pub within_rhat: Vec<f64>,
    /// Per chain: its own bulk ESS of the log joint.
    pub within_ess: Vec<f64>,
    /// Per chain: the mean and sd of its log joint.
    pub ln_joint_mean: Vec<f64>,
    pub ln_joint_sd: Vec<f64>,
    /// The chains grouped into modes, the mode with the highest mean log joint first; each
    /// mode's chains in increasing order.
    pub modes: Vec<Vec<usize>>,
    /// The largest split-`R̂` over all chains of the quantities assessed.
    pub rhat: f64,
    pub verdict: Convergence,
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = if x.len() > 1 { x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

/// Groups chains into modes by their log joints' means and sds (module docs).
pub fn modes(ln_joint_mean: &[f64], ln_joint_sd: &[f64]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..ln_joint_mean.len()).collect();
    order.sort_by(|&a, &b| ln_joint_mean[b].total_cmp(&ln_joint_mean[a]).then(a.cmp(&b)));
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, &c) in order.iter().enumerate() {
        let same = i > 0 && {
            let p = order[i - 1];
            let sd = ((ln_joint_sd[p].powi(2) + ln_joint_sd[c].powi(2)) / 2.0).sqrt();
            (ln_joint_mean[p] - ln_joint_mean[c]).abs() <= MODE_GAP_SDS * sd
        };
        match out.last_mut() {
            Some(mode) if same => mode.push(c),
            _ => out.push(vec![c]),
        }
    }
    out.iter_mut().for_each(|m| m.sort_unstable());
    out
}

/// Assesses chains from their log joints `ln_joint[c]` (kept samples, in order) and other
/// quantities `others[q][c]` (e.g. the total rate) whose `R̂` also counts. `pooled` are the
/// between-chain diagnostics of the same quantities (from [`diagnose`]).
pub fn assess(ln_joint: &[&[f64]], others: &[Vec<&[f64]>], pooled: &[Diagnostics]) -> Assessment {
    let chains = ln_joint.len();
    let quantities = || std::iter::once(ln_joint).chain(others.iter().map(Vec::as_slice));
    let within_rhat: Vec<f64> = (0..chains)
        .map(|c| quantities().map(|q| diagnose(&[q[c]]).rhat).filter(|r| !r.is_nan()).fold(1.0, f64::max))
        .collect();
    let within_ess: Vec<f64> = ln_joint.iter().map(|c| diagnose(&[c]).ess_bulk).collect();
    let (ln_joint_mean, ln_joint_sd): (Vec<f64>, Vec<f64>) = ln_joint.iter().map(|c| mean_sd(c)).unzip();
    let modes = modes(&ln_joint_mean, &ln_joint_sd);
    let rhat = pooled.iter().map(|d| d.rhat).filter(|r| !r.is_nan()).fold(1.0, f64::max);
    let ess_short = pooled.iter().any(|d| d.ess_bulk < ESS_PER_CHAIN * chains as f64);
    let unsettled = within_rhat.iter().any(|&r| r > WITHIN_RHAT_LIMIT)
        || within_ess.iter().any(|&e| e.is_nan() || e < ESS_PER_CHAIN);
    let verdict = match (rhat > RHAT_LIMIT || ess_short, unsettled, modes.len() > 1) {
        (false, _, _) => Convergence::Mixed,
        (true, false, true) => Convergence::Modes,
        (true, true, true) => Convergence::UnsettledAndModes,
        (true, _, false) => Convergence::Unsettled,
    };
    Assessment { within_rhat, within_ess, ln_joint_mean, ln_joint_sd, modes, rhat, verdict }
}

/// [`assess`] of a pooled Gibbs fit by its log joint and total rate; `None` for CAVI or one chain.
pub fn assess_pooled(pooled: &crate::Pooled) -> Option<Assessment> {
    if pooled.chains.len() < 2 || pooled.chains[0].sd_rates.is_none() {
        return None;
    }
    let ln_joint: Vec<&[f64]> = pooled.chains.iter().map(|p| p.trace.as_slice()).collect();
    let totals: Vec<&[f64]> = pooled.chains.iter().map(|p| p.kept_total_rate.as_slice()).collect();
    let between: Vec<Diagnostics> = pooled
        .diagnostics
        .iter()
        .filter(|(name, _)| matches!(*name, "ln_joint" | "total_rate"))
        .map(|(_, d)| *d)
        .collect();
    Some(assess(&ln_joint, &[totals], &between))
}

impl Assessment {
    /// The warning a reader must see, naming the problem and what to do; `None` for a fit that
    /// mixes.
    pub fn warning(&self) -> Option<String> {
        let worst = self.within_rhat.iter().copied().fold(1.0, f64::max);
        let least_ess = self.within_ess.iter().copied().fold(f64::INFINITY, f64::min);
        let modes = || {
            let means: Vec<String> =
                self.modes.iter().map(|m| format!("{:.0}", self.ln_joint_mean[m[0]])).collect::<Vec<_>>();
            format!(
                "the chains sit in {} modes (mean log joints {}; R̂ {:.2} across chains)",
                self.modes.len(),
                means.join(", "),
                self.rhat
            )
        };
        let unsettled = format!(
            "within-chain mixing is slow (a chain's two halves disagree up to R̂ {worst:.2}, \
             or it has as few as {least_ess:.0} effective draws): run more iterations (--iterations, --burn-in)"
        );
        match self.verdict {
            Convergence::Mixed => None,
            Convergence::Unsettled => Some(unsettled),
            Convergence::Modes => Some(format!(
                "{}. Each chain has settled, so more iterations will not merge them: read the modes \
                 below, weight them by stacking (--holdout with --weights stacking), or report them",
                modes()
            )),
            Convergence::UnsettledAndModes => Some(format!("{}; and {unsettled}", modes())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use distributions::Streams;
    use rand_distr::{Distribution, Normal};

    /// An AR(1) chain around `centre` with sd 1 and lag-1 correlation `rho`.
    fn chain(centre: f64, rho: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = Streams::new(seed).rng();
        let normal = Normal::new(0.0, (1.0 - rho * rho).sqrt()).unwrap();
        let mut x = 0.0;
        (0..n)
            .map(|_| {
                x = rho * x + normal.sample(&mut rng);
                centre + x
            })
            .collect()
    }

    fn assessed(chains: &[Vec<f64>]) -> Assessment {
        let refs: Vec<&[f64]> = chains.iter().map(Vec::as_slice).collect();
        assess(&refs, &[], &[diagnose(&refs)])
    }

    #[test]
    fn chains_that_mix_get_no_warning() {
        let a = assessed(&(0..4).map(|c| chain(0.0, 0.3, 1000, c)).collect::<Vec<_>>());
        assert_eq!(a.verdict, Convergence::Mixed, "{a:?}");
        assert_eq!(a.modes.len(), 1);
        assert!(a.warning().is_none());
    }

    /// Four stationary chains, two around 0 and two around 50 sds away: two modes, and the
    /// warning says that more iterations will not help.
    #[test]
    fn settled_chains_in_different_places_are_modes() {
        let chains: Vec<Vec<f64>> =
            [0.0, 50.0, 0.0, 50.0].iter().zip(0..).map(|(&m, c)| chain(m, 0.3, 1000, c)).collect();
        let a = assessed(&chains);
        assert_eq!(a.verdict, Convergence::Modes, "{a:?}");
        assert_eq!(a.modes, vec![vec![1, 3], vec![0, 2]]);
        let warning = a.warning().unwrap();
        assert!(warning.contains("2 modes") && warning.contains("will not merge"), "{warning}");
    }

    /// Chains that drift (a trend through each) are unsettled: run longer.
    #[test]
    fn drifting_chains_are_unsettled() {
        let chains: Vec<Vec<f64>> = (0..4)
            .map(|c| chain(0.0, 0.3, 1000, c).into_iter().enumerate().map(|(t, x)| x + t as f64 / 100.0).collect())
            .collect();
        let a = assessed(&chains);
        assert_eq!(a.verdict, Convergence::Unsettled, "{a:?}");
        assert!(a.warning().unwrap().contains("run more iterations"));
    }

    #[test]
    fn modes_split_on_gaps_larger_than_three_sds() {
        assert_eq!(modes(&[0.0, 2.9, 10.0], &[1.0, 1.0, 1.0]), vec![vec![2], vec![0, 1]]);
        assert_eq!(modes(&[5.0], &[0.0]), vec![vec![0]]);
        assert!(modes(&[], &[]).is_empty());
    }
}
