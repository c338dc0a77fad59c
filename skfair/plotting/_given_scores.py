"""The decision-rule estimators fitted on given scores, for the Displays' ``from_predictions``.

A Display built from predictions shows what the estimator would choose on them: it fits the
estimator itself on the scores (through a fitted "model" that returns them) and reads its
public results, so that the Display and the estimator can never disagree.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from skfair._utils._validation import binarize, check_labels, check_lengths, check_scores
from skfair.postprocessing import GroupThresholdClassifier, MulticlassGroupThresholdClassifier


class _GivenScores(ClassifierMixin, BaseEstimator):
    """A fitted binary 'model' whose decision function is the first column of X."""

    def fit(self, X, y=None):
        self.classes_ = np.array([False, True])
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=np.float64)[:, 0]


class _GivenProbabilities(ClassifierMixin, BaseEstimator):
    """A fitted multi-class 'model' whose class probabilities are the columns of X."""

    def fit(self, X, y=None):
        self.classes_ = np.arange(np.shape(X)[1])
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)

    def predict(self, X):
        return self.predict_proba(X).argmax(axis=1)


def check_option(estimator_class, name, value):
    """A clear error for a misspelt ``constraint`` or ``objective`` of ``estimator_class``."""
    options = sorted(estimator_class._parameter_constraints[name][0].options)
    if value not in options:
        raise ValueError(
            f"{name}={value!r} is not one of {options} (those of {estimator_class.__name__})."
        )


def binary_scores(y_true, y_score, pos_label):
    """The checked scores and the labels as booleans (``pos_label`` the positive class), for
    :func:`binary_rule`."""
    y_score = check_scores(y_score)
    check_lengths(y_true=y_true, y_score=y_score)
    return y_score, binarize(check_labels(y_true, "y_true"), None, pos_label)[0]


def binary_rule(positive, y_score, sensitive_features, sample_weight, **params):
    """:class:`GroupThresholdClassifier` fitted on the scores ``y_score`` of the labels
    ``positive`` (booleans); ``params`` are its constraint, objective, tolerance, cost."""
    for name in ("constraint", "objective"):
        if name in params:
            check_option(GroupThresholdClassifier, name, params[name])
    X = np.asarray(y_score, dtype=np.float64)[:, None]
    rule = GroupThresholdClassifier(
        FrozenEstimator(_GivenScores().fit(X)),
        response_method="decision_function",
        pos_label=True,
        random_state=0,
        **params,
    )
    return rule.fit(X, positive, sample_weight=sample_weight, sensitive_features=sensitive_features)


def multiclass_rule(probabilities, sensitive_features, sample_weight, **params):
    """:class:`MulticlassGroupThresholdClassifier` fitted on class probabilities."""
    for name in ("constraint", "objective"):
        if name in params:
            check_option(MulticlassGroupThresholdClassifier, name, params[name])
    rule = MulticlassGroupThresholdClassifier(
        FrozenEstimator(_GivenProbabilities().fit(probabilities)), random_state=0, **params
    )
    return rule.fit(
        probabilities, sample_weight=sample_weight, sensitive_features=sensitive_features
    )
