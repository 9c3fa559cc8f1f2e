//! What a person reads: the summary text (convergence, held-out score, each community's top
//! members or each topic's top words, by label) and the figure's matrix.

use crate::chains::{ChainTrace, FitResult, FitSettings, Weighting};
use crate::checks::EXTREME_P;
use crate::data::FitData;
use crate::totals::{TOTAL_CHECK_SDS, total_check};
use crate::verdict::{VERDICT_MIN_NATS, VERDICT_SES};
use inference::tempering::TARGET_SWAP;
use inference::{Algorithm, ESS_PER_CHAIN, RHAT_LIMIT};
use models::{MeanMatrix, ModelKind};
use std::fmt::Write;

/// Members (block) or words (topic) listed per component.
pub(crate) const TOP: usize = 10;
/// Rows (documents) listed per topic.
pub(crate) const TOP_ROWS: usize = 3;
/// The figure's matrix is averaged down to at most this many cells per axis.
const FIGURE_CELLS: usize = 150;

pub(crate) fn factor<'a>(result: &'a FitResult, name: &str) -> Option<&'a MeanMatrix> {
    result.factors.iter().find(|m| m.name == name)
}

/// A chain's replica-exchange lines (empty for a plain chain): its final ladder and swap rates,
/// and a warning where neighbouring rungs swapped less than half as often as the adaptation's
/// lower target ([`TARGET_SWAP`]; half, so that an adapted ladder drifting just below its target
/// after the burn-in is not flagged): those rungs seldom exchange states, so the cold chain gains
/// little from the hotter replicas. That happens when the energies of the replicas differ by far more than
/// `1/(β_r − β_{r+1})` nats even on a narrowed ladder (docs/modes.md, section 4; at Fig. 4's size
/// every ladder narrowed as far as its burn-in allowed, docs/calibration.md).
fn replica_text(t: &ChainTrace) -> String {
    if t.ladder.is_empty() {
        return String::new();
    }
    let list = |x: &[f64]| x.iter().map(|v| format!("{v:.3}")).collect::<Vec<_>>().join(", ");
    let (low, high) = TARGET_SWAP;
    let rare_below = low / 2.0;
    let mut s = format!(
        "    replica exchange: ladder β [{}], swap rates [{}] (adapted in burn-in towards {low}–{high})\n",
        list(&t.ladder),
        list(&t.swap_rates)
    );
    let rare: Vec<String> = (t.swap_rates.iter().enumerate())
        .filter(|&(_, &rate)| rate < rare_below)
        .filter_map(|(r, _)| Some(format!("{:.5} and {:.5}", t.ladder.get(r)?, t.ladder.get(r + 1)?)))
        .collect();
    if !rare.is_empty() {
        let _ = writeln!(
            s,
            "    rarely swapped (rate < {rare_below}) between β {}: the replicas seldom exchange states, so this \
             chain mixes little better than a plain one (docs/modes.md, section 4)",
            rare.join("; ")
        );
    }
    s
}

/// A chain's Hamiltonian move: its adapted step and mean acceptance over the kept sweeps, and a
/// note where that acceptance is below half the adaptation's target
/// ([`models::hmc::TARGET_ACCEPTANCE`]): the step was adapted where the chain was during the
/// burn-in, and a chain that has moved on since may propose too far, so the move seldom moves
/// it (the draws stay exact).
fn move_text(t: &ChainTrace) -> String {
    let Some((step, acceptance)) = t.hamiltonian else {
        return String::new();
    };
    let target = models::hmc::TARGET_ACCEPTANCE;
    let mut s = format!(
        "    Hamiltonian move: step {step:.3e}, mean acceptance {acceptance:.2} over the kept sweeps (adapted in \
         burn-in towards {target:.1})\n"
    );
    if acceptance < target / 2.0 {
        let _ = writeln!(
            s,
            "    seldom accepted (below {:.1}): the chain has likely moved on since its step was adapted, so the move does \
             little for it; a longer --burn-in adapts it where the chain ends",
            target / 2.0
        );
    }
    s
}

/// `x` to three significant digits.
fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// ` (x per s)`: an effective sample size per second of the fit (issue 34: what a user pays for
/// is an effective draw, not an iteration); nothing when the time is not positive.
fn per_second(ess: f64, seconds: f64) -> String {
    if seconds > 0.0 && ess.is_finite() { format!(" ({} per s)", sig3(ess / seconds)) } else { String::new() }
}

/// The indices of the `n` largest of `values` (ties by index), largest first.
pub(crate) fn top(values: impl Iterator<Item = f64>, n: usize) -> Vec<(usize, f64)> {
    let mut v: Vec<(usize, f64)> = values.enumerate().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// When the model's total is `excess` above the release's interval: the counts a gamma prior of
/// shape `a₀` adds, of the order of `K·a₀` per row and per column (each factor's conditional is
/// `Gamma(a₀ + n, ·)`), if they are of the order of the excess (at least a third of it); else
/// nothing. On a 1,000 × 3,000 release at K = 10 the excess was 1.1× these counts at `a₀ = 1` and
/// 0.7× at `a₀ = 0.1` (BENCHMARKS.md, "A 3·10⁶-cell release in ten minutes").
fn prior_counts_hint(settings: &FitSettings, data: &FitData, excess: f64) -> String {
    let (rows, cols) = data.shape();
    let added = settings.components as f64 * settings.prior.shape() * (rows + cols) as f64;
    match excess > 0.0 && added >= excess / 3.0 {
        true => format!(
            "; a gamma prior of shape a0 = {} adds of the order of K·a0 counts per row and per column ({} in all \
             here): a smaller --a0 adds fewer (docs/own-data.md, 'Large tables')",
            settings.prior.shape(),
            sig3(added)
        ),
        false => String::new(),
    }
}

/// What a plain Gibbs fit of the directed block model that has not mixed and ran without the
/// Hamiltonian move (`--hamiltonian-move off`) is told to try: the move, with which 13 of 72
/// planted networks' fits mixed against 2 without it (docs/model-checking.md, "The block
/// model's Hamiltonian move on the planted networks").
fn move_hint(settings: &FitSettings) -> &'static str {
    match settings.move_applies() && settings.replicas == 1 && !settings.hamiltonian_move {
        true => {
            "; for a directed network, --hamiltonian-move on (the default) mixes more often (docs/inference.md, \
             'The Hamiltonian move of the block model')"
        }
        false => "",
    }
}

/// The warnings a reader must see: a total off the release's, unconverged or few effective
/// draws, flagged checks, CAVI starts that did not converge.
pub(crate) fn warnings(settings: &FitSettings, data: &FitData, result: &FitResult) -> Vec<String> {
    let mut out = Vec::new();
    // A Gibbs fit of released data checks its total by the posterior predictive check (which
    // includes the posterior's own uncertainty and is calibrated on model data, docs/model-checking.md);
    // the plug-in gap below remains for CAVI fits.
    let plug_in = result.checks.is_empty();
    if let Some(t) = total_check(data, result).filter(|t| plug_in && t.gap().abs() > TOTAL_CHECK_SDS) {
        out.push(format!(
            "the fitted total rate {} is {:.1} sd from the released total {} (an unbiased estimate of the true total): more than the noise explains — the prior pulls (sparse cells under heavy noise) or the model misfits the counts (docs/model-checking.md, 'The total')",
            sig3(t.fitted_total),
            t.gap().abs(),
            sig3(t.released_total)
        ));
    }
    if let (Some(t), Some((lo, hi))) = (result.release_total, result.total_count_interval)
        && (hi < t.interval.0 || lo > t.interval.1)
    {
        out.push(format!(
            "the model's total count [{}, {}] lies outside the interval the release alone gives the true total \
                 [{}, {}]: the model misfits the counts' total; quote the release's (docs/model-checking.md, 'The total'){}",
            sig3(lo),
            sig3(hi),
            t.interval.0,
            t.interval.1,
            prior_counts_hint(settings, data, lo - t.interval.1)
        ));
    }
    match &result.assessment {
        // Several chains: one warning naming the problem (slow mixing within chains, or modes
        // between them) and what to do; none for a fit that mixes.
        Some(assessment) => out.extend(assessment.warning().map(|w| format!("{w}{}", move_hint(settings)))),
        None => {
            for (name, d) in &result.diagnostics {
                out.extend(d.warnings(settings.chains).into_iter().map(|w| format!("{name}: {w}")));
            }
        }
    }
    let (data_word, replicated) = match data.input {
        crate::data::Input::Released { .. } => ("release", "releases"),
        crate::data::Input::Counts { .. } => ("table of counts", "tables"),
    };
    for c in result.checks.iter().filter(|c| c.extreme()) {
        out.push(format!(
            "posterior predictive check {}: the {data_word} has {} where replicated {replicated} have {} ± {} (p = {:.3}): \
             the model does not reproduce this feature of the {data_word} (docs/model-checking.md)",
            c.statistic,
            sig3(c.observed),
            sig3(c.replicated_mean),
            sig3(c.replicated_sd),
            c.p_value
        ));
    }
    let unconverged = result.traces.iter().filter(|t| t.converged == Some(false)).count();
    if unconverged > 0 {
        out.push(format!(
            "{unconverged} of {} CAVI starts did not converge; raise --max-iterations",
            result.traces.len()
        ));
    }
    out
}

/// The summary printed after a fit and saved as `summary.txt`.
pub fn summary_text(settings: &FitSettings, data: &FitData, result: &FitResult) -> String {
    let mut s = String::new();
    let (rows, cols) = data.shape();
    let _ = writeln!(
        s,
        "lppf fit: {} model, {} components, {} likelihood, method {}, on {} ({rows} × {cols} cells{})",
        settings.model.name(),
        settings.components,
        settings.likelihood.name(),
        settings.method.name(),
        data.file.display(),
        match data.modelled {
            models::ModelledCells::All => "",
            models::ModelledCells::OffDiagonal => ", diagonal not modelled",
            models::ModelledCells::Pairs => ", each pair once (undirected), diagonal not modelled",
        }
    );
    if let Some(levels) = &data.levels {
        let _ = writeln!(s, "noise levels: {levels}");
    }
    match settings.algorithm {
        Algorithm::Gibbs(schedule) => {
            let _ = writeln!(
                s,
                "{} chains × {} iterations, {} kept per chain; {:.1} s",
                settings.chains,
                schedule.iterations(),
                schedule.kept(),
                result.seconds
            );
            if let [.., last] = result.lengths[..] {
                let tried: Vec<String> = result.lengths.iter().map(|n| n.to_string()).collect();
                let mixed =
                    result.assessment.as_ref().is_some_and(|a| a.verdict == inference::convergence::Convergence::Mixed);
                let _ = writeln!(
                    s,
                    "run until the chains mix (--until-mixed): {} sweeps per chain; {}",
                    tried.join(", then "),
                    if mixed {
                        format!("mixed at {last}")
                    } else {
                        "not mixed when the next run would pass the cap".into()
                    }
                );
            }
            let _ = writeln!(
                s,
                "\nconvergence (split-R̂ and ESS, Vehtari et al. 2021; want R̂ ≤ {RHAT_LIMIT}, ESS ≥ {} per chain; \
                 ESS per second of the whole fit):",
                ESS_PER_CHAIN
            );
            for (name, d) in &result.diagnostics {
                let _ = writeln!(
                    s,
                    "  {name:<11} R̂ {:.3}   bulk ESS {:.0}{}   tail ESS {:.0}",
                    d.rhat,
                    d.ess_bulk,
                    per_second(d.ess_bulk, result.seconds),
                    d.ess_tail
                );
            }
            if let Some(loo) = &result.loo {
                let _ = writeln!(
                    s,
                    "  PSIS-LOO of {} cells the fit saw, under the marginal likelihood: {:.1} % of the chains' \
                     estimates unreliable (k̂ > 0.7 or not computable)",
                    loo.cells,
                    100.0 * loo.unreliable_share
                );
            }
            let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
            for (c, t) in result.traces.iter().enumerate() {
                let within = result.assessment.as_ref().map_or(String::new(), |a| {
                    format!("; its halves R̂ {:.3}, bulk ESS {:.0}", a.within_rhat[c], a.within_ess[c])
                });
                let ln_lik = if t.ln_lik.is_empty() {
                    String::new()
                } else {
                    format!(", mean ln_lik {}", sig3(mean(&t.ln_lik)))
                };
                let structure = if t.structure.is_empty() {
                    String::new()
                } else {
                    format!(", mean structure {:.3}", mean(&t.structure))
                };
                let _ = writeln!(
                    s,
                    "  chain {c}: mean ln_joint {}, mean total_rate {}{ln_lik}{structure}, weight {:.3}{within}",
                    sig3(mean(&t.values)),
                    sig3(mean(&t.total_rate)),
                    result.weights[c]
                );
                s.push_str(&replica_text(t));
                s.push_str(&move_text(t));
            }
            modes_text(&mut s, result);
        }
        Algorithm::Cavi(_) => {
            let _ = writeln!(s, "{} CAVI starts; {:.1} s", settings.chains, result.seconds);
            for (c, t) in result.traces.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "  start {c}: {} iterations, final ELBO {}, {}",
                    t.values.len(),
                    t.values.last().map_or("-".into(), |e| sig3(*e)),
                    if t.converged == Some(true) { "converged" } else { "NOT converged" }
                );
            }
        }
    }
    if let Some(t) = total_check(data, result).filter(|_| result.checks.is_empty()) {
        let _ = writeln!(
            s,
            "  total check: released total {} vs fitted total rate {} (gap {:+.1} sd; |gap| > {TOTAL_CHECK_SDS} is flagged)",
            sig3(t.released_total),
            sig3(t.fitted_total),
            t.gap()
        );
    }
    if let Some([lo, median, hi]) = result.dispersion_quantiles {
        let _ = writeln!(
            s,
            "  dispersion r ({}): median {}, 90 % interval [{}, {}]{}",
            match settings.likelihood {
                models::Likelihood::Contaminated(_) => "of the overdispersed cells, NB(r, μ)",
                _ => "negative binomial, variance μ + μ²/r",
            },
            sig3(median),
            sig3(lo),
            sig3(hi),
            match settings.algorithm {
                Algorithm::Gibbs(g) if g.dispersion_warm_up() > 0 => format!(
                    " (held at {} for each chain's first {} sweeps)",
                    inference::WARM_UP_DISPERSION,
                    g.dispersion_warm_up()
                ),
                _ => String::new(),
            }
        );
    }
    if let Some([lo, median, hi]) = result.share_quantiles {
        let _ = writeln!(
            s,
            "  share π of overdispersed cells (the rest Poisson): median {}, 90 % interval [{}, {}]",
            sig3(median),
            sig3(lo),
            sig3(hi)
        );
    }
    if let Some(t) = result.release_total {
        let _ = writeln!(
            s,
            "  the table's true total, from the release alone (no model): {}, 90 % interval [{}, {}] over {} cells",
            t.released, t.interval.0, t.interval.1, t.cells
        );
    }
    if let Some((lo, hi)) = result.total_rate_interval {
        let _ = writeln!(
            s,
            "  total rate Σμ under the model: 90 % interval [{}, {}] over the kept samples",
            sig3(lo),
            sig3(hi)
        );
    }
    if let Some((lo, hi)) = result.total_count_interval {
        let _ = writeln!(
            s,
            "  total count Σy under the model (the true counts drawn given the release): 90 % interval [{}, {}]",
            sig3(lo),
            sig3(hi)
        );
    }
    if !result.checks.is_empty() {
        let n = result.checks[0].replications;
        let (what, replicated, data_word) = match data.input {
            crate::data::Input::Released { .. } => ("the release", "releases y_rep + noise", "release"),
            crate::data::Input::Counts { .. } => ("the counts", "tables y_rep", "counts "),
        };
        let _ = writeln!(
            s,
            "\nposterior predictive checks on {what} ({n} replicated {replicated}; p = P(T_rep > T), \
             flagged outside [{EXTREME_P}, {}]):",
            1.0 - EXTREME_P
        );
        for c in &result.checks {
            let _ = writeln!(
                s,
                "  {:<21} {data_word} {:>10}   replicated {:>10} ± {:<9} p = {:.3}{}",
                c.statistic,
                sig3(c.observed),
                sig3(c.replicated_mean),
                sig3(c.replicated_sd),
                c.p_value,
                if c.extreme() { "  EXTREME" } else { "" }
            );
        }
    }
    for w in warnings(settings, data, result) {
        let _ = writeln!(s, "  WARNING {w}");
    }
    if let Some(h) = &result.heldout {
        let _ = writeln!(
            s,
            "\nheld out: {} cells; log predictive {} ({} per cell), averaged over {} posterior sample{}",
            h.cells,
            sig3(h.log_predictive),
            sig3(h.log_predictive / h.cells as f64),
            h.samples,
            if h.samples == 1 { " (CAVI: plug-in E[μ])" } else { "s" }
        );
        if h.per_chain.len() > 1 {
            let scores: Vec<String> = h.per_chain.iter().map(|&v| sig3(v)).collect();
            let (lo, hi) =
                h.per_chain.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), &v| (l.min(v), u.max(v)));
            let _ = writeln!(
                s,
                "  per chain: {} (spread {}: differences between fits smaller than this are chain noise)",
                scores.join(", "),
                sig3(hi - lo)
            );
        }
    }
    let findings = verdict_text(&mut s, settings, result);
    let source = match settings.algorithm {
        Algorithm::Gibbs(_) => format!("the best kept sample of chain {}", result.factors_chain),
        Algorithm::Cavi(_) => format!("the variational means of start {}", result.factors_chain),
    };
    if findings {
        match settings.model {
            ModelKind::Block | ModelKind::Undirected => block_summary(&mut s, data, result, &source),
            // Topics from one sample mix themes across labels: with a partition of the rows (a
            // Gibbs fit), its groups are described by their columns instead (partition_text).
            ModelKind::Topic if result.partition.is_some() => {}
            ModelKind::Topic => topic_summary(&mut s, data, result, &source),
            ModelKind::Tensor => crate::time_profiles::tensor_summary(&mut s, data, result, &source),
        }
        partition_text(&mut s, data, result, settings.model == ModelKind::Topic);
    }
    s
}

/// The label-invariant partition of the rows ([`crate::partition`]): its groups of two or more,
/// largest first, each member with its co-clustering with the rest of the group; with `columns`
/// (a topic model: the groups are documents by their main topic), each group's share of the
/// fitted counts and its distinctive columns ([`crate::partition::distinctive_columns`]) first.
fn partition_text(s: &mut String, data: &FitData, result: &FitResult, columns: bool) {
    let Some(partition) = &result.partition else { return };
    let _ = writeln!(
        s,
        "
label-invariant groups of rows (the kept sample, over all chains, with the least expected Binder loss, \
         {:.3} per pair; co = co-clustering with the rest of the group, near 1: stable){}:",
        partition.expected_loss_per_pair,
        if columns {
            "; each group's columns are those it uses more than all rows do, by p ln(p/q) of the posterior \
             mean rates (p: share within the group, q: over all rows), pooled over every chain and sample"
        } else {
            ""
        }
    );
    let cols = data.cols.len();
    let total: f64 = result.mean_rates.iter().sum();
    let alone = partition.groups.iter().filter(|g| g.len() == 1).count();
    for (g, rows) in partition.groups.iter().enumerate().filter(|(_, rows)| rows.len() > 1) {
        let mean_co = rows.iter().map(|&i| partition.co[i]).sum::<f64>() / rows.len() as f64;
        let mut members: Vec<usize> = rows.clone();
        members.sort_by(|&a, &b| partition.co[b].total_cmp(&partition.co[a]).then(a.cmp(&b)));
        let listed: Vec<String> =
            members.iter().take(TOP).map(|&i| format!("{} ({:.2})", data.rows.names[i], partition.co[i])).collect();
        let more = if rows.len() > TOP { format!(", … {} more", rows.len() - TOP) } else { String::new() };
        if columns {
            let words: Vec<String> = crate::partition::distinctive_columns(rows, &result.mean_rates, cols, TOP)
                .iter()
                .map(|(v, p)| format!("{} ({:.1} %)", data.cols.names[*v], 100.0 * p))
                .collect();
            let mass: f64 = rows.iter().map(|&i| result.mean_rates[i * cols..(i + 1) * cols].iter().sum::<f64>()).sum();
            let share = if total > 0.0 { 100.0 * mass / total } else { 0.0 };
            let _ = writeln!(
                s,
                "  group {} ({} rows, {share:.1} % of the counts, mean co {mean_co:.2}): {}\n    rows: {}{more}",
                g + 1,
                rows.len(),
                words.join(" "),
                listed.join(", ")
            );
            continue;
        }
        let _ =
            writeln!(s, "  group {} ({} rows, mean co {mean_co:.2}): {}{more}", g + 1, rows.len(), listed.join(", "));
    }
    if alone > 0 {
        let _ = writeln!(s, "  and {alone} row{} alone", if alone == 1 { "" } else { "s" });
    }
}

/// The modes of a Gibbs fit (when its chains fall into more than one) and how they are weighted.
fn modes_text(s: &mut String, result: &FitResult) {
    let by_rows = result.co_clustering_modes.as_ref().filter(|g| g.len() > 1);
    if let Some(groups) = by_rows {
        let groups: Vec<String> = groups
            .iter()
            .map(|g| format!("{{{}}}", g.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")))
            .collect();
        let _ = writeln!(
            s,
            "  chains grouped by how they cluster the rows (co-clustering differing by more than {} per pair): {}",
            crate::partition::CO_CLUSTERING_GAP,
            groups.join(" ")
        );
    }
    if result.modes.len() < 2 {
        return;
    }
    let how = match (result.weighting, &result.heldout, &result.loo) {
        (Weighting::Stacking, Some(h), _) => format!("stacking on {} held-out cells", h.cells),
        (Weighting::Stacking, None, Some(l)) => format!(
            "stacking by PSIS-LOO on {} cells, {:.1} % of the estimates unreliable (k̂ > 0.7)",
            l.cells,
            100.0 * l.unreliable_share
        ),
        _ => "equal (pass --weights stacking to weight them by their predictive)".into(),
    };
    let primary = result.assessment.as_ref().map_or("ln_joint", |a| a.primary);
    let _ = writeln!(s, "  modes (chains grouped by mean {primary}; weights: {how}):");
    for (i, m) in result.modes.iter().enumerate() {
        let chains: Vec<String> = m.chains.iter().map(usize::to_string).collect();
        let heldout = match (m.heldout_log_predictive, m.loo_log_predictive) {
            (Some(h), _) => format!(", held-out log predictive {}", sig3(h)),
            (None, Some(l)) => format!(", LOO log predictive {}", sig3(l)),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            s,
            "    mode {}: chain{} {} — weight {:.3}, mean {primary} {}, mean total rate {}{heldout}",
            i + 1,
            if m.chains.len() == 1 { "" } else { "s" },
            chains.join(", "),
            m.weight,
            sig3(m.mean_log_density),
            sig3(m.mean_total_rate)
        );
    }
}

/// The verdict in words: the test of the release ([`crate::structure_test`]), then the held-out
/// comparison of this fit with the independence model. Returns whether the components are worth
/// listing: when either finds structure (with no test at all, as before: always).
fn verdict_text(s: &mut String, settings: &FitSettings, result: &FitResult) -> bool {
    let what = match settings.model {
        ModelKind::Block | ModelKind::Undirected => "communities",
        ModelKind::Topic => "topics",
        ModelKind::Tensor => "components",
    };
    let k = settings.components;
    let in_release = result.structure_test.map(|t| {
        let _ = writeln!(s, "\n{}", t.describe());
        t.structure()
    });
    if in_release.is_none() && k >= 2 {
        let _ = writeln!(
            s,
            "\nno test of the release for structure (--structure-tables 0, or too few rows or columns for {k} groups)"
        );
    }
    let heldout = result.verdict.as_ref().map(|v| {
        let rule = format!("> {VERDICT_SES} se and > {VERDICT_MIN_NATS} nats");
        let (word, rule) = match v.structure() {
            true => ("better than", rule),
            false if v.difference > 0.0 => ("not clearly better than", format!("structure needs {rule}")),
            false => ("no better than", format!("structure needs {rule}")),
        };
        let _ = writeln!(
            s,
            "this fit: the {k} {what} predict the held-out cells {word} the independence model (row activity × \
             column popularity): Δ = {} ± {} nats (se, {} cells; {rule})",
            sig3(v.difference),
            sig3(v.se),
            v.cells
        );
        v.structure()
    });
    match (in_release, heldout) {
        (Some(true), Some(false)) => {
            let _ = writeln!(
                s,
                "  the release has structure that this fit's {what} may not capture: read them with their \
                 co-clustering (co), and try another K or --likelihood contaminated (docs/model-checking.md, \
                 \"Planted designs\")"
            );
            true
        }
        (Some(false), Some(true)) => {
            let _ = writeln!(s, "  the two checks disagree: the {what} below are leads, not findings");
            true
        }
        (Some(false), _) | (None, Some(false)) => {
            let _ = writeln!(
                s,
                "What this fit would call {what} are not findings, so none are listed; the rates in rates.parquet \
                 are still the posterior means. \"No evidence\" is not \"none\": weak structure in small or very \
                 noisy tables is missed (docs/model-checking.md, \"How often the verdict is right\")."
            );
            false
        }
        (None, None) if !(settings.model == ModelKind::Topic && k == 1) => {
            let _ = writeln!(
                s,
                "\nno check of structure: with --holdout (e.g. 0.1) the fit is compared with the independence \
                 model on held-out cells, and {what} are listed only if they predict better"
            );
            true
        }
        (release, fit) => release.or(fit).unwrap_or(true),
    }
}

fn block_summary(s: &mut String, data: &FitData, result: &FitResult, source: &str) {
    let Some(theta) = factor(result, "theta") else { return };
    let c = theta.cols;
    let size: Vec<f64> = (0..c).map(|k| (0..theta.rows).map(|i| theta.values[i * c + k]).sum()).collect();
    let stability = !result.assignments.is_empty();
    let _ = writeln!(
        s,
        "\ncommunities (from {source}), largest first; members by θ (membership){}:",
        if stability {
            ", each with its co-clustering probability (co) with the community's other listed members \
             over all kept samples (label-free; near 1: stable, near 1/K: not a finding)"
        } else {
            ""
        }
    );
    for (rank, (k, total)) in top(size.iter().copied(), c).into_iter().enumerate() {
        let listed = top((0..theta.rows).map(|i| theta.values[i * c + k]), TOP);
        let rows: Vec<usize> = listed.iter().map(|(i, _)| *i).collect();
        let co = crate::co_clustering(&result.assignments, &rows);
        let members: Vec<String> = listed
            .iter()
            .zip(&co)
            .map(|((i, v), p)| match stability {
                true => format!("{} ({}, co {:.2})", data.rows.names[*i], sig3(*v), p),
                false => format!("{} ({})", data.rows.names[*i], sig3(*v)),
            })
            .collect();
        let _ = writeln!(s, "  {:>2}. (component {k}, Σθ = {}): {}", rank + 1, sig3(total), members.join(", "));
    }
}

fn topic_summary(s: &mut String, data: &FitData, result: &FitResult, source: &str) {
    let (Some(theta), Some(phi)) = (factor(result, "theta"), factor(result, "phi")) else { return };
    let (k, v) = (phi.rows, phi.cols);
    let weight: Vec<f64> = (0..k)
        .map(|t| {
            let doc: f64 = (0..theta.rows).map(|d| theta.values[d * k + t]).sum();
            doc * phi.values[t * v..(t + 1) * v].iter().sum::<f64>()
        })
        .collect();
    let total: f64 = weight.iter().sum();
    let _ = writeln!(s, "\ntopics (from {source}), by expected share of all counts; top columns by φ:");
    for (rank, (t, w)) in top(weight.iter().copied(), k).into_iter().enumerate() {
        let words: Vec<&str> = top(phi.values[t * v..(t + 1) * v].iter().copied(), TOP)
            .into_iter()
            .map(|(j, _)| data.cols.names[j].as_str())
            .collect();
        let docs: Vec<&str> = top((0..theta.rows).map(|d| theta.values[d * k + t]), TOP_ROWS)
            .into_iter()
            .map(|(d, _)| data.rows.names[d].as_str())
            .collect();
        let share = if total > 0.0 { 100.0 * w / total } else { 0.0 };
        let _ = writeln!(
            s,
            "  {:>2}. (component {t}, {share:.1} %): {}  — rows: {}",
            rank + 1,
            words.join(" "),
            docs.join(", ")
        );
    }
}

/// Averages a row-major `rows × cols` matrix down to at most `FIGURE_CELLS` per axis.
fn shrink(values: &[f64], rows: usize, cols: usize) -> (Vec<f64>, usize, usize) {
    let (r, c) = (rows.min(FIGURE_CELLS), cols.min(FIGURE_CELLS));
    let mut sum = vec![0.0; r * c];
    let mut count = vec![0usize; r * c];
    for i in 0..rows {
        for j in 0..cols {
            let cell = (i * r / rows) * c + j * c / cols;
            sum[cell] += values[i * cols + j];
            count[cell] += 1;
        }
    }
    (sum.iter().zip(&count).map(|(s, &n)| s / n.max(1) as f64).collect(), r, c)
}

/// Row `i`'s dominant component of `theta` and its weight.
fn dominant(theta: &MeanMatrix, i: usize) -> (usize, f64) {
    let c = theta.cols;
    top(theta.values[i * c..(i + 1) * c].iter().copied(), 1).first().copied().unwrap_or((0, 0.0))
}

/// Row `i`'s dominant component of `theta`.
fn dominant_component(theta: &MeanMatrix, i: usize) -> usize {
    dominant(theta, i).0
}

/// The order of `theta`'s rows by dominant component, then by decreasing weight on it.
fn by_component(theta: &MeanMatrix) -> Vec<usize> {
    let mut order: Vec<usize> = (0..theta.rows).collect();
    order.sort_by(|&a, &b| {
        let (ka, va) = dominant(theta, a);
        let (kb, vb) = dominant(theta, b);
        ka.cmp(&kb).then(vb.total_cmp(&va)).then(a.cmp(&b))
    });
    order
}

/// The label of each bin of [`shrink`] (`n` items in order into `bins`): its first item's.
pub(crate) fn bin_labels(names: &[&String], bins: usize) -> Vec<String> {
    let mut labels = vec![String::new(); bins];
    for (i, name) in names.iter().enumerate().rev() {
        labels[i * bins / names.len().max(1)] = (*name).clone();
    }
    labels
}

/// The fit's figure: its matrix (shrunk to at most [`FIGURE_CELLS`] a side) and shape, its title
/// and axis texts (x, y, colour scale), the labels of its columns and rows (the user's labels;
/// empty for topics, which are numbered), and where a new group of its ordered columns and rows
/// starts (drawn as lines; empty for topics' rows).
pub(crate) struct FigureMatrix {
    pub values: Vec<f64>,
    pub rows: usize,
    pub cols: usize,
    pub text: [String; 4],
    pub ticks: [Vec<String>; 2],
    pub breaks: [Vec<usize>; 2],
}

/// Where a new group starts in `groups` (the group of each item in order), as the bin of
/// [`shrink`]'s `bins` that holds the group's first item.
fn group_breaks(groups: &[usize], bins: usize) -> Vec<usize> {
    let n = groups.len().max(1);
    let mut breaks: Vec<usize> =
        (1..groups.len()).filter(|&p| groups[p] != groups[p - 1]).map(|p| p * bins / n).collect();
    breaks.dedup();
    breaks
}

/// `true` when a Gibbs fit's chains disagree: split-R̂ of the log joint or the total above
/// [`RHAT_LIMIT`] (or undefined), as the fit's own warnings say.
fn chains_disagree(result: &FitResult) -> bool {
    result.diagnostics.iter().any(|(_, d)| d.rhat.is_nan() || d.rhat > RHAT_LIMIT)
}

/// The figure: block model, `ln(1 + μ)` with actors ordered by dominant community (the one carrying
/// most of their expected count, as in `partition.csv`) and lines between communities; topic
/// model, each topic's `φ` normalized to sum 1 with columns ordered by dominant topic. The block
/// model's rates are the posterior means, unless the chains disagree: then a mean over chains
/// sitting in different modes would blur them, and the figure shows the rates `θ π θᵀ` of the
/// sample its communities come from (the best chain's best sample), and says so in the title.
pub(crate) fn figure_matrix(settings: &FitSettings, data: &FitData, result: &FitResult) -> Option<FigureMatrix> {
    let theta = factor(result, "theta")?;
    match settings.model {
        ModelKind::Tensor => crate::time_profiles::time_profile_figure(settings, data, result),
        ModelKind::Block | ModelKind::Undirected => {
            let n = data.rows.len();
            // An undirected network's rate of a pair sits at (min, max): shown both ways.
            let undirected = settings.model == ModelKind::Undirected;
            // Actors by the community carrying most of their expected count (as `partition.csv`).
            let pi = factor(result, "pi");
            let loadings = pi.map(|pi| MeanMatrix {
                values: models::block_row_loadings(&theta.values, &pi.values, theta.cols, undirected),
                ..theta.clone()
            });
            let ranked = loadings.as_ref().unwrap_or(theta);
            let order = by_component(ranked);
            let at = |i: usize, j: usize| if undirected { i.min(j) * n + i.max(j) } else { i * n + j };
            let sample = pi.filter(|_| chains_disagree(result));
            let rate = |i: usize, j: usize| match sample {
                // Cells the model leaves out (a mean of exactly 0) stay 0.
                Some(pi) if result.mean_rates[at(i, j)] > 0.0 => {
                    let c = theta.cols;
                    let (a, b) = (&theta.values[i * c..(i + 1) * c], &theta.values[j * c..(j + 1) * c]);
                    (0..c).map(|k| a[k] * (0..c).map(|l| pi.values[k * c + l] * b[l]).sum::<f64>()).sum()
                }
                _ => result.mean_rates[at(i, j)],
            };
            let values: Vec<f64> = order
                .iter()
                .flat_map(|&i| order.iter().map(move |&j| (i, j)))
                .map(|(i, j)| rate(i, j).ln_1p())
                .collect();
            let (m, r, c) = shrink(&values, n, n);
            // Short enough for the figure's width; summary.txt and docs say more.
            let what = match sample {
                Some(_) => format!("rates of chain {}'s best sample (chains disagree)", result.factors_chain),
                None => "posterior mean rates".to_string(),
            };
            let title =
                format!("{}: {what}, actors by community (K = {})", settings.method.name(), settings.components);
            let names: Vec<&String> = order.iter().map(|&i| &data.rows.names[i]).collect();
            let groups: Vec<usize> = order.iter().map(|&i| dominant_component(ranked, i)).collect();
            let scale = if undirected { "ln(1 + rate of the pair {i, j})" } else { "ln(1 + rate of i → j)" };
            Some(FigureMatrix {
                values: m,
                rows: r,
                cols: c,
                text: [
                    title,
                    "actor j, ordered by community".into(),
                    "actor i, ordered by community".into(),
                    scale.into(),
                ],
                ticks: [bin_labels(&names, c), bin_labels(&names, r)],
                breaks: [group_breaks(&groups, c), group_breaks(&groups, r)],
            })
        }
        ModelKind::Topic => {
            let phi = factor(result, "phi")?;
            let (k, v) = (phi.rows, phi.cols);
            let normalized: Vec<f64> = phi
                .values
                .chunks_exact(v)
                .flat_map(|row| {
                    let s: f64 = row.iter().sum();
                    row.iter().map(move |x| if s > 0.0 { x / s } else { 0.0 })
                })
                .collect();
            let transposed = MeanMatrix {
                name: "phi^T",
                rows: v,
                cols: k,
                values: (0..v * k).map(|n| normalized[(n % k) * v + n / k]).collect(),
            };
            let order = by_component(&transposed);
            let values: Vec<f64> =
                (0..k).flat_map(|t| order.iter().map(move |&j| (t, j))).map(|(t, j)| normalized[t * v + j]).collect();
            let (m, r, c) = shrink(&values, k, v);
            let title = format!("{}: topics (φ normalized), columns ordered by dominant topic", settings.method.name());
            let names: Vec<&String> = order.iter().map(|&j| &data.cols.names[j]).collect();
            let groups: Vec<usize> = order.iter().map(|&j| dominant_component(&transposed, j)).collect();
            Some(FigureMatrix {
                values: m,
                rows: r,
                cols: c,
                text: [title, "column, ordered by dominant topic".into(), "topic".into(), "share of the topic".into()],
                ticks: [bin_labels(&names, c), Vec::new()],
                breaks: [group_breaks(&groups, c), Vec::new()],
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A private block fit (2 chains × 20 sweeps, K = 2) of a released 6-actor network with two
    /// communities of 3: its settings, data and result.
    fn small_block_fit() -> (FitSettings, FitData, FitResult) {
        let n = 6;
        let counts: Vec<u32> =
            (0..n * n).map(|c| if c / n == c % n { 0 } else { ((c / n < 3) == (c % n < 3)) as u32 * 5 }).collect();
        let released = mechanism::privatize(
            &counts,
            n,
            n,
            mechanism::Noise::Scalar(0.3),
            &mut distributions::Streams::new(3).rng(),
        )
        .unwrap();
        let labels = tables::Labels::from_names((0..n).map(|i| format!("a{i}")));
        let data = FitData {
            file: "simulated".into(),
            axes: None,
            rows: labels.clone(),
            cols: labels,
            input: crate::Input::Released { privatized: released, alphas: vec![0.3; n], heldout_values: Vec::new() },
            levels: None,
            overrides_sidecar: None,
            modelled: models::ModelledCells::OffDiagonal,
            heldout: Vec::new(),
        };
        let settings = FitSettings {
            model: ModelKind::Block,
            components: 2,
            prior: models::GammaPrior::new(1.0, 1.0).unwrap(),
            scale: None,
            likelihood: models::Likelihood::Poisson,
            method: inference::Method::Private,
            chains: 2,
            algorithm: Algorithm::Gibbs(inference::Schedule::new(20, 10, 2).unwrap()),
            seed: 7,
            weighting: Weighting::Equal,
            replicas: 1,
            hamiltonian_move: false,
        };
        let result = crate::fit_chains(&settings, &data, &|| {}).unwrap();
        (settings, data, result)
    }

    /// The hint about the prior's counts: K·a₀·(rows + columns) = 2 · 1 · 12 = 24 here, given when
    /// the model's total is above the release's by at most three times that, never when below.
    #[test]
    fn the_total_warning_names_the_prior_counts_only_when_they_are_of_the_order_of_the_excess() {
        let (settings, data, _) = small_block_fit();
        let hint = prior_counts_hint(&settings, &data, 72.0);
        assert!(
            hint.contains("shape a0 = 1 adds of the order of K·a0 counts") && hint.contains("(24.0 in all"),
            "{hint}"
        );
        assert_eq!(prior_counts_hint(&settings, &data, 72.1), "");
        assert_eq!(prior_counts_hint(&settings, &data, -5.0), "");
    }

    /// The block figure shows the posterior means when the chains agree and, when they disagree,
    /// the rates θ π θᵀ of the sample its communities come from, saying which in the title;
    /// excluded cells (the diagonal) stay 0 either way, and lines fall between communities.
    #[test]
    fn the_block_figure_shows_one_sample_when_the_chains_disagree() {
        let (settings, data, mut result) = small_block_fit();
        let n = 6;
        let settle = |result: &mut FitResult, rhat: f64| {
            for (_, d) in &mut result.diagnostics {
                d.rhat = rhat;
            }
        };
        settle(&mut result, 1.0);
        let agree = figure_matrix(&settings, &data, &result).unwrap();
        settle(&mut result, 1.5);
        let disagree = figure_matrix(&settings, &data, &result).unwrap();
        assert!(agree.text[0].contains("posterior mean rates"), "{}", agree.text[0]);
        assert!(disagree.text[0].contains("best sample (chains disagree)"), "{}", disagree.text[0]);
        let (theta, pi) = (factor(&result, "theta").unwrap(), factor(&result, "pi").unwrap());
        // Actors in the order of their expected counts' communities, not of their largest θ.
        let ranked =
            MeanMatrix { values: models::block_row_loadings(&theta.values, &pi.values, 2, false), ..theta.clone() };
        let order = by_component(&ranked);
        for (p, &i) in order.iter().enumerate() {
            for (q, &j) in order.iter().enumerate() {
                let at = p * n + q;
                assert_eq!(agree.values[at], result.mean_rates[i * n + j].ln_1p());
                let sample: f64 = (0..2)
                    .map(|k| {
                        theta.values[i * 2 + k]
                            * (0..2).map(|l| pi.values[k * 2 + l] * theta.values[j * 2 + l]).sum::<f64>()
                    })
                    .sum();
                let expected = if i == j { 0.0 } else { sample.ln_1p() };
                assert_eq!(disagree.values[at], expected, "({i}, {j})");
            }
        }
        let groups: Vec<usize> = order.iter().map(|&i| dominant_component(&ranked, i)).collect();
        assert_eq!(agree.breaks, [group_breaks(&groups, n), group_breaks(&groups, n)]);
    }

    /// Actors go with the community that carries most of their expected count: with community 1's
    /// rates near 0, all six actors are in community 0 (one group, no line between groups), though
    /// the last three have their larger θ in community 1 (which would split them at the fourth).
    #[test]
    fn the_block_figure_groups_actors_by_their_expected_counts() {
        let (settings, data, mut result) = small_block_fit();
        for m in &mut result.factors {
            match m.name {
                "theta" => m.values = (0..6).flat_map(|i| if i < 3 { [1.0, 0.5] } else { [0.5, 1.0] }).collect(),
                "pi" => m.values = vec![1.0, 1e-3, 1e-3, 1e-3],
                _ => {}
            }
        }
        let by_theta: Vec<usize> = (0..6).map(|i| dominant_component(factor(&result, "theta").unwrap(), i)).collect();
        assert_eq!(by_theta, [0, 0, 0, 1, 1, 1]);
        let figure = figure_matrix(&settings, &data, &result).unwrap();
        assert_eq!(figure.breaks, [Vec::<usize>::new(), Vec::new()]);
    }

    /// A model total count outside the release's own interval for the true total is a warning,
    /// one that overlaps it is not; the summary gives the release's interval either way.
    #[test]
    fn a_model_total_outside_the_releases_interval_is_a_warning() {
        let (settings, data, mut result) = small_block_fit();
        let expected = crate::release_total(&data);
        assert_eq!(result.release_total, expected, "the fit computes it once, from its data");
        let (lo, hi) = expected.unwrap().interval;
        let warned = |result: &FitResult| {
            warnings(&settings, &data, result)
                .iter()
                .any(|w| w.contains("outside the interval the release alone gives"))
        };
        result.total_count_interval = Some((lo - 1.0, lo));
        assert!(!warned(&result));
        result.total_count_interval = Some((hi + 1.0, hi + 5.0));
        assert!(warned(&result));
        result.total_count_interval = Some(((lo - 10.0).min(-1.0), lo - 1.0));
        assert!(warned(&result));
        let text = summary_text(&settings, &data, &result);
        assert!(text.contains("the table's true total, from the release alone (no model)"), "{text}");
    }

    /// An unmixed plain Gibbs fit of the directed block model is pointed to the Hamiltonian move;
    /// one that runs it, replica exchange, CAVI and the other models are not.
    #[test]
    fn an_unmixed_block_fit_is_pointed_to_the_move() {
        let (settings, data, result) = small_block_fit();
        let mixing: Vec<String> = warnings(&settings, &data, &result)
            .into_iter()
            .filter(|w| w.contains("mixing is slow") || w.contains("modes"))
            .collect();
        assert!(!mixing.is_empty(), "20 sweeps of 2 chains do not mix: {:?}", result.assessment);
        assert!(
            mixing.iter().all(|w| w.contains("--hamiltonian-move on (the default) mixes more often")),
            "{mixing:?}"
        );
        assert!(!move_hint(&settings).is_empty());
        for other in [
            FitSettings { hamiltonian_move: true, ..settings.clone() },
            FitSettings { replicas: 2, ..settings.clone() },
            FitSettings { model: ModelKind::Undirected, ..settings.clone() },
            FitSettings { model: ModelKind::Topic, ..settings.clone() },
            FitSettings { algorithm: Algorithm::Cavi(inference::CaviSettings::default()), ..settings.clone() },
        ] {
            assert_eq!(move_hint(&other), "", "{other:?}");
        }
    }

    /// The move is a setting (recorded in fit.toml, hinted at) of the directed block model's Gibbs
    /// fits only, with replica exchange as well; not of CAVI, the undirected form or the topic
    /// model.
    #[test]
    fn the_move_is_a_setting_of_directed_block_gibbs_fits_only() {
        let (settings, _, _) = small_block_fit();
        assert!(settings.move_applies() && FitSettings { replicas: 2, ..settings.clone() }.move_applies());
        for other in [
            FitSettings { model: ModelKind::Undirected, ..settings.clone() },
            FitSettings { model: ModelKind::Topic, ..settings.clone() },
            FitSettings { algorithm: Algorithm::Cavi(inference::CaviSettings::default()), ..settings.clone() },
        ] {
            assert!(!other.move_applies(), "{other:?}");
        }
    }

    /// A chain's trace with only its replica ladder and its Hamiltonian move set.
    fn chain_trace(ladder: Vec<f64>, swap_rates: Vec<f64>, hamiltonian: Option<(f64, f64)>) -> ChainTrace {
        ChainTrace {
            iterations: Vec::new(),
            values: Vec::new(),
            ln_lik: Vec::new(),
            structure: Vec::new(),
            total_rate: Vec::new(),
            total_count: Vec::new(),
            dispersion: Vec::new(),
            share: Vec::new(),
            converged: None,
            swap_rates,
            ladder,
            hamiltonian,
            seconds: 0.0,
        }
    }

    /// The replica line names the rungs that swapped below half the adaptation's lower target,
    /// and only those (a rate of 0.15, just below the target, is not flagged); a plain chain has
    /// no line.
    #[test]
    fn replica_text_warns_of_rungs_that_rarely_swap() {
        let trace = |ladder, swap_rates| chain_trace(ladder, swap_rates, None);
        assert!(replica_text(&trace(Vec::new(), Vec::new())).is_empty());
        let fine = replica_text(&trace(vec![1.0, 0.8, 0.6], vec![0.3, 0.15]));
        assert!(fine.contains("ladder β [1.000, 0.800, 0.600]") && !fine.contains("rarely"), "{fine}");
        let stuck = replica_text(&trace(vec![1.0, 0.99990, 0.99969], vec![0.35, 0.01]));
        assert!(stuck.contains("rarely swapped (rate < 0.1) between β 0.99990 and 0.99969:"), "{stuck}");
        assert!(!stuck.contains("1.00000 and"), "{stuck}");
    }

    /// The move's line gives the step and the acceptance, and says so below half the target
    /// (0.39 is, 0.41 and the target are not); a chain without the move has no line.
    #[test]
    fn move_text_notes_a_move_seldom_accepted() {
        let trace = |acceptance| chain_trace(Vec::new(), Vec::new(), Some((0.0125, acceptance)));
        assert!(move_text(&chain_trace(Vec::new(), Vec::new(), None)).is_empty());
        for fine in [0.8, 0.41] {
            let text = move_text(&trace(fine));
            assert!(text.contains("step 1.250e-2, mean acceptance") && !text.contains("seldom"), "{text}");
        }
        let low = move_text(&trace(0.39));
        assert!(low.contains("mean acceptance 0.39") && low.contains("seldom accepted (below 0.4)"), "{low}");
    }

    /// The ESS per second of the fit is printed when the fit took time, and never divides by 0.
    #[test]
    fn ess_per_second_of_the_fit() {
        assert_eq!(per_second(412.0, 10.0), " (41.2 per s)");
        assert_eq!(per_second(3.0, 1000.0), " (0.00300 per s)");
        assert_eq!(per_second(412.0, 0.0), "");
        assert_eq!(per_second(f64::NAN, 2.0), "");
    }

    /// A new group starts where the group changes, in the bin of its first item.
    #[test]
    fn breaks_fall_where_the_group_changes() {
        let groups = [0, 0, 0, 1, 1, 2, 2];
        assert_eq!(group_breaks(&groups, 7), vec![3, 5]);
        // 7 items into 3 bins: items 3 and 5 are in bins 1 and 2.
        assert_eq!(group_breaks(&groups, 3), vec![1, 2]);
        assert!(group_breaks(&[4, 4], 2).is_empty());
        assert!(group_breaks(&[], 1).is_empty());
    }

    /// Each bin of the shrunk figure is labelled by its first item, as `shrink` bins them.
    #[test]
    fn bins_take_their_first_label() {
        let names: Vec<String> = (0..7).map(|i| format!("n{i}")).collect();
        let refs: Vec<&String> = names.iter().collect();
        // 7 items into 3 bins: i·3/7 puts 0–2 in bin 0, 3–4 in bin 1, 5–6 in bin 2.
        assert_eq!(bin_labels(&refs, 3), vec!["n0", "n3", "n5"]);
        assert_eq!(bin_labels(&refs, 7), names);
    }
}
