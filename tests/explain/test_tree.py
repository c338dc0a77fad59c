"""The tree-ensemble path against the generic marginal game (an exact oracle)."""

import warnings

import numpy as np
import pytest
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.frozen import FrozenEstimator
from sklearn.tree import DecisionTreeClassifier

from skfair.explain import BiasExplainer, _tree

PARTS = ("total", "positive", "negative", "net")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 120
    group = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 5)) + 0.5 * group[:, None]
    X[::9, 2] = np.nan  # missing values follow each node's missing_go_to_left
    y = (np.nan_to_num(X) @ [1.0, -1.0, 0.5, 0.0, 2.0] + rng.normal(size=n) > 0.5).astype(int)
    return X, y, group


def _pair(model, X, group, **params):
    params = {"n_background": 10, "random_state": 0, **params}
    # FrozenEstimator hides the model type, so that explainer takes the generic path.
    tree = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    generic = BiasExplainer(FrozenEstimator(model), **params).fit(X, sensitive_features=group)
    return tree, generic


@pytest.mark.parametrize(
    "params",
    [
        {"response_method": "decision_function"},
        {"response_method": "decision_function", "pos_label": 0, "favorable": "lower"},
        {"response_method": "decision_function", "feature_groups": [[0, 1], [3, 4]]},
    ],
)
def test_classifier_raw_score_matches_generic_path(data, params):
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(X, y)
    tree, generic = _pair(model, X, group, **params)
    assert tree.n_coalitions_ == 0 and generic.n_coalitions_ > 0
    np.testing.assert_allclose(tree.attributions_, generic.attributions_, atol=1e-10)
    for part in PARTS:
        for prefix in ("", "shapley_"):
            np.testing.assert_allclose(
                tree.explanations_[prefix + part], generic.explanations_[prefix + part], atol=1e-10
            )
        assert tree.explanations_[f"shapley_{part}"].sum() == pytest.approx(
            tree.bias_[part], abs=1e-10
        )


def test_regressor_matches_generic_path(data):
    X, _, group = data
    model = HistGradientBoostingRegressor(max_iter=8, random_state=0).fit(
        X, np.nan_to_num(X).sum(axis=1)
    )
    tree, generic = _pair(model, X, group)
    assert tree.n_coalitions_ == 0
    np.testing.assert_allclose(tree.attributions_, generic.attributions_, atol=1e-10)


def _assert_same_explanations(tree, generic):
    np.testing.assert_allclose(tree.attributions_, generic.attributions_, atol=1e-10)
    for part in PARTS:
        np.testing.assert_allclose(
            tree.explanations_[f"shapley_{part}"],
            generic.explanations_[f"shapley_{part}"],
            atol=1e-10,
        )
        assert tree.explanations_[f"shapley_{part}"].sum() == pytest.approx(
            tree.bias_[part], abs=1e-10
        )


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"pos_label": 0, "favorable": "lower"},
        {"feature_groups": [[0, 1], [3, 4]]},
        {"n_jobs": 2},
    ],
)
def test_gradient_boosting_probabilities_match_generic_path(data, params):
    # predict_proba is a sigmoid of the sum over trees: the coalition-table path.
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(X, y)
    tree, generic = _pair(model, X, group, **params)
    assert tree.n_coalitions_ == 0 and generic.n_coalitions_ > 0
    _assert_same_explanations(tree, generic)


def test_link_path_blocks_do_not_change_the_values(data, monkeypatch):
    # Tiny blocks exercise the chunking over rows, background rows and leaves.
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=6, random_state=0).fit(X, y)
    params = dict(n_background=10, random_state=0)
    reference = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    monkeypatch.setattr(_tree, "_TABLE_BLOCK_CELLS", 2**6)
    monkeypatch.setattr(_tree, "_TABLE_LEAF_CELLS", 2**6)
    blocked = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    np.testing.assert_allclose(blocked.attributions_, reference.attributions_, atol=1e-12)


@pytest.mark.parametrize(
    "make_model",
    [
        lambda: GradientBoostingClassifier(n_estimators=6, max_depth=3, random_state=0),
        lambda: GradientBoostingClassifier(
            n_estimators=6, max_depth=3, init="zero", random_state=0
        ),
    ],
)
def test_sklearn_gradient_boosting_probabilities_match_generic_path(data, make_model):
    X, y, group = data
    model = make_model().fit(np.nan_to_num(X), y)
    tree, generic = _pair(model, np.nan_to_num(X), group)
    assert tree.n_coalitions_ == 0
    _assert_same_explanations(tree, generic)


def test_poisson_regressor_matches_generic_path(data):
    # predict = exp(raw score): a link other than the sigmoid.
    X, _, group = data
    target = np.random.default_rng(1).poisson(np.exp(0.3 * np.nan_to_num(X[:, 0])))
    model = HistGradientBoostingRegressor(loss="poisson", max_iter=8, random_state=0)
    tree, generic = _pair(model.fit(X, target), X, group)
    assert tree.n_coalitions_ == 0
    _assert_same_explanations(tree, generic)


def test_unsupported_probabilities_take_the_generic_path(data, monkeypatch):
    X, y, group = data
    X = np.nan_to_num(X)
    params = dict(n_background=10, random_state=0)
    # An init estimator makes the raw score's baseline depend on x.
    init = DecisionTreeClassifier(max_depth=1, random_state=0)
    model = GradientBoostingClassifier(n_estimators=3, init=init, random_state=0).fit(X, y)
    for response_method in ("predict_proba", "decision_function"):
        explainer = BiasExplainer(model, response_method=response_method, **params)
        assert explainer.fit(X, sensitive_features=group).n_coalitions_ == 2**5 - 2
    # Multi-class probabilities are a softmax over several raw scores.
    model = HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y + (X[:, 1] > 1))
    explainer = BiasExplainer(model, pos_label=2, **params).fit(X, sensitive_features=group)
    assert explainer.n_coalitions_ == 2**5 - 2
    # Too many players for a table of 2**p raw scores per pair.
    monkeypatch.setattr(_tree, "MAX_TABLE_PLAYERS", 4)
    model = HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y)
    explainer = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    assert explainer.n_coalitions_ == 2**5 - 2


def test_permutation_mode_uses_the_exact_tree_values(data):
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(X, y)
    params = dict(response_method="decision_function", n_background=10, random_state=0)
    exact = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    sampled = BiasExplainer(model, n_permutations=6, **params).fit(X, sensitive_features=group)
    assert sampled.shapley_method_ == "permutation" and sampled.n_coalitions_ == 0
    np.testing.assert_array_equal(sampled.attributions_, exact.attributions_)
    for part in PARTS:
        assert sampled.explanations_[f"shapley_{part}"].sum() == pytest.approx(
            sampled.bias_[part], abs=1e-10
        )


@pytest.mark.parametrize(
    "make_model, response_method",
    [
        (lambda: DecisionTreeClassifier(max_depth=4, random_state=0), "predict_proba"),
        (
            lambda: RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
            "predict_proba",
        ),
        (
            lambda: ExtraTreesClassifier(n_estimators=3, max_depth=4, random_state=0),
            "predict_proba",
        ),
        (
            lambda: GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0),
            "decision_function",
        ),
        (lambda: RandomForestRegressor(n_estimators=3, max_depth=4, random_state=0), "predict"),
        (lambda: GradientBoostingRegressor(n_estimators=5, max_depth=2, random_state=0), "predict"),
    ],
)
def test_sklearn_trees_match_generic_path(data, make_model, response_method):
    X, y, group = data
    X = np.nan_to_num(X)  # not every sklearn ensemble accepts missing values
    target = y if response_method != "predict" else X @ [1.0, -1.0, 0.5, 0.0, 2.0]
    model = make_model().fit(X, target)
    tree, generic = _pair(model, X, group, response_method=response_method)
    assert tree.n_coalitions_ == 0 and generic.n_coalitions_ > 0
    np.testing.assert_allclose(tree.attributions_, generic.attributions_, atol=1e-10)
    np.testing.assert_allclose(
        tree.explanations_.shapley_total, generic.explanations_.shapley_total, atol=1e-10
    )


@pytest.mark.parametrize("response_method", ["decision_function", "predict_proba"])
def test_categorical_splits_match_generic_path(response_method):
    # Native categorical support: pandas categoricals encoded by the model itself (its
    # ColumnTransformer reorders the columns), missing and unknown categories included.
    import pandas as pd
    rng = np.random.default_rng(3)
    n = 150
    group = rng.integers(0, 2, n)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    size = rng.choice(["S", "M", "L"], n, p=[0.2, 0.3, 0.5])
    frame = pd.DataFrame(
        {
            "x": rng.normal(group, 1.0),
            "colour": pd.Categorical(colour),
            "z": rng.normal(size=n),
            "size": pd.Categorical(size, categories=["S", "M", "L", "XL"]),
        }
    )
    frame.loc[::11, "colour"] = np.nan
    y = ((colour == "red") + (size == "L") + frame["x"] + rng.normal(size=n) > 1.2).astype(int)
    model = HistGradientBoostingClassifier(
        max_iter=6, categorical_features="from_dtype", random_state=0
    ).fit(frame, y)
    assert any(p[0].nodes["is_categorical"].any() for p in model._predictors)
    X = frame.copy()
    X.loc[::7, "size"] = "XL"  # a category the model never saw: it follows missing values
    tree, generic = _pair(model, X, group, response_method=response_method)
    assert tree.n_coalitions_ == 0
    _assert_same_explanations(tree, generic)


def test_integer_coded_categories_match_generic_path(data):
    X, y, group = data
    X = np.nan_to_num(X)
    X[:, 1] = np.digitize(X[:, 1], [-1.0, 0.0, 1.0])  # codes 0-3 of a categorical feature
    model = HistGradientBoostingClassifier(
        max_iter=6, categorical_features=[1], random_state=0
    ).fit(X, y)
    X_eval = X.copy()
    X_eval[::9, 1] = 7  # an unknown code
    X_eval[::13, 1] = -1  # negative codes are missing values
    tree, generic = _pair(model, X_eval, group)
    assert tree.n_coalitions_ == 0
    _assert_same_explanations(tree, generic)


@pytest.mark.parametrize(
    "make_model, params",
    [
        (lambda: HistGradientBoostingClassifier(max_iter=6, random_state=0), {}),
        (
            lambda: HistGradientBoostingClassifier(max_iter=6, random_state=0),
            {"response_method": "decision_function", "pos_label": 0},
        ),
        (lambda: RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0), {}),
        (
            lambda: HistGradientBoostingClassifier(max_iter=6, random_state=0),
            {"method": "conditional", "feature_groups": [[0, 1], [2], [3, 4]]},
        ),
    ],
)
def test_choice_a_methods_match_generic_path(data, make_model, params):
    # "marginal" and "conditional" need the game on every coalition: the coalition tables.
    X, y, group = data
    X = np.nan_to_num(X)
    model = make_model().fit(X, y)
    params = {"method": "marginal", **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "conditional": dependent groups
        tree, generic = _pair(model, X, group, **params)
    assert tree.n_coalitions_ == 0 and generic.n_coalitions_ > 0
    _assert_same_explanations(tree, generic)
    for part in PARTS:
        np.testing.assert_allclose(
            tree.explanations_[part], generic.explanations_[part], atol=1e-10
        )
        np.testing.assert_allclose(tree.bias_game_[part], generic.bias_game_[part], atol=1e-10)


def test_game_tables_too_large_take_the_generic_path(data, monkeypatch):
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y)
    monkeypatch.setattr(_tree, "_MAX_TABLE_CELLS", 100)
    explainer = BiasExplainer(model, method="marginal", n_background=10, random_state=0)
    assert explainer.fit(X, sensitive_features=group).n_coalitions_ == 2**5 - 2


@pytest.mark.parametrize(
    ("make_model", "reader"),
    [
        (lambda: HistGradientBoostingClassifier(max_iter=5, random_state=0), "hist_baseline"),
        (lambda: HistGradientBoostingClassifier(max_iter=5, random_state=0), "hist_predictors"),
        (
            lambda: HistGradientBoostingClassifier(max_iter=5, random_state=0),
            "hist_known_category_bitsets",
        ),
        (lambda: HistGradientBoostingClassifier(max_iter=5, random_state=0), "loss_inverse_link"),
        (
            lambda: GradientBoostingClassifier(n_estimators=5, random_state=0),
            "gradient_boosting_baseline",
        ),
    ],
)
def test_changed_private_attributes_fall_back_to_the_generic_path(
    data, make_model, reader, monkeypatch
):
    # A scikit-learn release that renames a private attribute must not crash the explainer:
    # it warns and computes the same values from model evaluations.
    from skfair.explain import _tree_adapters

    X, y, group = data
    X = np.nan_to_num(X)
    model = make_model().fit(X, y)
    params = {"n_background": 10, "random_state": 0, "response_method": "predict_proba"}
    tree = BiasExplainer(model, **params).fit(X, sensitive_features=group)

    def renamed(estimator):
        return estimator._attribute_removed_upstream

    monkeypatch.setattr(_tree_adapters, reader, renamed)
    with pytest.warns(UserWarning, match="could not be read.*_attribute_removed_upstream"):
        fallback = BiasExplainer(model, **params).fit(X, sensitive_features=group)
    assert tree.n_coalitions_ == 0 and fallback.n_coalitions_ > 0
    np.testing.assert_allclose(fallback.attributions_, tree.attributions_, atol=1e-10)


def test_forests_read_only_public_attributes(data, monkeypatch):
    # The forest adapter needs no private attribute: with every private reader broken, a
    # random forest still takes the tree path.
    from skfair.explain import _tree_adapters

    X, y, group = data
    X = np.nan_to_num(X)
    model = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    for name in dir(_tree_adapters):
        if not name.startswith("_") and callable(getattr(_tree_adapters, name)):
            monkeypatch.setattr(_tree_adapters, name, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explainer = BiasExplainer(
            model, n_background=10, random_state=0, response_method="predict_proba"
        ).fit(X, sensitive_features=group)
    assert explainer.n_coalitions_ == 0
