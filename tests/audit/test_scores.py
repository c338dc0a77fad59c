"""How the audit reads a model's scores: scikit-learn's response rules, through one helper."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from skfair._audit import AuditContext
from skfair._audit._context import _predict
from skfair._audit._sections import repair_section, summary_section
from skfair._audit._text import section_body_text


def data(n=600, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.5, size=n), [-0.5, 0.5][: n_classes - 1])
    return X, np.asarray(["no", "yes", "maybe"])[y]


def test_favourable_first_class_reads_the_negated_decision_function():
    X, y = data()
    model = LinearSVC().fit(X, y)  # classes_ = ['no', 'yes']
    y_pred, y_score, reason = _predict(model, X, positive_label="no")
    assert reason is None
    np.testing.assert_array_equal(y_score, -model.decision_function(X))
    np.testing.assert_array_equal(y_pred, model.predict(X) == "no")


def test_multi_class_probabilities_read_the_favourable_column():
    X, y = data(n_classes=3)
    model = LogisticRegression().fit(X, y)
    column = list(model.classes_).index("yes")
    _, y_score, reason = _predict(model, X, positive_label="yes")
    assert reason is None
    np.testing.assert_array_equal(y_score, model.predict_proba(X)[:, column])


def test_multi_class_decision_function_gives_no_scores_and_says_why():
    X, y = data(n_classes=3)
    model = LinearSVC().fit(X, y)
    y_pred, y_score, reason = _predict(model, X, positive_label="yes")
    assert y_score is None and "multi-class" in reason
    context = AuditContext(
        model=model,
        X_test=X,
        y_test=(y == "yes").astype(int),
        y_pred=y_pred,
        y_score=None,
        sensitive={"g": X[:, 1] > 0},
        description={"scores": f"none: {reason}"},
    )
    assert "decision_function of a multi-class model" in section_body_text(summary_section(context))


class NaNScores(ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities are NaN on some rows."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[1])

    def predict_proba(self, X):
        proba = np.full((len(X), 2), 0.5)
        proba[::7] = np.nan
        return proba


def test_non_finite_scores_are_not_passed_on():
    # The audit used to pass NaN scores into every score section.
    X, y = data()
    model = NaNScores().fit(X, y)
    _, y_score, reason = _predict(model, X, positive_label="yes")
    assert y_score is None and "NaN or infinite" in reason


@pytest.mark.parametrize("model_class", [LogisticRegression, LinearSVC])
def test_repair_thresholds_at_the_auto_threshold_of_the_score(model_class):
    # scikit-learn's threshold="auto": 0.5 on probabilities, 0.0 on decision values.
    X, y = data(n=2000)
    model = model_class().fit(X, y)
    y_pred, y_score, _ = _predict(model, X, positive_label="yes")
    context = AuditContext(
        model=model,
        X_test=X,
        y_test=(y == "yes").astype(int),
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"g": np.where(X[:, 2] > 0, "a", "b")},
        positive_label="yes",
    )
    section = repair_section(context)
    threshold = 0.5 if model_class is LogisticRegression else 0.0
    assert f"thresholded at {threshold}" in section.notes[0]
