//! What is wrong when chains disagree: slow mixing *within* chains (more iterations help) or
//! chains that each settled in a different mode (more iterations do not; issue 33).
//!
//! * **Within a chain**: the split-`R̂` of the chain's own two halves ([`diagnose`] of that chain
//!   alone) and its bulk ESS. A chain whose halves disagree (`R̂ > WITHIN_RHAT_LIMIT`) has not
//!   settled: it is still drifting.
//! * **Between chains**: the split-`R̂` and ESS over all chains ([`diagnose`]).
//! * **Modes**: chains grouped by the mean of their monitored log density — the marginal
//!   log-likelihood of the scored cells (the multipliers of the negative binomial and the latent
//!   counts integrated out, [`crate::Posterior::kept_ln_likelihood`]) when the chains recorded it,
//!   else the log joint `ln p(Z, Y)`, whose per-cell multipliers can hide chains thousands of
//!   nats apart in a within-chain sd of thousands more — and by every other quantity assessed (the
//!   total, a label-invariant summary of the structure). Two chains belong to one mode when on
//!   every quantity their means differ by at most [`MODE_GAP_SDS`] within-chain standard
//!   deviations `√((s_a² + s_b²)/2)`; otherwise their draws hardly overlap, which samples of one
//!   mode would (the mean of a stationary chain moves by far less than one sd). So chains whose
//!   likelihoods agree but whose partitions of the rows differ, or a chain that ran away to a
//!   total many times the others', are modes of their own.
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
    /// The monitored log density: `"ln_lik"` (the marginal log-likelihood) or `"ln_joint"`.
    pub primary: &'static str,
    /// Per chain: its own bulk ESS of the monitored log density.
    pub within_ess: Vec<f64>,
    /// Per chain: the mean and sd of its monitored log density.
    pub primary_mean: Vec<f64>,
    pub primary_sd: Vec<f64>,
    /// The chains grouped into modes, the mode with the highest mean log density first; each
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

/// Groups chains into modes by the means and sds of their monitored quantities (module docs):
/// `quantities[q] = (means, sds)`, one value per chain, the first the log density that orders
/// the modes. Two chains are linked when on *every* quantity their means differ by at most
/// [`MODE_GAP_SDS`] within-chain sds `√((s_a² + s_b²)/2)`; a mode is a set of linked chains
/// (connected components), highest mean log density first, each mode's chains in increasing
/// order.
pub fn modes(quantities: &[(&[f64], &[f64])]) -> Vec<Vec<usize>> {
    let Some(&(primary, _)) = quantities.first() else { return Vec::new() };
    let chains = primary.len();
    let linked = |a: usize, b: usize| {
        quantities.iter().all(|(mean, sd)| {
            let within = ((sd[a].powi(2) + sd[b].powi(2)) / 2.0).sqrt();
            (mean[a] - mean[b]).abs() <= MODE_GAP_SDS * within || mean[a] == mean[b]
        })
    };
    let mut mode_of: Vec<Option<usize>> = vec![None; chains];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for start in 0..chains {
        if mode_of[start].is_some() {
            continue;
        }
        let (mut members, mut queue) = (vec![start], vec![start]);
        mode_of[start] = Some(out.len());
        while let Some(c) = queue.pop() {
            for (d, mode) in mode_of.iter_mut().enumerate() {
                if mode.is_none() && linked(c, d) {
                    *mode = Some(out.len());
                    members.push(d);
                    queue.push(d);
                }
            }
        }
        members.sort_unstable();
        out.push(members);
    }
    let level = |m: &Vec<usize>| m.iter().map(|&c| primary[c]).sum::<f64>() / m.len() as f64;
    out.sort_by(|a, b| level(b).total_cmp(&level(a)).then(a[0].cmp(&b[0])));
    out
}

/// Assesses chains from their monitored log density `primary[c]` (kept samples, in order; named
/// `name`) and other quantities `others[q][c]` (e.g. the total rate, a label-invariant summary of
/// the structure) whose `R̂` also counts. `pooled` are the between-chain diagnostics of the same
/// quantities (from [`diagnose`]).
pub fn assess(name: &'static str, primary: &[&[f64]], others: &[Vec<&[f64]>], pooled: &[Diagnostics]) -> Assessment {
    let chains = primary.len();
    let quantities = || std::iter::once(primary).chain(others.iter().map(Vec::as_slice));
    let within_rhat: Vec<f64> = (0..chains)
        .map(|c| quantities().map(|q| diagnose(&[q[c]]).rhat).filter(|r| !r.is_nan()).fold(1.0, f64::max))
        .collect();
    let within_ess: Vec<f64> = primary.iter().map(|c| diagnose(&[c]).ess_bulk).collect();
    let moments: Vec<(Vec<f64>, Vec<f64>)> = quantities().map(|q| q.iter().map(|c| mean_sd(c)).unzip()).collect();
    let by_quantity: Vec<(&[f64], &[f64])> = moments.iter().map(|(m, s)| (m.as_slice(), s.as_slice())).collect();
    let modes = modes(&by_quantity);
    let (primary_mean, primary_sd) = moments.into_iter().next().unwrap_or_default();
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
    Assessment { primary: name, within_rhat, within_ess, primary_mean, primary_sd, modes, rhat, verdict }
}

/// [`assess`] of a pooled Gibbs fit by its marginal log-likelihood when every chain recorded
/// pointwise likelihoods (else its log joint), its total rate, and `structure` (one trace per
/// chain of a label-invariant summary of each kept sample's structure, with its between-chain
/// diagnostics; `None`: not assessed); `None` for CAVI or one chain.
pub fn assess_pooled(pooled: &crate::Pooled, structure: Option<(&[Vec<f64>], Diagnostics)>) -> Option<Assessment> {
    if pooled.chains.len() < 2 || pooled.chains[0].sd_rates.is_none() {
        return None;
    }
    let marginal = pooled.chains.iter().all(|p| !p.kept_ln_likelihood.is_empty());
    let name = if marginal { "ln_lik" } else { "ln_joint" };
    let primary: Vec<&[f64]> = pooled
        .chains
        .iter()
        .map(|p| if marginal { p.kept_ln_likelihood.as_slice() } else { p.trace.as_slice() })
        .collect();
    let mut others = vec![pooled.chains.iter().map(|p| p.kept_total_rate.as_slice()).collect::<Vec<_>>()];
    let mut between: Vec<Diagnostics> = pooled
        .diagnostics
        .iter()
        .filter(|(quantity, _)| *quantity == name || *quantity == "total_rate")
        .map(|(_, d)| *d)
        .collect();
    if let Some((traces, diagnostics)) = structure {
        others.push(traces.iter().map(Vec::as_slice).collect());
        between.push(diagnostics);
    }
    Some(assess(name, &primary, &others, &between))
}

impl Assessment {
    /// The warning a reader must see, naming the problem and what to do; `None` for a fit that
    /// mixes.
    pub fn warning(&self) -> Option<String> {
        let worst = self.within_rhat.iter().copied().fold(1.0, f64::max);
        let least_ess = self.within_ess.iter().copied().fold(f64::INFINITY, f64::min);
        let modes = || {
            let means: Vec<String> =
                self.modes.iter().map(|m| format!("{:.0}", self.primary_mean[m[0]])).collect::<Vec<_>>();
            let what = if self.primary == "ln_lik" { "log-likelihoods" } else { "log joints" };
            format!(
                "the chains sit in {} modes, apart in their log-likelihood, total or partition of the rows \
                 (mean {what} {}; R̂ {:.2} across chains)",
                self.modes.len(),
                means.join(", "),
                self.rhat
            )
        };
        let unsettled = format!(
            "within-chain mixing is slow (a chain's two halves disagree up to R̂ {worst:.2}, \
             or it has as few as {least_ess:.0} effective draws): run more iterations (--iterations, --burn-in; \
             lppf fit --until-mixed N runs them until they mix, up to N sweeps)"
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
        assess("ln_lik", &refs, &[], &[diagnose(&refs)])
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
        let one = |means: &'static [f64], sds: &'static [f64]| modes(&[(means, sds)]);
        assert_eq!(one(&[0.0, 2.9, 10.0], &[1.0, 1.0, 1.0]), vec![vec![2], vec![0, 1]]);
        assert_eq!(one(&[5.0], &[0.0]), vec![vec![0]]);
        assert!(modes(&[]).is_empty());
        // The same log density, but the second quantity (a structure summary) sets chain 1 apart.
        let split = modes(&[(&[0.0, 0.0, 0.0], &[1.0, 1.0, 1.0]), (&[1.0, 0.2, 0.98], &[0.01, 0.01, 0.01])]);
        assert_eq!(split, vec![vec![0, 2], vec![1]]);
    }

    fn slices(q: &[Vec<f64>]) -> Vec<&[f64]> {
        q.iter().map(Vec::as_slice).collect()
    }

    /// Two chains whose log densities and totals agree but whose structure summaries sit apart
    /// are two modes, and the warning says so; the same chains with one structure mix.
    #[test]
    fn chains_apart_only_in_their_structure_are_flagged() {
        let density: Vec<Vec<f64>> = (0..2).map(|c| chain(-500.0, 0.3, 1000, c)).collect();
        let totals: Vec<Vec<f64>> = (0..2).map(|c| chain(80.0, 0.3, 1000, 10 + c)).collect();
        let structure = |levels: [f64; 2]| -> Vec<Vec<f64>> {
            (0..2)
                .map(|c| chain(0.0, 0.3, 1000, 20 + c).iter().map(|x| levels[c as usize] + 0.01 * x).collect())
                .collect()
        };
        let assessed = |structure: &[Vec<f64>]| {
            let (d, t, s) = (slices(&density), slices(&totals), slices(structure));
            assess("ln_lik", &d, &[t.clone(), s.clone()], &[diagnose(&d), diagnose(&t), diagnose(&s)])
        };
        let apart = assessed(&structure([0.95, 0.4]));
        assert_eq!(apart.verdict, Convergence::Modes, "{apart:?}");
        assert!(apart.warning().unwrap().contains("2 modes"));
        let together = assessed(&structure([0.95, 0.95]));
        assert_eq!(together.verdict, Convergence::Mixed, "{together:?}");
    }

    /// A chain that ran away to a total 15 times the others' (its log-likelihood no further off
    /// than theirs) is a mode of its own, not pooled silently.
    #[test]
    fn a_runaway_chain_is_a_mode_of_its_own() {
        let density: Vec<Vec<f64>> = (0..4).map(|c| chain(-500.0, 0.3, 1000, c)).collect();
        let totals: Vec<Vec<f64>> =
            [80.0, 80.0, 1200.0, 80.0].iter().zip(30..).map(|(&m, c)| chain(m, 0.3, 1000, c)).collect();
        let (d, t) = (slices(&density), slices(&totals));
        let a = assess("ln_lik", &d, std::slice::from_ref(&t), &[diagnose(&d), diagnose(&t)]);
        assert_eq!(a.verdict, Convergence::Modes, "{a:?}");
        assert_eq!(a.modes.len(), 2);
        assert!(a.modes.contains(&vec![2]), "{:?}", a.modes);
    }
}
