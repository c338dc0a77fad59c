"""reweighing_weights against the closed form computed by pandas, and ReweighingClassifier as
a scikit-learn citizen; the weighted (or resampled) data must make groups and labels
independent."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.preprocessing import ReweighingClassifier, reweighing_weights
from skfair.preprocessing._reweighing import _systematic_resample


def closed_form(y, groups, weights):
    """P(a) P(y) / P(a, y) times the weight, from pandas group sums."""
    frame = pd.DataFrame({"g": groups, "y": y, "w": weights})
    total = frame.w.sum()
    p_a = frame.groupby("g").w.sum() / total
    p_y = frame.groupby("y").w.sum() / total
    p_ay = frame.groupby(["g", "y"]).w.sum() / total
    factor = frame.apply(lambda r: p_a[r.g] * p_y[r.y] / p_ay[(r.g, r.y)], axis=1)
    return factor.to_numpy() * weights


def weighted_crosstab(y, groups, weights):
    return pd.crosstab(pd.Series(groups), pd.Series(y), values=weights, aggfunc="sum").fillna(0)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_weights_equal_the_closed_form_and_make_groups_and_labels_independent(seed, weighted):
    rng = np.random.default_rng(seed)
    n, n_groups, n_classes = 500, rng.integers(2, 7), rng.integers(2, 4)
    groups = rng.choice([f"g{k}" for k in range(n_groups)], n)
    y = rng.integers(0, n_classes, n)
    user = rng.uniform(0.1, 3.0, n) if weighted else None
    weights = reweighing_weights(y, sensitive_features=groups, sample_weight=user)
    expected = closed_form(y, groups, np.ones(n) if user is None else user)
    np.testing.assert_allclose(weights, expected, rtol=1e-12)

    table = weighted_crosstab(y, groups, weights).to_numpy()
    independent = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    np.testing.assert_allclose(table, independent, rtol=1e-12)
    # the margins are the original (weighted) ones
    original = weighted_crosstab(y, groups, np.ones(n) if user is None else user).to_numpy()
    np.testing.assert_allclose(table.sum(axis=1), original.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(table.sum(axis=0), original.sum(axis=0), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 1)), min_size=2),
    st.floats(0.01, 100),
)
def test_independence_holds_for_any_table_without_empty_cells(rows, scale):
    a1, a2, y = (np.array(column) for column in zip(*rows))
    frame = pd.DataFrame({"a1": a1, "a2": a2})
    cells = pd.crosstab([a1, a2], y)
    if (cells.to_numpy() == 0).any():  # some group lacks a class: independence impossible
        return
    weights = reweighing_weights(y, sensitive_features=frame, sample_weight=np.full(len(y), scale))
    table = pd.crosstab([a1, a2], y, values=weights, aggfunc="sum").to_numpy()
    np.testing.assert_allclose(
        table, np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum(), rtol=1e-9
    )
    assert weights.sum() == pytest.approx(scale * len(y), rel=1e-12)


def test_two_attributes_are_their_intersections():
    rng = np.random.default_rng(1)
    sex, race = rng.choice(["F", "M"], 300), rng.choice(["a", "b", "c"], 300)
    y = rng.integers(0, 2, 300)
    joint = np.array([f"{s}|{r}" for s, r in zip(sex, race)])
    np.testing.assert_array_equal(
        reweighing_weights(y, sensitive_features={"sex": sex, "race": race}),
        reweighing_weights(y, sensitive_features=joint),
    )


def test_a_group_without_a_class_is_named_in_a_warning():
    y = np.array([0, 1, 0, 1, 1, 1])
    groups = np.array(["a", "a", "b", "b", "c", "c"])
    with pytest.warns(UserWarning, match=r"\('c', 0\)"):
        weights = reweighing_weights(y, sensitive_features=groups)
    assert np.isfinite(weights).all()


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="sample_weight has negative"):
        reweighing_weights([0, 1], sensitive_features=[0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="missing values"):
        reweighing_weights([0, 1], sensitive_features=["a", None])
    with pytest.raises(ValueError, match="continuous"):
        reweighing_weights([0.5, 1.5], sensitive_features=[0, 1])


def test_dask_weights_are_the_in_memory_weights():
    import dask.array as da
    import dask.dataframe as dd
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], 1000),
            "race": rng.choice(["a", "b", "c"], 1000),
            "y": rng.integers(0, 2, 1000),
            "w": rng.uniform(0.5, 2, 1000),
        }
    )
    expected = reweighing_weights(
        frame.y, sensitive_features=frame[["sex", "race"]], sample_weight=frame.w
    )
    ddf = dd.from_pandas(frame, npartitions=4)
    lazy = reweighing_weights(ddf.y, sensitive_features=ddf[["sex", "race"]], sample_weight=ddf.w)
    np.testing.assert_allclose(lazy.compute(), expected, rtol=1e-12)
    arrays = reweighing_weights(
        da.from_array(frame.y.to_numpy(), chunks=300),
        sensitive_features=da.from_array(frame.sex.to_numpy(), chunks=300),
    )
    np.testing.assert_allclose(
        arrays.compute(), reweighing_weights(frame.y, sensitive_features=frame.sex), rtol=1e-12
    )


# --------------------------------------------------------------------------------------------
# ReweighingClassifier


def make_data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 3, n)
    X = np.c_[rng.normal(size=n) + 0.5 * group, rng.normal(size=n)]
    y = (X[:, 0] + group + rng.normal(size=n) > 1.5).astype(int)
    return X, y, group


@parametrize_with_checks(
    [ReweighingClassifier(LogisticRegression()), ReweighingClassifier(KNeighborsClassifier())],
    expected_failed_checks=lambda estimator: (
        dict.fromkeys(
            [
                "check_sample_weight_equivalence_on_dense_data",
                "check_sample_weight_equivalence_on_sparse_data",
            ],
            "a model without sample_weight is fitted on a random resample of n rows, not on "
            "the repeated rows",
        )
        if isinstance(estimator.estimator, KNeighborsClassifier)
        else {}
    ),
)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_fits_the_model_with_the_weights_and_predicts_without_the_attribute():
    X, y, group = make_data()
    model = ReweighingClassifier(LogisticRegression()).fit(X, y, sensitive_features=group)
    direct = LogisticRegression().fit(
        X, y, sample_weight=reweighing_weights(y, sensitive_features=group)
    )
    np.testing.assert_allclose(model.estimator_.coef_, direct.coef_)
    assert not model.resampled_
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X))
    assert model.weights_.shape == (3, 2) and model.groups_ == [0, 1, 2]
    plain = LogisticRegression().fit(X, y).predict(X)
    rates = lambda pred: [pred[group == g].mean() for g in range(3)]  # noqa: E731
    assert np.ptp(rates(model.predict(X))) < np.ptp(rates(plain))


def test_user_weights_multiply_the_factors():
    X, y, group = make_data()
    user = np.random.default_rng(3).uniform(0.5, 2, y.shape[0])
    model = ReweighingClassifier(LogisticRegression()).fit(
        X, y, sample_weight=user, sensitive_features=group
    )
    direct = LogisticRegression().fit(
        X, y, sample_weight=reweighing_weights(y, sensitive_features=group, sample_weight=user)
    )
    np.testing.assert_allclose(model.estimator_.coef_, direct.coef_)


@pytest.mark.parametrize("with_groups", [True, False])
def test_equal_user_weights_reach_the_model_on_their_own_scale(with_groups):
    # The factors depend on the weights' ratios only, but the model's regularisation depends
    # on their scale (LogisticRegression's penalty weighs 1 / sum(w)): equal weights of 50
    # are not the unweighted fit, and the model gets them as given.
    X, y, group = make_data()
    user = np.full(y.shape[0], 50.0)
    groups = {"sensitive_features": group} if with_groups else {}
    model = ReweighingClassifier(LogisticRegression(C=0.01)).fit(X, y, sample_weight=user, **groups)
    factors = reweighing_weights(y, sensitive_features=group) if with_groups else 1.0
    direct = LogisticRegression(C=0.01).fit(X, y, sample_weight=factors * user)
    unweighted = LogisticRegression(C=0.01).fit(X, y, sample_weight=factors * np.ones_like(user))
    np.testing.assert_allclose(model.estimator_.coef_, direct.coef_, rtol=1e-6)
    assert not np.allclose(model.estimator_.coef_, unweighted.coef_, rtol=1e-3)


def test_a_pipeline_gets_the_weights_through_its_final_step():
    X, y, group = make_data()
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    model = ReweighingClassifier(pipe).fit(X, y, sensitive_features=group)
    assert not model.resampled_
    direct = make_pipeline(StandardScaler(), LogisticRegression()).fit(
        X, y, logisticregression__sample_weight=reweighing_weights(y, sensitive_features=group)
    )
    np.testing.assert_allclose(model.estimator_[-1].coef_, direct[-1].coef_)


def test_resample_draws_each_cell_its_expected_size_and_each_row_its_share():
    rng = np.random.default_rng(4)
    n = 3000
    group, y = rng.integers(0, 4, n), (rng.random(n) < 0.3).astype(int)
    weights = reweighing_weights(y, sensitive_features=group)
    rows = _systematic_resample(weights, group * 2 + y, np.random.RandomState(0))
    assert rows.shape == (n,)
    expected = n * weights / weights.sum()
    counts = np.bincount(rows, minlength=n)
    assert ((counts == np.floor(expected)) | (counts == np.ceil(expected))).all()
    cells = pd.crosstab(group[rows], y[rows]).to_numpy()
    original = pd.crosstab(group, y).to_numpy()
    expected_cells = np.outer(original.sum(axis=1), original.sum(axis=0)) / n
    assert np.abs(cells - expected_cells).max() < 1  # n P(a) P(y), rounded
    independent = np.outer(cells.sum(axis=1), cells.sum(axis=0)) / n
    assert np.abs(cells - independent).max() <= 2  # rounding of each cell and its margins


def test_models_without_sample_weight_are_fitted_on_a_seeded_resample():
    X, y, group = make_data()
    fit = lambda seed: ReweighingClassifier(  # noqa: E731
        KNeighborsClassifier(), random_state=seed
    ).fit(X, y, sensitive_features=group)
    first, again, other = fit(0), fit(0), fit(1)
    assert first.resampled_
    np.testing.assert_array_equal(first.estimator_._fit_X, again.estimator_._fit_X)
    assert not np.array_equal(first.estimator_._fit_X, other.estimator_._fit_X)
    resampled_y = first.estimator_._y
    resampled_groups = group[
        np.array([np.flatnonzero((row == X).all(axis=1))[0] for row in first.estimator_._fit_X])
    ]
    rates = [resampled_y[resampled_groups == g].mean() for g in range(3)]
    assert np.ptp(rates) < 0.01  # the same base rate in every group after resampling
    generator = ReweighingClassifier(
        KNeighborsClassifier(), random_state=np.random.default_rng(0)
    ).fit(X, y, sensitive_features=group)
    assert generator.resampled_
    forced = ReweighingClassifier(LogisticRegression(), resample=True, random_state=0)
    assert forced.fit(X, y, sensitive_features=group).resampled_
    with pytest.raises(ValueError, match="takes no sample_weight"):
        ReweighingClassifier(KNeighborsClassifier(), resample=False).fit(
            X, y, sensitive_features=group
        )


def test_sensitive_column_is_dropped_before_the_model():
    X, y, group = make_data()
    data = np.c_[X, group]
    by_column = ReweighingClassifier(LogisticRegression(), sensitive_column=2).fit(data, y)
    by_keyword = ReweighingClassifier(LogisticRegression()).fit(X, y, sensitive_features=group)
    np.testing.assert_allclose(by_column.estimator_.coef_, by_keyword.estimator_.coef_)
    assert by_column.estimator_.n_features_in_ == 2 and by_column.n_features_in_ == 3
    np.testing.assert_array_equal(by_column.predict(data), by_keyword.predict(X))
    kept = ReweighingClassifier(LogisticRegression(), sensitive_column=2, drop_sensitive=False)
    assert kept.fit(data, y).estimator_.n_features_in_ == 3


def test_grid_search_with_sensitive_column_and_with_routing():
    X, y, group = make_data(n=600)
    data = np.c_[X, group]
    grid = {"estimator__C": [0.1, 1.0]}
    search = GridSearchCV(
        ReweighingClassifier(LogisticRegression(), sensitive_column=2), grid, cv=3
    ).fit(data, y)
    assert search.best_estimator_.n_features_in_ == 3
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(ReweighingClassifier(LogisticRegression()), grid, cv=3)
        routed.fit(X, y, sensitive_features=group)
        assert routed.best_estimator_.groups_ == [0, 1, 2]
        # the model's own request decides between weights and resampling
        requested = LogisticRegression().set_fit_request(sample_weight=True)
        assert not ReweighingClassifier(requested).fit(X, y, sensitive_features=group).resampled_
        unrequested = ReweighingClassifier(LogisticRegression(), random_state=0)
        assert unrequested.fit(X, y, sensitive_features=group).resampled_


def test_dask_input_is_refused_at_once_naming_the_alternative():
    import dask.array as da
    X, y, group = make_data(n=100)
    with pytest.raises(TypeError, match="reweighing_weights"):
        ReweighingClassifier(LogisticRegression()).fit(
            da.from_array(X), y, sensitive_features=group
        )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_model_outputs_on_dask_are_the_in_memory_ones(n_classes):
    import dask.array as da
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y, group = rng.integers(0, n_classes, 300), rng.integers(0, 2, 300)
    model = ReweighingClassifier(LogisticRegression()).fit(X, y, sensitive_features=group)
    lazy_X = da.from_array(X, chunks=100)
    for method in ("predict", "predict_proba", "predict_log_proba", "decision_function"):
        expected = getattr(model, method)(X)
        lazy = getattr(model, method)(lazy_X)
        assert isinstance(lazy, da.Array) and lazy.shape == expected.shape
        np.testing.assert_array_equal(lazy.compute(), expected)
