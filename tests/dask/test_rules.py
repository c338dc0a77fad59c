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
