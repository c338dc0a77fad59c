"""The threshold of least cost of a best response's score, against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import FixedThresholdClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from skfair.reductions import ExponentiatedGradient, GridSearch
from skfair.reductions._response_threshold import (
    best_cut,
    cell_histogram,
    cut_table,
    score_bins,
    thresholded,
)


class Scores(ClassifierMixin, BaseEstimator):
    """A fitted 'model' whose probability of class 1 is the first column of X."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=np.float64)[:, 0]
        return np.c_[1 - p, p]


def decisions_at(score, cut):
    """Brute force: the rows decided positive at cut ``k``: every row at 0, none at 1024,
    else the rows whose probability is at least ``k / 1024``."""
    if cut in (0, 1024):
        return np.full(score.shape[0], cut == 0)
    return score >= cut / 1024


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    n_groups=st.integers(1, 4),
    coarse=st.booleans(),
)
def test_the_cut_is_the_least_costly_threshold_and_the_member_decides_as_its_table(
    seed, n, n_groups, coarse
):
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    if coarse:  # ties, and scores exactly on thresholds
        score = np.round(score * 16) / 16
    group, y = rng.integers(0, n_groups, n), rng.integers(0, 2, n)
    weight = rng.exponential(size=n)
    cost = rng.normal(size=(n_groups, 2, 2))
    cells = group * 2 + y
    model = Scores().fit(None, None)
    bins = score_bins(model, score[:, None], "predict_proba")
    histogram = cell_histogram(cells, bins, weight, n_groups * 2)
    cut = best_cut(histogram, cost)

    def total(positive):
        return np.sum(weight * np.where(positive, cost[group, y, 1], cost[group, y, 0]))

    brute = [total(decisions_at(score, k)) for k in range(1025)]
    assert total(decisions_at(score, cut)) <= min(brute) + 1e-9 * np.sum(np.abs(cost)) * n
    # the table of the cut is the groupby of its decisions
    positive = decisions_at(score, cut)
    table = np.zeros((n_groups, 2, 2))
    np.add.at(table, (group, y, positive.astype(int)), weight)
    np.testing.assert_allclose(cut_table(histogram, cut, table.shape), table, atol=1e-9)
    if 0 < cut < 1024:
        member = thresholded(model, "predict_proba", cut, np.array([0, 1]))
        np.testing.assert_array_equal(member.predict(score[:, None]), positive.astype(int))


def test_ties_keep_the_learners_own_threshold():
    """With no cost to choose between thresholds, the cut is the learner's own (1/2)."""
    model = Scores().fit(None, None)
    score = np.array([0.1, 0.3, 0.7, 0.9])
    bins = score_bins(model, score[:, None], "predict_proba")
    histogram = cell_histogram(np.zeros(4, np.intp), bins, None, 2)
    assert best_cut(histogram, np.zeros((1, 2, 2))) == 512


@pytest.mark.parametrize(
    ("reduction", "method"),
    [
        (ExponentiatedGradient(LogisticRegression(), eps=0.02, random_state=0), "predict_proba"),
        (ExponentiatedGradient(LinearSVC(), eps=0.02, random_state=0), "decision_function"),
        (GridSearch(LogisticRegression(), eps=0.02), "predict_proba"),
    ],
    ids=["EG-probability", "EG-decision", "GridSearch"],
)
def test_members_decide_as_the_reported_tables_say(two_groups, reduction, method):
    """Each member's decisions on the fitting rows (a groupby, independent of the game's
    tables) give the error the fit reports; the fits are cut on their probability (else
    their decision function), some away from the learner's own threshold, and the
    unconstrained fit is the learner as it is."""
    X, y, group = two_groups
    model = reduction.fit(X, y, sensitive_features=group)
    errors = [np.mean(member.predict(X) != y) for member in model.predictors_]
    np.testing.assert_allclose(errors, model.objectives_, atol=1e-12)
    cut = [m for m in model.predictors_ if isinstance(m, FixedThresholdClassifier)]
    assert cut and all(m.response_method == method for m in cut)
    own = 0.5 if method == "predict_proba" else 0.0
    assert any(m.threshold != own for m in cut)
    learner = type(reduction.estimator)
    assert any(type(m) is learner for m in model.predictors_)  # the unconstrained fit


@pytest.mark.parametrize("reduction", [ExponentiatedGradient, GridSearch])
def test_response_threshold_auto_cuts_linear_classifiers_only(two_groups, reduction):
    """``"auto"`` cuts the fits of a scikit-learn linear classifier (by probability, by
    decision function, as a pipeline's last step), whose training scores carry over to new
    rows, and leaves a tree's at its own threshold;
    ``"least_cost"`` and ``"own"`` force either choice; the members are then the learner's
    fits themselves, which decide as the reported errors say."""
    X, y, group = two_groups

    def fitted(estimator, response_threshold):
        return reduction(estimator, eps=0.02, response_threshold=response_threshold).fit(
            X, y, sensitive_features=group
        )

    def cut(model):
        return [m for m in model.predictors_ if isinstance(m, FixedThresholdClassifier)]

    tree = DecisionTreeClassifier(max_depth=4, random_state=0)
    for linear in (
        make_pipeline(StandardScaler(), LogisticRegression()),
        SGDClassifier(random_state=0),
    ):
        assert cut(fitted(linear, "auto"))
    assert cut(fitted(tree, "least_cost"))
    for model in (fitted(tree, "auto"), fitted(LogisticRegression(), "own")):
        assert not cut(model)
        errors = [np.mean(member.predict(X) != y) for member in model.predictors_]
        np.testing.assert_allclose(errors, model.objectives_, atol=1e-12)


def test_response_threshold_is_validated(two_groups):
    X, y, group = two_groups
    with pytest.raises(ValueError, match="response_threshold"):
        ExponentiatedGradient(LogisticRegression(), response_threshold="half").fit(
            X, y, sensitive_features=group
        )
