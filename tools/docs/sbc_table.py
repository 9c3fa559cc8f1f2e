#!/usr/bin/env python3
"""The SBC table of docs/calibration.md, generated from the committed evidence (issue 36).

Reads docs/evidence/<run>/sbc.csv for each calibration run and writes the table between the
markers `<!-- sbc-table:begin -->` and `<!-- sbc-table:end -->` of docs/calibration.md. With
--check it changes nothing and exits 1 if the page differs from what the evidence says (CI runs
this, so a stale number fails CI). Standard library only.
"""

import csv
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "calibration.md"
RUNS = [("topic", "calibration"), ("block", "calibration-block"), ("undirected", "calibration-undirected")]
COLUMNS = [("", "non-private"), ("0.2", "naive"), ("0.2", "private"), ("0.5", "naive"), ("0.5", "private"),
           ("0.8", "naive"), ("0.8", "private")]
BEGIN, END = "<!-- sbc-table:begin -->", "<!-- sbc-table:end -->"


def cell(row):
    p = float(row["p_holm"])
    shown = "< 1e-9" if p < 1e-9 else f"{p:.3g}"
    return shown if row["uniform"] == "true" else f"**{shown}** (not uniform)"


def table():
    lines = []
    for model, run in RUNS:
        with open(ROOT / "docs" / "evidence" / run / "sbc.csv", newline="") as f:
            rows = {(r["level"], r["method"]): r for r in csv.DictReader(f)}
        lines.append(f"| {model} | " + " | ".join(cell(rows[c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def main():
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{table()}\n{END}{tail}"
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{PAGE}: the SBC table differs from docs/evidence/*/sbc.csv; run python3 tools/docs/sbc_table.py",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
