"""CorrelationRemover against its least-squares definition (numpy's lstsq on the centred
one-hot group indicators), as a transformer in pipelines and column transformers."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.preprocessing import CorrelationRemover


def least_squares(X, groups, alpha=1.0):
    """fairlearn's definition: X - alpha * S_c beta, beta the lstsq fit on centred one-hot S."""
    labels = np.unique(groups)
    S = (groups[:, None] == labels).astype(float)
    centred = S - S.mean(axis=0)
    beta = np.linalg.lstsq(centred, X, rcond=None)[0]
    return X - alpha * centred @ beta


def make_data(n=800, seed=0, n_groups=3):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    X = rng.normal(size=(n, 4)) * (1 + groups[:, None]) + 2.0 * groups[:, None] + [0, 5, -3, 1e3]
    return X, groups


@parametrize_with_checks([CorrelationRemover(), CorrelationRemover(alpha=0.5)])
@pytest.mark.filterwarnings("ignore:CorrelationRemover was fitted without sensitive features")
def test_scikit_learn_checks(estimator, check):
    check(estimator)


# Up to 5 groups over these 4 columns the group sums are one matrix product with the groups'
# indicators; from 6 groups one bincount over (group, column) cells: both paths are checked.
@pytest.mark.parametrize("seed, n_groups", [(0, 2), (1, 3), (2, 5), (3, 6), (4, 11)])
def test_equals_the_least_squares_residual_uncorrelated_with_every_group(seed, n_groups):
    X, groups = make_data(seed=seed, n_groups=n_groups)
    out = CorrelationRemover().fit_transform(X, sensitive_features=groups)
    np.testing.assert_allclose(out, least_squares(X, groups), rtol=0, atol=1e-9 * np.abs(X).max())
    indicators = (groups[:, None] == np.unique(groups)).astype(float)
    centred = out - out.mean(axis=0)
    covariance = (indicators - indicators.mean(axis=0)).T @ centred / len(out)
    assert np.abs(covariance).max() < 1e-10 * np.abs(X).max()
    before = (indicators - indicators.mean(axis=0)).T @ (X - X.mean(axis=0)) / len(X)
    assert np.abs(before).max() > 0.1


def test_alpha_interpolates_linearly():
    X, groups = make_data()
    out = {
        alpha: CorrelationRemover(alpha=alpha).fit_transform(X, sensitive_features=groups)
        for alpha in (0.0, 0.3, 1.0)
    }
    np.testing.assert_array_equal(out[0.0], X)
    np.testing.assert_allclose(out[0.3], 0.7 * X + 0.3 * out[1.0], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(out[0.3], least_squares(X, groups, 0.3), atol=1e-9)


def test_new_rows_are_shifted_by_their_group_offset():
    X, groups = make_data()
    remover = CorrelationRemover().fit(X[:600], sensitive_features=groups[:600])
    frame = pd.DataFrame(X[:600]).assign(g=groups[:600])
    offsets = frame.groupby("g").mean() - frame.drop(columns="g").mean()
    expected = X[600:] - offsets.loc[groups[600:]].to_numpy()
    np.testing.assert_allclose(
        remover.transform(X[600:], sensitive_features=groups[600:]), expected, atol=1e-9
    )
    with pytest.raises(ValueError, match="not seen at fit"):
        remover.transform(X[:2], sensitive_features=[0, 7])


@pytest.mark.parametrize("n_groups", [3, 11])
def test_integer_weights_equal_repeated_rows(n_groups):
    X, groups = make_data(n=200, n_groups=n_groups)
    counts = np.random.default_rng(1).integers(0, 4, 200)
    weighted = CorrelationRemover().fit(X, sensitive_features=groups, sample_weight=counts)
    repeated = CorrelationRemover().fit(
        np.repeat(X, counts, axis=0), sensitive_features=np.repeat(groups, counts)
    )
    np.testing.assert_allclose(weighted.group_means_, repeated.group_means_, rtol=1e-12)
    np.testing.assert_allclose(weighted.mean_, repeated.mean_, rtol=1e-12)


def test_two_attributes_are_decorrelated_from_each_and_from_their_intersections():
    rng = np.random.default_rng(2)
    a1, a2 = rng.integers(0, 2, 1000), rng.integers(0, 3, 1000)
    X = rng.normal(size=(1000, 2)) + np.c_[a1 * a2, a1 - a2]
    out = CorrelationRemover().fit_transform(X, sensitive_features=np.c_[a1, a2])
    joint = a1 * 3 + a2
    np.testing.assert_allclose(out, least_squares(X, joint), atol=1e-9)
    for codes in (a1, a2, joint):
        frame = pd.DataFrame(out).assign(g=codes).groupby("g").mean()
        np.testing.assert_allclose(
            frame.to_numpy(), np.tile(out.mean(axis=0), (len(frame), 1)), atol=1e-10
        )


def test_sensitive_column_in_pipelines_column_transformers_and_pandas_output():
    X, groups = make_data(n=300)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(group=groups.astype(str))
    remover = CorrelationRemover(sensitive_column="group").set_output(transform="pandas")
    out = remover.fit_transform(frame)
    assert list(out.columns) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(out.to_numpy(), least_squares(X, groups), atol=1e-9)
    assert list(remover.get_feature_names_out()) == ["a", "b", "c", "d"]

    columns = make_column_transformer(
        (CorrelationRemover(sensitive_column="group"), ["a", "b", "group"]),
        ("passthrough", ["c"]),
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    combined = columns.fit_transform(frame)
    assert list(combined.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(
        combined[["a", "b"]].to_numpy(), least_squares(X[:, :2], groups), atol=1e-9
    )


def test_grid_search_with_sensitive_column_and_with_routing():
    X, groups = make_data(n=400)
    y = (X[:, 0] + groups > 2).astype(int)
    grid = {"correlationremover__alpha": [0.0, 1.0]}
    data = np.c_[X, groups]
    pipe = make_pipeline(CorrelationRemover(sensitive_column=4), LogisticRegression())
    assert GridSearchCV(pipe, grid, cv=3).fit(data, y).best_estimator_[0].n_features_in_ == 5
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(CorrelationRemover(), LogisticRegression())
        search = GridSearchCV(pipe, grid, cv=3).fit(X, y, sensitive_features=groups)
        assert search.best_estimator_[0].n_groups_ == 3


def test_dask_transform_is_lazy_and_exact():
    import dask.array as da

    X, groups = make_data(n=300)
    remover = CorrelationRemover().fit(X, sensitive_features=groups)
    lazy = remover.transform(da.from_array(X, chunks=(70, 4)), sensitive_features=groups)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), remover.transform(X, sensitive_features=groups))


def test_fit_takes_no_number_from_numpys_global_generator():
    """The decorrelation is deterministic: fitting draws no seed (CorrelationRemover has no
    random_state), so numpy's global stream is where the user left it."""
    X, groups = make_data()
    _, key, position, *_ = np.random.get_state()  # noqa: NPY002 - the global stream is the point
    CorrelationRemover().fit(X, sensitive_features=groups).transform(X, sensitive_features=groups)
    _, key_after, position_after, *_ = np.random.get_state()  # noqa: NPY002
    assert position_after == position
    np.testing.assert_array_equal(key_after, key)
