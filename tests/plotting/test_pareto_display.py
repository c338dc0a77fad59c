import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.frozen import FrozenEstimator  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfair.plotting import ParetoFrontDisplay  # noqa: E402
from skfair.postprocessing import (  # noqa: E402
    GroupThresholdClassifier,
    MulticlassGroupThresholdClassifier,
    threshold_pareto_front,
)


class ScoreColumn(ClassifierMixin, BaseEstimator):
    """A 'model' whose decision function is the first column of X."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def make_data(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=n)]
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n), [0.0, 1.0])
    return X, y, group


def test_from_estimator_draws_the_front_of_threshold_pareto_front():
    X, y, group = make_data()
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    clf = MulticlassGroupThresholdClassifier(model).fit(X, sensitive_features=group)
    display = ParetoFrontDisplay.from_estimator(
        clf, X, sensitive_features=group, tolerances=[0.0, 0.05, 0.1]
    )
    front = threshold_pareto_front(clf, X, sensitive_features=group, tolerances=[0.0, 0.05, 0.1])
    np.testing.assert_allclose(display.line_.get_xdata(), front.constraint_gaps)
    np.testing.assert_allclose(display.line_.get_ydata(), front.objective_values)
    assert display.ax_.get_xlabel() == "demographic-parity gap"
    legend = display.ax_.get_legend().get_texts()[0].get_text()
    assert legend == "MulticlassGroupThresholdClassifier"
    plt.close("all")


def test_from_predictions_binary_and_multiclass():
    X, y, group = make_data()
    binary = (y > 0).astype(int)
    scores = LogisticRegression().fit(X, binary).decision_function(X)
    display = ParetoFrontDisplay.from_predictions(
        binary, scores, sensitive_features=group, constraint="equalized_odds",
        tolerances=[0.0, 0.1],
    )
    clf = GroupThresholdClassifier(
        FrozenEstimator(ScoreColumn().fit(scores[:, None], binary)), constraint="equalized_odds"
    ).fit(scores[:, None], binary, sensitive_features=group)
    front = threshold_pareto_front(clf, scores[:, None], binary, sensitive_features=group,
                                   tolerances=[0.0, 0.1])
    np.testing.assert_allclose(display.objective_values, front.objective_values)
    proba = LogisticRegression().fit(X, y).predict_proba(X)
    _, ax = plt.subplots()
    multi = ParetoFrontDisplay.from_predictions(
        None, proba, sensitive_features=group, constraint="equalized_odds", ax=ax, name="lr"
    )
    assert multi.ax_ is ax
    assert multi.line_.get_xdata().shape == (21,)
    assert multi.constraint_gaps[0] <= 1e-9
    with pytest.raises(ValueError, match="class probabilities"):
        ParetoFrontDisplay.from_predictions(None, proba * 2, sensitive_features=group)
    plt.close("all")
