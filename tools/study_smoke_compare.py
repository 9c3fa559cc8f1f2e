"""Compares the tables of a cut-short run of the Enron study scripts (tools/study-smoke.sh) with the
committed ones: the same columns in the same order, the same rows (matched by their key columns,
among the committed rows of the seed, mask or release the smoke run used), a number in every
cell where the committed row has a number, and no `<missing NAME>` (a field the script read from
lppf's output, gone: tools/enron-release.sh's `field`). Text cells (flags, the `structure` verdict) and the
numbers' values depend on the fit, so they are not compared.

With --own-data EVIDENCE instead, it runs the generators of docs/own-data.md and
docs/model-checking.md that read the fits of tools/own-data-demo.sh (own-data-fit/) on the
evidence folder EVIDENCE, which holds such fits cut short: each must still find every field and
line it reads.

Usage: python3 tools/study_smoke_compare.py COMMITTED_DOCS SMOKE_DOCS (each with data/, figures/)
       python3 tools/study_smoke_compare.py --own-data EVIDENCE"""

import csv
import math
import os
import sys
from pathlib import Path

# table: (key columns, {column: the value the smoke run used} selecting the committed rows)
TABLES = {
    "replicas-enron.csv": (["method", "setting"], {"seed": "1"}),
    "replicas-enron-default.csv": (["method", "setting"], {"seed": "1"}),
    "replicas-enron-chains.csv": (["model", "method", "setting", "chain"], {"seed": "1"}),
    "verdict-enron.csv": (["K"], {"seed": "1"}),
    "checks-enron-private.csv": (["statistic"], {}),
    "checks-enron-naive.csv": (["statistic"], {}),
    "priors-enron.csv": (["fit"], {}),
    "defaults-enron.csv": (["fit"], {"release_seed": "2026"}),
}
FIGURES = ["checks-enron-private.png"]


def is_number(text):
    try:
        value = float(text)
    except ValueError:
        return False
    return not math.isnan(value)


def read(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def compare(name, committed_dir, smoke_dir):
    """The problems found in one table, as sentences naming the file, the row and the column."""
    keys, selection = TABLES[name]
    committed_header, committed = read(committed_dir / name)
    smoke_path = smoke_dir / name
    if not smoke_path.is_file():
        return [f"{smoke_path}: not written"]
    smoke_header, smoke = read(smoke_path)
    if smoke_header != committed_header:
        return [f"{smoke_path}: columns {smoke_header}, committed {committed_header}"]
    wanted = [r for r in committed if all(r[c] == v for c, v in selection.items())]
    by_key = {}
    for row in smoke:
        by_key.setdefault(tuple(row[k] for k in keys), []).append(row)
    problems = []
    if not wanted:
        problems.append(f"{committed_dir / name}: no committed row with {selection}")
    if sorted(by_key) != sorted(tuple(r[k] for k in keys) for r in wanted) or any(len(v) > 1 for v in by_key.values()):
        problems.append(
            f"{smoke_path}: rows {sorted(by_key)} where the committed table has "
            f"{sorted(tuple(r[k] for k in keys) for r in wanted)} for {selection}"
        )
        return problems
    for row in wanted:
        key = tuple(row[k] for k in keys)
        made = by_key[key][0]
        for column in committed_header:
            if made[column].startswith("<missing"):
                problems.append(f"{smoke_path}: row {key}, column {column}: {made[column]} (a field the script reads from lppf's output is gone)")
            elif is_number(row[column]) and not is_number(made[column]):
                problems.append(f"{smoke_path}: row {key}, column {column}: {made[column]!r}, where the committed row has the number {row[column]}")
    return problems


def own_data(evidence):
    """Runs the own-data generators on `evidence`; the names of those that fail, with why."""
    os.environ["LPPF_EVIDENCE"] = str(evidence)
    sys.path.insert(0, str(Path(__file__).resolve().parent / "docs"))
    import tables_own_data as t

    problems = []
    for make in (t.own_data_fit, t.own_data_papers_fit, t.own_data_score, t.own_data_checks, t.co_clustering_enron):
        try:
            if not make().strip():
                problems.append(f"{make.__name__}: an empty block")
        except Exception as e:  # any failure to read a fit is what this check is for
            problems.append(f"{make.__name__}: {type(e).__name__}: {e}")
    return problems


def main():
    if sys.argv[1] == "--own-data":
        problems = own_data(Path(sys.argv[2]))
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            sys.exit(f"study smoke: {len(problems)} generator(s) of docs/own-data.md cannot read the fits of tools/own-data-demo.sh")
        print("study smoke: the own-data generators read the fits of tools/own-data-demo.sh")
        return
    committed, smoke = Path(sys.argv[1]), Path(sys.argv[2])
    problems = []
    for name in TABLES:
        problems += compare(name, committed / "data", smoke / "data")
    for name in FIGURES:
        path = smoke / "figures" / name
        if not path.is_file() or path.stat().st_size == 0:
            problems.append(f"{path}: not written")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(f"study smoke: {len(problems)} problem(s); the Enron study scripts no longer make their committed tables")
    print(f"study smoke: {len(TABLES)} tables and {len(FIGURES)} figure made with the committed columns and rows")


if __name__ == "__main__":
    main()
