"""The committed files the docs' tables are generated from: docs/evidence/<run>/*.csv and the
CSVs of docs/data (tools/docs/generate.py)."""

import csv
import functools
import os
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
# $LPPF_EVIDENCE replaces docs/evidence (tools/study-smoke.sh: fits cut short, to check that the
# generators still read what today's lppf writes).
EVIDENCE = pathlib.Path(os.environ.get("LPPF_EVIDENCE") or ROOT / "docs" / "evidence")


def rows(run, name):
    """A CSV of a run's committed evidence (docs/evidence/RUN/NAME)."""
    with open(EVIDENCE / run / name, newline="") as f:
        return list(csv.DictReader(f))


def data_rows(name):
    """A committed CSV of docs/data (e.g. `check_calibration`'s, `defaults-enron`)."""
    with open(ROOT / "docs" / "data" / f"{name}.csv", newline="") as f:
        return list(csv.DictReader(f))


def toml(name):
    """A TOML file of the committed evidence (docs/evidence/NAME, e.g. a run's manifest.toml or a
    fit's fit.toml)."""
    with open(EVIDENCE / name, "rb") as f:
        return tomllib.load(f)


@functools.cache
def topics_base():
    """data/enron/topics-base.toml, the Fig. 5 base (read once: several tables use it)."""
    with open(ROOT / "data" / "enron" / "topics-base.toml", "rb") as f:
        return tomllib.load(f)
