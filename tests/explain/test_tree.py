"""The tree-ensemble path against the generic marginal game (an exact oracle)."""

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

from skfair.explain import BiasExplainer

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


def test_probabilities_take_the_generic_path(data):
    X, y, group = data
    model = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    explainer = BiasExplainer(model, n_background=10, random_state=0).fit(
        X, sensitive_features=group
    )
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
