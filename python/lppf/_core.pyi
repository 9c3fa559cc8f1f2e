"""Types of the Rust extension (python/src/lib.rs). Use the package's own functions
(:func:`lppf.privatize`, :func:`lppf.fit`, :func:`lppf.read_table`), which check their arguments
and return DataFrames; these are what they call."""

import os
import pathlib
from typing import Any, Callable, Optional, Sequence, Tuple, Union

__version__: str

class InputError(ValueError):
    """Bad input: a file, a field or a value that is not allowed (the CLI's exit code 2)."""

class RunError(RuntimeError):
    """A failure while running or writing (the CLI's exit code 1)."""

_Path = Union[str, os.PathLike]
# Raw counts held in memory: row labels, column labels, counts as text, each cell's index label.
_Records = Tuple[Sequence[str], Sequence[str], Sequence[str], Sequence[str]]

def privatize(
    input: _Path,
    output: _Path,
    *,
    counts: Optional[_Records] = None,
    epsilon: Optional[float] = None,
    alpha: Optional[float] = None,
    levels: Optional[Sequence[Tuple[str, float]]] = None,
    levels_are: str = "alpha",
    precision: float = 1.0,
    square: bool = False,
    symmetric: bool = False,
    diagonal: bool = False,
    rows: Optional[Sequence[str]] = None,
    cols: Optional[Sequence[str]] = None,
    labels: Optional[Sequence[str]] = None,
    seed: Optional[int] = None,
    force: bool = False,
    delimiter: Optional[str] = None,
    row_column: str = "row",
    col_column: str = "col",
    count_column: str = "count",
    time_column: Optional[str] = None,
    times: Optional[Sequence[str]] = None,
) -> dict[str, Any]: ...
def fit(
    input: _Path,
    output: _Path,
    *,
    model: str,
    components: int,
    method: str,
    counts: Optional[_Records] = None,
    chains: int = 4,
    iterations: int = 2000,
    burn_in: Optional[int] = None,
    thin: int = 5,
    progress: Optional[Callable[[Union[str, Tuple[int, int]]], None]] = None,
    **options: Any,
) -> dict[str, Any]: ...
def read_table(path: _Path) -> list[Tuple[str, list[Any]]]: ...
def read_release(path: _Path) -> Tuple[list[str], list[str], bytes]: ...
def sidecar_path(path: _Path) -> pathlib.Path: ...
