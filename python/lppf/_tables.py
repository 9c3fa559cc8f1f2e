"""Reading lppf's tables as DataFrames, without pyarrow."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from . import _core

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - older Pythons
    import tomli as _toml


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """A Parquet file (any common codec) or a CSV as a DataFrame.

    Parquet is read by lppf's own reader: strings stay strings, integers become int64 (pandas'
    nullable Int64 when some are null), floats float64 with NaN for nulls, booleans bool
    (pandas' nullable boolean when some are null), lists of floats a column of lists (a sweep's
    per-chain ``chain_mean_kl`` and ``stacking_weights``); columns of other types (dates,
    structs, binary) are skipped.
    """
    path = Path(path)
    if path.suffix.lower() != ".parquet":
        return pd.read_csv(path)
    columns = {}
    for name, values in _core.read_table(str(path)):
        first = next((v for v in values if v is not None), None)
        if isinstance(first, (str, list)):
            columns[name] = pd.Series(values, dtype=object)
        elif isinstance(first, bool):  # before int: a bool is an int in Python
            nulls = any(v is None for v in values)
            columns[name] = pd.array(values, dtype="boolean") if nulls else np.asarray(values, dtype=bool)
        elif isinstance(first, int):
            nulls = any(v is None for v in values)
            columns[name] = pd.array(values, dtype="Int64") if nulls else np.asarray(values, dtype=np.int64)
        else:
            columns[name] = np.asarray(values, dtype=np.float64)
    return pd.DataFrame(columns)


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """A sweep's results (``lppf run``): ``results.parquet`` in the directory ``path`` (or the file)."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.parquet"
    return read_table(path)


def read_toml(path: Path) -> dict:
    with open(path, "rb") as f:
        return _toml.load(f)
