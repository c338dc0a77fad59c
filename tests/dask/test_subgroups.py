"""find_subgroups on dask collections equals the in-memory result, for any chunking, and
brings nothing of the size of the data to the client."""

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from skfair.subgroups import find_subgroups

N = 1500


def _frame(seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "sex": pd.Categorical(rng.choice(["M", "F"], N), categories=["M", "F"]),
            "age": rng.integers(18, 80, N).astype(float),
            "region": rng.choice(["n", "s", "e", "w"], N).astype(object),
            "score": rng.normal(size=N),
        }
    )
    frame.loc[rng.random(N) < 0.05, "age"] = np.nan
    frame.loc[rng.random(N) < 0.03, "region"] = None
    y_true = rng.integers(0, 2, N)
    worse = (frame.sex == "F").to_numpy() & (frame.region == "e").to_numpy()
    y_pred = np.where(rng.random(N) < np.where(worse, 0.4, 0.12), 1 - y_true, y_true)
    weights = rng.choice([0.5, 1.0, 2.0], N)
    return frame, y_true, y_pred, weights


@pytest.fixture
def guard(monkeypatch):
    """Materialising a whole dask collection on the client raises."""

    def refuse(*args, **kwargs):
        raise AssertionError("a dask collection was materialised on the client")

    compute = dask.compute

    def compute_small(*args, **kwargs):
        if any(isinstance(a, (da.Array, dd.DataFrame, dd.Series)) for a in args):
            raise AssertionError("dask.compute of a whole collection")
        return compute(*args, **kwargs)

    for collection in (da.Array, dd.DataFrame, dd.Series):
        monkeypatch.setattr(collection, "compute", refuse)
        monkeypatch.setattr(collection, "__array__", refuse, raising=False)
    monkeypatch.setattr(dask, "compute", compute_small)


@pytest.mark.parametrize("objective", ["gap", "sliceline"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("partitions", [1, 4, 7])
def test_dask_equals_in_memory(objective, weighted, partitions, guard):
    frame, y_true, y_pred, weights = _frame()
    settings = dict(objective=objective, max_level=3, min_support=15, k=12)
    expected = find_subgroups(
        y_true, y_pred, features=frame, sample_weight=weights if weighted else None, **settings
    )
    whole = frame.assign(y_true=y_true, y_pred=y_pred, weight=weights)
    lazy = dd.from_pandas(whole, npartitions=partitions)
    got = find_subgroups(
        lazy["y_true"],
        lazy["y_pred"],
        features=lazy[list(frame.columns)],
        sample_weight=lazy["weight"] if weighted else None,
        **settings,
    )
    assert got.to_dict() == expected.to_dict()


def test_arrays_next_to_a_frame():
    frame, y_true, y_pred, _ = _frame(4)
    expected = find_subgroups(y_true, y_pred, features=frame, k=5)
    got = find_subgroups(
        da.from_array(y_true, chunks=400),
        da.from_array(y_pred, chunks=400),
        features=dd.from_pandas(frame, npartitions=3),
        k=5,
    )
    assert got.to_dict() == expected.to_dict()


def test_uneven_and_empty_chunks_and_arrays(guard):
    frame, y_true, y_pred, _ = _frame(1)
    codes = np.column_stack([frame.age.fillna(-1), (frame.sex == "F"), frame.score])
    expected = find_subgroups(y_true, y_pred, features=codes, metric="false_positive_rate")
    chunks = (500, 0, 1, 699, 300)
    got = find_subgroups(
        da.from_array(y_true, chunks=chunks),
        da.from_array(y_pred, chunks=chunks),
        features=da.from_array(codes, chunks=(chunks, 3)),
        metric="false_positive_rate",
    )
    assert got.to_dict() == expected.to_dict()


def test_masks_of_dask_rows_are_lazy():
    frame, y_true, y_pred, _ = _frame(2)
    report = find_subgroups(y_true, y_pred, features=frame, k=3)
    lazy = report.mask(0, dd.from_pandas(frame, npartitions=3))
    assert isinstance(lazy, da.Array)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(lazy.compute(), report.mask(0))
        labels = report.membership(0, dd.from_pandas(frame, npartitions=3)).compute()
    np.testing.assert_array_equal(labels, report.membership(0))


def test_mdss_refuses_dask_input():
    frame, y_true, _, _ = _frame()
    with pytest.raises(TypeError, match="does not accept dask collections"):
        find_subgroups(
            da.from_array(y_true, chunks=500),
            None,
            features=dd.from_pandas(frame, npartitions=3),
            objective="mdss",
            y_score=da.from_array(np.full(N, 0.5), chunks=500),
        )


def test_a_report_from_dask_rows_needs_features_for_masks():
    frame, y_true, y_pred, _ = _frame(3)
    report = find_subgroups(
        da.from_array(y_true, chunks=500),
        da.from_array(y_pred, chunks=500),
        features=dd.from_pandas(frame, npartitions=3),
        k=2,
    )
    with pytest.raises(ValueError, match="pass them"):
        report.mask(0)
    np.testing.assert_array_equal(
        report.mask(0, frame),
        find_subgroups(y_true, y_pred, features=frame, k=2).mask(0),
    )
