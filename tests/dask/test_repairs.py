"""Repairs on dask input: fit from the table, lazy transform independent of the chunking."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from skfair.datasets import make_madd_simulation
from skfair.postprocessing import BarycenterRepair, MADDRepair


def _data(n=4000, decimals=None, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n)
    scores = np.clip(rng.normal(0.5, 0.15, n) + 0.1 * (group == "b"), 0, 1)
    if decimals is not None:
        scores = np.round(scores, decimals)  # ties: randomised tie-breaking enters
    return scores[:, None], group


@pytest.mark.parametrize("decimals", [None, 2])
def test_barycenter_fit_from_table_equals_in_memory_fit(decimals):
    scores, group = _data(decimals=decimals)
    chunks = (1000, 0, 2500, 500)
    expected = BarycenterRepair(random_state=0).fit(scores, sensitive_features=group)
    got = BarycenterRepair(random_state=0).fit(
        da.from_array(scores, chunks=(chunks, 1)),
        sensitive_features=da.from_array(group, chunks=(chunks,)),
    )
    np.testing.assert_array_equal(got.group_counts_, expected.group_counts_)
    np.testing.assert_allclose(got.w2_dispersion_, expected.w2_dispersion_, rtol=0, atol=1e-12)
    # Both repair new rows alike; continuous queries are tie-free, hence deterministic.
    queries, query_group = _data(n=3000, seed=1)
    np.testing.assert_allclose(
        got.transform(queries, sensitive_features=query_group),
        expected.transform(queries, sensitive_features=query_group),
        rtol=0,
        atol=1e-12,
    )


def test_transform_is_lazy_and_independent_of_the_chunking():
    scores, group = _data(n=5000, decimals=2)  # ties: draws enter
    repair = BarycenterRepair(random_state=3).fit(scores, sensitive_features=group)
    outputs = []
    for chunks in [(5000,), (1234, 0, 3766), (10,) * 500]:
        lazy = repair.transform(
            da.from_array(scores, chunks=(chunks, 1)),
            sensitive_features=da.from_array(group, chunks=(chunks,)),
        )
        assert isinstance(lazy, da.Array)
        outputs.append(lazy.compute())
    for output in outputs[1:]:
        np.testing.assert_array_equal(output, outputs[0])
    # The draws are keyed on the global row position: exactly the in-memory transform.
    np.testing.assert_array_equal(outputs[0], repair.transform(scores, sensitive_features=group))
    # Rows that tie with no calibration value get exactly the in-memory output.
    rng = np.random.default_rng(5)
    continuous, continuous_group = rng.uniform(0.2, 0.8, (2000, 1)), rng.choice(["a", "b"], 2000)
    np.testing.assert_allclose(
        repair.transform(
            da.from_array(continuous, chunks=(700, 1)),
            sensitive_features=da.from_array(continuous_group, chunks=700),
        ).compute(),
        repair.transform(continuous, sensitive_features=continuous_group),
        rtol=0,
        atol=1e-12,
    )


def test_sensitive_column_on_a_dask_dataframe():
    scores, group = _data(decimals=3)
    frame = pd.DataFrame({"score": scores[:, 0], "group": group})
    ddf = dd.from_pandas(frame, npartitions=4)
    expected = BarycenterRepair(sensitive_column="group", random_state=0).fit(frame)
    got = BarycenterRepair(sensitive_column="group", random_state=0).fit(ddf)
    np.testing.assert_array_equal(got.group_counts_, expected.group_counts_)
    assert list(got.feature_names_in_) == ["score", "group"]
    queries = pd.DataFrame({"score": _data(n=500, seed=2)[0][:, 0], "group": _data(500, seed=2)[1]})
    np.testing.assert_allclose(
        got.transform(dd.from_pandas(queries, npartitions=3)).compute(),
        expected.transform(queries),
        rtol=0,
        atol=1e-12,
    )


def test_what_needs_all_rows_raises_naming_the_alternative():
    scores, group = _data(n=200)
    dask_scores = da.from_array(scores, chunks=(50, 1))
    dask_group = da.from_array(group, chunks=50)
    with pytest.raises(TypeError, match=r"fit\(S\)\.transform\(S\)"):
        BarycenterRepair().fit_transform(dask_scores, sensitive_features=dask_group)
    with pytest.raises(TypeError, match="rank the calibration rows.*in-memory calibration"):
        MADDRepair(lam=0.5).fit(dask_scores, sensitive_features=dask_group)
    with pytest.raises(TypeError, match='ties="randomized"'):
        BarycenterRepair(ties="jitter").fit(dask_scores, sensitive_features=dask_group)


def test_madd_repair_transform_on_dask_is_chunking_independent():
    y_score, group, _ = make_madd_simulation(4000, random_state=0)
    repair = MADDRepair(lam=0.5, random_state=0).fit(y_score[:, None], sensitive_features=group)
    outputs = [
        repair.transform(
            da.from_array(y_score[:, None], chunks=(chunks, 1)),
            sensitive_features=da.from_array(group, chunks=(chunks,)),
        ).compute()
        for chunks in [(len(group),), (999, len(group) - 999)]
    ]
    np.testing.assert_array_equal(outputs[0], outputs[1])
    np.testing.assert_array_equal(
        outputs[0], repair.transform(y_score[:, None], sensitive_features=group)
    )


def test_repaired_classifier_predicts_partition_by_partition():
    from sklearn.linear_model import LogisticRegression

    from skfair.postprocessing import RepairedClassifier

    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame(
        {
            "x0": rng.normal(size=n),
            "x1": rng.normal(size=n),
            "group": rng.choice(["a", "b"], n),
        }
    )
    y = (frame.x0 + (frame.group == "a") + rng.normal(size=n) > 0.5).astype(int)
    model = RepairedClassifier(
        LogisticRegression(), BarycenterRepair(random_state=0), sensitive_column="group"
    ).fit(frame, y)
    # New rows: their scores tie with no calibration score, so no random draw enters.
    new = frame.assign(x0=rng.normal(size=n), x1=rng.normal(size=n))
    outputs = {}
    for partitions in (1, 4):
        ddf = dd.from_pandas(new, npartitions=partitions)
        proba = model.predict_proba(ddf)
        labels = model.predict(ddf)
        assert isinstance(proba, da.Array) and isinstance(labels, da.Array)
        outputs[partitions] = (proba.compute(), labels.compute())
    np.testing.assert_array_equal(outputs[1][0], outputs[4][0])
    np.testing.assert_array_equal(outputs[1][1], outputs[4][1])
    np.testing.assert_allclose(outputs[4][0], model.predict_proba(new), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(outputs[4][1], model.predict(new))
    # The training rows tie with calibration scores: draws enter, keyed on the row position.
    np.testing.assert_array_equal(
        model.predict_proba(dd.from_pandas(frame, npartitions=3)).compute(),
        model.predict_proba(frame),
    )
