"""Per-fit table of a `held-out` sweep (docs/own-data.md, section 2), written for the docs' generated
tables: `python3 tools/reference/held_out_fits.py docs/evidence/own-data-enron-10`. Needs pandas and
pyarrow (python/requirements-ci.txt).

Writes `fits.csv` in that folder: one line per (mask, method, K) with the held-out log predictive
density of the hidden released values, its range over the chains, and the diagnostics.
"""

import pathlib
import sys

import pandas as pd

from evidence_csv import write_fits


def main(folder):
    folder = pathlib.Path(folder)
    df = pd.read_parquet(folder / "results.parquet")
    columns = ["replication", "method", "components", "heldout_cells", "heldout_log_predictive", "chain_min",
               "chain_max", "rhat_ln_joint", "ess_bulk_ln_joint", "rhat_total_rate", "ess_bulk_total_rate"]
    write_fits(df, columns, folder / "fits.csv")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/evidence/own-data-enron-10")
