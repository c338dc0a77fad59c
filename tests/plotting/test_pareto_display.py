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


@pytest.mark.slow
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


def test_from_predictions_with_a_cost_decreases_and_matches_the_estimator():
    X, y, group = make_data(seed=3)
    binary = (y > 0).astype(int)
    scores = LogisticRegression().fit(X, binary).decision_function(X)
    cost = {"false_positive": 1.0, "false_negative": 3.0}
    tolerances = [0.0, 0.02, 0.05, 0.1, 0.3]
    display = ParetoFrontDisplay.from_predictions(
        binary, scores, sensitive_features=group, objective="cost", cost=cost,
        tolerances=tolerances,
    )
    # the expected cost of each tolerance's rule, refitted, against a groupby of its decisions
    for tolerance, value in zip(tolerances, display.objective_values):
        clf = GroupThresholdClassifier(
            FrozenEstimator(ScoreColumn().fit(scores[:, None], binary)),
            objective="cost", cost=cost, tolerance=tolerance,
        ).fit(scores[:, None], binary, sensitive_features=group)
        p = clf.decision_probability(scores[:, None], sensitive_features=group)
        expected = (1.0 * (p * (binary == 0)).sum() + 3.0 * ((1 - p) * (binary == 1)).sum())
        assert value == pytest.approx(expected / len(binary), abs=1e-12)
    # a cost is minimised: looser tolerances cost less
    assert (np.diff(display.objective_values) <= 1e-12).all()
    assert display.ax_.get_ylabel() == "expected cost"
    plt.close("all")


def test_from_predictions_names_a_misspelt_option():
    X, y, group = make_data()
    binary = (y > 0).astype(int)
    with pytest.raises(ValueError, match=r"constraint='demographic_partiy' is not one of \["):
        ParetoFrontDisplay.from_predictions(
            binary, X[:, 0], sensitive_features=group, constraint="demographic_partiy"
        )
    proba = LogisticRegression().fit(X, y).predict_proba(X)
    with pytest.raises(ValueError, match=r"objective='cost' is not one of \['accuracy'"):
        ParetoFrontDisplay.from_predictions(None, proba, sensitive_features=group, objective="cost")
    with pytest.raises(ValueError, match="cost is an objective of binary decisions"):
        ParetoFrontDisplay.from_predictions(
            None, proba, sensitive_features=group, cost={"false_positive": 1, "false_negative": 1}
        )
    plt.close("all")
