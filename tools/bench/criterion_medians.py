"""Criterion's printout of tools/bench/paper-bridge.sh as a CSV: one row per round, binary and
benchmark, with criterion's interval of the time per sweep in ms (low, median, high) and the
load average when the binary started.

    python3 tools/bench/criterion_medians.py bridge.log [more.log ...] > bridge.csv
"""

import csv
import re
import sys

UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3}
HEADER = re.compile(r"^== round (\d+) (\w+) \S+ load (\S+)$")
TIME = re.compile(r"time:\s+\[([\d.]+) (\S+) ([\d.]+) (\S+) ([\d.]+) (\S+)\]")


def rows(lines):
    """(round, binary, benchmark, low, median, high, load) for every timing in `lines`."""
    round_, binary, load, bench = None, None, None, None
    for line in lines:
        line = line.rstrip("\n")
        if m := HEADER.match(line):
            round_, binary, load = int(m[1]), m[2], m[3]
        elif m := TIME.search(line):
            if round_ is None or bench is None:
                raise ValueError(f"a timing before its round or benchmark: {line!r}")
            low, med, high = (float(m[i]) * UNITS[m[i + 1]] for i in (1, 3, 5))
            yield round_, binary, bench, low, med, high, load
        elif line.startswith(("topic", "block")):
            bench = line.strip()


def main(paths):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["round", "binary", "benchmark", "low_ms", "median_ms", "high_ms", "load"])
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for r in rows(f):
                out.writerow([r[0], r[1], r[2], f"{r[3]:.4g}", f"{r[4]:.4g}", f"{r[5]:.4g}", r[6]])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
