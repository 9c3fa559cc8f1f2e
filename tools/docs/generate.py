#!/usr/bin/env python3
"""Numbers in docs/ generated from the committed evidence (issue 36; docs/statistics.md).

Each generator reads files under docs/evidence/ and writes a block of a page between the markers
`<!-- NAME:begin -->` and `<!-- NAME:end -->`. `python3 tools/docs/generate.py` rewrites the
blocks; with --check it changes nothing and exits 1 if any page differs from what the evidence
says (CI runs this, so a stale number fails CI). Standard library only.
"""

import csv
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "docs" / "evidence"


def rows(run, name):
    with open(EVIDENCE / run / name, newline="") as f:
        return list(csv.DictReader(f))


def p_text(p):
    return "< 1e-9" if p < 1e-9 else f"{p:.3g}"


def sbc_table():
    """docs/calibration.md: Holm-adjusted p of the SBC rank histograms, per model and group."""
    columns = [("", "non-private"), ("0.2", "naive"), ("0.2", "private"), ("0.5", "naive"), ("0.5", "private"),
               ("0.8", "naive"), ("0.8", "private")]
    lines = []
    for model, run in [("topic", "calibration"), ("block", "calibration-block"),
                       ("undirected", "calibration-undirected")]:
        by = {(r["level"], r["method"]): r for r in rows(run, "sbc.csv")}

        def cell(r):
            shown = p_text(float(r["p_holm"]))
            return shown if r["uniform"] == "true" else f"**{shown}** (not uniform)"

        lines.append(f"| {model} | " + " | ".join(cell(by[c]) for c in columns) + " |")
    return "\n".join(lines)


def fig4_table():
    """docs/fig4.md: private against naïve in every cell of the quick design with 10 data sets."""
    summary = rows("fig4-enron-quick-10", "summary.csv")
    kl = {(r["e0"], r["level"], r["method"]): r for r in summary}
    lines = ["| e₀ | α | naïve KL (sd) | private KL (sd) | Δ private − naïve [95 % CI] | private wins | p | Holm p |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    better = better_raw = cells = 0
    for r in summary:
        if r["method"] != "private" or r["paired_vs"] != "naive":
            continue
        cells += 1
        naive = kl[(r["e0"], r["level"], "naive")]
        d, lo, hi = float(r["paired_kl_difference"]), float(r["paired_kl_difference_low"]), float(r["paired_kl_difference_high"])
        p, holm = float(r["paired_p_value"]), float(r["paired_p_holm"])
        better += d < 0 and holm < 0.05
        better_raw += d < 0 and p < 0.05
        lines.append(
            f"| {r['e0']} | {r['level']} | {float(naive['mean_kl']):.3f} ({float(naive['sd_kl']):.3f}) | "
            f"{float(r['mean_kl']):.3f} ({float(r['sd_kl']):.3f}) | {d:.3f} [{lo:.3f}, {hi:.3f}] | "
            f"{r['paired_wins']}/{r['paired_n']} | {p_text(p)} | {p_text(holm)} |")
    lines.append("")
    lines.append(f"Private is better than naïve (Δ < 0) at Holm-adjusted p < 0.05 in **{better} of {cells}** cells "
                 f"(family: the {cells} cells; at unadjusted p < 0.05 in {better_raw} of {cells}).")
    return "\n".join(lines)


BLOCKS = [("docs/calibration.md", "sbc-table", sbc_table), ("docs/fig4.md", "fig4-quick-10", fig4_table)]


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for page, name, make in BLOCKS:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        if begin not in text:
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
