#!/usr/bin/env python3
"""Numbers in docs/ generated from the committed evidence (issue 36; docs/statistics.md).

Each generator (tables_*.py; statistics in docstats.py, files in sources.py) reads committed files
under docs/evidence/ or docs/data/ and writes a block of a page between the markers
`<!-- NAME:begin -->` and `<!-- NAME:end -->`. `python3 tools/docs/generate.py` rewrites the
blocks; with --check it changes nothing and exits 1 if any page differs from what the evidence
says (CI runs this, so a stale number fails CI). Standard library only.
"""

import re
import sys

from docstats import self_check
from sources import ROOT
from tables_benchmarks import (default_vs_papers, move_vs_papers, ess_per_second, fit_cost, kernel_compare, large_table, paper_bridge, paper_ess,
                               paper_until_mixed, until_mixed, until_mixed_networks)
from tables_baselines import dp_sep_table, dpvi_adjacent, dpvi_means, dpvi_paired
from tables_factorization import (coverage_table, fig1_table, fig3_table, fig4_collapsed_table, fig4_table,
                                  fig4_size_cavi_probe, sbc_contaminated_table, sbc_default_table, sbc_fig4_size,
                                  sbc_fig4_size_default, sbc_fig4_size_light, sbc_fig4_size_light_hmc, fig4_size_long_probe, fig4_size_hmc_probe, sbc_table, vi_table)
from tables_fig5 import fig5_base, fig5_e50, fig5_e50_paper, fig5_table
from tables_planted import (cavi_start_planted, planted_current, planted_move, planted_deeper, planted_enron_size,
                            planted_enron_size_current, planted_summary, release_total)
from tables_verdict import structure_test_enron, structure_test_rates, structure_test_variants, verdict_contaminated, verdict_error_rates, verdict_move, verdict_oracles
from tables_topics import aeslc_topics
from tables_over_time import over_time_components, over_time_example, over_time_k, tensor_sweep
from tables_modes import block_starts, fig4_starts, fig4_stacking, fig4_verdicts, replicas_default, replicas_papers
from tables_own_data import (check_calibration_default, check_calibration_flat, check_calibration_priors, check_verdict,
                             checks_enron, priors_enron,
                             own_data_defaults, own_data_fit, own_data_heldout, own_data_papers_fit,
                             own_data_checks, own_data_score, co_clustering_enron)


BLOCKS = [("docs/calibration.md", "sbc-table", sbc_table),
          ("docs/counts-over-time.md", "over-time-k", over_time_k),
          ("docs/counts-over-time.md", "over-time-example", over_time_example),
          ("docs/counts-over-time.md", "over-time-components", over_time_components),
          ("docs/counts-over-time.md", "tensor-sweep", tensor_sweep),
          ("docs/model-checking.md", "planted-designs", planted_summary),
          ("docs/model-checking.md", "planted-deeper", planted_deeper),
          ("docs/model-checking.md", "planted-current", planted_current),
          ("docs/model-checking.md", "planted-move", planted_move),
          ("docs/model-checking.md", "planted-enron-size-current", planted_enron_size_current),
          ("docs/calibration.md", "sbc-default", sbc_default_table),
          ("docs/calibration.md", "sbc-contaminated", sbc_contaminated_table),
          ("docs/model-checking.md", "planted-enron-size", planted_enron_size),
          ("docs/model-checking.md", "release-total", release_total),
          ("docs/model-checking.md", "verdict-error-rates", verdict_error_rates),
          ("docs/model-checking.md", "verdict-contaminated", verdict_contaminated),
          ("docs/model-checking.md", "verdict-move", verdict_move),
          ("docs/model-checking.md", "verdict-oracles", verdict_oracles),
          ("docs/model-checking.md", "structure-test", structure_test_rates),
          ("docs/history/model-checking.md", "structure-test-variants", structure_test_variants),
          ("docs/own-data.md", "structure-test-enron", structure_test_enron),
          ("docs/own-data.md", "aeslc-topics", aeslc_topics),
          ("docs/history/performance.md", "fit-cost", fit_cost),
          ("docs/history/performance.md", "kernel-compare", kernel_compare),
          ("BENCHMARKS.md", "default-vs-papers-ess", default_vs_papers),
          ("BENCHMARKS.md", "move-vs-papers-ess", move_vs_papers),
          ("docs/history/performance.md", "kernel-compare-one-step", lambda: kernel_compare("fits-one-step.csv")),
          ("docs/history/performance.md", "until-mixed", until_mixed),
          ("BENCHMARKS.md", "until-mixed-networks", until_mixed_networks),
          ("BENCHMARKS.md", "paper-until-mixed", paper_until_mixed),
          ("BENCHMARKS.md", "large-table", large_table),
          ("docs/calibration.md", "coverage-1chain", lambda: coverage_table("calibration")),
          ("docs/calibration.md", "coverage-4chains", lambda: coverage_table("calibration-4chains")),
          ("docs/calibration.md", "sbc-fig4-size", sbc_fig4_size),
          ("docs/history/calibration-fig4-size.md", "sbc-fig4-size-default", sbc_fig4_size_default),
          ("docs/history/calibration-fig4-size.md", "fig4-size-cavi-probe", fig4_size_cavi_probe),
          ("docs/history/calibration-fig4-size.md", "sbc-fig4-size-light", sbc_fig4_size_light),
          ("docs/calibration.md", "sbc-fig4-size-light-hmc", sbc_fig4_size_light_hmc),
          ("docs/history/calibration-fig4-size.md", "fig4-size-long-probe", fig4_size_long_probe),
          ("docs/history/calibration-fig4-size.md", "fig4-size-hmc-probe", fig4_size_hmc_probe),
          ("docs/fig4.md", "fig4-quick-10", fig4_table),
          ("docs/vi-vs-mcmc.md", "schofield-small-20", vi_table),
          ("docs/recovery-figures.md", "fig3-synthetic-10", fig3_table),
          ("docs/recovery-figures.md", "fig1-topics-20", fig1_table),
          ("docs/dp-sep.md", "dp-sep-mog-20", dp_sep_table),
          ("docs/own-data.md", "own-data-heldout", own_data_heldout),
          ("docs/history/model-checking.md", "check-calibration-flat", check_calibration_flat),
          ("docs/history/model-checking.md", "check-calibration-priors", check_calibration_priors),
          ("docs/model-checking.md", "check-calibration-default", check_calibration_default),
          ("docs/own-data.md", "own-data-defaults", own_data_defaults),
          ("docs/dpvi.md", "dpvi-abalone", lambda: dpvi_means(["dpvi-abalone"])),
          ("docs/dpvi.md", "dpvi-adult", lambda: dpvi_means(["dpvi-adult"])),
          ("docs/dpvi.md", "dpvi-paired", lambda: dpvi_paired(["dpvi-abalone", "dpvi-adult"], ["ma-ac", "ma-np"])),
          ("docs/dpvi.md", "dpvi-q", lambda: dpvi_means(["dpvi-abalone-q", "dpvi-adult-q"])),
          ("docs/dpvi.md", "dpvi-q-paired", lambda: dpvi_adjacent(["dpvi-abalone-q", "dpvi-adult-q"], "q")),
          ("docs/dpvi.md", "dpvi-clip", lambda: dpvi_means(["dpvi-abalone-clip", "dpvi-adult-clip"])),
          ("docs/dpvi.md", "dpvi-clip-paired", lambda: dpvi_adjacent(["dpvi-abalone-clip", "dpvi-adult-clip"], "c")),
          ("docs/dpvi.md", "dpvi-gmm", lambda: dpvi_means(["dpvi-gmm"])),
          ("docs/dpvi.md", "dpvi-gmm-paired", lambda: dpvi_paired(["dpvi-gmm"], ["ma-np"])),
          ("docs/fig4.md", "fig4-quick-10-collapsed", fig4_collapsed_table),
          ("docs/modes.md", "modes-replicas-papers", replicas_papers),
          ("docs/modes.md", "modes-replicas-default", replicas_default),
          ("docs/modes.md", "modes-fig4-stacking", fig4_stacking),
          ("docs/modes.md", "modes-fig4-verdicts", fig4_verdicts),
          ("docs/inference.md", "block-starts", block_starts),
          ("docs/inference.md", "cavi-start-planted", cavi_start_planted),
          ("docs/inference.md", "fig4-starts", fig4_starts),
          ("docs/fig5.md", "fig5-base", fig5_base),
          ("docs/fig5.md", "fig5-e50", fig5_e50),
          ("docs/fig5.md", "fig5-e50-paper", fig5_e50_paper),
          ("docs/fig5.md", "fig5-10", fig5_table),
          ("docs/model-checking.md", "check-verdict", check_verdict),
          ("docs/model-checking.md", "checks-enron", checks_enron),
          ("docs/model-checking.md", "priors-enron", priors_enron),
          ("docs/model-checking.md", "co-clustering-enron", co_clustering_enron),
          ("docs/own-data.md", "own-data-fit", own_data_fit),
          ("docs/history/own-data.md", "own-data-papers-fit", own_data_papers_fit),
          ("docs/history/own-data.md", "own-data-score", own_data_score),
          ("docs/history/own-data.md", "own-data-checks", own_data_checks),
          ("docs/history/performance.md", "bench-ess", lambda: ess_per_second([("private-step-block-ess", "block (sparse network)"),
                                                                 ("private-step-topic-ess", "topic (dense, heavy-tailed rates)")])),
          ("docs/history/performance.md", "bench-ess-tiny", lambda: ess_per_second([("private-step-tiny-ess", "tiny dense table (20 × 20, K = 3)")])),
          ("BENCHMARKS.md", "bench-paper-bridge", lambda: paper_bridge("paper-bridge-sweeps")),
          ("docs/history/performance.md", "bench-paper-ess", lambda: paper_ess("paper-bridge-sweeps", [
              ("block (sparse network)", "private-step-block-ess", "block"),
              ("topic (dense)", "private-step-topic-ess", "topic")]))]


# Reader-facing pages stay short and say what is true now: the README a newcomer reads in five
# minutes, BENCHMARKS.md a reference (the step-by-step log is docs/history/performance.md), and no
# issue numbers outside docs/history/ and the CHANGELOG.
LINE_LIMITS = {"README.md": 120, "BENCHMARKS.md": 249}
ISSUE_NUMBER = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def page_rules():
    """Where the reader-facing pages break the rules above, one message each."""
    broken = []
    for page, limit in LINE_LIMITS.items():
        lines = (ROOT / page).read_text(encoding="utf-8").count("\n")
        if lines > limit:
            broken.append(f"{page} has {lines} lines (at most {limit}; move history to docs/history/)")
    pages = [ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in pages:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                broken.append(f"{path.relative_to(ROOT)}:{number} names an issue number (reader-facing page)")
    return broken


def main():
    self_check()
    broken = page_rules()
    if broken:
        print("\n".join(broken), file=sys.stderr)
        return 1
    check = "--check" in sys.argv[1:]
    stale = []
    for page, name, make in BLOCKS:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        if begin not in text or end not in text:
            # A page that lost its markers would never be checked again: that is an error too.
            stale.append(f"{page} ({name}: markers missing)")
            continue
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        new = f"{head}{begin}\n{make()}\n{end}{tail}"
        if new != text:
            if check:
                stale.append(f"{page} ({name})")
            else:
                path.write_text(new, encoding="utf-8")
    if stale:
        print("docs differ from docs/evidence: " + ", ".join(stale) + "; run python3 tools/docs/generate.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
