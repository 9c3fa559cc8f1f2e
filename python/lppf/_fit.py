"""The analyst's side: a model fitted to a release (``lppf fit``), and its results."""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path
from typing import Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _core
from ._release import Release, _input_errors, _number, _records, _seed, scratch
from ._tables import read_table, read_toml


class FitWarning(UserWarning):
    """A fit's warning, as ``lppf fit`` prints it: chains that have not mixed, few effective
    draws, a total the release does not support, a check far off. Silence it with the
    :mod:`warnings` module (``warnings.simplefilter("ignore", lppf.FitWarning)``)."""


class _Progress:
    """What ``fit`` shows on stderr unless ``quiet``: the estimate of memory and work first, then
    one line rewritten in place as each percent of the work is done."""

    def __init__(self):
        self.started = time.monotonic()
        self.open = False  # a progress line was written and not ended

    def __call__(self, report):
        if isinstance(report, str):
            # A message (the estimate, or a longer run of until_mixed) gets a line of its own.
            print(("\n" if self.open else "") + report, file=sys.stderr, flush=True)
            self.open = False
            return
        done, total = report
        seconds = time.monotonic() - self.started
        self.open = done < total
        end = "" if self.open else "\n"
        print(f"\rlppf.fit: {100 * done // total:3d}% of the work, {seconds:.0f} s", end=end, file=sys.stderr, flush=True)


class FitResult:
    """A fit directory (``lppf fit --output DIR``), read on demand.

    ``rates`` (``row, col, mean, sd, cell_mean, heldout``: the posterior mean and sd of every
    modelled cell's mean count, and its rate in this table, with its own multiplier under an
    overdispersed likelihood), ``factors`` (``matrix, label, component, value``), ``trace`` (``chain,
    iteration, ln_joint`` or ``elbo``, ``total_rate``, for Gibbs ``ln_lik`` (the marginal
    log-likelihood convergence is judged on) and ``structure`` (agreement with the point estimate
    of the partition), ``dispersion`` under an overdispersed likelihood and ``overdispersed_share``
    under the contaminated one, ``lppf fit``'s default: every kept sample),
    ``diagnostics`` (split-R̂ and ESS per quantity), ``checks``
    and ``partition`` are DataFrames; ``record`` is fit.toml as a dict, ``summary`` the text of
    summary.txt, ``true_total`` the table's true total from the release alone with its 90 %
    interval, ``structure_test`` the test of structure on the release.
    """

    def __init__(self, path: Union[str, os.PathLike], estimate: Optional[str] = None):
        self.path = Path(path)
        self.estimate = estimate
        self.record: dict = read_toml(self.path / "fit.toml")
        self.summary: str = (self.path / "summary.txt").read_text(encoding="utf-8")

    def _csv(self, name: str) -> Optional[pd.DataFrame]:
        path = self.path / name
        return pd.read_csv(path) if path.exists() else None

    @property
    def rates(self) -> pd.DataFrame:
        return read_table(self.path / "rates.parquet")

    @property
    def factors(self) -> pd.DataFrame:
        return read_table(self.path / "factors.parquet")

    @property
    def trace(self) -> pd.DataFrame:
        return read_table(self.path / "trace.parquet")

    @property
    def diagnostics(self) -> pd.DataFrame:
        return pd.read_csv(self.path / "diagnostics.csv")

    @property
    def checks(self) -> Optional[pd.DataFrame]:
        return self._csv("checks.csv")

    @property
    def true_total(self) -> Optional[Tuple[float, float, float]]:
        """A fit of a release: ``(estimate, q05, q95)`` of the table's true total from the release
        alone (the sum of the released values over the modelled cells, and a 90 % interval from
        the exact law of the noise's total, which needs no model); ``None`` for raw counts."""
        r = self.record
        if "true_total_q05" not in r:
            return None
        return (r["true_total_from_release"], r["true_total_q05"], r["true_total_q95"])

    @property
    def structure_test(self) -> Optional[Tuple[bool, float]]:
        """``(structure, p)``: whether the release has structure beyond row activity × column
        popularity (``p ≤ 0.01``), by a parametric bootstrap under the independence model on every
        cell the fit saw (docs/model-checking.md); ``None`` when no test was made (one component)."""
        r = self.record
        if "structure_test_p" not in r:
            return None
        return (r["structure_in_release"], r["structure_test_p"])

    @property
    def partition(self) -> Optional[pd.DataFrame]:
        return self._csv("partition.csv")

    def rate_matrix(self) -> pd.DataFrame:
        """The posterior mean rates as a rows × cols DataFrame in the grid's label order (NaN
        where a cell is not modelled, such as a network's diagonal)."""
        rates = self.rates
        rows = list(dict.fromkeys(rates["row"]))
        cols = list(dict.fromkeys(rates["col"]))
        return rates.pivot(index="row", columns="col", values="mean").reindex(index=rows, columns=cols)

    def to_arviz(self):
        """The fit as an ``arviz.InferenceData``: posterior draws of ``total_rate`` (and the
        overdispersed likelihoods' ``dispersion`` and ``overdispersed_share``, the marginal
        log-likelihood ``ln_lik`` and the
        structure summary ``structure`` when the fit has them) per chain and kept sweep,
        ``sample_stats.lp`` (the log joint), and ``observed_data.release`` (the released values, rows × cols), so that
        ``az.summary``, ``az.plot_trace`` and ``az.rhat`` work. Gibbs fits only: CAVI has no
        draws.

        The factors are in a group ``factors``: each factor matrix's posterior means (``theta``
        by row label × component, ``phi`` or ``pi`` likewise), and, where the fit found a
        partition, each row's ``group`` and ``co_clustering`` — the label-invariant summaries
        (components are numbered arbitrarily by each chain, so per-draw factors would not be
        comparable across chains; the per-draw label-invariant quantities are in the posterior:
        ``total_rate``, ``ln_lik``, ``structure``)."""
        import arviz as az

        trace = self.trace
        if "ln_joint" not in trace.columns:
            raise _core.InputError(
                f"{self.path}: a CAVI fit (method {self.record.get('method')}) has no posterior draws to convert"
            )
        chains = sorted(trace["chain"].unique())
        draws = trace.groupby("chain").size()
        if draws.nunique() != 1:
            raise _core.RunError(f"{self.path}: chains kept different numbers of draws ({dict(draws)})")

        def by_chain(column: str) -> np.ndarray:
            return np.stack([trace.loc[trace["chain"] == c, column].to_numpy() for c in chains])

        posterior = {"total_rate": by_chain("total_rate")}
        for column in ("dispersion", "overdispersed_share", "ln_lik", "structure"):
            if column in trace.columns:
                posterior[column] = by_chain(column)
        observed, coords, dims = {}, {}, {}
        data = Path(self.record["input"])
        if self.record.get("method") in ("private", "naive") and data.exists():
            release = Release(data)
            observed["release"] = release.values
            coords = {"row": release.rows, "col": release.cols}
            dims = {"release": ["row", "col"]}
        idata = az.from_dict(
            posterior=posterior,
            sample_stats={"lp": by_chain("ln_joint")},
            observed_data=observed or None,
            coords=coords,
            dims=dims,
            attrs={"lppf_fit": str(self.path), "method": self.record.get("method"), "seed": self.record.get("seed")},
        )
        with warnings.catch_warnings():
            # "factors" is not one of ArviZ's named groups, which it says in a warning.
            warnings.simplefilter("ignore", UserWarning)
            idata.add_groups(factors=self._factors_dataset())
        return idata

    def _factors_dataset(self):
        """The posterior means of the factors and the partition as an ``xarray.Dataset``."""
        import xarray as xr

        variables = {}
        for name, frame in self.factors.groupby("matrix", sort=False):
            matrix = frame.pivot(index="label", columns="component", values="value")
            matrix = matrix.reindex(index=list(dict.fromkeys(frame["label"])))
            variables[name] = xr.DataArray(
                matrix.to_numpy(),
                dims=(f"{name}_label", "component"),
                coords={f"{name}_label": [str(x) for x in matrix.index], "component": list(matrix.columns)},
            )
        partition = self.partition
        if partition is not None and len(partition):
            for column in ("group", "co_clustering"):
                variables[column] = xr.DataArray(
                    partition[column].to_numpy(), dims=("row",), coords={"row": partition["row"].astype(str).tolist()}
                )
        return xr.Dataset(variables)

    def __repr__(self) -> str:
        r = self.record
        return (
            f"FitResult({r.get('model')} model, {r.get('components')} components, method {r.get('method')}, "
            f"{r.get('chains')} chains, path={str(self.path)!r})"
        )


def read_fit(path: Union[str, os.PathLike]) -> FitResult:
    """A fit directory written by ``lppf fit`` or :func:`fit`."""
    return FitResult(path)


# The options of `fit` that are numbers, checked here so that a bad value raises InputError
# naming the option (the bridge's own conversion does not name it).
_INTEGER_OPTIONS = {"max_iterations", "replicas", "dispersion_warm_up", "structure_tables"}
_NUMBER_OPTIONS = {"tolerance", "a0", "b0", "scale_shape", "dispersion", "alpha", "precision", "holdout"}


def fit(
    data,
    *,
    model: str,
    components: int,
    method: str = "private",
    chains: int = 4,
    iterations: int = 2000,
    burn_in: Optional[int] = None,
    thin: int = 5,
    seed: Optional[int] = None,
    output: Union[str, os.PathLike, None] = None,
    force: bool = False,
    threads: Optional[int] = None,
    quiet: bool = False,
    **options,
) -> FitResult:
    """Fit a ``"block"`` (network) or ``"topic"`` model to a release (``lppf fit``).

    data
        A :class:`Release`, or the path of a release with its sidecar; for the non-private
        reference methods (``"non-private"``, ``"cavi"``), raw counts as a pandas or polars
        DataFrame (``row, col, count``; handed over in memory, never written to disk) or a path.
    method
        ``"private"`` (models the noise; the default), ``"naive"``, ``"private-cavi"``,
        ``"naive-cavi"``, ``"non-private"``, ``"cavi"``.
    iterations, burn_in, thin
        Gibbs sweeps per chain, the first ``burn_in`` of them discarded (default: half of
        ``iterations``), then every ``thin``-th kept.
    seed
        Seeds the chains and held-out cells; without it one is drawn from the operating system
        and recorded in fit.toml. The same seed gives the same numbers at any ``threads``.
    output
        The fit directory; without it, a temporary folder removed when Python exits.
    threads
        Threads to run the chains on (default: all cores).
    options
        Every other option of ``lppf fit``, by its name with ``_`` for ``-``: ``holdout``,
        ``weights``, ``prior``, ``likelihood``, ``dispersion``, ``dispersion_prior`` (a pair
        ``(shape, rate)``), ``dispersion_warm_up``, ``a0``, ``b0``, ``scale_shape``,
        ``scale_mean``, ``replicas``, ``hamiltonian_move`` (the directed block model's move of
        all its factors after each sweep, docs/inference.md: ``"auto"``, the default, runs it in
        that model's Gibbs fits with plain chains; ``True`` or ``"on"`` asks for it, ``False`` or
        ``"off"`` leaves it out), ``structure_tables``, ``private_step``, ``start``,
        ``until_mixed``, ``alpha``, ``alpha_file``, ``precision``, ``max_iterations``,
        ``tolerance``, ``override_sidecar``, ``allow_memory``, ``row_column``, ``col_column``,
        ``count_column``, ``delimiter``, ``time_column`` (raw counts over time, for
        ``model="tensor"``: the column of the time labels, ``time`` by default).

    The GIL is released while the chains run. Unless ``quiet``, the estimate of memory and work
    (also ``FitResult.estimate``) is printed to stderr before the chains start, then the progress.
    The fit's warnings (unmixed chains, a total off the release's, …) are raised as
    :class:`FitWarning` whether or not ``quiet``; ``FitResult.summary`` is what ``lppf fit``
    prints.
    """
    defaults = {"row_column": "row", "col_column": "col", "count_column": "count"}
    columns = tuple(options.pop(option, default) for option, default in defaults.items())
    counts = None
    if isinstance(data, Release):
        source = data.path
    elif isinstance(data, (str, os.PathLike)):
        source = Path(data)
        options.update(zip(defaults, columns))
    elif isinstance(data, pd.DataFrame) or type(data).__module__.startswith("polars"):
        # Raw counts, handed over in memory: they never touch the disk.
        counts, _, _ = _records(data, columns, None, None)
        source = Path("counts")
    else:
        raise _core.InputError(
            f"data: a {type(data).__name__} is not allowed: give a Release, the path of a release, "
            "or (for non-private and cavi) a DataFrame of counts"
        )
    for name, value in (
        ("components", components),
        ("chains", chains),
        ("iterations", iterations),
        ("burn_in", burn_in),
        ("thin", thin),
    ):
        if value is not None or name != "burn_in":
            _number(name, value, integer=True, low=0, high=2**63 - 1)
    for name, value in list(options.items()):
        if name in _INTEGER_OPTIONS and not (name == "dispersion_warm_up" and value is None):
            options[name] = _number(name, value, integer=True, low=0, high=2**63 - 1)
        elif name in _NUMBER_OPTIONS and value is not None:
            options[name] = _number(name, value)
        elif name == "scale_mean" and not isinstance(value, str):
            options[name] = str(_number(name, value))
        elif name == "dispersion_prior" and value is not None:
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
                raise _core.InputError(
                    f"dispersion_prior: {value!r} is not allowed: give a pair (shape, rate) of a gamma prior, "
                    "e.g. (10, 10)"
                )
            options[name] = tuple(_number(name, v) for v in value)
    seed = _seed(seed)
    if threads is not None:
        threads = _number("threads", threads, integer=True)
    target = Path(output) if output is not None else scratch("lppf-fit-") / "fit"
    done = _input_errors(
        _core.fit,
        str(source),
        str(target),
        model=model,
        components=components,
        method=method,
        counts=counts,
        chains=chains,
        iterations=iterations,
        burn_in=burn_in,
        thin=thin,
        seed=seed,
        force=force,
        threads=threads,
        progress=None if quiet else _Progress(),
        **{k: (str(v) if isinstance(v, os.PathLike) else v) for k, v in options.items()},
    )
    for warning in done["warnings"]:
        warnings.warn(warning, FitWarning, stacklevel=2)
    return FitResult(target, estimate=done["estimate"])
