"""Repairs on dask input: fit from the table, lazy transform independent of the chunking."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from skfair.datasets import make_madd_simulation
from skfair.postprocessing import BarycenterRepair, MADDRepair
from skfair.preprocessing import CorrelationRemover


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


def _weighted_least_squares(X, codes, weights, alpha):
    """fairlearn's definition with weights: X - alpha * S_c beta, beta the weighted lstsq fit
    (numpy lstsq on sqrt(w)-scaled rows) of X on the one-hot S centred by its weighted mean."""
    S = (codes[:, None] == np.unique(codes)).astype(float)
    centred = S - weights @ S / weights.sum()
    root = np.sqrt(weights)[:, None]
    beta = np.linalg.lstsq(root * centred, root * X, rcond=None)[0]
    return X - alpha * centred @ beta


@pytest.fixture
def nothing_of_size_n_computed(monkeypatch):
    """Materialising a dask collection on the client raises (the partition sums are computed
    on the workers and only the merged table comes back)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a dask collection was materialised on the client")

    for collection in (da.Array, dd.DataFrame, dd.Series):
        for name in ("__array__", "compute"):
            monkeypatch.setattr(collection, name, refuse)


@pytest.mark.parametrize("chunks", [(1500,), (700, 0, 1, 799), (100,) * 15])
@pytest.mark.parametrize("weighted", [False, True])
def test_correlation_remover_fit_on_dask_equals_in_memory(
    chunks, weighted, nothing_of_size_n_computed, monkeypatch
):
    rng = np.random.default_rng(len(chunks))
    n = 1500
    attributes = np.column_stack([rng.choice(["f", "m"], n), rng.integers(0, 3, n)])
    attributes[:700, 1] = "0"  # the first partitions lack some groups
    X = rng.normal(size=(n, 3)) * [1.0, 10.0, 1e-3] + 5 * (attributes[:, 1] == "2")[:, None]
    weights = rng.uniform(0.1, 3.0, n) if weighted else None
    expected = CorrelationRemover(alpha=0.7).fit(
        X, sensitive_features=attributes, sample_weight=weights
    )
    got = CorrelationRemover(alpha=0.7).fit(
        da.from_array(X, chunks=(chunks, 3)),
        sensitive_features=da.from_array(attributes, chunks=(chunks, 2)),
        sample_weight=None if weights is None else da.from_array(weights, chunks=(chunks,)),
    )
    monkeypatch.undo()
    assert got.groups_ == expected.groups_
    np.testing.assert_array_equal(got.group_counts_, expected.group_counts_)
    np.testing.assert_allclose(got.group_means_, expected.group_means_, rtol=1e-12)
    out = got.transform(X, sensitive_features=attributes)
    np.testing.assert_allclose(
        out, expected.transform(X, sensitive_features=attributes), atol=1e-10
    )
    codes = np.unique(attributes, axis=0, return_inverse=True)[1].reshape(-1)
    oracle = _weighted_least_squares(X, codes, np.ones(n) if weights is None else weights, 0.7)
    np.testing.assert_allclose(out, oracle, atol=1e-9)


def test_correlation_remover_fit_on_a_dask_dataframe_with_sensitive_column():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(rng.normal(size=(900, 2)), columns=["income", "age"])
    frame.insert(1, "sex", pd.Categorical(rng.choice(["f", "m"], 900)))
    frame["income"] += 2.0 * (frame["sex"] == "m")
    expected = CorrelationRemover(sensitive_column="sex").fit(frame)
    got = CorrelationRemover(sensitive_column="sex").fit(dd.from_pandas(frame, npartitions=4))
    np.testing.assert_array_equal(got.feature_names_in_, ["income", "sex", "age"])
    assert got.n_features_in_ == 3 and list(got.get_feature_names_out()) == ["income", "age"]
    np.testing.assert_allclose(got.transform(frame), expected.transform(frame), atol=1e-10)
    lazy = got.transform(dd.from_pandas(frame, npartitions=3))
    np.testing.assert_allclose(lazy.compute(), expected.transform(frame), atol=1e-10)


def test_correlation_remover_fit_on_dask_checks_rows_as_in_memory():
    rng = np.random.default_rng(5)
    X, group = rng.normal(size=(400, 2)), rng.choice(["a", "b"], 400)
    X[250, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or inf"):
        CorrelationRemover().fit(da.from_array(X, chunks=100), sensitive_features=group)
    with pytest.raises(ValueError, match="total sample_weight of zero"):
        CorrelationRemover().fit(
            da.from_array(np.nan_to_num(X), chunks=100),
            sensitive_features=da.from_array(group, chunks=100),
            sample_weight=da.from_array((group == "a").astype(float), chunks=100),
        )
    missing = group.astype(object)
    missing[123] = None
    with pytest.raises(ValueError, match="missing values"):
        CorrelationRemover().fit(
            da.from_array(np.nan_to_num(X), chunks=100),
            sensitive_features=da.from_array(missing, chunks=100),
        )
