"""What the scale-out contract promises beyond equal results: lazy outputs, errors that name
the row of the data, bounded tables, representable grids, other libraries' frames."""

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression

from skfair import metrics
from skfair.explain import BiasExplainer
from skfair.postprocessing import (
    BarycenterRepair,
    GroupThresholdClassifier,
    MADDRepair,
    MulticlassGroupThresholdClassifier,
    RepairedClassifier,
    RepairedRegressor,
)


def _scores_and_groups(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b"], n)
    return np.round(rng.random(n), 2), groups


def _never_compute(*args, **kwargs):
    raise AssertionError("something was computed while the lazy output was built")


# --------------------------------------------------------------------------------------------
# lazy means lazy


def test_transform_and_predict_compute_nothing_until_asked():
    scores, groups = _scores_and_groups()
    frame = pd.DataFrame({"x": scores, "g": groups})
    y = (scores + np.random.default_rng(1).normal(0, 0.2, scores.size) > 0.5).astype(int)
    repair = BarycenterRepair(random_state=0).fit(scores[:, None], sensitive_features=groups)
    model = RepairedClassifier(
        LogisticRegression(), BarycenterRepair(random_state=0), sensitive_column="g"
    ).fit(frame, y)
    thresholds = GroupThresholdClassifier(LogisticRegression(), sensitive_column="g").fit(frame, y)
    ddf = dd.from_pandas(frame, npartitions=4)  # partition lengths unknown to dask
    unknown = da.from_array(scores, chunks=300)
    unknown = unknown[unknown >= 0]  # chunk sizes unknown (NaN)
    unknown_groups = da.from_array(groups, chunks=300)[da.from_array(scores, chunks=300) >= 0]
    with dask.config.set(scheduler=_never_compute):
        outputs = {
            "transform": repair.transform(unknown[:, None], sensitive_features=unknown_groups),
            "predict_proba": model.predict_proba(ddf),
            "predict": model.predict(ddf),
            "thresholds": thresholds.predict(ddf),
        }
    assert np.isnan(outputs["transform"].shape[0])  # unknown lengths stay unknown
    expected = {
        "transform": repair.transform(scores[:, None], sensitive_features=groups),
        "predict_proba": model.predict_proba(frame),
        "predict": model.predict(frame),
        # Each partition is a batch of the thresholds' draws (see its predict).
        "thresholds": np.concatenate(
            [thresholds.predict(ddf.get_partition(i).compute()) for i in range(ddf.npartitions)]
        ),
    }
    for name, lazy in outputs.items():
        np.testing.assert_array_equal(lazy.compute(), expected[name], err_msg=name)


def test_row_offsets_come_from_the_graph_for_partitions_of_unknown_length():
    """Tied scores draw a level keyed on the row's position: a dask DataFrame's partitions
    (lengths unknown) repair each row at its place in the whole data."""
    scores, groups = _scores_and_groups(n=3000, seed=4)
    frame = pd.DataFrame({"s": scores, "g": groups})
    repair = BarycenterRepair(sensitive_column="g", random_state=2).fit(frame)
    expected = repair.transform(frame)
    for npartitions in (1, 3, 7):
        got = repair.transform(dd.from_pandas(frame, npartitions=npartitions)).compute()
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------------------------
# errors name the row of the data


@pytest.mark.parametrize("unknown", [False, True], ids=["known chunks", "unknown chunks"])
def test_errors_name_the_row_of_the_data(unknown):
    scores, groups = _scores_and_groups(n=1000)
    bad_row = 737
    scores = scores.copy()
    scores[bad_row] = np.nan
    weights = np.ones(1000)
    weights[612] = -1.0

    def lazy(values):
        array = da.from_array(values, chunks=250)
        if unknown:
            array = array[da.ones(1000, dtype=bool, chunks=250)]
        return array

    with pytest.raises(ValueError, match=f"first at row {bad_row}"):
        metrics.wasserstein_bias(
            None, lazy(scores), sensitive_features=lazy(groups), resolution=0.01
        )
    with pytest.raises(ValueError, match=f"first at row {bad_row}"):
        metrics.madd(None, lazy(scores), sensitive_features=lazy(groups), bins=10)
    missing = groups.astype(object)
    missing[400] = None
    clean = np.nan_to_num(scores)
    with pytest.raises(ValueError, match="first at row 400"):
        metrics.ks_bias(None, lazy(clean), sensitive_features=lazy(missing))
    labels = (clean > 0.5).astype(float)
    labels[999] = np.nan
    with pytest.raises(ValueError, match="first at row 999"):
        metrics.statistical_parity_difference(None, lazy(labels), sensitive_features=lazy(groups))
    with pytest.raises(ValueError, match="first at row 612"):
        metrics.statistical_parity_difference(
            None,
            lazy(labels[:999].tolist() + [0.0]),
            sensitive_features=lazy(groups),
            sample_weight=lazy(weights),
        )


# --------------------------------------------------------------------------------------------
# bounded tables and representable grids


def test_a_table_that_grows_with_the_data_is_refused_before_it_reaches_the_client():
    rng = np.random.default_rng(0)
    n = 5000
    scores, groups = rng.random(n), rng.choice(["a", "b"], n)  # continuous: all distinct
    from skfair._dask import _dispatch

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_dispatch, "MAX_TABLE_ROWS", 1000)
        with pytest.raises(ValueError, match=r"reached [\d,]+ rows.*Pass resolution="):
            metrics.wasserstein_bias(
                None,
                da.from_array(scores, chunks=500),
                sensitive_features=da.from_array(groups, chunks=500),
            )
        # The same data counted on a grid stays small and is exact on the rounded scores.
        got = metrics.wasserstein_bias(
            None,
            da.from_array(scores, chunks=500),
            sensitive_features=da.from_array(groups, chunks=500),
            resolution=1e-2,
        )
    assert got == pytest.approx(
        metrics.wasserstein_bias(None, scores, sensitive_features=groups, resolution=1e-2),
        abs=1e-12,
    )


@pytest.mark.parametrize("on_dask", [False, True])
def test_a_resolution_finer_than_float64_can_count_raises_with_the_usable_one(on_dask):
    rng = np.random.default_rng(0)
    scores = 8337.6 + rng.random(100)
    groups = np.repeat(["a", "b"], 50)
    if on_dask:
        scores, groups = da.from_array(scores, chunks=30), da.from_array(groups, chunks=30)
    with pytest.raises(
        ValueError, match=r"resolution=1e-15 is too fine.*finest usable resolution .* is 1\.85e-12"
    ):
        metrics.wasserstein_bias(None, scores, sensitive_features=groups, resolution=1e-15)
    # The usable one works, and dask and memory agree on it.
    assert np.isfinite(
        metrics.wasserstein_bias(None, scores, sensitive_features=groups, resolution=2e-12)
    )


# --------------------------------------------------------------------------------------------
# fits that need the rows refuse at once


def test_meta_estimator_fit_on_a_dask_dataframe_refuses_at_once():
    scores, groups = _scores_and_groups(n=400)
    frame = pd.DataFrame({"x": scores, "g": groups})
    ddf = dd.from_pandas(frame, npartitions=2)
    y = dd.from_pandas(pd.Series((scores > 0.5).astype(int)), npartitions=2)
    for model in (
        RepairedClassifier(LogisticRegression(), BarycenterRepair(), sensitive_column="g"),
        RepairedRegressor(LinearRegression(), BarycenterRepair(), sensitive_column="g"),
        GroupThresholdClassifier(LogisticRegression(), sensitive_column="g"),
        MulticlassGroupThresholdClassifier(LogisticRegression(), sensitive_column="g"),
    ):
        with (
            dask.config.set(scheduler=_never_compute),
            pytest.raises(TypeError, match=r"fit does not accept dask.*in-memory sample"),
        ):
            model.fit(ddf, y)


# --------------------------------------------------------------------------------------------
# group thresholds fitted on dask: a frozen model's per-group ROC tables


def _threshold_data(n=6000, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c", "d"], n, p=[0.4, 0.3, 0.2, 0.1])
    X = np.c_[rng.normal(size=n) + 0.6 * (groups == "b") - 0.4 * (groups == "d"),
              rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    if decimals is not None:
        X = np.round(X, decimals)
    weights = rng.choice([0.3, 1.0, 2.5], n)  # not binary fractions: sums round differently
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    return X, y, groups, weights, model


def _as_frame_collection(X, y, groups, weights, npartitions):
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "g": groups, "w": weights, "y": y})
    ddf = dd.from_pandas(frame, npartitions=npartitions)  # partition lengths unknown
    return ddf[["x0", "x1", "g"]], ddf.y, ddf.w


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
@pytest.mark.parametrize("chunks", [1000, 777, 6000])
@pytest.mark.parametrize("weighted", [False, True])
def test_thresholds_fitted_on_dask_equal_the_in_memory_fit(constraint, chunks, weighted):
    X, y, groups, weights, model = _threshold_data(decimals=3)
    weights = weights if weighted else None
    expected = GroupThresholdClassifier(model, constraint=constraint, random_state=0).fit(
        X, y, sensitive_features=groups, sample_weight=weights
    )
    with dask.config.set(scheduler="synchronous"):
        got = GroupThresholdClassifier(model, constraint=constraint, random_state=0).fit(
            da.from_array(X, chunks=(chunks, 2)),
            da.from_array(y, chunks=chunks),
            sensitive_features=da.from_array(groups, chunks=chunks),
            sample_weight=None if weights is None else da.from_array(weights, chunks=chunks),
        )
    assert got.groups_ == expected.groups_ == ["a", "b", "c", "d"]
    np.testing.assert_allclose(
        got.decision_probability(X, sensitive_features=groups),
        expected.decision_probability(X, sensitive_features=groups),
        rtol=0,
        atol=1e-9,
    )
    assert got.objective_value_ == pytest.approx(expected.objective_value_, abs=1e-12)
    assert got.constraint_gap_ <= 1e-9
    np.testing.assert_array_equal(
        got.predict(X, sensitive_features=groups), expected.predict(X, sensitive_features=groups)
    )


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_thresholds_fitted_on_a_dask_dataframe_with_sensitive_column(npartitions):
    X, y, groups, weights, _ = _threshold_data(n=3000, seed=1, decimals=2)
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "g": groups})
    model = FrozenEstimator(LogisticRegression().fit(frame[["x0", "x1"]], y))
    expected = GroupThresholdClassifier(
        model, constraint="equalized_odds", sensitive_column="g", random_state=0
    ).fit(frame, y, sample_weight=weights)
    X_dask, y_dask, w_dask = _as_frame_collection(X, y, groups, weights, npartitions)
    got = GroupThresholdClassifier(
        model, constraint="equalized_odds", sensitive_column="g", random_state=0
    ).fit(X_dask, y_dask, sample_weight=w_dask)
    assert list(got.feature_names_in_) == ["x0", "x1", "g"]
    np.testing.assert_allclose(
        got.decision_probability(frame), expected.decision_probability(frame), atol=1e-9
    )


def test_continuous_scores_need_a_resolution_whose_fit_equals_the_in_memory_one():
    X, y, groups, _, model = _threshold_data(n=8000, seed=2)  # continuous scores
    X_dask, y_dask = da.from_array(X, chunks=(500, 2)), da.from_array(y, chunks=500)
    g_dask = da.from_array(groups, chunks=500)
    from skfair._dask import _dispatch
    from skfair.postprocessing._rules import _thresholds_on_dask

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_thresholds_on_dask, "MAX_TABLE_ROWS", 5000)
        patch.setattr(_dispatch, "MAX_TABLE_ROWS", 5000)
        with pytest.raises(ValueError, match=r"reached [\d,]+ rows.*Pass resolution="):
            GroupThresholdClassifier(model).fit(X_dask, y_dask, sensitive_features=g_dask)
        got = GroupThresholdClassifier(model, resolution=1e-2, random_state=0).fit(
            X_dask, y_dask, sensitive_features=g_dask
        )
    expected = GroupThresholdClassifier(model, resolution=1e-2, random_state=0).fit(
        X, y, sensitive_features=groups
    )
    np.testing.assert_allclose(
        got.decision_probability(X, sensitive_features=groups),
        expected.decision_probability(X, sensitive_features=groups),
        atol=1e-9,
    )
    # What the grid costs: the thresholds lie midway between grid points, where rounding
    # changes value, so the rule decides every raw score as its rounded value: the
    # constraint holds on the raw scores exactly; the optimum over the rounded scores is
    # below the exact one by what the rounding loses (5.5e-4 here, 2.2e-4 at 1e-3).
    exact = GroupThresholdClassifier(model, random_state=0).fit(X, y, sensitive_features=groups)
    assert abs(got.objective_value_ - exact.objective_value_) < 1e-3
    probability = got.decision_probability(X, sensitive_features=groups)
    rates = [probability[groups == g].mean() for g in got.groups_]
    assert np.ptp(rates) < 1e-9


def test_dask_fit_of_a_model_to_train_refuses_and_batch_predictions_refuse():
    X, y, groups, _, model = _threshold_data(n=500, decimals=2)
    X_dask, y_dask = da.from_array(X, chunks=(100, 2)), da.from_array(y, chunks=100)
    g_dask = da.from_array(groups, chunks=100)
    with (
        dask.config.set(scheduler=_never_compute),
        pytest.raises(TypeError, match=r"fit does not accept dask.*FrozenEstimator"),
    ):
        GroupThresholdClassifier(LogisticRegression()).fit(
            X_dask, y_dask, sensitive_features=g_dask
        )
    proba = LogisticRegression().fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))
    for clf in (
        GroupThresholdClassifier(model, sampling="batch").fit(X, y, sensitive_features=groups),
        MulticlassGroupThresholdClassifier(FrozenEstimator(proba), sampling="batch").fit(
            X, sensitive_features=groups
        ),
    ):
        with (
            dask.config.set(scheduler=_never_compute),
            pytest.raises(TypeError, match=r"dask collections with sampling='batch'.*'row'"),
        ):
            clf.predict(X_dask, sensitive_features=g_dask)
        # decision probabilities do not draw: they stay lazy and exact
        np.testing.assert_allclose(
            clf.decision_probability(X_dask, sensitive_features=g_dask).compute(),
            clf.decision_probability(X, sensitive_features=groups),
        )


# --------------------------------------------------------------------------------------------
# other libraries' frames

# A model fitted on the column x (BiasExplainer explains a fitted model).
_MODEL = LogisticRegression().fit(pd.DataFrame({"x": np.linspace(0, 1, 20)}), np.arange(20) >= 10)
SENSITIVE_COLUMN_ESTIMATORS = {
    "BarycenterRepair": lambda: BarycenterRepair(sensitive_column="g", random_state=0),
    "MADDRepair": lambda: MADDRepair(lam=0.5, sensitive_column="g", random_state=0),
    "RepairedClassifier": lambda: RepairedClassifier(
        LogisticRegression(), BarycenterRepair(random_state=0), sensitive_column="g"
    ),
    "RepairedRegressor": lambda: RepairedRegressor(
        LinearRegression(), BarycenterRepair(random_state=0), sensitive_column="g"
    ),
    "GroupThresholdClassifier": lambda: GroupThresholdClassifier(
        LogisticRegression(), sensitive_column="g", random_state=0
    ),
    "MulticlassGroupThresholdClassifier": lambda: MulticlassGroupThresholdClassifier(
        LogisticRegression(), sensitive_column="g", random_state=0
    ),
    "BiasExplainer": lambda: BiasExplainer(_MODEL, sensitive_column="g", random_state=0),
}


def test_every_estimator_with_sensitive_column_is_listed_here():
    import inspect

    from skfair import ensemble, explain, postprocessing

    for module in (postprocessing, ensemble, explain):
        for name in module.__all__:
            if "sensitive_column" in inspect.signature(getattr(module, name)).parameters:
                assert name in SENSITIVE_COLUMN_ESTIMATORS, name


@pytest.mark.parametrize("name", sorted(SENSITIVE_COLUMN_ESTIMATORS))
@pytest.mark.parametrize("library", ["polars", "polars-lazy", "pyarrow"])
def test_sensitive_column_of_other_libraries_frames(name, library):
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"x": np.round(rng.random(n), 2), "g": rng.choice(["a", "b"], n)})
    y = (frame.x + rng.normal(0, 0.2, n) > 0.5).astype(int)
    if name == "RepairedRegressor":
        y = frame.x * 2 + rng.normal(0, 0.1, n)
    convert = {
        "polars": pl.from_pandas,
        "polars-lazy": lambda f: pl.from_pandas(f).lazy(),
        "pyarrow": pa.Table.from_pandas,
    }[library]
    expected_model = SENSITIVE_COLUMN_ESTIMATORS[name]().fit(frame, y)
    model = SENSITIVE_COLUMN_ESTIMATORS[name]().fit(convert(frame), y)
    if name == "BiasExplainer":
        assert model.bias_ == expected_model.bias_
    else:
        method = "transform" if hasattr(model, "transform") else "predict"
        np.testing.assert_allclose(
            getattr(model, method)(convert(frame)),
            getattr(expected_model, method)(frame),
            rtol=0,
            atol=1e-12,
        )
    assert list(model.feature_names_in_) == ["x", "g"]


def test_lazy_frames_and_arrow_columns_as_sensitive_features():
    """A polars LazyFrame is collected; a pyarrow Table or ChunkedArray is converted."""
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(["a", "b"], n)})
    y_pred = rng.integers(0, 2, n)
    expected = metrics.group_summary(None, y_pred, sensitive_features=frame, as_frame=True)
    for other in (
        pl.from_pandas(frame).lazy(),
        pa.Table.from_pandas(frame),
    ):
        got = metrics.group_summary(None, y_pred, sensitive_features=other, as_frame=True)
        pd.testing.assert_frame_equal(got, expected)
    column = pa.chunked_array([frame.sex[:50].tolist(), frame.sex[50:].tolist()])
    assert metrics.statistical_parity_difference(
        None, y_pred, sensitive_features=column
    ) == metrics.statistical_parity_difference(None, y_pred, sensitive_features=frame.sex)


def test_frame_columns_next_to_arrays_of_other_chunks():
    """A dask DataFrame's partitions and an array's chunks need not hold the same rows: the
    columns are aligned by their lengths, not zipped by position."""
    rng = np.random.default_rng(0)
    n = 1000
    groups, y_pred = rng.choice(["a", "b"], n), rng.integers(0, 2, n)
    frame_groups = dd.from_pandas(pd.DataFrame({"g": groups}), npartitions=3).g
    expected = metrics.statistical_parity_difference(None, y_pred, sensitive_features=groups)
    for chunks in (500, 333, 1000):
        got = metrics.statistical_parity_difference(
            None, da.from_array(y_pred, chunks=chunks), sensitive_features=frame_groups
        )
        assert got == pytest.approx(expected, abs=1e-12)
