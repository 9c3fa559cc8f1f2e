"""The Python package against the command: the same releases and fits for the same seeds, the same
refusals, and the ArviZ conversion. Every random step is seeded."""

import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lppf

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> Path:
    """The lppf binary of this checkout: $LPPF_BIN, else target/debug/lppf (built by cargo test)."""
    path = Path(os.environ.get("LPPF_BIN", REPO / "target" / "debug" / "lppf"))
    if not path.exists():
        pytest.fail(f"{path}: no lppf binary; build it with `cargo build -p lppf-cli` or set LPPF_BIN")
    return path


def run(cli: Path, *args, cwd=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def counts_frame(rows=12, cols=8, seed=1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "row": [f"d{i}" for i in range(rows) for _ in range(cols)],
            "col": [f"w{j}" for _ in range(rows) for j in range(cols)],
            "count": rng.poisson(2.0, rows * cols),
        }
    )


SMALL = dict(chains=2, iterations=60, burn_in=30, thin=2)


def small_fit_flags(seed):
    return ["--chains", 2, "--iterations", 60, "--burn-in", 30, "--thin", 2, "--seed", seed, "--quiet"]


def test_a_dataframe_is_privatized_fitted_and_opened_in_arviz(tmp_path):
    import arviz as az
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(counts_frame(), epsilon=1.0, seed=1)
    assert release.values.shape == (12, 8) and release.values.dtype == np.int64
    assert not release.private and release.epsilon == pytest.approx(1.0)
    assert release.rows == sorted(f"d{i}" for i in range(12))  # sorted: their order reveals nothing
    long = release.to_frame()
    assert len(long) == 96 and list(long.columns) == ["row", "col", "value"]

    result = lppf.fit(release, model="topic", components=2, seed=3, output=tmp_path / "fit", **SMALL)
    assert len(result.rates) == 96 and {"mean", "sd", "cell_mean"} <= set(result.rates.columns)
    assert result.rate_matrix().shape == (12, 8)
    assert set(result.diagnostics["quantity"]) >= {"ln_joint", "total_rate"}
    assert result.record["seed"] == 3 and result.record["method"] == "private"
    estimate, low, high = result.true_total
    assert estimate == release.values.sum() and low <= estimate <= high
    structure, p = result.structure_test
    assert structure == (p <= 0.01) and 0.005 <= p <= 1.0

    idata = result.to_arviz()
    assert idata.posterior["total_rate"].shape == (2, 15)
    assert idata.observed_data["release"].shape == (12, 8)
    summary = az.summary(idata)
    assert "total_rate" in summary.index
    # ArviZ's R̂ of the total is the one lppf reports (both rank-normalised split-R̂).
    ours = result.diagnostics.set_index("quantity").loc["total_rate", "rhat"]
    assert float(az.rhat(idata)["total_rate"]) == pytest.approx(ours, rel=1e-6)
    # The marginal log-likelihood convergence is judged on, with the R̂ lppf reports.
    assert idata.posterior["ln_lik"].shape == (2, 15)
    ours = result.diagnostics.set_index("quantity").loc["ln_lik", "rhat"]
    assert float(az.rhat(idata)["ln_lik"]) == pytest.approx(ours, rel=1e-6)
    # The factors' posterior means by label, as FitResult.factors has them.
    theta = idata.factors["theta"]
    assert theta.shape == (12, 2) and list(theta["theta_label"].values[:2]) == list(result.rate_matrix().index[:2])
    first = result.factors.query("matrix == 'theta'").iloc[0]
    assert float(theta.sel(theta_label=first["label"], component=first["component"])) == pytest.approx(first["value"])
    assert idata.factors["phi"].shape == (8, 2)
    import matplotlib

    matplotlib.use("Agg")
    az.plot_trace(idata, var_names=["total_rate"])


def test_the_same_seed_gives_the_cli_numbers(tmp_path, cli):
    counts = tmp_path / "counts.csv"
    counts_frame().to_csv(counts, index=False)
    run(cli, "privatize", "--input", counts, "--output", tmp_path / "cli.csv", "--epsilon", 1, "--seed", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = lppf.privatize(counts, epsilon=1.0, seed=5, output=tmp_path / "py.csv")
    theirs = lppf.read_release(tmp_path / "cli.csv")
    assert np.array_equal(ours.values, theirs.values) and ours.rows == theirs.rows and ours.cols == theirs.cols
    assert ours.privacy["alpha"] == theirs.privacy["alpha"]

    run(cli, "fit", "--input", tmp_path / "cli.csv", "--model", "topic", "--components", 2, "--method", "private",
        "--output", tmp_path / "cli-fit", *small_fit_flags(9))
    mine = lppf.fit(tmp_path / "cli.csv", model="topic", components=2, seed=9, output=tmp_path / "py-fit", **SMALL)
    one = lppf.fit(theirs, model="topic", components=2, seed=9, output=tmp_path / "one", threads=1, **SMALL)
    cli_fit = lppf.read_fit(tmp_path / "cli-fit")
    for table in ("rates", "factors", "trace"):
        pd.testing.assert_frame_equal(getattr(mine, table), getattr(cli_fit, table), check_exact=True)
        pd.testing.assert_frame_equal(getattr(one, table), getattr(cli_fit, table), check_exact=True)


def test_bad_input_raises_the_commands_message(tmp_path):
    frame = counts_frame()
    with pytest.raises(lppf.InputError, match=r"--epsilon -1"):
        lppf.privatize(frame, epsilon=-1.0)
    with pytest.raises(ValueError, match="exactly one of epsilon and alpha"):
        lppf.privatize(frame, epsilon=1.0, alpha=0.5)
    bad = frame.assign(count=frame["count"] + 0.5)
    with pytest.raises(lppf.InputError, match=r"counts, index 0: \(d0, w0\): count \"2.5\" is not allowed"):
        lppf.privatize(bad, alpha=0.5, seed=1)
    # A message names the cell by the frame's own index, not by its position.
    labelled = frame.set_axis([f"x{k}" for k in range(len(frame))])
    labelled.loc["x5", "count"] = -2
    with pytest.raises(lppf.InputError, match=r"counts, index x5: \(d0, w5\): count \"-2\" is not allowed"):
        lppf.privatize(labelled, alpha=0.5, seed=1)
    with pytest.raises(lppf.InputError, match="not a delimiter"):
        lppf.privatize(frame, alpha=0.5, delimiter="ab")
    with pytest.raises(lppf.InputError, match="no column 'n'"):
        lppf.privatize(frame, alpha=0.5, count_column="n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = lppf.privatize(frame, alpha=0.5, seed=1, output=tmp_path / "r.csv")
        with pytest.raises(lppf.InputError, match="already"):
            lppf.privatize(frame, alpha=0.5, seed=1, output=tmp_path / "r.csv")
    with pytest.raises(lppf.InputError, match='model "topics" is not allowed'):
        lppf.fit(release, model="topics", components=2)
    with pytest.raises(lppf.InputError, match="threads = 0 is not allowed"):
        lppf.fit(release, model="topic", components=2, threads=0, **SMALL)
    with pytest.raises(lppf.InputError, match='--weights = "heavy" is not allowed'):
        lppf.fit(release, model="topic", components=2, weights="heavy", **SMALL)
    lppf.fit(release, model="topic", components=2, seed=1, output=tmp_path / "f", **SMALL)
    with pytest.raises(lppf.InputError, match="already holds a fit"):
        lppf.fit(release, model="topic", components=2, seed=1, output=tmp_path / "f", **SMALL)
    with pytest.raises(lppf.InputError, match="CAVI fit"):
        lppf.fit(release, model="topic", components=2, method="private-cavi", seed=1, max_iterations=20).to_arviz()


def test_an_array_states_its_grid_so_empty_rows_and_columns_are_kept():
    counts = np.zeros((4, 5), dtype=np.int64)
    counts[0, 1], counts[2, 3] = 3, 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = lppf.privatize(counts, alpha=0.5, seed=2, rows=list("abcd"), cols=list("vwxyz"))
    assert release.values.shape == (4, 5) and release.rows == list("abcd") and release.cols == list("vwxyz")
    assert [w.category for w in caught] == [lppf.NotPrivateWarning]


def test_each_row_may_have_its_own_level():
    frame = counts_frame(rows=3, cols=4)
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(frame, alpha={"d0": 0.2, "d1": 0.5, "d2": 0.8}, seed=3)
    assert release.alpha is None
    assert [r["alpha"] for r in release.privacy["row"]] == pytest.approx([0.2, 0.5, 0.8])


def test_a_pandas_snappy_parquet_file_is_read_here_and_by_the_cli(tmp_path, cli):
    import pyarrow  # noqa: F401  (pandas writes Parquet through it)
    source = tmp_path / "counts.parquet"
    counts_frame().to_parquet(source)  # pandas' default codec: snappy
    assert lppf.read_table(source)["count"].sum() == counts_frame()["count"].sum()
    run(cli, "privatize", "--input", source, "--output", tmp_path / "cli.csv", "--alpha", 0.5, "--seed", 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = lppf.privatize(source, alpha=0.5, seed=4, output=tmp_path / "py.parquet")
    assert np.array_equal(ours.values, lppf.read_release(tmp_path / "cli.csv").values)


def test_a_sweeps_results_are_a_dataframe(tmp_path, cli):
    run(cli, "run", REPO / "experiments" / "smoke.toml", "--quiet", cwd=tmp_path)
    results = lppf.read_results(tmp_path / "results" / "smoke")
    assert len(results) == 20 and {"method", "alpha"} <= set(results.columns)
    # CAVI rows have no burn-in: a nullable integer column.
    assert results["burn_in"].isna().any() and results["burn_in"].dtype == "Int64"
    # Every column the file has, booleans and per-chain lists included.
    import pyarrow.parquet as pq

    assert list(results.columns) == pq.read_schema(tmp_path / "results" / "smoke" / "results.parquet").names
    assert results["converged"].dtype in (bool, "boolean")
    kl = results["chain_mean_kl"].dropna()
    assert len(kl) > 0 and all(isinstance(v, list) and all(isinstance(x, float) for x in v) for v in kl)


def test_iterations_alone_set_the_run_and_a_fit_shows_progress_and_warns(capsys):
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(counts_frame(), epsilon=1.0, seed=1)
    # Burn-in: half of the iterations (it was 1,000 whatever the iterations, which refused this).
    with pytest.warns(lppf.FitWarning):  # 2 chains of 8 kept draws: too few effective draws
        fit = lppf.fit(release, model="topic", components=2, seed=3, chains=2, iterations=40)
    assert (fit.record["iterations"], fit.record["burn_in"]) == (40, 20)
    err = capsys.readouterr().err
    assert fit.estimate.splitlines()[0] in err and "100% of the work" in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lppf.FitWarning)
        quiet = lppf.fit(release, model="topic", components=2, seed=3, chains=2, iterations=40, quiet=True,
                         structure_tables=0)
    assert capsys.readouterr().err == ""
    # structure_tables=0: no test of the release, and the summary says so.
    assert quiet.structure_test is None and "no test of the release for structure" in quiet.summary
    # until_mixed: 8 kept draws per chain never mix, so the chains run on to 80 and 160 sweeps;
    # each longer run is said on its own line and the progress ends at 100 % of the grown work.
    with pytest.warns(lppf.FitWarning):
        longer = lppf.fit(release, model="topic", components=2, seed=3, chains=2, iterations=40, until_mixed=160,
                          structure_tables=0)
    assert longer.record["run_lengths"] == [40, 80, 160]
    err = capsys.readouterr().err
    for line in ("after 40 sweeps each: running them on to 80", "after 80 sweeps each: running them on to 160"):
        assert any(line in row and row.startswith("the chains") for row in err.splitlines()), err
    assert "100% of the work" in err.split("running them on to 160")[-1], err


def test_the_readmes_python_snippet_runs_as_written(tmp_path, monkeypatch):
    text = (REPO / "README.md").read_text()
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "data" / "enron").mkdir(parents=True)
    (tmp_path / "data" / "enron" / "network-counts.csv").write_bytes(
        (REPO / "data" / "enron" / "network-counts.csv").read_bytes()
    )
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lppf.FitWarning)
        exec(compile(snippet, "README.md", "exec"), {})
    assert (tmp_path / "released.csv").exists() and (tmp_path / "released.csv.privacy.toml").exists()


def test_an_undirected_network_is_released_once_per_pair_and_fitted():
    names = [f"a{i}" for i in range(6)]
    pairs = [(a, b) for i, a in enumerate(names) for j, b in enumerate(names) if i != j and (i < 3) == (j < 3)]
    frame = pd.DataFrame({"row": [a for a, _ in pairs], "col": [b for _, b in pairs], "count": 4})
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(frame, epsilon=1.0, symmetric=True, seed=2)
    assert release.symmetric and release.privacy["square"]
    assert len(release.to_frame()) == 15 and np.array_equal(release.values, release.values.T)
    result = lppf.fit(release, model="undirected", components=2, seed=1, **SMALL)
    assert len(result.rates) == 15 and "each pair once" in result.summary
    with pytest.raises(lppf.InputError, match="fit it with --model undirected"):
        lppf.fit(release, model="block", components=2, **SMALL)
    with pytest.raises(lppf.InputError, match="--hamiltonian-move on is not allowed with --model undirected"):
        lppf.fit(release, model="undirected", components=2, hamiltonian_move=True, **SMALL)
    with pytest.raises(lppf.InputError, match="one level for every row"):
        lppf.privatize(frame, alpha={n: 0.5 for n in names}, symmetric=True, seed=2)


def test_the_hamiltonian_move_is_the_directed_block_models_default_and_can_be_left_out():
    names = [f"a{i}" for i in range(5)]
    pairs = [(a, b) for a in names for b in names if a != b]
    frame = pd.DataFrame({"row": [a for a, _ in pairs], "col": [b for _, b in pairs], "count": 3})
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(frame, epsilon=1.0, square=True, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lppf.FitWarning)
        fits = {flag: lppf.fit(release, model="block", components=2, seed=1, structure_tables=0,
                               hamiltonian_move=flag, **SMALL) for flag in [None, "on", True, "off", False]}
    assert [fits[f].record["hamiltonian_move"] for f in fits] == [True, True, True, False, False]
    assert fits[None].rates.equals(fits[True].rates) and not fits[None].rates.equals(fits[False].rates)
    with pytest.raises(lppf.InputError, match="one of auto, on, off"):
        lppf.fit(release, model="block", components=2, hamiltonian_move="yes", **SMALL)


def test_counts_over_time_are_released_from_a_file_and_fitted_with_the_tensor(tmp_path):
    frame = counts_frame(rows=6, cols=4)
    frame = pd.concat([frame.assign(month=m) for m in ["2020-01", "2020-02"]], ignore_index=True)
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    with pytest.warns(lppf.NotPrivateWarning):
        release = lppf.privatize(
            path, epsilon=1.0, seed=2, time_column="month", times=["2020-01", "2020-02", "2020-03"],
            output=tmp_path / "released.csv",
        )
    assert release.privacy["times"] == 3 and len(release.to_frame()) == 6 * 4 * 3
    result = lppf.fit(release, model="tensor", components=2, seed=1, **SMALL)
    assert list(result.rates.columns[:3]) == ["row", "col", "time"] and len(result.rates) == 72
    assert set(result.factors[result.factors.matrix == "psi"].label) == {"2020-01", "2020-02", "2020-03"}
    with pytest.raises(lppf.InputError, match="read from a file"):
        lppf.privatize(frame, epsilon=1.0, seed=2, time_column="month")


def test_a_polars_frame_releases_as_the_same_pandas_frame_does():
    import polars as pl
    frame = counts_frame(rows=4, cols=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_pandas = lppf.privatize(frame, alpha=0.5, seed=8)
        from_polars = lppf.privatize(pl.from_dict(frame.to_dict("list")), alpha=0.5, seed=8)
    assert np.array_equal(from_pandas.values, from_polars.values) and from_pandas.rows == from_polars.rows


def test_raw_counts_never_touch_the_disk(tmp_path, monkeypatch):
    """A DataFrame's counts go to the library in memory: with the outputs elsewhere, nothing at all
    is written to the temporary directory, for a release and for a non-private fit."""
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    frame = counts_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lppf.privatize(frame, epsilon=1.0, seed=1, output=tmp_path / "out" / "r.csv")
        lppf.privatize(frame.to_numpy()[:, 2].reshape(12, 8).astype(np.int64), alpha=0.5, seed=1,
                       output=tmp_path / "out" / "a.csv")
    lppf.fit(frame, model="topic", components=2, method="non-private", seed=1, output=tmp_path / "out" / "f", **SMALL)
    assert list(scratch.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "a.csv", "a.csv.privacy.toml", "f", "r.csv", "r.csv.privacy.toml"
    ]


class Stop(Exception):
    pass


def test_an_interrupt_while_privatizing_publishes_nothing(tmp_path):
    """A signal whose handler raises (as Ctrl-C's does) while the release is being made: the
    exception reaches the caller and neither the release, its sidecar nor a pending file stays.
    The signal is sent once the release's pending file exists and its sidecar's does not, that
    is while the library writes it (a million cells take far longer than the check)."""
    import signal
    import threading
    import time

    counts = np.ones((1000, 1000), dtype=np.int64)
    output = tmp_path / "r.csv"
    previous = signal.signal(signal.SIGUSR1, lambda *_: (_ for _ in ()).throw(Stop()))
    sent = threading.Event()

    def interrupt():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            names = [p.name for p in tmp_path.iterdir()]
            if any(n.startswith(".lppf-pending.") and n.endswith(".r.csv") for n in names) and not any(
                n.endswith(".privacy.toml") for n in names
            ):
                os.kill(os.getpid(), signal.SIGUSR1)
                sent.set()
                return
            time.sleep(0.0005)

    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Stop):
                lppf.privatize(counts, alpha=0.5, seed=1, output=output)
    finally:
        helper.join()
        signal.signal(signal.SIGUSR1, previous)
    assert sent.is_set()
    assert list(tmp_path.iterdir()) == [], "nothing was published and nothing was left"


def test_bad_arguments_raise_input_error_and_labels_may_be_dates(tmp_path):
    frame = counts_frame(rows=3, cols=2)
    for kwargs, says in [
        (dict(alpha=0.5, seed=-1), "seed"),
        (dict(alpha=0.5, seed=2**70), "seed"),
        (dict(epsilon=True), "epsilon = True is not allowed"),
        (dict(epsilon="1"), "epsilon = '1' is not allowed"),
        (dict(alpha={"d0": True, "d1": 0.5, "d2": 0.5}), "is not allowed"),
        (dict(alpha=0.5, precision=None), "precision = None"),
    ]:
        with pytest.raises(lppf.InputError, match=says):
            lppf.privatize(frame, **kwargs)
    with pytest.raises(lppf.InputError, match="components = '2' is not allowed"):
        lppf.fit(frame, model="topic", components="2", method="non-private")
    with pytest.raises(lppf.InputError, match="max_iterations"):
        lppf.fit(frame, model="topic", components=2, method="cavi", max_iterations=-5)
    with pytest.raises(lppf.InputError, match="dispersion_warm_up"):
        lppf.fit(frame, model="topic", components=2, method="non-private", dispersion_warm_up=-1)
    for prior, says in [("10,10", "dispersion_prior"), ((10,), "dispersion_prior"), ((1e2, 1e-4), "at least half")]:
        with pytest.raises(lppf.InputError, match=says):
            lppf.fit(frame, model="topic", components=2, method="non-private", dispersion_prior=prior)
    # Dates and times as labels: the same text from the counts and from rows=.
    days = pd.date_range("2001-05-01", periods=3, freq="D")
    dated = pd.DataFrame({"row": np.repeat(days, 2), "col": ["a", "b"] * 3, "count": [1, 0, 2, 3, 0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = lppf.privatize(dated, alpha=0.5, seed=1, rows=list(days), cols=["a", "b"])
    assert release.rows == [d.isoformat() for d in days]
    # A release without its sidecar does not claim to be seeded.
    path = tmp_path / "bare.csv"
    release.to_frame().to_csv(path, index=False)
    bare = lppf.read_release(path)
    assert bare.private is None and "privacy unknown" in repr(bare) and "NOT PRIVATE" not in repr(bare)


def test_a_seeded_fuzz_of_the_python_entry_points(tmp_path):
    """Hostile tables and arguments for ``privatize`` and ``fit``: every case returns a whole
    release (both files) or raises InputError with nothing written — never another exception.
    The cases are fixed by the seed."""
    rng = np.random.default_rng(20261127)
    hostile = [-1, 2.5, np.nan, np.inf, 2**70, "x", None, True, "3", 1e300, -0.0, 3.0]
    outcomes = {"released": 0, "refused": 0}
    for case in range(120):
        frame = counts_frame(rows=3, cols=3, seed=case).astype(object)
        kind = rng.integers(6)
        if kind == 0:
            frame.loc[rng.integers(len(frame)), "count"] = hostile[rng.integers(len(hostile))]
        elif kind == 1:
            frame.loc[rng.integers(len(frame)), "row"] = ["", None, "é", pd.Timestamp("2001-01-01"), 7][rng.integers(5)]
        elif kind == 2:
            frame = frame.iloc[[0, 0, 1]]  # a cell twice
        elif kind == 3:
            frame = frame.drop(columns=["col"])
        kwargs = dict(alpha=0.5, seed=case)
        if rng.integers(3) == 0:
            key = ["alpha", "seed", "precision"][rng.integers(3)]
            kwargs[key] = hostile[rng.integers(len(hostile))]
        out = tmp_path / f"case{case}"
        out.mkdir()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                release = lppf.privatize(frame, output=out / "r.csv", **kwargs)
        except lppf.InputError:
            outcomes["refused"] += 1
            assert list(out.iterdir()) == [], f"case {case}: files left"
            continue
        outcomes["released"] += 1
        assert sorted(p.name for p in out.iterdir()) == ["r.csv", "r.csv.privacy.toml"], f"case {case}"
        assert release.values.shape[0] >= 1
        if case % 10 == 1:
            try:
                lppf.fit(release, model="topic", components=[2, 0, "2", 10**30][rng.integers(4)],
                         output=out / "f", seed=1, **SMALL)
            except lppf.InputError:
                assert not (out / "f").exists()
    assert outcomes["released"] >= 20 and outcomes["refused"] >= 20, outcomes
    # A missing label is refused, naming its row, not released as the text "None".
    frame = counts_frame(rows=2, cols=2).astype(object)
    frame.loc[1, "row"] = None
    with pytest.raises(lppf.InputError, match=r"counts, index 1: empty `row` label"):
        lppf.privatize(frame, alpha=0.5, seed=1)


def test_the_package_is_typed_and_documented():
    # PEP 561: the marker and the extension's stub ship inside the package, so type checkers read
    # the annotations; every public name says what it does in help().
    package = Path(lppf.__file__).parent
    assert (package / "py.typed").exists() and (package / "_core.pyi").exists()
    stub = (package / "_core.pyi").read_text(encoding="utf-8")
    for name in ("def privatize(", "def fit(", "def read_table(", "def read_release(", "def sidecar_path("):
        assert name in stub, name
    for name in lppf.__all__:
        if name != "__version__":
            assert getattr(lppf, name).__doc__, f"lppf.{name} has no docstring"
