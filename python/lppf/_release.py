"""The data holder's side: a table of counts becomes a release (``lppf privatize``)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _core
from ._tables import read_toml


class NotPrivateWarning(UserWarning):
    """A release made with a seed: reproducible, and therefore NOT private."""


class LabelsWarning(UserWarning):
    """The grid's labels were taken from the counts: if the label set is not public, a label seen
    only in non-zero cells reveals them (docs/privacy.md, "Labels")."""


_TEMPORARY: list = []


@atexit.register
def _remove_temporary() -> None:
    for path in _TEMPORARY:
        shutil.rmtree(path, ignore_errors=True)


def scratch(prefix: str) -> Path:
    """A temporary folder, removed when Python exits."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    _TEMPORARY.append(path)
    return path


class Release:
    """A release: every cell of the grid, noised, with the privacy record it states about itself.

    ``path`` is the release file (``row,col,value``) and ``privacy`` its sidecar
    (``<path>.privacy.toml``) as a dict: ``alpha`` and ``epsilon`` (or ``row`` for per-row
    levels), ``precision``, ``private``, ``randomness``. ``values`` is the rows × cols matrix in
    the order of ``rows`` and ``cols``.
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = Path(path)
        sidecar = Path(_core.sidecar_path(str(self.path)))
        self.privacy: dict = read_toml(sidecar) if sidecar.exists() else {}
        rows, cols, values = _core.read_release(str(self.path))
        self.rows: list = rows
        self.cols: list = cols
        self.values: np.ndarray = np.frombuffer(values, dtype="<i8").reshape(len(rows), len(cols)).copy()

    @property
    def private(self) -> Optional[bool]:
        """Whether the noise came from the operating system (a seeded release is not private);
        ``None`` when the release has no sidecar to say."""
        return bool(self.privacy["private"]) if "private" in self.privacy else None

    @property
    def epsilon(self) -> Optional[float]:
        """The privacy level of every row, or None when the rows have their own (see ``privacy``)."""
        return self.privacy.get("epsilon")

    @property
    def alpha(self) -> Optional[float]:
        """The noise level of every row, or None when the rows have their own."""
        return self.privacy.get("alpha")

    @property
    def symmetric(self) -> bool:
        """An undirected release: each pair once (``values`` is then a symmetric matrix, its
        diagonal 0 unless released)."""
        return bool(self.privacy.get("symmetric", False))

    def to_frame(self) -> pd.DataFrame:
        """The release in long form as it was released: ``row, col, value``, one line per cell
        (for an undirected release, one per pair, the first label first)."""
        r, c = len(self.rows), len(self.cols)
        i, j = np.divmod(np.arange(r * c), c)
        if self.symmetric:
            keep = j >= i if self.privacy.get("diagonal", False) else j > i
            i, j = i[keep], j[keep]
        rows, cols = np.asarray(self.rows, dtype=object), np.asarray(self.cols, dtype=object)
        return pd.DataFrame({"row": rows[i], "col": cols[j], "value": self.values[i, j]})

    def __repr__(self) -> str:
        if not self.privacy:
            level, private = "no sidecar", "privacy unknown"
        else:
            level = f"epsilon={self.epsilon:g}" if self.epsilon is not None else "per-row levels"
            private = "private" if self.private else "NOT PRIVATE (seeded)"
        return f"Release({len(self.rows)} × {len(self.cols)} cells, {level}, {private}, path={str(self.path)!r})"


def read_release(path: Union[str, os.PathLike]) -> Release:
    """A release written by ``lppf privatize`` (or :func:`privatize`), with its sidecar."""
    return Release(path)


def _input_errors(call, *args, **kwargs):
    """Calls into the Rust side, raising what its argument conversion refuses (a negative or
    too large integer, a value of the wrong type) as :class:`InputError`, as every other refusal."""
    try:
        return call(*args, **kwargs)
    except (TypeError, OverflowError) as e:
        raise _core.InputError(str(e)) from None


def _number(name: str, value, *, integer: bool = False, low=None, high=None):
    """``value`` if it is a real number (an integer with ``integer``) in ``[low, high]``, else
    :class:`InputError`: ``True`` is not 1, and ``"1"`` is not a number."""
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    what = "an integer" if integer else "a number"
    if low is not None:
        what += f" from {low} to {high}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds):
        raise _core.InputError(f"{name} = {value!r} is not allowed: it must be {what}")
    value = int(value) if integer else float(value)
    if low is not None and not low <= value <= high:
        raise _core.InputError(f"{name} = {value!r} is not allowed: it must be {what}")
    return value


def _seed(seed):
    """A seed: ``None`` or an integer that fits 64 bits unsigned, as the command takes."""
    return None if seed is None else _number("seed", seed, integer=True, low=0, high=2**64 - 1)


def _label(value) -> str:
    """A grid label as text: the same text whether it comes from the counts or from ``rows``
    (dates and times included). A missing one (None, NaN, NaT) is empty text, which the library
    refuses naming its row."""
    if value is None or value is pd.NaT or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(value).isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _labels(values) -> list:
    return [_label(v) for v in values]


def _count_texts(values) -> list:
    """Counts as the text of their exact values (``3``, ``3.0``, ``2.5``), which the Rust side
    reads as a file's cells: an integer, or a decimal whose value is one."""
    array = np.asarray(values)
    if array.dtype == bool:
        raise _core.InputError("counts: a column of booleans is not a count column")
    if array.dtype.kind in "iuf":
        return array.astype(str).tolist()
    return [str(v) for v in values]


def _records(counts, columns: tuple, rows, cols) -> tuple:
    """``counts`` (a DataFrame or an array) as four lists — row labels, column labels, counts as
    text, and each cell's place in ``counts`` for messages (a pandas frame's index label, a polars
    frame's row number from 0, an array's ``[i, j]``) — held in memory for the Rust side, and the
    grid labels an array states."""
    row_column, col_column, count_column = columns
    if isinstance(counts, np.ndarray):
        if counts.ndim != 2:
            raise _core.InputError(f"counts: a NumPy array must be 2-D (rows × cols), not {counts.ndim}-D")
        rows = list(range(counts.shape[0])) if rows is None else list(rows)
        cols = list(range(counts.shape[1])) if cols is None else list(cols)
        if (len(rows), len(cols)) != counts.shape:
            raise _core.InputError(
                f"counts: the array is {counts.shape[0]} × {counts.shape[1]} but {len(rows)} row labels "
                f"and {len(cols)} column labels were given"
            )
        i, j = np.nonzero(counts)
        row_labels, col_labels = _labels(rows), _labels(cols)
        records = (
            [row_labels[k] for k in i],
            [col_labels[k] for k in j],
            _count_texts(counts[i, j]),
            [f"[{a}, {b}]" for a, b in zip(i, j)],
        )
        return records, rows, cols
    if type(counts).__module__.startswith("polars"):
        missing = [c for c in columns if c not in counts.columns]
        if missing:
            raise _core.InputError(f"counts: no column {missing[0]!r} (columns: {', '.join(counts.columns)})")
        get = lambda name: counts.get_column(name).to_list()  # noqa: E731
        places = [str(k) for k in range(counts.height)]
        return (_labels(get(row_column)), _labels(get(col_column)), _count_texts(get(count_column)), places), rows, cols
    if isinstance(counts, pd.DataFrame):
        missing = [c for c in columns if c not in counts.columns]
        if missing:
            raise _core.InputError(
                f"counts: no column {missing[0]!r} (columns: {', '.join(map(str, counts.columns))}); "
                "name the columns with row_column=, col_column=, count_column="
            )
        records = (
            _labels(counts[row_column]),
            _labels(counts[col_column]),
            _count_texts(counts[count_column].to_numpy()),
            [str(label) for label in counts.index],
        )
        return records, rows, cols
    raise _core.InputError(
        f"counts: a {type(counts).__name__} is not allowed: give a pandas or polars DataFrame, "
        "a 2-D NumPy array, or the path of a CSV, TSV or Parquet file"
    )


def privatize(
    counts,
    *,
    epsilon: Union[float, Mapping, None] = None,
    alpha: Union[float, Mapping, None] = None,
    precision: float = 1.0,
    seed: Optional[int] = None,
    square: bool = False,
    symmetric: bool = False,
    diagonal: bool = False,
    rows: Optional[Sequence] = None,
    cols: Optional[Sequence] = None,
    output: Union[str, os.PathLike, None] = None,
    force: bool = False,
    row_column: str = "row",
    col_column: str = "col",
    count_column: str = "count",
    delimiter: Optional[str] = None,
    time_column: Optional[str] = None,
    times: Optional[Sequence] = None,
) -> Release:
    """Privatize a table of counts: every cell of the grid, zeros included, gets two-sided
    geometric noise ``P(τ) ∝ α^|τ|`` (``lppf privatize``).

    counts
        A pandas or polars DataFrame with columns ``row, col, count`` (or the names given by
        ``row_column`` etc.; counts 3 or 3.0), a 2-D NumPy array (labels from ``rows`` and
        ``cols``, else 0, 1, …), or the path of a CSV, TSV or Parquet file (any codec).
    epsilon, alpha
        The level of every row (give one): ``ε > 0``, or ``α ∈ (0, 1)`` with ``ε = N ln(1/α)``;
        or a mapping (dict, Series) of each row's own level.
    precision
        ``N``: changes of up to N in one count are ε-indistinguishable.
    seed
        For demonstrations and tests only: the release is then NOT private.
    square
        A network: the grid is rows × rows, the union of the labels on both axes.
    symmetric
        An undirected network (implies ``square``): each unordered pair is released once (at one
        level for every row), the diagonal not at all
        unless ``diagonal``; a pair may be listed either way or both (with the same count). Fit
        it with ``model="undirected"``.
    rows, cols
        The grid's labels, so empty rows and columns are kept and the grid is public (for a
        network, ``rows`` states both axes). An array's labels always state the grid.
    output
        Where to write the release (CSV, TSV or Parquet by extension) and its sidecar; without
        it, a temporary folder removed when Python exits.
    time_column, times
        Counts over time (``row, col, time, count``, from a file): the column holding the time
        labels, and optionally every time label of the grid (so that times without counts are
        released too). Fit the release with ``model="tensor"`` (docs/counts-over-time.md).

    A DataFrame's or array's counts are handed to the library in memory: the raw counts are never
    written to disk. The release is made and written under temporary names first, and a Ctrl-C
    (a ``KeyboardInterrupt``) before it is put in place publishes nothing. Bad arguments (a
    negative seed, ``epsilon=True``, a label or count the command would refuse) raise
    :class:`InputError`.
    """
    if (epsilon is None) == (alpha is None):
        raise _core.InputError("give exactly one of epsilon and alpha")
    level, name = (epsilon, "epsilon") if epsilon is not None else (alpha, "alpha")
    options: dict = {}
    if isinstance(level, (Mapping, pd.Series)):
        items = level.items()
        options["levels"] = [(_label(k), _number(f"{name}[{k!r}]", v)) for k, v in items]
        options["levels_are"] = name
    else:
        options[name] = _number(name, level)
    precision = _number("precision", precision)
    seed = _seed(seed)
    if time_column is not None:
        if not isinstance(counts, (str, os.PathLike)):
            raise _core.InputError(
                "time_column: counts over time are read from a file (row, col, time, count); give its path"
            )
        options["time_column"] = str(time_column)
    if times is not None:
        options["times"] = _labels(times)
    if isinstance(counts, (str, os.PathLike)):
        source = Path(counts)
    else:
        records, rows, cols = _records(counts, (row_column, col_column, count_column), rows, cols)
        options["counts"] = records
        source = Path("counts")
        row_column, col_column, count_column = "row", "col", "count"
    square = square or symmetric
    if square and cols is not None and _labels(rows or []) != _labels(cols):
        raise _core.InputError("square=True: a network has one set of labels; give rows (both axes), not cols")
    if rows is not None:
        options["labels" if square else "rows"] = _labels(rows)
    if cols is not None and not square:
        options["cols"] = _labels(cols)
    target = Path(output) if output is not None else scratch("lppf-release-") / "release.csv"
    made = _input_errors(
        _core.privatize,
        str(source),
        str(target),
        precision=precision,
        square=bool(square),
        symmetric=bool(symmetric),
        diagonal=bool(diagonal),
        seed=seed,
        force=bool(force),
        delimiter=delimiter,
        row_column=row_column,
        col_column=col_column,
        count_column=count_column,
        **options,
    )
    for warning in made["warnings"]:
        if "NOT PRIVATE" in warning:
            warnings.warn(warning, NotPrivateWarning, stacklevel=2)
        elif warning.startswith("NOTE: the grid's labels"):
            shown = (
                warning.replace("--rows FILE, --cols FILE", "rows=, cols=")
                .replace("--rows FILE and --cols FILE", "rows= and cols=")
                .replace("--labels FILE", "rows=")
                .replace("--cols FILE", "cols=")
                .replace("--rows FILE", "rows=")
                .replace("--times FILE", "times=")
            )
            warnings.warn(shown, LabelsWarning, stacklevel=2)
        else:
            warnings.warn(warning, UserWarning, stacklevel=2)
    return Release(target)
