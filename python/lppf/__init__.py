"""lppf: locally private Bayesian inference on count data, from Python.

The same library as the ``lppf`` command, with the same options, defaults, refusals and numbers:

- :func:`privatize` noises every cell of a table of counts (a pandas or polars DataFrame, a NumPy
  array with labels, or a file) with the exact two-sided geometric mechanism and returns the
  :class:`Release` with its privacy record. The noise comes from the operating system unless a
  seed is given; a seeded release is NOT PRIVATE and says so (:class:`NotPrivateWarning`).
- :func:`fit` fits a block (network) or topic model to a release and returns a
  :class:`FitResult`: rates, factors, traces and diagnostics as DataFrames, and
  :meth:`FitResult.to_arviz` for ``arviz.summary``, ``arviz.plot_trace`` and ``arviz.rhat``. It
  shows its progress on stderr and raises the fit's warnings as :class:`FitWarning`.
- :func:`read_table` reads any Parquet file lppf writes (or pandas writes, any codec) without
  pyarrow; :func:`read_results` reads a sweep's results (``lppf run``).

Bad input raises :class:`InputError` (a ``ValueError``); a failure while running or writing
raises :class:`RunError` (a ``RuntimeError``). Messages are the command's own.
"""

from ._core import InputError, RunError, __version__
from ._fit import FitResult, FitWarning, fit, read_fit
from ._release import LabelsWarning, NotPrivateWarning, Release, privatize, read_release
from ._tables import read_results, read_table

__all__ = [
    "FitResult",
    "FitWarning",
    "InputError",
    "LabelsWarning",
    "NotPrivateWarning",
    "Release",
    "RunError",
    "__version__",
    "fit",
    "privatize",
    "read_fit",
    "read_release",
    "read_results",
    "read_table",
]
