"""Data and an exact base learner shared by the reductions tests."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin


class BestThreshold(ClassifierMixin, BaseEstimator):
    """The exact weighted 0-1 loss minimiser among the threshold classifiers of X[:, 0].

    The hypothesis class is ``1[x >= t]`` and ``1[x < t]`` for every threshold t (constants
    included), so it is a true oracle for weighted classification: the game's guarantees hold
    without the oracle assumption.
    """

    def fit(self, X, y, sample_weight=None):
        x = np.asarray(X, dtype=float)[:, 0]
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        positive = y == self.classes_[-1]
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        candidates = thresholds(x)
        below = x[None, :] < candidates[:, None]  # (n_thresholds, n_samples)
        # error of 1[x >= t]: positives below t, negatives at or above t
        up = (below * positive * w).sum(1) + (~below * ~positive * w).sum(1)
        down = w.sum() - up
        # Errors equal up to rounding are ties, broken by the first threshold: summing the
        # same weights in another order (repeated rows) must not change the answer.
        errors = np.round(np.concatenate([up, down]) / w.sum(), 12)
        best = int(np.argmin(errors))
        self.threshold_ = candidates[best % len(candidates)]
        self.direction_ = 1 if best < len(candidates) else -1
        return self

    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        above = x >= self.threshold_
        positive = above if self.direction_ == 1 else ~above
        return np.where(positive, self.classes_[-1], self.classes_[0])


def thresholds(x):
    """Every distinct split of x, and the two constants (-inf, +inf)."""
    values = np.unique(x)
    return np.concatenate([[-np.inf], values, [np.inf]])


def threshold_predictions(x):
    """Decisions of every threshold classifier of x, shape (n_hypotheses, n_samples)."""
    candidates = thresholds(x)
    above = x[None, :] >= candidates[:, None]
    return np.concatenate([above, ~above]).astype(int)


@pytest.fixture
def two_groups():
    """Binary task whose features carry the group (a constraint costs accuracy)."""
    rng = np.random.default_rng(0)
    n = 1500
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + 0.8 * group, rng.normal(size=n), group]
    y = (X[:, 0] + 0.5 * X[:, 1] + (1 + group) * rng.normal(size=n) > 0.6).astype(int)
    return X, y, group


@pytest.fixture
def three_groups():
    rng = np.random.default_rng(1)
    n = 1800
    group = rng.integers(0, 3, n)
    sex = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + 0.6 * group - 0.4 * sex, rng.normal(size=n), group, sex]
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0.7).astype(int)
    return X, y, group, sex
