"""threshold_pareto_front: each point is the estimator refitted at that tolerance, computed
without refitting (or rescoring) the model."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from skfair.postprocessing import (
    GroupThresholdClassifier,
    MulticlassGroupThresholdClassifier,
    threshold_pareto_front,
)


class CountingModel(ClassifierMixin, BaseEstimator):
    """Class probabilities from the first columns of X, counting the calls."""

    def __init__(self, n_classes=3):
        self.n_classes = n_classes

    def fit(self, X, y=None):
        self.classes_ = np.arange(self.n_classes)
        self.calls_ = 0
        return self

    def predict_proba(self, X):
        self.calls_ += 1
        return np.asarray(X, dtype=float)[:, : self.n_classes]


def multiclass_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) * 1.5 + rng.normal(size=(3, 3))[group]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return np.c_[proba, np.arange(n)], group


def binary_data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 3, n)
    X = np.c_[rng.normal(size=n) + 0.5 * group, rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.8).astype(int)
    return X, y, group


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
@pytest.mark.parametrize("objective", ["accuracy", "balanced_accuracy"])
def test_multiclass_front_matches_refits_and_scores_once(constraint, objective):
    X, group = multiclass_data()
    model = CountingModel().fit(X)
    clf = MulticlassGroupThresholdClassifier(
        FrozenEstimator(model), constraint=constraint, objective=objective
    ).fit(X, sensitive_features=group)
    model.calls_ = 0
    tolerances = [0.0, 0.02, 0.05, 0.1, 0.3]
    front = threshold_pareto_front(clf, X, sensitive_features=group, tolerances=tolerances)
    assert model.calls_ == 1
    assert (front.constraint, front.objective) == (constraint, objective)
    np.testing.assert_array_equal(front.tolerances, tolerances)
    for tolerance, value, gap in zip(tolerances, front.objective_values, front.constraint_gaps):
        refit = clone(clf).set_params(tolerance=tolerance).fit(X, sensitive_features=group)
        assert value == pytest.approx(refit.objective_value_, abs=1e-9)
        assert gap <= tolerance + 1e-9
    assert np.all(np.diff(front.objective_values) >= -1e-12)


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
def test_binary_front_matches_refits(constraint):
    X, y, group = binary_data()
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    clf = GroupThresholdClassifier(model, constraint=constraint, random_state=0)
    clf.fit(X, y, sensitive_features=group)
    front = threshold_pareto_front(clf, X, y, sensitive_features=group)
    assert front.tolerances.shape == (21,)
    assert front.tolerances[0] == 0.0
    for tolerance, value, gap in zip(front.tolerances, front.objective_values,
                                     front.constraint_gaps):
        refit = clone(clf).set_params(tolerance=tolerance).fit(X, y, sensitive_features=group)
        assert value == pytest.approx(refit.objective_value_, abs=1e-9)
        assert gap == pytest.approx(refit.constraint_gap_, abs=1e-9)
        assert gap <= tolerance + 1e-9
    # the last default tolerance is the unconstrained gap: the unconstrained optimum
    free = clone(clf).set_params(tolerance=1.0).fit(X, y, sensitive_features=group)
    assert front.objective_values[-1] == pytest.approx(free.objective_value_, abs=1e-9)
    assert front.tolerances[-1] == pytest.approx(free.constraint_gap_, abs=1e-9)
    assert np.all(np.diff(front.objective_values) >= -1e-12)


def test_front_in_sensitive_column_mode_and_errors():
    X, y, group = binary_data()
    Xs = np.c_[X, group]
    clf = GroupThresholdClassifier(LogisticRegression(), sensitive_column=2, random_state=0)
    clf.fit(Xs, y)
    front = threshold_pareto_front(clf, Xs, y, tolerances=[0.05, 0.0])
    np.testing.assert_array_equal(front.tolerances, [0.0, 0.05])  # sorted
    with pytest.raises(ValueError, match="y is required"):
        threshold_pareto_front(clf, Xs)
    with pytest.raises(ValueError, match="non-negative"):
        threshold_pareto_front(clf, Xs, y, tolerances=[-0.1])
    with pytest.raises(Exception, match="not fitted"):
        threshold_pareto_front(clone(clf), Xs, y)


def test_dask_input_is_refused_at_once():
    import dask.array as da
    X, y, group = binary_data()
    clf = GroupThresholdClassifier(LogisticRegression(), random_state=0)
    clf.fit(X, y, sensitive_features=group)
    with pytest.raises(TypeError, match="compute"):
        threshold_pareto_front(clf, da.from_array(X, chunks=500), y, sensitive_features=group)
