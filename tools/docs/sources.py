"""The committed files the docs' tables are generated from: docs/evidence/<run>/*.csv and the
CSVs of docs/data (tools/docs/generate.py)."""

import csv
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "docs" / "evidence"

def rows(run, name):
    with open(EVIDENCE / run / name, newline="") as f:
        return list(csv.DictReader(f))


def check_rows(name):
    """A committed CSV of `check_calibration` (docs/data/check-calibration*.csv)."""
    with open(ROOT / "docs" / "data" / f"{name}.csv", newline="") as f:
        return list(csv.DictReader(f))
